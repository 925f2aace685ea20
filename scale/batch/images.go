package batch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/spcalab/spca/adapt"
	"github.com/spcalab/spca/codec"
	"github.com/spcalab/spca/colorspace"
	"github.com/spcalab/spca/patches"
)

// model is a loaded model with what every image needs from it.
type model struct {
	id    string
	codec *codec.Model
	// adapt: the mapper of the method and, unless exact, its LUT.
	mapper adapt.Mapper
	lut    adapt.ImageMapper
}

// models caches the models of this worker process by path and options:
// each is read once per process, not once per image (measured lighter
// and faster than a side input).
var models sync.Map // modelKey -> *modelEntry

type modelEntry struct {
	once sync.Once
	m    *model
	err  error
}

type modelKey struct {
	op, path, method string
	lutSize          int
	exact            bool
}

// loadModel returns the model of c, loading it on first use.
func loadModel(ctx context.Context, c *Config) (*model, error) {
	k := modelKey{op: string(c.Op), path: c.Model}
	if c.Op == Adapt {
		k.method, k.lutSize, k.exact = c.Method, c.LUTSize, c.Exact
	} else {
		k.op = "codec"
	}
	e, _ := models.LoadOrStore(k, &modelEntry{})
	entry := e.(*modelEntry)
	entry.once.Do(func() { entry.m, entry.err = readModel(ctx, c, true) })
	return entry.m, entry.err
}

// CheckModel reads the model of c and reports one that is damaged or not
// of the kind c.Op needs (an SPCA model for encode, a codec model for
// adapt), for the launcher to refuse before a job starts: otherwise every
// input failed with the same message. It builds no LUT.
func CheckModel(ctx context.Context, c *Config) error {
	_, err := readModel(ctx, c, false)
	return err
}

// readModel reads and checks the model of c; withLUT builds the adaptation
// LUT too (unless c.Exact), as the workers need and CheckModel does not.
func readModel(ctx context.Context, c *Config, withLUT bool) (*model, error) {
	data, err := readFile(ctx, c.Model)
	if err != nil {
		return nil, fmt.Errorf("model %s", pathError(c.Model, err))
	}
	if c.Op != Adapt {
		m, err := codec.ReadModel(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("model %s: %v", c.Model, brief(err))
		}
		return &model{id: m.ID().String(), codec: m}, nil
	}
	am, err := adapt.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("model %s: %v", c.Model, brief(err))
	}
	method, err := c.adaptMethod()
	if err != nil {
		return nil, err
	}
	mapper, err := am.Mapper(method)
	if err != nil {
		return nil, fmt.Errorf("model %s: %v", c.Model, brief(err))
	}
	sum := sha256.Sum256(data)
	m := &model{id: hex.EncodeToString(sum[:]), mapper: mapper}
	if withLUT && !c.Exact {
		// As spca adapt apply: the LUT stored in the model when it fits
		// (for SPCA with the lightness rule, adapt.LightnessLUT).
		if m.lut, err = am.ImageMapperFor(method, c.lutSize(), nil); err != nil {
			return nil, fmt.Errorf("model %s: %v", c.Model, brief(err))
		}
	}
	return m, nil
}

// codecOptions returns the codec options of c.
func (c *Config) codecOptions() (codec.Options, error) {
	o := codec.Options{Exact: c.Exact}
	switch c.Assign {
	case "", codec.AssignNearest.String():
		o.Assign = codec.AssignNearest
	case codec.AssignResponses.String():
		o.Assign = codec.AssignResponses
	default:
		return o, fmt.Errorf("batch: assign must be nearest or responses, not %q", c.Assign)
	}
	return o, nil
}

// adaptMethod returns the adaptation method of c.
func (c *Config) adaptMethod() (adapt.Method, error) {
	if c.Method == "" {
		return adapt.SPCA, nil
	}
	m, err := adapt.ParseMethod(c.Method)
	if err != nil {
		return 0, fmt.Errorf("batch: %v", brief(err))
	}
	return m, nil
}

func (c *Config) lutSize() int {
	if c.LUTSize == 0 {
		return adapt.DefaultLUTSize
	}
	return c.LUTSize
}

// jobKey identifies what an output depends on besides its input: the
// operation, the model id and the options that change the bytes.
func (m *model) jobKey(c *Config) string {
	k := []string{string(c.Op), m.id, "exact=" + strconv.FormatBool(c.Exact)}
	switch c.Op {
	case Encode:
		o, _ := c.codecOptions()
		k = append(k, "assign="+o.Assign.String())
	case Adapt:
		meth, _ := c.adaptMethod()
		k = append(k, "method="+meth.String())
		if !c.Exact {
			k = append(k, "lut="+strconv.Itoa(c.lutSize()))
		}
	}
	return strings.Join(k, " ")
}

// run processes one image: data is the content of t.Input.
func (m *model) run(ctx context.Context, c *Config, t Task, data []byte, r *Record) error {
	switch c.Op {
	case Decode:
		img, err := codec.Decode(bytes.NewReader(data), m.codec)
		if err != nil {
			if errors.Is(err, codec.ErrWrongModel) {
				return fmt.Errorf("%s: encoded with another model than %s", t.Input, c.Model)
			}
			return fmt.Errorf("%s: %v", t.Input, brief(err))
		}
		return savePNG(ctx, t.Output, img, r)
	}
	img, err := patches.Decode(bytes.NewReader(data))
	if err != nil {
		if bytes.HasPrefix(data, []byte(codec.Magic)) {
			return fmt.Errorf("%s: an SPCA-coded image, not an image", t.Input)
		}
		return fmt.Errorf("%s: %v", t.Input, brief(err))
	}
	b := img.Bounds()
	pixels := float64(b.Dx()) * float64(b.Dy())
	switch c.Op {
	case Encode:
		o, _ := c.codecOptions()
		var buf bytes.Buffer
		if err := codec.Encode(&buf, img, m.codec, &o); err != nil {
			return fmt.Errorf("%s: %v", t.Input, brief(err))
		}
		if err := writeFile(ctx, t.Output, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return fmt.Errorf("%s: %v", t.Output, err)
		}
		r.Bytes = int64(buf.Len())
		r.BPP = 8 * float64(buf.Len()) / pixels
	case Eval:
		o, _ := c.codecOptions()
		res, err := codec.Evaluate(m.codec, []image.Image{img}, &codec.EvalOptions{
			Gammas: []float64{m.codec.Gamma}, NoPCA: true, NoJPEG: true, Exact: o.Exact, Assign: o.Assign})
		if err != nil {
			return fmt.Errorf("%s: %v", t.Input, brief(err))
		}
		q := res[0]
		r.BPP, r.PSNR, r.SSIM, r.RMSE = q.BPP, q.PSNR, q.SSIM, q.RMSE
		r.Bytes = int64(math.Round(q.BPP * pixels / 8))
	case Adapt:
		var res image.Image
		if m.lut != nil {
			res, err = m.lut.Apply(img, c.Workers)
		} else {
			res, err = adapt.ApplyExact(img, m.mapper)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", t.Input, brief(err))
		}
		if err := savePNG(ctx, t.Output, res, r); err != nil {
			return err
		}
		r.DE = meanDeltaE(img, res)
	}
	return nil
}

// savePNG writes img as PNG at png.BestSpeed, the level of spca decode
// and adapt apply (patches.Save, atomically), so that batch outputs are
// byte-identical to the command's.
func savePNG(ctx context.Context, out string, img image.Image, r *Record) error {
	const level = png.BestSpeed
	if isLocal(out) {
		if err := os.MkdirAll(dirOf(out), 0o755); err != nil {
			return err
		}
		if err := patches.Save(out, img, patches.PNGCompression(level)); err != nil {
			return fmt.Errorf("%s: %v", out, brief(err))
		}
		fi, err := os.Stat(out)
		if err != nil {
			return err
		}
		r.Bytes = fi.Size()
		return nil
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: level}).Encode(&buf, img); err != nil {
		return fmt.Errorf("%s: %v", out, err)
	}
	r.Bytes = int64(buf.Len())
	return writeFile(ctx, out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err })
}

// meanDeltaE returns the mean CIE ΔE*ab (D65) between two images of the
// same size, on a grid of at most about 4096 pixels.
func meanDeltaE(a, b image.Image) float64 {
	ba := a.Bounds()
	step := max(1, int(math.Sqrt(float64(ba.Dx()*ba.Dy())/4096)))
	white := colorspace.SRGB{1, 1, 1}.XYZ()
	sum, n := 0.0, 0
	for y := ba.Min.Y; y < ba.Max.Y; y += step {
		for x := ba.Min.X; x < ba.Max.X; x += step {
			la := labOf(a, x, y, white)
			lb := labOf(b, x-ba.Min.X+b.Bounds().Min.X, y-ba.Min.Y+b.Bounds().Min.Y, white)
			d := 0.0
			for i := range la {
				d += (la[i] - lb[i]) * (la[i] - lb[i])
			}
			sum += math.Sqrt(d)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func labOf(img image.Image, x, y int, white colorspace.XYZ) colorspace.Lab {
	r, g, b, _ := img.At(x, y).RGBA()
	return colorspace.SRGB{float64(r) / 65535, float64(g) / 65535, float64(b) / 65535}.XYZ().Lab(white)
}

// done reports whether out was written for the job key: it exists with
// the size its stamp records. It returns that size.
func done(ctx context.Context, out, stamp, key string) (int64, bool) {
	if !exists(ctx, stamp) || !exists(ctx, out) {
		return 0, false
	}
	s, err := readFile(ctx, stamp)
	if err != nil {
		return 0, false
	}
	lines := strings.Split(strings.TrimSpace(string(s)), "\n")
	if len(lines) != 2 || lines[0] != key {
		return 0, false
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n != fileSize(ctx, out) {
		return 0, false
	}
	return n, true
}

func fileSize(ctx context.Context, p string) int64 {
	if isLocal(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	data, err := readFile(ctx, p)
	if err != nil {
		return -1
	}
	return int64(len(data))
}

func dirOf(p string) string {
	i := strings.LastIndexAny(p, "/"+string(os.PathSeparator))
	if i < 0 {
		return "."
	}
	return p[:i]
}

// pathError formats a file error as "path: reason".
func pathError(p string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return p + ": " + err.Error()
}

// brief drops the package prefixes of library errors.
func brief(err error) string {
	msg := err.Error()
	for _, p := range []string{"patches: load: ", "patches: decode: ", "patches: ", "codec: ", "adapt: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}
