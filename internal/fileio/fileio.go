// Package fileio holds the file handling shared by the packages' Load
// functions: each format has a Read(io.Reader), and loading a file is
// opening it, reading it and naming the file in the error.
package fileio

import (
	"fmt"
	"io"
	"os"
)

// Read opens the file at path and returns read's result on it. An error
// opening the file is returned as is (it names the path); an error from
// read is wrapped as "path: error", so errors.As still finds typed format
// errors.
func Read[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
