package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/spcalab/spca/adapt"
)

// Op is what a pipeline does to each image.
type Op string

// The operations, named as the spca commands they mirror.
const (
	Encode Op = "encode" // spca encode: image -> .spc
	Decode Op = "decode" // spca decode: .spc -> PNG
	Adapt  Op = "adapt"  // spca adapt apply: image -> corrected PNG
	Eval   Op = "eval"   // spca codec eval, the model's row, per image
)

// Ops lists the operations.
func Ops() []Op { return []Op{Encode, Decode, Adapt, Eval} }

// ManifestName is the default name of the manifest in the output
// directory.
const ManifestName = "manifest.jsonl"

// StampDir is the directory, inside the output directory, of the stamps
// that record which job key wrote each output.
const StampDir = ".spca-batch"

// Config is what a pipeline does. The zero values of the options are
// those of the spca command.
type Config struct {
	Op Op
	// Model is the path or URL of the codec model (encode, decode, eval)
	// or adaptation model (adapt).
	Model string
	// Inputs are globs, directories (walked recursively for the image
	// files, or the .spc files for decode) or files.
	Inputs []string
	// Lists are text files listing such inputs, one a line (blank lines
	// and lines starting with # ignored).
	Lists []string
	// Out is the output directory; outputs keep the input's path
	// relative to the directory or glob it was found by (its base name
	// for files named directly or in a list).
	Out string
	// Manifest is the path of the manifest; "" means Out/ManifestName.
	Manifest string

	// Exact and Assign are the --exact and --assign of spca encode and
	// codec eval ("" means nearest); with adapt, Exact maps through the
	// model instead of a LUT.
	Exact  bool
	Assign string
	// Method and LUTSize are the --method ("" means spca) and --lut-size
	// (0 means adapt.DefaultLUTSize) of spca adapt apply.
	Method  string
	LUTSize int
	// Workers is the --workers of spca adapt apply (0: all CPUs).
	Workers int
}

// ManifestPath returns where the manifest is written.
func (c *Config) ManifestPath() string {
	if c.Manifest != "" {
		return c.Manifest
	}
	return joinPath(c.Out, ManifestName)
}

// Check reports an unusable configuration before a pipeline is built.
func (c *Config) Check() error {
	if !slices.Contains(Ops(), c.Op) {
		return fmt.Errorf("batch: unknown operation %q (want encode, decode, adapt or eval)", c.Op)
	}
	if c.Model == "" {
		return fmt.Errorf("batch: no model")
	}
	if len(c.Inputs)+len(c.Lists) == 0 {
		return fmt.Errorf("batch: no inputs")
	}
	if c.Out == "" {
		return fmt.Errorf("batch: no output directory")
	}
	if _, err := c.codecOptions(); err != nil {
		return err
	}
	if _, err := c.adaptMethod(); err != nil {
		return err
	}
	// Checked by every element otherwise: the job ran and failed each
	// input with "LUT size 1 not in [2, 256]".
	if n := c.lutSize(); n < adapt.MinLUTSize || n > adapt.MaxLUTSize {
		return fmt.Errorf("batch: --lut-size %d not in [%d, %d] (0: %d)", c.LUTSize, adapt.MinLUTSize, adapt.MaxLUTSize, adapt.DefaultLUTSize)
	}
	// Local paths of the wrong kind: the job ran, then failed writing
	// the manifest with a multi-line message from the runner.
	if fi, err := os.Stat(c.Out); isLocal(c.Out) && err == nil && !fi.IsDir() {
		return fmt.Errorf("batch: --out %s is not a directory", c.Out)
	}
	if m := c.ManifestPath(); isLocal(m) {
		if fi, err := os.Stat(m); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("batch: the manifest %s is not a regular file (--manifest names a file)", m)
		}
	}
	return nil
}

// Record is one line of the manifest: the fate of one input.
type Record struct {
	Input  string `json:"input"`
	Output string `json:"output,omitempty"`
	// Bytes is the size of the output (of the coded image for eval).
	Bytes int64 `json:"bytes,omitempty"`
	// BPP is the bits per pixel of the coded image (encode, eval).
	BPP float64 `json:"bpp,omitempty"`
	// PSNR, SSIM and RMSE are codec eval's measures of the model on this
	// image (eval only).
	PSNR float64 `json:"psnr_db,omitempty"`
	SSIM float64 `json:"ssim,omitempty"`
	RMSE float64 `json:"rmse,omitempty"`
	// DE is the mean CIE ΔE*ab (D65 white) between the image and its
	// correction (adapt only): how far the correction moved the colours.
	DE float64 `json:"de,omitempty"`
	// Model is the id of the model (the codec model id, or the SHA-256
	// of an adaptation model file).
	Model string `json:"model,omitempty"`
	// Skipped is set when the output was already written by a run with
	// the same job key.
	Skipped bool   `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// A Record's measures may be infinite (the PSNR of an image coded
// without loss, a constant one), which JSON cannot hold: the manifest
// writes them as the strings "inf", "-inf" and "nan", as spca's --json
// does (json.Marshal failed, and the image was reported failed).
// jsonRecord is Record field for field (TestManifestInfinitePSNR checks
// it), its measures of type jsonFloat.
type jsonRecord struct {
	Input   string    `json:"input"`
	Output  string    `json:"output,omitempty"`
	Bytes   int64     `json:"bytes,omitempty"`
	BPP     jsonFloat `json:"bpp,omitempty"`
	PSNR    jsonFloat `json:"psnr_db,omitempty"`
	SSIM    jsonFloat `json:"ssim,omitempty"`
	RMSE    jsonFloat `json:"rmse,omitempty"`
	DE      jsonFloat `json:"de,omitempty"`
	Model   string    `json:"model,omitempty"`
	Skipped bool      `json:"skipped,omitempty"`
	Error   string    `json:"error,omitempty"`
}

type jsonFloat float64

func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonRecord{r.Input, r.Output, r.Bytes, jsonFloat(r.BPP), jsonFloat(r.PSNR), jsonFloat(r.SSIM),
		jsonFloat(r.RMSE), jsonFloat(r.DE), r.Model, r.Skipped, r.Error})
}

func (r *Record) UnmarshalJSON(b []byte) error {
	var j jsonRecord
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Record{j.Input, j.Output, j.Bytes, float64(j.BPP), float64(j.PSNR), float64(j.SSIM), float64(j.RMSE),
		float64(j.DE), j.Model, j.Skipped, j.Error}
	return nil
}

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	switch v := float64(f); {
	case math.IsInf(v, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-inf"`), nil
	case math.IsNaN(v):
		return []byte(`"nan"`), nil
	default:
		return json.Marshal(v)
	}
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"inf"`:
		*f = jsonFloat(math.Inf(1))
	case `"-inf"`:
		*f = jsonFloat(math.Inf(-1))
	case `"nan"`:
		*f = jsonFloat(math.NaN())
	default:
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*f = jsonFloat(v)
	}
	return nil
}

// Task is an input with the output planned for it.
type Task struct {
	Input  string
	Output string // "" for eval
	// Stamp is the file that records the job key of Output.
	Stamp string
	// Conflict names the input that got this output when several
	// inputs would be written to it.
	Conflict string
	// Err is why the input could not be expanded into files.
	Err string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*Task)(nil)).Elem())
	register.DoFn3x1[context.Context, string, func(string, string), error](&expandFn{})
	register.Emitter2[string, string]()
	register.DoFn3x0[string, func(*string) bool, func(Task)](&planFn{})
	register.Iter1[string]()
	register.Emitter1[Task]()
	register.DoFn2x1[context.Context, Task, string](&processFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&manifestFn{})
}

// Build adds the pipeline of c to the scope s. The pipeline's result is
// the manifest at c.ManifestPath().
func Build(s beam.Scope, c Config) error {
	if err := c.Check(); err != nil {
		return err
	}
	var parts []beam.PCollection
	if len(c.Inputs) > 0 {
		parts = append(parts, beam.CreateList(s, c.Inputs))
	}
	for _, l := range c.Lists {
		parts = append(parts, beam.ParDo(s, cleanLine, textio.Read(s.Scope("list"), l)))
	}
	specs := parts[0]
	if len(parts) > 1 {
		specs = beam.Flatten(s, parts...)
	}
	named := beam.ParDo(s, &expandFn{Op: string(c.Op), Out: c.Out}, specs)
	tasks := beam.ParDo(s, &planFn{Out: c.Out, Eval: c.Op == Eval}, beam.GroupByKey(s, named))
	// Spread the images over the workers: after the grouping they would
	// stay in the bundles of the keys.
	tasks = beam.Reshuffle(s, tasks)
	records := beam.ParDo(s, &processFn{Config: c}, tasks)
	beam.ParDo0(s, &manifestFn{Path: c.ManifestPath()}, beam.GroupByKey(s, beam.AddFixedKey(s, records)))
	return nil
}

// cleanLine drops blank lines and comments of a list file.
func cleanLine(line string, emit func(string)) {
	line = strings.TrimSpace(line)
	if line != "" && !strings.HasPrefix(line, "#") {
		emit(line)
	}
}

func init() {
	register.Function2x0(cleanLine)
	register.Emitter1[string]()
}

// ParseManifest reads manifest lines.
func ParseManifest(data []byte) ([]Record, error) {
	var recs []Record
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("batch: manifest line %d: %v", i+1, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}
