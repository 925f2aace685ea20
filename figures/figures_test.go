package figures

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestQuick runs every figure with Quick into a temporary directory and
// checks that every file is produced, every CSV parses with finite
// numbers and every table has finite values.
func TestQuick(t *testing.T) {
	dir := t.TempDir()
	rep, err := Run(Config{Out: dir, Quick: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Figures) != len(Names()) {
		t.Fatalf("%d figures, want %d", len(rep.Figures), len(Names()))
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Figures {
		if len(f.Tables) == 0 {
			t.Errorf("%s: no table", f.Name)
		}
		for _, tb := range f.Tables {
			if len(tb.Rows) == 0 {
				t.Errorf("%s: table %q has no rows", f.Name, tb.Name)
			}
			for _, r := range tb.Rows {
				if len(r.Ours) != len(tb.Columns) {
					t.Errorf("%s: table %q row %q has %d values for %d columns", f.Name, tb.Name, r.Label, len(r.Ours), len(tb.Columns))
				}
				for _, v := range r.Ours {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("%s: table %q row %q: non-finite %v", f.Name, tb.Name, r.Label, v)
					}
				}
			}
		}
		kinds := map[string]bool{}
		for _, name := range f.Files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("%s: %v", f.Name, err)
				continue
			}
			if len(b) == 0 {
				t.Errorf("%s: %s is empty", f.Name, name)
			}
			ext := filepath.Ext(name)
			kinds[ext] = true
			if ext == ".png" && !strings.Contains(string(readme), "("+name+")") {
				t.Errorf("README.md does not embed %s", name)
			}
			if ext == ".csv" {
				checkCSV(t, name, b)
			}
		}
		for _, ext := range []string{".png", ".svg", ".csv"} {
			if !kinds[ext] {
				t.Errorf("%s: no %s file", f.Name, ext)
			}
		}
	}
}

func checkCSV(t *testing.T, name string, b []byte) {
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if len(recs) < 2 {
		t.Errorf("%s: no data rows", name)
	}
	for _, rec := range recs[1:] {
		for _, s := range rec[2:] {
			if s == "" {
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: bad number %q", name, s)
				return
			}
		}
	}
}

// A missing or image-less --images directory failed only when the coding
// figure was reached, after the figures before it (minutes in a full run).
// It is refused before any figure is built.
func TestImagesCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, images := range []string{filepath.Join(dir, "nope"), empty} {
		out := filepath.Join(dir, "out")
		_, err := Run(Config{Out: out, Images: images, Only: []string{"gamma", "independence"}, Quick: true, Seed: 1})
		if err == nil || !strings.Contains(err.Error(), images) {
			t.Errorf("--images %s: got %v, want an error naming it", images, err)
		}
		if _, err := os.Stat(filepath.Join(out, "gamma.csv")); err == nil {
			t.Errorf("--images %s: the gamma figure was built before the error", images)
		}
	}
}
