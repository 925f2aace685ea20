package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Metrics namespace and counter names, printed by spca-batch at the end.
const (
	MetricsNamespace = "spca-batch"
	CounterInputs    = "inputs"
	CounterWritten   = "written"
	CounterSkipped   = "skipped"
	CounterFailed    = "failed"
	CounterBytes     = "output_bytes"
)

var (
	inputsCount  = beam.NewCounter(MetricsNamespace, CounterInputs)
	writtenCount = beam.NewCounter(MetricsNamespace, CounterWritten)
	skippedCount = beam.NewCounter(MetricsNamespace, CounterSkipped)
	failedCount  = beam.NewCounter(MetricsNamespace, CounterFailed)
	bytesCount   = beam.NewCounter(MetricsNamespace, CounterBytes)
)

// expandFn turns an input spec into the input files it names, keyed by
// their output path relative to the output directory.
type expandFn struct {
	Op  string `json:"op"`
	Out string `json:"out"`
}

func (f *expandFn) ProcessElement(ctx context.Context, spec string, emit func(string, string)) error {
	ms, err := expand(ctx, spec, Op(f.Op), f.Out)
	if err != nil {
		// The spec itself as input: its error lands in the manifest.
		emit("!"+err.Error(), spec)
		return nil
	}
	for _, m := range ms {
		key := m.path // eval writes nothing: one task per input file
		switch Op(f.Op) {
		case Encode:
			key = withExt(m.rel, ".spc")
		case Decode, Adapt:
			key = withExt(m.rel, ".png")
		}
		emit(key, m.path)
	}
	return nil
}

// planFn gives each output to one input (the first by name) and reports
// the others as conflicts.
type planFn struct {
	Out  string `json:"out"`
	Eval bool   `json:"eval"`
}

func (f *planFn) ProcessElement(rel string, inputs func(*string) bool, emit func(Task)) {
	var ins []string
	var in string
	for inputs(&in) {
		ins = append(ins, in)
	}
	slices.Sort(ins)
	ins = slices.Compact(ins)
	var out, stamp string
	if !f.Eval && !strings.HasPrefix(rel, "!") {
		out = joinPath(f.Out, rel)
		stamp = joinPath(f.Out, StampDir+"/"+rel+".stamp")
	}
	for i, in := range ins {
		t := Task{Input: in, Output: out, Stamp: stamp}
		switch {
		case strings.HasPrefix(rel, "!"):
			t.Err = rel[1:]
		case i > 0:
			t.Conflict = ins[0]
		}
		emit(t)
	}
}

// processFn processes one image into its manifest line.
type processFn struct {
	Config Config `json:"config"`
}

func (f *processFn) ProcessElement(ctx context.Context, t Task) string {
	inputsCount.Inc(ctx, 1)
	r := f.process(ctx, t)
	switch {
	case r.Error != "":
		failedCount.Inc(ctx, 1)
	case r.Skipped:
		skippedCount.Inc(ctx, 1)
	default:
		writtenCount.Inc(ctx, 1)
		if f.Config.Op != Eval {
			bytesCount.Inc(ctx, r.Bytes)
		}
	}
	b, err := json.Marshal(r)
	if err != nil { // NaN measures: keep the line, drop the numbers
		b, _ = json.Marshal(Record{Input: r.Input, Output: r.Output, Model: r.Model, Error: "manifest: " + err.Error()})
	}
	return string(b)
}

// process runs the operation on one task; every failure, even a panic of
// the library, becomes the record's error so that the other images go
// on (prism does not retry, and a failed bundle fails the job).
func (f *processFn) process(ctx context.Context, t Task) (r Record) {
	r = Record{Input: t.Input, Output: t.Output}
	defer func() {
		if p := recover(); p != nil {
			r.Error = fmt.Sprintf("%s: internal error: %v\n%s", t.Input, p, debug.Stack())
		}
		if r.Error != "" {
			r.Output = "" // nothing written
		}
	}()
	if t.Conflict != "" {
		r.Error = fmt.Sprintf("%s: output %s is also that of %s, which is written instead", t.Input, t.Output, t.Conflict)
		return r
	}
	if t.Err != "" {
		r.Error = t.Input + ": " + t.Err
		return r
	}
	m, err := loadModel(ctx, &f.Config)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Model = m.id
	key := m.jobKey(&f.Config)
	stamp := t.Stamp
	if stamp != "" {
		if n, ok := done(ctx, t.Output, stamp, key); ok {
			r.Skipped, r.Bytes = true, n
			return r
		}
	}
	data, err := readFile(ctx, t.Input)
	if err != nil {
		r.Error = pathError(t.Input, err)
		return r
	}
	if err := m.run(ctx, &f.Config, t, data, &r); err != nil {
		r.Error = err.Error()
		return r
	}
	if stamp != "" {
		if err := writeFile(ctx, stamp, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "%s\n%d\n", key, r.Bytes)
			return err
		}); err != nil {
			r.Error = fmt.Sprintf("%s: written, but its stamp not: %v", t.Output, err)
		}
	}
	return r
}

// manifestFn writes the manifest: all the lines, sorted, in one file
// written atomically.
type manifestFn struct {
	Path string `json:"path"`
}

func (f *manifestFn) ProcessElement(ctx context.Context, _ int, lines func(*string) bool) error {
	var all []string
	var line string
	for lines(&line) {
		all = append(all, line)
	}
	slices.Sort(all)
	return writeFile(ctx, f.Path, func(w io.Writer) error {
		for _, l := range all {
			if _, err := io.WriteString(w, l+"\n"); err != nil {
				return err
			}
		}
		return nil
	})
}
