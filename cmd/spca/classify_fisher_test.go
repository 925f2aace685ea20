package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClassifyFisher checks --metric spca-fisher end to end on moons5d:
// train reports the ratio, the file is version 4 and spca info shows the
// frame's weights.
func TestClassifyFisher(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "train.csv"), filepath.Join(dir, "fisher.knn")
	mustRun(t, "synth", "moons5d", "--n", "120", "--seed", "1", "-o", data)
	_, stderr := mustRun(t, "classify", "train", "--in", data, "--metric", "spca-fisher", "--gamma", "0", "-o", model)
	if !strings.Contains(stderr, "spca-fisher") || !strings.Contains(stderr, ", ratio ") {
		t.Errorf("classify train: %q, want the metric and its ratio", stderr)
	}
	stdout, _ := mustRun(t, "info", model)
	for _, want := range []string{"format version  4", "metric          spca-fisher", "frame           weights "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("spca info lacks %q:\n%s", want, stdout)
		}
	}
}
