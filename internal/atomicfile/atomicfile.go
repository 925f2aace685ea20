package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

var (
	// ErrNotRegular is returned, wrapped, by Write and Check for a
	// destination that exists and is not a regular file (a FIFO, a device,
	// a directory, a socket): it is never replaced.
	ErrNotRegular = errors.New("not a regular file, refusing to replace it")
	// ErrSameAsInput is returned, wrapped, by Write and Check for a
	// destination that is the same file (device and inode) as one
	// registered with Protect.
	ErrSameAsInput = errors.New("the same file as an input, refusing to replace it")
	// ErrAborted is returned by Write after Abort.
	ErrAborted = errors.New("aborted")
)

// state is the process-wide registry of inputs and temporary files.
var state struct {
	sync.Mutex
	inputs  []os.FileInfo
	temps   map[string]bool
	aborted bool
}

// Protect registers the existing files among paths as inputs: Write and
// Check then refuse to replace any of them, under whatever name (the
// comparison is os.SameFile: device and inode). Paths that do not exist
// are ignored. Reset forgets them.
func Protect(paths ...string) {
	state.Lock()
	defer state.Unlock()
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			state.inputs = append(state.inputs, st)
		}
	}
}

// Reset forgets the inputs registered with Protect.
func Reset() {
	state.Lock()
	state.inputs = nil
	state.Unlock()
}

// Abort removes every temporary file of a Write in progress and makes
// later Writes fail with ErrAborted: what a signal handler calls before
// the process exits, so that a killed run leaves no temporary files.
func Abort() {
	state.Lock()
	defer state.Unlock()
	state.aborted = true
	for tmp := range state.temps {
		os.Remove(tmp)
	}
	state.temps = nil
}

// destination checks what is at path, if anything, and returns it (nil
// if nothing).
func destination(path string) (os.FileInfo, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %w", path, ErrNotRegular)
	}
	state.Lock()
	defer state.Unlock()
	for _, in := range state.inputs {
		if os.SameFile(st, in) {
			return nil, fmt.Errorf("%s is %w", path, ErrSameAsInput)
		}
	}
	return st, nil
}

// Check tells before any long work whether Write could replace path: it
// must not be an input (Protect) nor anything but a regular file, and its
// directory must let a file be created (probed by creating and removing
// one). An existing directory at path is checked for the creation of
// files in it, for commands that write several files into it.
func Check(path string) error {
	dir := filepath.Dir(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		dir = path
	} else if _, err := destination(path); err != nil {
		return fmt.Errorf("write %w", err)
	}
	// A missing directory is made by the writer (MkdirAll): probe the
	// nearest one that exists.
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	f, err := os.CreateTemp(dir, ".spca-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("write %s: cannot create a file in %s: %w", path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// Write replaces the file at path with the bytes produced by write.
//
// write receives a buffered writer on a temporary file created in the same
// directory as path; Write flushes it, syncs the file, gives it the mode
// (and, where allowed, the owner) of the file it replaces, or 0644 for a
// new file, and renames it over path. If write or any of these steps
// fails, the temporary file is removed, the file at path is left untouched
// and the error is returned wrapped with path. A destination that is not
// a regular file, or is an input (Protect), is refused before anything is
// written.
func Write(path string, write func(w io.Writer) error) (err error) {
	old, err := destination(path)
	if err != nil {
		return fmt.Errorf("write %w", err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	state.Lock()
	if state.aborted {
		state.Unlock()
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, ErrAborted)
	}
	if state.temps == nil {
		state.temps = map[string]bool{}
	}
	state.temps[tmp] = true
	state.Unlock()
	defer func() {
		state.Lock()
		delete(state.temps, tmp)
		state.Unlock()
		if err != nil {
			f.Close() // may already be closed; the error is moot then
			os.Remove(tmp)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()

	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if old != nil {
		mode = old.Mode().Perm()
		keepOwner(tmp, old)
	}
	if err = os.Chmod(tmp, mode); err != nil {
		return err
	}
	// The destination may have changed during write: check again.
	if _, err = destination(path); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
