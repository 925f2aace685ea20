package figures

import (
	"bytes"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spcalab/spca/internal/atomicfile"
	"github.com/spcalab/spca/patches"
)

// Config controls Run.
type Config struct {
	// Out is the output directory (created if missing).
	Out string
	// Images, if not empty, is a directory of images used by the coding
	// and independence figures instead of generated textures: the first
	// half (in name order) trains, the rest tests.
	Images string
	// Only restricts the run to the named figures (see Names); empty
	// means all. README.md then lists only these.
	Only []string
	// Quick uses smaller data sets, fewer points and coarser lattices,
	// for tests (under a minute); the figures keep their layout.
	Quick bool
	// Seed fixes every generated data set.
	Seed uint64
	// Progress, if set, is called with the figure's name, a stage and its
	// progress; it must be safe for concurrent use.
	Progress func(figure, stage string, done, total int)
}

// Names lists the figures in the order Run builds them.
func Names() []string {
	return []string{"gamma", "subspaces", "convergence", "coding", "independence", "adaptation", "swissroll", "parameters"}
}

// Report is what Run produced: one entry per figure, in Names order.
type Report struct {
	Seed    uint64   `json:"seed"`
	Quick   bool     `json:"quick"`
	Images  string   `json:"images,omitempty"`
	Figures []Figure `json:"figures"`
}

// Figure is one rebuilt figure: its files (relative to Config.Out), what
// it shows, and its tables.
type Figure struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Files   []string `json:"files"`
	Summary string   `json:"summary"`
	Tables  []Table  `json:"tables"`
}

// Table puts the project's numbers (Ours) beside the seed's (Seed, nil
// where the seed gives none) for each row; Columns names the numbers with
// their units, Data says what data a row used.
type Table struct {
	Name    string   `json:"name"`
	Caption string   `json:"caption"`
	Columns []string `json:"columns"`
	Rows    []Row    `json:"rows"`
	// NoSeed drops the seed's columns, for results the seed has no
	// counterpart of.
	NoSeed bool `json:"no_seed,omitempty"`
}

// Row is one line of a Table.
type Row struct {
	Label string     `json:"label"`
	Data  string     `json:"data"`
	Ours  []float64  `json:"ours"`
	Seed  []*float64 `json:"seed"`
}

// seedVals turns seed numbers into a Row's Seed, NaN meaning "none".
func seedVals(v ...float64) []*float64 {
	out := make([]*float64, len(v))
	for i := range v {
		if !math.IsNaN(v[i]) {
			x := v[i]
			out[i] = &x
		}
	}
	return out
}

var none = math.NaN()

// run carries the state of one Run.
type run struct {
	cfg     Config
	name    string // current figure
	cache   map[string]any
	trainIm []image.Image // image set of coding and independence
	testIm  []image.Image
	imData  string
}

func (r *run) progress(stage string, done, total int) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(r.name, stage, done, total)
	}
}

// quickResolution is the lattice budget of the SPCA fits of a Quick run
// (1/16 of spca.DefaultResolution, 1/4 of codec.DefaultResolution): the
// lattice's drawing is most of a fit's time, and the tests of a Quick run
// check the figures' files, not their values.
const quickResolution = 1 << 14

// resolution is the lattice budget of the run's SPCA fits: 0 (each
// package's default) or quickResolution.
func (r *run) resolution() int { return pick(r, 0, quickResolution) }

// pick returns full or quick by the configuration.
func pick[T any](r *run, full, quick T) T {
	if r.cfg.Quick {
		return quick
	}
	return full
}

// Run rebuilds the figures selected by cfg in cfg.Out and returns their
// report; README.md in cfg.Out is rewritten.
func Run(cfg Config) (*Report, error) {
	if cfg.Out == "" {
		cfg.Out = "results"
	}
	want := Names()
	if len(cfg.Only) > 0 {
		for _, n := range cfg.Only {
			if !slices.Contains(Names(), n) {
				return nil, fmt.Errorf("figures: unknown figure %q (one of %s)", n, strings.Join(Names(), ", "))
			}
		}
		want = nil
		for _, n := range Names() {
			if slices.Contains(cfg.Only, n) {
				want = append(want, n)
			}
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	r := &run{cfg: cfg, cache: map[string]any{}}
	rep := &Report{Seed: cfg.Seed, Quick: cfg.Quick, Images: cfg.Images}
	if cfg.Images != "" {
		// Read now: a missing or empty directory failed only at the
		// coding figure, after the figures before it (minutes).
		for _, n := range want {
			if n == "coding" || n == "independence" {
				r.name = n
				if _, _, _, err := r.images(); err != nil {
					return nil, fmt.Errorf("figures: %s: %w", n, err)
				}
				break
			}
		}
	}
	builders := map[string]func(*run) (*Figure, error){
		"gamma":        (*run).gamma,
		"subspaces":    (*run).subspaces,
		"convergence":  (*run).convergence,
		"coding":       (*run).coding,
		"independence": (*run).independence,
		"adaptation":   (*run).adaptation,
		"swissroll":    (*run).swissroll,
		"parameters":   (*run).parameters,
	}
	for _, n := range want {
		r.name = n
		f, err := builders[n](r)
		if err != nil {
			return nil, fmt.Errorf("figures: %s: %w", n, err)
		}
		f.Name = n
		for _, t := range f.Tables {
			for _, row := range t.Rows {
				for _, v := range row.Ours {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						return nil, fmt.Errorf("figures: %s: table %q row %q has a non-finite value", n, t.Name, row.Label)
					}
				}
			}
		}
		rep.Figures = append(rep.Figures, *f)
		r.progress("done", 1, 1)
	}
	if err := writeReadme(cfg.Out, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// writeFile writes b to dir/name atomically.
func writeFile(dir, name string, b []byte) error {
	return atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// images loads (or generates) the image set of coding and independence.
func (r *run) images() (train, test []image.Image, data string, err error) {
	if r.trainIm != nil {
		return r.trainIm, r.testIm, r.imData, nil
	}
	if r.cfg.Images == "" {
		size := pick(r, 256, 128)
		nTrain := pick(r, 6, 2)
		nTest := pick(r, 2, 1)
		for i := range nTrain + nTest {
			img := textureImage(size, r.cfg.Seed*1000+uint64(i))
			if i < nTrain {
				train = append(train, img)
			} else {
				test = append(test, img)
			}
		}
		r.trainIm, r.testIm = train, test
		r.imData = fmt.Sprintf("generated textures (testimages.Texture, %d×%d): %d train, %d test", size, size, nTrain, nTest)
		return train, test, r.imData, nil
	}
	ents, err := os.ReadDir(r.cfg.Images)
	if err != nil {
		return nil, nil, "", err
	}
	var names []string
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".tif" || ext == ".tiff") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if r.cfg.Quick && len(names) > 4 {
		names = names[:4]
	}
	if len(names) < 2 {
		return nil, nil, "", fmt.Errorf("%s: need at least 2 images, found %d", r.cfg.Images, len(names))
	}
	var imgs []image.Image
	for i, n := range names {
		img, err := patches.Load(filepath.Join(r.cfg.Images, n))
		if err != nil {
			return nil, nil, "", err
		}
		imgs = append(imgs, img)
		r.progress("loading images", i+1, len(names))
	}
	h := len(imgs) / 2
	r.trainIm, r.testIm = imgs[:h], imgs[h:]
	r.imData = fmt.Sprintf("%s: %d train (%s…), %d test", filepath.Base(filepath.Clean(r.cfg.Images)), h, names[0], len(imgs)-h)
	return r.trainIm, r.testIm, r.imData, nil
}

// csvFloat formats a number for the CSV files: 6 significant digits.
func csvFloat(b *bytes.Buffer, v float64) {
	fmt.Fprintf(b, "%.6g", v)
}
