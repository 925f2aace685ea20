package main

import (
	"path/filepath"
	"testing"
)

// TestCodecTrainQuiet checks that codec train prints nothing with --quiet
// (and its summary without): the other tests run it without --quiet, and
// a summary printed whatever --quiet said passed them.
func TestCodecTrainQuiet(t *testing.T) {
	dir := t.TempDir()
	saveTexture(t, filepath.Join(dir, "a.png"), 1)
	args := []string{"codec", "train", "--images", dir, "--patch", "2", "--samples", "300", "--bins", "30",
		"--resolution", "1024", "--out", filepath.Join(t.TempDir(), "m.model")}
	if stdout, stderr := mustRun(t, append(args, "--quiet")...); stdout != "" || stderr != "" {
		t.Errorf("codec train --quiet printed %q and %q", stdout, stderr)
	}
	if _, stderr := mustRun(t, args...); stderr == "" {
		t.Error("codec train printed no summary")
	}
}
