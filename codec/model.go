package codec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"github.com/spcalab/spca/patches"
	"github.com/spcalab/spca/spca"
	"gonum.org/v1/gonum/mat"
)

// Model is a trained codec: the shared dictionary of an image set. It holds
// one channel model for grayscale coding (luma) or three for colour
// (Y, Cb, Cr), each a PCA of n×n patches, SPCA on the leading PCA
// coefficients with uniform quantisation in its response domain, and
// Lloyd–Max scalar quantisers for the remaining coefficients.
//
// The exported fields describe the model for reading: change a model
// only through SetBins and SetStep, which keep its quantisers, caches and
// ID consistent (setting Step directly does not re-derive the
// quantisers; to code at another rate without changing the model, use
// Options.Step). Train, ReadModel and LoadModel return models that are
// safe for concurrent Encode and Decode calls.
type Model struct {
	Patch int  // patch size n
	Color bool // YCbCr, one channel model each
	// Subsample codes the chroma of a colour model at half resolution in
	// both directions (4:2:0, as JPEG): Halve before coding, Double after.
	Subsample bool
	Gamma     float64    // SPCA metric exponent
	Channels  []*Channel // 1 or 3
	// Step is the common quantiser step (PCA units, grey levels for
	// 8-bit images) of the entropy-constrained mode, 0 in the seed's
	// fixed-resolution mode: see SetStep.
	Step float64

	idOnce sync.Once
	id     ModelID

	// stepped holds the models of other steps derived by Stepped.
	stepMu    sync.Mutex
	stepped   map[float64]*Model
	stepBasis []*stepBasis // per channel, at m's scale (see derive)
	base      *Model       // the model a Stepped one derives from
	// finest is minStep's result once found (finestKnown), for the
	// rate searches of the next images.
	finest      float64
	finestKnown bool

	// fastLoad selects the fast-load form (SetFastLoad).
	fastLoad bool

	// file is the open model file LoadModel keeps for the sections it
	// reads on first use, or nil (see Close).
	file io.Closer
}

// maxStep bounds the quantiser step a coded file may ask for (PCA units:
// grey levels of 8-bit images).
const maxStep = 1 << 16

// maxStepped bounds the derived models a model keeps (Stepped).
const maxStepped = 8

// Stepped returns the model m in the entropy-constrained mode at another
// quantiser step: the quantisers SetStep derives for that step, without
// changing m, whose PCA, training sample, SPCA lattice and training
// responses it shares. It is the rate knob of a trained model:
// Options.Step codes with it, and Decode derives it again from the step
// a file records. Up to 8 derived models are kept, so that a decoder of
// many files pays for each step once (about half a second for the 4×4
// Kodak model, mostly the centre indices of the training patches).
func (m *Model) Stepped(step float64) (*Model, error) {
	if m.Step == 0 {
		return nil, errors.New("codec: a quantiser step needs a model in the entropy-constrained mode")
	}
	if m.base != nil {
		return m.base.Stepped(step)
	}
	if step == m.Step {
		return m, nil
	}
	if !(step > 0 && step <= maxStep) {
		return nil, fmt.Errorf("codec: quantiser step %v out of range (0, %d]", step, maxStep)
	}
	m.stepMu.Lock()
	defer m.stepMu.Unlock()
	if d := m.stepped[step]; d != nil {
		return d, nil
	}
	d, err := m.derive(step, true)
	if err != nil {
		return nil, err
	}
	if m.stepped == nil || len(m.stepped) >= maxStepped {
		m.stepped = make(map[float64]*Model)
	}
	m.stepped[step] = d
	return d, nil
}

// derive returns m at step, for Stepped (m.stepMu held): from the
// channels' step bases (computed once per scale of m) if fast, else from
// the whole training sample at that step, as before the bases (the
// reference of TestSteppedBasis).
func (m *Model) derive(step float64, fast bool) (*Model, error) {
	d := &Model{Patch: m.Patch, Color: m.Color, Subsample: m.Subsample, Gamma: m.Gamma, base: m}
	if fast {
		if err := m.loadBases(); err != nil {
			return nil, err
		}
	}
	for ci, c := range m.Channels {
		// nc's training sample is c's (TrainingSample), used only
		// without the basis.
		nc := &Channel{PCA: c.PCA, Bins: append([]int(nil), c.Bins...), fastFrom: c}
		if fast {
			nc.basis = m.stepBasis[ci]
		}
		if c.SPCA != nil {
			var err error
			if nc.SPCA, err = c.SPCA.WithScale(c.SPCA.Scale()); err != nil {
				return nil, err
			}
			// The training responses at m's scale, computed for the
			// derived models rather than taken from m's channel, whose
			// responses may date from another scale (training searches
			// the step): the encoder's model and the decoder's, read
			// from its file, derive the same quantisers.
			if fast {
				bs := nc.basis
				nc.extOnce.Do(func() { nc.ext, nc.norm = bs.ext, bs.norm })
			}
		}
		d.Channels = append(d.Channels, nc)
	}
	if err := d.SetStep(step); err != nil {
		return nil, err
	}
	return d, nil
}

// loadBases sets m.stepBasis (m.stepMu held): read from the model file's
// step-basis sections, or computed from the training sample.
func (m *Model) loadBases() error {
	if m.stepBasis != nil {
		return nil
	}
	bases := make([]*stepBasis, len(m.Channels))
	for ci, c := range m.Channels {
		var err error
		if c.basisSec != nil {
			err = c.basisSec.readLazy("step basis", func(r *modelReader) error {
				bases[ci], err = r.stepBasis(c, m.ID())
				return err
			})
		} else {
			bases[ci], err = newStepBasis(c)
		}
		if err != nil {
			return err
		}
	}
	m.stepBasis = bases
	return nil
}

// fileBases returns the step bases WriteTo stores, nil if the model has
// none: a model in the fixed-resolution mode, or of a channel without
// SPCA.
func (m *Model) fileBases() ([]*stepBasis, error) {
	if m.Step == 0 || m.base != nil {
		return nil, nil
	}
	for _, c := range m.Channels {
		if c.Leading() == 0 {
			return nil, nil
		}
	}
	m.stepMu.Lock()
	defer m.stepMu.Unlock()
	if err := m.loadBases(); err != nil {
		return nil, err
	}
	return m.stepBasis, nil
}

// StepBasisBytes returns the compressed size of the step-basis sections
// of the file the model was read from (0 if it has none, or if the model
// changed scale since): with them a process coding or decoding at
// another step than the model's neither inflates nor unfolds the
// training sample.
func (m *Model) StepBasisBytes() int {
	n := 0
	for _, c := range m.Channels {
		if c.basisSec == nil {
			return 0
		}
		n += c.basisSec.n
	}
	return n
}

// Channel is the model of one image channel.
type Channel struct {
	PCA  *patches.PCA
	SPCA *spca.Model // over the Leading PCA coefficients, Scale = Bins[:Leading]
	// Bins holds the number of quantisation bins of every PCA coefficient
	// (the first Leading are SPCA response dimensions).
	Bins []int
	// Lead quantises the SPCA responses in the entropy-constrained mode
	// (nil in the fixed-resolution mode: unit bins [b, b+1)).
	Lead []*ScalarQuantizer
	// Rest quantises the coefficients after the leading ones (n > 2).
	Rest []*ScalarQuantizer
	// Centre is the most frequent index of each dimension on the training
	// patches; it anchors the context classes of the entropy coder.
	Centre []int
	// train keeps the PCA-domain training sample (see TrainingSample).
	// A model read from a file holds it as integers (sampleInts) until
	// first asked for: only evaluation, derived rates (Stepped) and the
	// fast path's rebuild use it, and decoding it took an encode or
	// decode process 2.5 MB of fresh memory and ~10 ms (4×4 Kodak model).
	train      *mat.Dense
	trainOnce  sync.Once
	sampleInts *intSample
	trainErr   error
	sampleOnce sync.Once // see packedSample
	sampleErr  error
	// sampleSec and fastSec are the sections of a sectioned model file
	// holding the training sample (of sampleRows rows) and the fast
	// path, inflated on first use; nil otherwise.
	sampleSec, fastSec *section
	// basisSec is the section holding the channel's step basis at the
	// model's scale (see stepBasisVersion), or nil: read by Stepped
	// instead of computing the basis; dropped when the scale changes.
	basisSec    *section
	sampleRows  int
	fastSecOnce sync.Once
	fastSecErr  error
	// fastStored is the fast path read from the model file, or nil.
	fastStored *storedFast

	fastOnce sync.Once
	fast     *fastPath
	fastErr  error
	fastFrom *Channel // whose fast path this one shares (Stepped), or nil
	// basis is fastFrom's step basis (see stepBasis), from which
	// SetStep and prepare derive this channel's quantisers and centres
	// without the whole training sample; nil otherwise.
	basis *stepBasis
	// unfolded holds the training sample's unfolded leading
	// coordinates (spca's UnfoldedBatch), from which the channels
	// Stepped derives find their training indices (prepare) at any
	// step without the SPCA transform; computed on first use.
	unfoldedOnce sync.Once
	unfolded     *mat.Dense
	unfoldedErr  error
	startOnce    sync.Once
	start        []float32 // see startTable
	bookOnce     sync.Once
	// bookBuilt is set once bookOnce has run (book may still be nil).
	bookBuilt atomic.Bool
	book      []float64 // codebook of the leading dims, nil if too large
	pixOnce   [2]sync.Once
	pix8      []uint8  // decoded 8-bit pixels of every codebook cell (see pixelBook)
	pix16     []uint16 // the same at 16 bits
	wOnce     sync.Once
	weights   []float64 // see pixelWeights
	extOnce   sync.Once
	ext, norm []float64 // see responses
	extErr    error
	findOnce  sync.Once
	leadFind  []cellFinder // see finders
	restFind  []cellFinder
	restTab   *restTable // restFind flattened for restIndices
	levOnce   sync.Once
	restLev   *levelTable // see restLevels
	levelOnce sync.Once
	levelInv  *spca.LevelInverse // see levelInverse
	cellsMu   sync.Mutex
	cells     []*cellCache     // see takeCellCache
	edges     []*edgePredictor // see takeEdgePredictor; guarded by cellsMu
	cellsUsed atomic.Bool      // whether refineNearest filled cells (see cellRows)
}

// maxLeading caps the coefficients coded through SPCA: the lattice has
// nodes per axis to the power Leading.
const maxLeading = 8

// MaxLeading (8) is the largest TrainOptions.Leading, the number of a
// patch's coefficients coded by SPCA.
const MaxLeading = maxLeading

// Leading returns the number of coefficients coded through SPCA (0 for
// the PCA + Lloyd–Max baseline, which has no SPCA model).
func (c *Channel) Leading() int {
	if c.SPCA == nil {
		return 0
	}
	return c.SPCA.Dim()
}

// Dims returns the number of coefficients per patch (n²).
func (c *Channel) Dims() int { return len(c.Bins) }

// TrainOptions control Train. Nil means DefaultTrainOptions (the seed's
// setting); PhotoTrainOptions is the configuration measured best on
// photographs. Start from one of them and change what you need. In
// options built field by field, a zero Patch, Bins, Leading or Samples
// means its default below, a zero SPCA (K 0) means spca.DefaultOptions
// with Resolution ResolutionFor(Patch), and a zero Gamma is gamma 0
// (pure unfolding): 1/3 is DefaultTrainOptions' value, not the zero
// value's.
type TrainOptions struct {
	Patch int     // patch size n (default 2)
	Gamma float64 // SPCA metric exponent (DefaultTrainOptions: 1/3)
	Bins  int     // total resolution sum(n_i) over the n² coefficients (default 66, DefaultBins)
	BPP   float64 // if > 0, Bins (or Step) is searched so that the training images code at this many bits per pixel
	// Step, if > 0, selects the entropy-constrained mode with this
	// quantiser step (see Model.SetStep); Bins is then unused.
	Step float64
	// Uniform selects the entropy-constrained mode with the step searched
	// for BPP.
	Uniform bool
	Leading int  // coefficients coded by SPCA (default min(n², 4))
	Color   bool // code colour as YCbCr with a model per channel
	// Subsample, with Color, codes the chroma at half resolution (4:2:0).
	Subsample bool
	Samples   int // training patches per channel (default 20000)
	Seed      uint64
	// SPCA holds the curve-drawing options (K, Tau, Q, ...); Gamma,
	// Scale and Directions are set by Train.
	SPCA spca.Options
	// Progress, if set, receives stage names and progress.
	Progress func(stage string, done, total int)
}

// codecTol is the forward-transform tolerance of the codec's SPCA models
// (fraction of the largest pairwise distance).
const codecTol = 1e-6

// DefaultResolution is the number of lattice nodes of a codec model's
// SPCA curves for patches under 8×8 when TrainOptions.SPCA.Resolution is
// 0 (ResolutionFor): a quarter of
// spca.DefaultResolution. On Kodak (4×4, gamma 0, --uniform --bpp 1,
// trained on kodim01-12, coded kodim13-24 grey) it codes as well (37.094
// dB mean PSNR at 619,548 bytes, against 37.062 dB at 619,121) and its
// model file is 1.08 MB instead of 1.76, so that an encode or decode
// process spends a third less CPU (decode 178 -> 112 ms, encode 270 ->
// 180 ms, mostly page faults of the smaller lattice).
const DefaultResolution = 1 << 16

// LargePatchResolution is the number of lattice nodes of the SPCA curves
// for patches of 8×8 and more when TrainOptions.SPCA.Resolution is 0
// (ResolutionFor). With 8×8 patches, gamma 0 and step 30 (trained on
// Kodak kodim01-12) 65,536 nodes put SPCA 0.04 dB behind PCA at one rate
// of the 8 held-out grey crops; 131,072 and 262,144 keep it ahead at every
// rate PCA reaches on both held-out grey sets (the crops and kodim13-24),
// and 131,072 makes a model of 2.81 MB instead of 3.25.
const LargePatchResolution = 1 << 17

// ResolutionFor returns the default number of lattice nodes for n×n
// patches: LargePatchResolution from 8×8 on, DefaultResolution below.
func ResolutionFor(n int) int {
	if n >= 8 {
		return LargePatchResolution
	}
	return DefaultResolution
}

// Photo coding defaults of PhotoTrainOptions, the configuration of
// `spca codec train` when no flag chooses another.
const (
	PhotoPatch = 8
	PhotoGamma = 0
	PhotoStep  = 30
)

// PhotoTrainOptions returns the configuration measured best against
// linear PCA with the same quantisers and entropy coder: 8×8 luminance
// patches, gamma 0, the entropy-constrained mode at step 30 (a model
// coded at another rate with Model.SetStep or `spca encode --bpp`) and
// LargePatchResolution lattice nodes. Trained on Kodak kodim01-12 it is
// ahead of PCA by PSNR and SSIM at every rate of the held-out grey
// photographs PCA reaches (Bjontegaard delta rate about -1.4 % by PSNR,
// -4 % by SSIM); see the README. DefaultTrainOptions keeps the seed's
// setting.
func PhotoTrainOptions() TrainOptions {
	o := DefaultTrainOptions()
	o.Patch, o.Gamma, o.Step = PhotoPatch, PhotoGamma, PhotoStep
	o.SPCA.Resolution = LargePatchResolution
	return o
}

// DefaultBins is the resolution sum(n_i) of DefaultTrainOptions, the
// seed's 66 bins.
const DefaultBins = 66

// DefaultTrainOptions returns the seed's coding setting: 2×2 luminance
// patches, gamma 1/3, resolution 66.
func DefaultTrainOptions() TrainOptions {
	return TrainOptions{Patch: 2, Gamma: 1.0 / 3, Bins: DefaultBins, Samples: 20000, SPCA: spca.DefaultOptions()}
}

func (o *TrainOptions) normalise() (TrainOptions, error) {
	t := DefaultTrainOptions()
	if o != nil {
		t = *o
	}
	if t.Patch == 0 {
		t.Patch = 2
	}
	if t.Samples == 0 {
		t.Samples = 20000
	}
	if t.SPCA.K == 0 {
		t.SPCA = spca.DefaultOptions()
	}
	if t.SPCA.Resolution == 0 {
		t.SPCA.Resolution = ResolutionFor(t.Patch)
	}
	if t.Leading == 0 {
		t.Leading = min(t.Patch*t.Patch, 4)
	}
	if t.Bins == 0 && t.Step == 0 && t.BPP == 0 {
		t.Bins = DefaultBins
	}
	switch {
	case t.Patch < 1 || t.Patch > maxPatch:
		return t, fmt.Errorf("codec: patch size %d out of range 1..%d", t.Patch, maxPatch)
	case t.Leading < 1 || t.Leading > t.Patch*t.Patch || t.Leading > maxLeading:
		return t, fmt.Errorf("codec: %d leading coefficients for %d×%d patches (1..min(n², %d))", t.Leading, t.Patch, t.Patch, maxLeading)
	case t.BPP == 0 && t.Step == 0 && (t.Bins < t.Patch*t.Patch || t.Bins > maxLevels):
		return t, fmt.Errorf("codec: resolution %d bins must be between n² = %d and %d", t.Bins, t.Patch*t.Patch, maxLevels)
	case t.BPP < 0 || math.IsNaN(t.BPP) || t.BPP > maxTrainBPP:
		return t, fmt.Errorf("codec: target of %v bits per pixel", t.BPP)
	case t.Step < 0 || math.IsNaN(t.Step) || math.IsInf(t.Step, 0):
		return t, fmt.Errorf("codec: quantiser step %v", t.Step)
	case t.Uniform && t.Step == 0 && t.BPP == 0:
		return t, fmt.Errorf("codec: the uniform mode needs a step or a target bits per pixel")
	case t.Step > 0 && t.BPP > 0:
		return t, fmt.Errorf("codec: give a step or a target bits per pixel, not both")
	case t.Samples < 100 || t.Samples > 1e7:
		return t, fmt.Errorf("codec: %d training samples (100..1e7)", t.Samples)
	case !(t.Gamma >= 0) || math.IsInf(t.Gamma, 0):
		return t, fmt.Errorf("codec: gamma %v must be >= 0", t.Gamma)
	case t.Subsample && !t.Color:
		return t, fmt.Errorf("codec: chroma subsampling needs colour coding")
	}
	return t, nil
}

// Train fits a codec model on a set of images.
func Train(images []image.Image, opt *TrainOptions) (*Model, error) {
	o, err := opt.normalise()
	if err != nil {
		return nil, err
	}
	if len(images) == 0 {
		return nil, errors.New("codec: no training images")
	}
	m := &Model{Patch: o.Patch, Color: o.Color, Subsample: o.Subsample, Gamma: o.Gamma}
	var planes [][]patches.Plane
	for _, img := range images {
		ps := m.planes(img)
		if planes == nil {
			planes = make([][]patches.Plane, len(ps))
		}
		for c, p := range ps {
			if p.W < o.Patch || p.H < o.Patch {
				b := img.Bounds()
				return nil, fmt.Errorf("codec: a %d×%d training image is smaller than a patch (channel %d: %d×%d)", b.Dx(), b.Dy(), c+1, p.W, p.H)
			}
			planes[c] = append(planes[c], p)
		}
	}
	channels := len(planes)
	for c := 0; c < channels; c++ {
		x := patches.Sample(planes[c], o.Patch, o.Samples, o.Seed+uint64(c))
		ch, err := trainChannel(x, &o, c)
		if err != nil {
			images := fmt.Sprintf("%d training images", len(planes[c]))
			if len(planes[c]) == 1 {
				images = "1 training image"
			}
			return nil, fmt.Errorf("codec: channel %d (%s, %d×%d patches of %s): %w", c+1, m.channelName(c), o.Patch, o.Patch, images, err)
		}
		m.Channels = append(m.Channels, ch)
	}
	switch {
	case o.BPP > 0:
		err = m.searchRate(images, o.BPP, o.Uniform)
	case o.Step > 0:
		err = m.SetStep(o.Step)
	default:
		err = m.SetBins(o.Bins)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// planes returns the planes of img the model codes: the luma, or Y, Cb
// and Cr, the chroma halved if subsampled.
func (m *Model) planes(img image.Image) []patches.Plane { return m.planesTo([3][]float64{}, img) }

// planesTo is planes with the samples of grey images and of subsampled
// colour in the buffers where they hold them (the encoder's, reused
// across images).
func (m *Model) planesTo(bufs [3][]float64, img image.Image) []patches.Plane {
	if !m.Color {
		return []patches.Plane{patches.LuminanceTo(bufs[0], img)}
	}
	if m.Subsample {
		ycc := patches.YCbCr420To(bufs, img)
		return ycc[:]
	}
	ycc := patches.YCbCr(img)
	return ycc[:]
}

// channelName names channel c: luma, or Y, Cb, Cr (halved if the
// chroma is subsampled).
func (m *Model) channelName(c int) string {
	switch {
	case !m.Color:
		return "luma"
	case c == 0:
		return "Y"
	case m.Subsample:
		return []string{"", "Cb", "Cr"}[c] + " at half resolution"
	}
	return []string{"", "Cb", "Cr"}[c]
}

// FixedLengthBits is the size in bits of the indices of a w×h image coded
// at fixed length, without entropy coding: each patch's cell numbered
// in one index of ceil(log2 ∏ n_i) bits (n_i the bins of its channel's
// coefficients), headers and outlier patches aside.
func (m *Model) FixedLengthBits(w, h int) float64 {
	bits := 0.0
	for ci, c := range m.Channels {
		pw, ph := m.planeSize(ci, w, h)
		perPatch := 0.0
		for _, b := range c.Bins {
			perPatch += math.Log2(float64(b))
		}
		bits += float64(patches.NewGrid(pw, ph, m.Patch).Blocks()) * math.Ceil(perPatch)
	}
	return bits
}

// planeSize is the size of plane c of a w×h image.
func (m *Model) planeSize(c, w, h int) (int, int) {
	if m.Subsample && c > 0 {
		return (w + 1) / 2, (h + 1) / 2
	}
	return w, h
}

// trainChannel fits the PCA front end and SPCA on the leading coefficients.
func trainChannel(x *mat.Dense, o *TrainOptions, c int) (*Channel, error) {
	pca, err := patches.FitPCA(x)
	if err != nil {
		return nil, err
	}
	y := pca.Forward(nil, x)
	// The model file keeps the training sample as multiples of trainRes
	// (in float32 before version 4): round it now so that a saved and
	// reloaded model codes exactly like the original.
	for i, v := range y.RawMatrix().Data {
		if v = float64(float32(math.Round(v/trainRes) * trainRes)); v == 0 {
			v = 0 // not -0: the integers of the file cannot store it
		}
		y.RawMatrix().Data[i] = v
	}
	n, dims := y.Dims()
	k := o.Leading
	lead := mat.NewDense(n, k, nil)
	lead.Copy(y.Slice(0, n, 0, k))
	so := o.SPCA
	so.Gamma = o.Gamma
	// Quantisation needs the responses far more precisely than the default
	// tolerance (1e-3 of the data diameter is about half a grey level on
	// patches, a sizeable fraction of a bin): converge to 1e-6.
	so.Tol = math.Min(so.Tol, codecTol)
	so.Seed = o.Seed + uint64(c)
	so.Scale = nil
	// The leading coefficients keep the order and signs of the PCA axes:
	// on sparse, peaked patch data the local PCA at the dense centre mixes
	// the AC axes, the global axes are stable.
	so.Directions = identity(k)
	if o.Progress != nil {
		so.Progress = func(stage string, done, total int) {
			o.Progress(fmt.Sprintf("channel %d: %s", c+1, stage), done, total)
		}
	}
	sm, err := spca.Fit(lead, so)
	if err != nil {
		return nil, err
	}
	// The model file stores the lattice as integers (much smaller than
	// float64): snap it now, for the same reason.
	if err := sm.SnapLattice(latticeRes); err != nil {
		return nil, err
	}
	ch := &Channel{PCA: pca, SPCA: sm, Bins: make([]int, dims), train: y}
	for j := range ch.Bins {
		ch.Bins[j] = 1
	}
	return ch, nil
}

// latticeRes is the resolution (grey levels) of the SPCA lattice: it
// moves the inverse map by at most half of it, far below a quantiser
// step.
const latticeRes = 1.0 / 128

func identity(k int) *mat.Dense {
	id := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		id.Set(i, i, 1)
	}
	return id
}

// entropies returns the marginal entropy (bits) of every coefficient: the
// SPCA unfolded coordinates for the leading ones, the PCA coefficients for
// the rest.
func (c *Channel) entropies() ([]float64, error) {
	train, err := c.TrainingSample()
	if err != nil {
		return nil, err
	}
	var h []float64
	if c.SPCA != nil {
		h = append(h, c.SPCA.MarginalEntropies()...)
	}
	n, dims := train.Dims()
	col := make([]float64, n)
	for j := c.Leading(); j < dims; j++ {
		mat.Col(col, j, train)
		h = append(h, histEntropy(col))
	}
	return h, nil
}

// SetBins allocates a total resolution of sum(n_i) = total bins over the
// coefficients of every channel (each channel gets the same total) and
// rebuilds the quantisers: the seed's fixed-resolution mode, Lloyd–Max
// beyond the SPCA coefficients.
func (m *Model) SetBins(total int) error {
	for _, c := range m.Channels {
		h, err := c.entropies()
		if err != nil {
			return err
		}
		bins, err := AllocateBins(h, total)
		if err != nil {
			return err
		}
		if err := c.setBins(bins); err != nil {
			return err
		}
	}
	m.Step = 0
	m.idOnce = sync.Once{}
	return nil
}

// SetStep switches to the entropy-constrained mode with quantiser step
// step (PCA units): every coefficient beyond the SPCA ones gets a
// DeadZone quantiser of that step, and SPCA dimension j the scale
// extent_j / step, extent_j the range of the training samples' unfolded
// coordinate, with unit dead-zone cells in its response centred on the
// median response (centroid reconstruction like the others): with gamma
// 0 the cells are one step long too. With fixed-length indices the seed's allocation (bins in
// proportion to 2^h) and Lloyd–Max are the optimum; with the entropy
// coder behind them, equal steps are (high-rate theory: equal distortion
// and equal slope in every coefficient), and the peaked AC coefficients
// get many more, mostly empty, cells.
func (m *Model) SetStep(step float64) error {
	if !(step > 0 && step <= maxStep) {
		// The range Stepped and the coded files' headers accept: a model
		// trained at 1e300 coded at its own step only.
		return fmt.Errorf("codec: quantiser step %v out of range (0, %d]", step, maxStep)
	}
	for _, c := range m.Channels {
		if err := c.setStep(step); err != nil {
			return err
		}
	}
	m.Step = step
	m.idOnce = sync.Once{}
	m.stepMu.Lock()
	m.stepped, m.stepBasis = nil, nil // derived at the old scale
	// minStep's bisection starts from the step: found again, as a
	// model read at this step finds it (kept, the rate searches after
	// SetStep chose other finest steps than such a model's, and coded
	// other files at rates beyond them).
	m.finest, m.finestKnown = 0, false
	m.stepMu.Unlock()
	return nil
}

func (c *Channel) setStep(step float64) error {
	k := c.Leading()
	dims := c.Dims()
	bins := make([]int, dims)
	scale := make([]float64, k)
	lead := make([]*ScalarQuantizer, k)
	if k > 0 {
		ext, norm, err := c.responses()
		if err != nil {
			return err
		}
		n := len(norm) / k
		var col []float64
		// With the basis's responses, each quantiser comes from one pass
		// over them (centredDeadZoneScaled) where a column's extremes are
		// known (finite).
		var nlo, nhi []float64
		if c.basis != nil && len(norm) > 0 && &norm[0] == &c.basis.norm[0] {
			nlo, nhi = c.basis.normRange(k)
		}
		for j := 0; j < k; j++ {
			// One response unit is one step of the unfolded coordinate
			// (exactly so for gamma 0); the quantiser is a dead zone
			// centred on the median response, the peak of a
			// symmetric coefficient.
			scale[j] = ext[j] / step
			if !(scale[j] <= maxLevels) {
				return &stepError{fmt.Sprintf("codec: a step of %.3g gives about %.3g bins in SPCA dimension %d (at most %d): choose a larger step", step, scale[j], j+1, maxLevels)}
			}
			var q *ScalarQuantizer
			if nlo != nil {
				q, err = centredDeadZoneScaled(norm, k, j, scale[j], medianScaled(c.basis.mid[j], n, scale[j]), nlo[j], nhi[j])
			}
			if q == nil && err == nil {
				if col == nil {
					if c.basis != nil {
						col = c.basis.scratch(n)
						defer c.basis.free(col)
					} else {
						col = make([]float64, n)
					}
				}
				for i := range col {
					col[i] = norm[i*k+j] * scale[j]
				}
				if c.basis != nil {
					q, err = centredDeadZoneIn(col, medianScaled(c.basis.mid[j], n, scale[j]))
				} else {
					q, err = centredDeadZone(col)
				}
			}
			if err != nil {
				return err
			}
			lead[j] = q
			bins[j] = len(q.Levels)
		}
	}
	rest := make([]*ScalarQuantizer, 0, dims-k)
	if c.basis != nil && c.basis.rest != nil {
		for j := k; j < dims; j++ {
			q, err := c.basis.rest[j-k].deadZone(step)
			if err != nil {
				return err
			}
			rest = append(rest, q)
			bins[j] = len(q.Levels)
		}
		return c.setQuantizers(bins, scale, lead, rest)
	}
	train, err := c.TrainingSample()
	if err != nil {
		return err
	}
	n, _ := train.Dims()
	col := make([]float64, n)
	for j := k; j < dims; j++ {
		mat.Col(col, j, train)
		q, err := DeadZone(col, step)
		if err != nil {
			return err
		}
		rest = append(rest, q)
		bins[j] = len(q.Levels)
	}
	return c.setQuantizers(bins, scale, lead, rest)
}

// centredDeadZone is DeadZone with a unit step around the median of x
// instead of zero, covering only the range of x, with its levels inside
// it: x are SPCA responses, which saturate at the ends of the metric
// tables (a level beyond the largest response seen, where the table is
// flat, was inverted to coefficients of over 1000 on kodim08).
func centredDeadZone(x []float64) (*ScalarQuantizer, error) {
	return centredDeadZoneAt(x, quantileOf(append([]float64(nil), x...), 0.5))
}

// centredDeadZoneAt is centredDeadZone around mid, x's median.
// x is left as it was; centredDeadZoneIn is centredDeadZoneAt of x that
// leaves in x the values less mid.
func centredDeadZoneAt(x []float64, mid float64) (*ScalarQuantizer, error) {
	return centredDeadZoneIn(append([]float64(nil), x...), mid)
}

func centredDeadZoneIn(x []float64, mid float64) (*ScalarQuantizer, error) {
	for i, v := range x {
		x[i] = v - mid
	}
	q, err := deadZoneQuantizer(x, 1, 0)
	if err != nil {
		return nil, err
	}
	return q.shifted(mid), nil
}

// shifted returns q with its levels and thresholds moved by mid.
func (q *ScalarQuantizer) shifted(mid float64) *ScalarQuantizer {
	for i := range q.Levels {
		q.Levels[i] += mid
	}
	for i := range q.Thresholds {
		q.Thresholds[i] += mid
	}
	return q
}

// centredDeadZoneScaled is centredDeadZoneIn of column j of the n×k
// values norm, each times scale, about mid, in one pass over them
// without a copy, bit for bit: the values' extremes are those of the
// column's, nlo and nhi, scaled and less mid (rounding keeps the order).
// It returns nil and no error where those are not finite (a NaN or an
// infinity in the column, which centredDeadZoneIn reports).
func centredDeadZoneScaled(norm []float64, k, j int, scale, mid, nlo, nhi float64) (*ScalarQuantizer, error) {
	lo, hi := float64(nlo*scale)-mid, float64(nhi*scale)-mid
	if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0) {
		return nil, nil
	}
	g, err := newDeadZoneGrid(lo, hi, 1, 0)
	if err != nil {
		return nil, err
	}
	sum, cnt := g.sum, g.cnt
	for i := j; i < len(norm); i += k {
		v := float64(norm[i]*scale) - mid
		// deadZoneCell(v, 1): the conversion truncates, which floors
		// the non-negative sum (below maxLevels: the grid's range).
		c := int(math.Abs(v) + deadZone)
		if v < 0 {
			c = -c
		}
		c -= g.kLo
		sum[c] += v
		cnt[c]++
	}
	return g.quantizer().shifted(mid), nil
}

// responses returns the range of every unfolded coordinate over the
// training sample and the training responses at unit scale (n×k, row
// major), computed once per channel.
func (c *Channel) responses() (ext, norm []float64, err error) {
	c.extOnce.Do(func() {
		train, err := c.TrainingSample()
		if err != nil {
			c.extErr = err
			return
		}
		n, _ := train.Dims()
		k := c.Leading()
		lead := mat.NewDense(n, k, nil)
		lead.Copy(train.Slice(0, n, 0, k))
		u, _, err := c.SPCA.UnfoldBatch(lead)
		if err != nil {
			c.extErr = err
			return
		}
		scale := c.SPCA.Scale()
		r := make([]float64, n*k)
		ms := c.SPCA.NewMetricScratch()
		for i := 0; i < n; i++ {
			row := r[i*k : (i+1)*k]
			c.SPCA.MetricWork(row, u.RawRowView(i), ms)
			for j := range row {
				row[j] /= scale[j]
			}
		}
		c.ext = make([]float64, k)
		col := make([]float64, n)
		for j := range c.ext {
			mat.Col(col, j, u)
			lo, hi := col[0], col[0]
			for _, v := range col {
				lo, hi = min(lo, v), max(hi, v)
			}
			c.ext[j] = hi - lo
		}
		c.norm = r
	})
	return c.ext, c.norm, c.extErr
}

func (c *Channel) setBins(bins []int) error {
	for j, b := range bins {
		if b > maxLevels {
			return fmt.Errorf("codec: %d bins in dimension %d (at most %d): choose a lower resolution", b, j+1, maxLevels)
		}
	}
	train, err := c.TrainingSample()
	if err != nil {
		return err
	}
	n, dims := train.Dims()
	k := c.Leading()
	col := make([]float64, n)
	rest := make([]*ScalarQuantizer, 0, dims)
	for j := k; j < dims; j++ {
		mat.Col(col, j, train)
		q, err := LloydMax(col, bins[j])
		if err != nil {
			return err
		}
		rest = append(rest, q)
	}
	scale := make([]float64, k)
	for j := range scale {
		scale[j] = float64(bins[j])
	}
	return c.setQuantizers(bins, scale, nil, rest)
}

// setQuantizers installs the bins of every coefficient, the SPCA scale
// and, in the entropy-constrained mode, the quantisers of the SPCA
// responses (nil: unit bins [b, b+1) reconstructed at b + 1/2), and the
// quantisers of the rest.
func (c *Channel) setQuantizers(bins []int, scale []float64, lead, rest []*ScalarQuantizer) error {
	for _, b := range bins {
		if b > maxLevels {
			return fmt.Errorf("codec: %d bins in one dimension (at most %d)", b, maxLevels)
		}
	}
	if c.SPCA != nil {
		if err := c.SPCA.SetScale(scale); err != nil {
			return err
		}
	}
	c.Bins = append(c.Bins[:0], bins...)
	c.basisSec = nil // at the old scale
	c.Lead = lead
	c.Rest = rest
	c.bookOnce = sync.Once{}
	c.bookBuilt.Store(false)
	c.book = nil
	c.startOnce = sync.Once{}
	c.start = nil
	c.pixOnce = [2]sync.Once{}
	c.pix8, c.pix16 = nil, nil
	c.findOnce = sync.Once{}
	c.levOnce = sync.Once{}
	c.restLev = nil
	c.leadFind, c.restFind = nil, nil
	c.restTab = nil
	c.levelOnce = sync.Once{}
	c.levelInv = nil
	c.cellsMu.Lock()
	c.cells = nil
	c.edges = nil
	c.cellsMu.Unlock()
	c.cellsUsed.Store(false)
	return c.prepare()
}

// prepare derives the centre index of every dimension from the training
// patches.
func (c *Channel) prepare() error {
	if c.basis != nil && (c.basis.rest != nil || c.Dims() == c.Leading()) {
		c.centreFromBasis(c.basis)
		return nil
	}
	train, err := c.TrainingSample()
	if err != nil {
		return err
	}
	n, dims := train.Dims()
	idx := make([]int32, n*dims)
	if b := c.fastFrom; b != nil && c.SPCA != nil && c.Leading() > 0 {
		// A derived channel (Stepped): the same sample, lattice and
		// unfolding as b's, at another response scale.
		u, err := b.unfoldedSample()
		if err != nil {
			return err
		}
		c.quantizeUnfolded(train, u, idx)
	} else {
		c.quantizeExact(train, idx)
	}
	c.Centre = make([]int, dims)
	for j := 0; j < dims; j++ {
		counts := make([]int, c.Bins[j])
		for i := 0; i < n; i++ {
			counts[idx[i*dims+j]]++
		}
		best := 0
		for b, v := range counts {
			if v > counts[best] {
				best = b
			}
		}
		c.Centre[j] = best
	}
	return nil
}

// unfoldedSample returns the unfolded coordinates of the leading
// coefficients of the channel's training sample (spca's UnfoldedBatch),
// computed once.
func (c *Channel) unfoldedSample() (*mat.Dense, error) {
	c.unfoldedOnce.Do(func() {
		lead, err := c.leadSample()
		if err != nil {
			c.unfoldedErr = err
			return
		}
		c.unfolded, c.unfoldedErr = c.SPCA.UnfoldedBatch(lead)
	})
	return c.unfolded, c.unfoldedErr
}

// ModelID identifies a codec model: the SHA-256 of its model file bytes.
type ModelID [32]byte

// String returns the ID in hexadecimal.
func (id ModelID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first 12 hexadecimal digits of the ID, enough to tell
// models apart in messages.
func (id ModelID) Short() string { return id.String()[:12] }

// ID returns the content hash (SHA-256) of the model file bytes: files
// encoded with a model carry it, and decoding checks it.
func (m *Model) ID() ModelID {
	m.idOnce.Do(func() {
		h := sha256.New()
		m.write(h, false)
		copy(m.id[:], h.Sum(nil))
	})
	return m.id
}

// searchRate sets the resolution (or, if uniform, the step of the
// entropy-constrained mode) at which the images code at the target bits
// per pixel.
func (m *Model) searchRate(images []image.Image, bpp float64, uniform bool) error {
	if uniform {
		return m.searchStep(images, bpp)
	}
	return m.searchBins(images, bpp)
}

// searchBins sets the total resolution whose coding of the training
// images averages the target bits per pixel (bisection on the total; the
// rate grows with it).
func (m *Model) searchBins(images []image.Image, bpp float64) error {
	lo, hi := m.Patch*m.Patch, 1<<14
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if err := m.SetBins(mid); err != nil {
			return err
		}
		r, err := m.rate(images)
		if err != nil {
			return err
		}
		if r > bpp {
			hi = mid
		} else {
			lo = mid
		}
	}
	return m.SetBins(lo)
}

// searchStep sets the smallest quantiser step (to 0.5 %) at which the
// images code at no more than bpp bits per pixel, by bisection on a
// logarithmic scale: the rate falls as the step grows.
func (m *Model) searchStep(images []image.Image, bpp float64) error {
	lo, hi := math.Log(1.0/16), math.Log(4096.0) // steps in PCA units
	for hi-lo > 0.005 {
		mid := 0.5 * (lo + hi)
		if err := m.SetStep(math.Exp(mid)); err != nil {
			lo = mid // too many cells: far above any sensible rate
			continue
		}
		r, err := m.rate(images)
		if err != nil {
			return err
		}
		if r > bpp {
			lo = mid
		} else {
			hi = mid
		}
	}
	return m.SetStep(math.Exp(hi))
}

// rate returns the bits per pixel at which m codes the images, averaged
// over the images as Evaluate reports it.
func (m *Model) rate(images []image.Image) (float64, error) {
	sum := 0.0
	for _, img := range images {
		var b countingWriter
		if err := Encode(&b, img, m, nil); err != nil {
			return 0, err
		}
		sum += 8 * float64(b.n) / float64(img.Bounds().Dx()*img.Bounds().Dy())
	}
	return sum / float64(len(images)), nil
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

// histEntropy is the differential entropy (bits) of x from a
// Freedman–Diaconis histogram.
func histEntropy(x []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if !(hi > lo) {
		return math.Inf(-1)
	}
	s := append([]float64(nil), x...)
	q1, q3 := quantileOf(s, 0.25), quantileOf(s, 0.75)
	w := 2 * (q3 - q1) / math.Cbrt(float64(len(x)))
	if !(w > 0) {
		w = (hi - lo) / math.Sqrt(float64(len(x)))
	}
	bins := int(math.Min(1e5, math.Ceil((hi-lo)/w)))
	w = (hi - lo) / float64(bins)
	counts := make([]int, bins)
	for _, v := range x {
		counts[min(bins-1, int((v-lo)/w))]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(x))
			h -= p * math.Log2(p/w)
		}
	}
	return h
}
