// Package fileio holds the file handling shared by the packages' Load
// functions: each format has a Read(io.Reader), and loading a file is
// opening it, reading it and naming the file in the error.
package fileio

import (
	"bytes"
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

// ReadAllSized is io.ReadAll of at most limit bytes, prefix (read from rd
// already) and the rest of rd, into a buffer of the reader's size when it
// tells it (a regular file, a bytes.Reader): growing the buffer of a
// 6 MB codec model by doubling cleared and copied twice its size, and
// io.ReadAll of a 31.6 MB adaptation model allocated 138 MB, whose fresh
// pages cost 0.5 s to fault in on a virtual machine. A file is taken to be
// read from its start (its size includes prefix); one that grew is read
// whole, up to limit. For a reader that does not tell its size (a stream)
// it returns nil and reads nothing.
func ReadAllSized(rd io.Reader, limit int64, prefix []byte) ([]byte, error) {
	size := int64(-1)
	switch r := rd.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size() // prefix included: read from the start
		}
	case interface{ Len() int }:
		size = int64(len(prefix) + r.Len())
	}
	if size < 0 {
		return nil, nil // for the caller's stream reader
	}
	if size >= limit {
		return io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(prefix), rd), limit))
	}
	// One byte more than the size, so that a file that grew is read whole
	// (and a ReadFull of the size alone would miss it).
	b := append(make([]byte, 0, max(size, int64(len(prefix)))+1), prefix...)
	for {
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			rest, err := io.ReadAll(io.LimitReader(rd, limit-int64(len(b))))
			if err != nil {
				return nil, err
			}
			return append(b, rest...), nil
		}
	}
}
