package batch

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/patches"
)

// imageExts are the extensions of the image files taken from a directory,
// as in the spca command.
var imageExts = patches.Extensions()

// isLocal reports whether p is a path of the local file system rather
// than a URL of another Beam file system (gs://, s3://, ...).
func isLocal(p string) bool { return !strings.Contains(p, "://") }

// joinPath joins a directory and a slash-separated relative path, for
// local paths and URLs alike.
func joinPath(dir, rel string) string {
	if isLocal(dir) {
		return filepath.Join(dir, filepath.FromSlash(rel))
	}
	return strings.TrimSuffix(dir, "/") + "/" + rel
}

// hasMeta reports whether p is a glob pattern.
func hasMeta(p string) bool { return strings.ContainsAny(p, "*?[") }

// readFile reads a file through Beam's file systems.
func readFile(ctx context.Context, p string) ([]byte, error) {
	if isLocal(p) {
		// A device or a pipe (an input /dev/zero) would be read until
		// the worker ran out of memory.
		if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			return nil, fmt.Errorf("not a regular file")
		}
		return os.ReadFile(p)
	}
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	return filesystem.Read(ctx, fsys, p)
}

// writeFile writes a file atomically: locally through a temporary file
// renamed over p, on object stores by one upload committed on close.
// Local parent directories are created.
func writeFile(ctx context.Context, p string, write func(w io.Writer) error) error {
	if isLocal(p) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return atomicfile.Write(p, write)
	}
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return err
	}
	defer fsys.Close()
	w, err := fsys.OpenWrite(ctx, p)
	if err != nil {
		return err
	}
	if err := write(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// exists reports whether the file p exists.
func exists(ctx context.Context, p string) bool {
	if isLocal(p) {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return false
	}
	defer fsys.Close()
	_, err = fsys.Size(ctx, p)
	return err == nil
}

// inputExts returns the extensions of the files op takes from a
// directory.
func inputExts(op Op) []string {
	if op == Decode {
		return []string{".spc"}
	}
	return imageExts
}

// match is an input file and its path relative to where it was found.
type match struct{ path, rel string }

// expand returns the files named by spec: the files of a glob, the input
// files under a local directory (recursively, hidden ones and the
// directory out excluded), or spec itself. A glob matching nothing, or
// a missing file, is returned as is so that its error is reported for it.
func expand(ctx context.Context, spec string, op Op, out string) ([]match, error) {
	if hasMeta(spec) {
		fsys, err := filesystem.New(ctx, spec)
		if err != nil {
			return nil, err
		}
		defer fsys.Close()
		files, err := fsys.List(ctx, spec)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return []match{{spec, base(spec)}}, nil
		}
		root := globRoot(spec)
		ms := make([]match, len(files))
		for i, f := range files {
			rel := strings.TrimPrefix(f, root)
			if rel == f || rel == "" {
				rel = base(f)
			}
			ms[i] = match{f, filepath.ToSlash(rel)}
		}
		return ms, nil
	}
	if isLocal(spec) {
		if fi, err := os.Stat(spec); err == nil && fi.IsDir() {
			// A directory without inputs is the user's mistake (PGM
			// photos were not taken, and the job did nothing, exit 0).
			exts := inputExts(op)
			ms, err := walk(spec, exts, out)
			if err == nil && len(ms) == 0 {
				return nil, fmt.Errorf("no input files (%s) in the directory", strings.Join(exts, ", ")) // the record names spec
			}
			return ms, err
		}
	}
	return []match{{spec, base(spec)}}, nil
}

// walk returns the files with one of the extensions exts under dir,
// skipping hidden files and directories and the directory skip.
func walk(dir string, exts []string, skip string) ([]match, error) {
	skipAbs, _ := filepath.Abs(skip)
	var ms []match
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if abs, _ := filepath.Abs(p); abs == skipAbs && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || !d.Type().IsRegular() ||
			!slices.Contains(exts, strings.ToLower(filepath.Ext(name))) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		ms = append(ms, match{p, filepath.ToSlash(rel)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", dir, err)
	}
	return ms, nil
}

// globRoot returns the directory part of a glob before its first
// pattern character, with its trailing separator.
func globRoot(glob string) string {
	i := strings.IndexAny(glob, "*?[")
	j := strings.LastIndex(glob[:i], "/")
	if j < 0 {
		return ""
	}
	return glob[:j+1]
}

// base returns the last element of a path or URL.
func base(p string) string {
	if isLocal(p) {
		return filepath.Base(p)
	}
	return path.Base(p)
}

// withExt replaces the extension of the slash-separated path rel.
func withExt(rel, ext string) string {
	return strings.TrimSuffix(rel, path.Ext(rel)) + ext
}
