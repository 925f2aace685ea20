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
	group   *group
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
	if st.IsDir() {
		// "write DIR is not a regular file" read as a garbled sentence to
		// a user who gave -o DIR to a command that writes one file.
		return nil, fmt.Errorf("%s: it is a directory, %w", path, ErrNotRegular)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	state.Lock()
	defer state.Unlock()
	for _, in := range state.inputs {
		if os.SameFile(st, in) {
			return nil, fmt.Errorf("%s: %w", path, ErrSameAsInput)
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
// fails, the temporary file is removed and the file at path is left
// untouched. An error of the file itself (creating, writing, syncing,
// renaming it) is returned wrapped as "write path: ..."; an error of write
// that is not one of the file's is returned unchanged: it is the fault of
// what write produces (a model, an image), which the caller names, not of
// the output. A destination that is not
// a regular file, or is an input (Protect), is refused before anything is
// written. Within a Group, the sync and the rename wait for the group's
// commit.
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
	produced := false // err is write's, not the file's
	defer func() {
		if tmp == "" {
			return // waits in a group
		}
		state.Lock()
		delete(state.temps, tmp)
		state.Unlock()
		if err != nil {
			f.Close() // may already be closed; the error is moot then
			os.Remove(tmp)
			if !produced {
				err = fmt.Errorf("write %s: %w", path, err)
			}
		}
	}()

	fw := &fileWriter{f: f}
	bw := bufio.NewWriter(fw)
	if err = write(bw); err != nil {
		// A write to the file that failed is the file's error, whatever
		// write made of it.
		produced = fw.err == nil
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	state.Lock()
	if g := state.group; g != nil {
		// Synced and renamed by the group's commit, which removes the
		// temporary file if that fails.
		g.pending = append(g.pending, pending{f: f, tmp: tmp, path: path, old: old})
		full := len(g.pending) >= g.max
		state.Unlock()
		tmp = "" // not forgotten by the deferred function
		if full {
			return commit()
		}
		return nil
	}
	state.Unlock()
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return rename(tmp, path, old)
}

// fileWriter writes to f and keeps the first error of f. The error is
// the reason alone, without the temporary file's name: Write names path.
type fileWriter struct {
	f   *os.File
	err error
}

func (w *fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if w.err == nil {
			w.err = err
		}
	}
	return n, err
}

// rename gives tmp the mode (and, where allowed, the owner) of old, or
// 0644 if nil, and renames it over path, checking path again.
func rename(tmp, path string, old os.FileInfo) error {
	mode := os.FileMode(0o644)
	if old != nil {
		mode = old.Mode().Perm()
		keepOwner(tmp, old)
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	// The destination may have changed during write: check again.
	if _, err := destination(path); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// pending is a Write of a group waiting for its commit: its temporary
// file written, flushed and still open.
type pending struct {
	f         *os.File
	tmp, path string
	old       os.FileInfo
}

// group is the Writes waiting for their commit (Group).
type group struct {
	max     int
	pending []pending
}

// Group makes the process's later Writes sync their files together,
// for a command writing many files: each Write leaves its complete
// temporary file in place, and Commit — called by Write itself once max
// files wait, and by the caller after the last — syncs them all with one
// call (syncfs(2) of their file system on Linux; an fsync of each
// elsewhere) and only then renames each over its path, in the order
// written. The guarantee of Write is kept (a crash leaves each
// destination old or complete, never partial), but a file appears at
// its path only at the commit, and an error of the sync or of a rename is
// returned by the Write or Commit that commits. An fsync per file cost
// ~0.5 ms of CPU per 400 KB file on ext4 (spca decode of 12 images to
// PGM: 0.75-1.4 ms per image, 6-10 % of it); one syncfs per 12 files, the
// cost of no sync at all (README, issue 24). Group with max < 1 ends the
// grouping after committing what waits.
func Group(max int) error {
	err := commit()
	state.Lock()
	defer state.Unlock()
	state.group = nil
	if max >= 1 {
		state.group = &group{max: max}
	}
	return err
}

// Commit syncs and renames the files written since the last commit of
// the group (Group); it does nothing outside a group. The files that
// fail are left untouched at their paths, their temporary files removed;
// the errors name their paths.
func Commit() error { return commit() }

func commit() error {
	state.Lock()
	g := state.group
	if g == nil || len(g.pending) == 0 {
		state.Unlock()
		return nil
	}
	ps := g.pending
	g.pending = nil
	state.Unlock()
	syncErr := syncFiles(ps)
	var errs []error
	for _, p := range ps {
		err := p.f.Close()
		if err == nil {
			err = syncErr
		}
		if err == nil {
			err = rename(p.tmp, p.path, p.old)
		}
		state.Lock()
		delete(state.temps, p.tmp)
		state.Unlock()
		if err != nil {
			os.Remove(p.tmp)
			errs = append(errs, fmt.Errorf("write %s: %w", p.path, err))
		}
	}
	return errors.Join(errs...)
}
