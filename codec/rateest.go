package codec

import (
	"image"
	"math"
	"sync"
)

// estHalf bounds the cells rateEstimate counts per coefficient: cells
// beyond ±estHalf share the end ones (their share of the bits is small
// at the steps a rate search tries).
const estHalf = 256

// estBusy is the number of classes rateEstimate conditions a
// coefficient's cells on: how many of the patch's earlier coefficients
// are off zero (0, 1, 2, 3-4, more), as the coder's contexts do.
const estBusy = 5

// estWidth is the cells of one histogram of rateEstimate.
const estWidth = 2*estHalf + 1

// rateEstimate returns an estimate of the bits per pixel that the
// channels of in (transformed: in.chans set) take at step, from the cells
// of the quantisers SetStep derives (unit-step dead zones about the
// median response for the SPCA dimensions, dead zones of the step for
// the rest), computed from the unit-scale responses without deriving
// them: the entropy of each coefficient's cells given how many earlier
// coefficients of the patch are off zero, of the first one's difference
// from its prediction from the neighbours (arDCPrediction), and of the
// flag that a patch's rest is all zero, after which its rest costs
// nothing. It ignores the coder's adaptation to the neighbours, the
// refinement of the cells and the outliers: the rate search calibrates
// it against exact probes. It takes one row of patches of every stride
// (a multiple of estRowStride). sc holds its arrays.
func rateEstimate(in *encodeInput, bases []*stepBasis, m *Model, step float64, pixels float64, stride int, sc *estScratch) float64 {
	bits := 0.0
	sc.busy = true
	for ci, t := range in.chans {
		c, bs := m.Channels[ci], bases[ci]
		rows, dims := t.y.Dims()
		k := c.Leading()
		from := restFrom(k)
		// The histograms, zero on entry: each call clears the ranges
		// it read (every count lies in them), not the 656 KB (8×8).
		// The rest's zero cells, most of the cells, are counted apart
		// in zeros (a small array, by class and coefficient) and added
		// to the histograms' middles before the entropy: the same
		// counts.
		counts := sc.counts[:estBusy*dims*estWidth]
		zeros := sc.zeros[:estBusy*dims]
		chBits := 0.0
		dc := resize(sc.dc, rows)
		sc.dc = dc
		inv := 1 / step
		var scale, mid [maxEstLead]float64
		for j := 0; j < k; j++ {
			scale[j] = bs.ext[j] * inv
			mid[j] = medianScaled(bs.mid[j], bs.n, scale[j])
		}
		// The histograms' offsets for each count of coefficients off
		// zero (their busy class).
		var classAt, zeroAt [estBusy + 1]int
		for nz := range classAt {
			zeroAt[nz] = arBusyClass(nz) * dims
			classAt[nz] = zeroAt[nz] * estWidth
		}
		cols := t.grid.Cols()
		// The first coefficient's cells, which the predictions read:
		// in the rows of patches taken and the ones above them
		// (arDCPrediction), not every row (the coarse estimate takes
		// one in 8).
		for i0 := 0; i0 < rows; i0 += stride * cols {
			for i := max(0, i0-cols); i < min(rows, i0+cols); i++ {
				var v float64
				if k > 0 {
					v = float64(t.resp[i*k]*scale[0]) - mid[0]
				} else {
					v = t.y.At(i, 0) * inv
				}
				dc[i] = estCell(v)
			}
		}
		busy, n := 0, 0
		lead := max(1, k)
		tl := t.restTails(lead, cols)
		for i0 := 0; i0 < rows; i0 += stride * cols {
			for i := i0; i < min(rows, i0+cols); i++ {
				col := i - i0
				n++
				row := t.y.RawRowView(i)
				// The rest ends after its last coefficient off zero, the
				// ones after it cost nothing: the largest of the row's
				// magnitudes from the end (tl.mag, increasing) whose
				// cell is not zero is the last one off zero (the
				// magnitudes after it are all smaller), found in a few
				// instead of scanning the rest's zeros.
				end := from
				for r := tl.at[i]; r < tl.at[i+1]; r++ {
					if estCell(math.Float64frombits(tl.mag[r])*inv) != 0 {
						end = int(tl.j[r]) + 1
						break
					}
				}
				if end > from {
					busy++
				}
				q := dc[i] - int32(arDCPrediction(dc, i, col, cols, 1, 0))
				q = max(-estHalf, min(estHalf, q)) + estHalf
				counts[q]++ // class 0, coefficient 0
				nz := 0
				if q != estHalf {
					nz = 1
				}
				for j := 1; j < min(k, end); j++ {
					q := estCell(float64(t.resp[i*k+j]*scale[j])-mid[j]) + estHalf
					counts[classAt[nz]+j*estWidth+int(q)]++
					if q != estHalf {
						nz = min(nz+1, estBusy)
					}
				}
				at, zat := classAt[nz], zeroAt[nz]
				for j := lead; j < end; j++ {
					v := row[j] * inv
					if math.Abs(v)+deadZone < 1 { // estCell(v) == 0
						zeros[zat+j]++
						continue
					}
					counts[at+j*estWidth+int(estCell(v)+estHalf)]++
					if nz < estBusy {
						nz++
						at, zat = classAt[nz], zeroAt[nz]
					}
				}
			}
		}
		// Each coefficient's cells lie within its extremes' (estCell is
		// monotonic): the leading ones' anywhere, the rest's within
		// the cell of their largest magnitude (t.absMax).
		absMax := tl.absMax
		scaleUp := float64(rows) / float64(n)
		for cl := 0; cl < estBusy; cl++ {
			for j := 0; j < dims; j++ {
				lo, hi := 0, estWidth-1
				if j >= lead {
					c := int(estCell(absMax[j] * inv))
					lo, hi = estHalf-c, estHalf+c
				}
				h := counts[(cl*dims+j)*estWidth:][:estWidth]
				h[estHalf] += zeros[cl*dims+j]
				zeros[cl*dims+j] = 0
				tot := 0.0
				for _, cnt := range h[lo : hi+1] {
					tot += float64(cnt)
				}
				for _, cnt := range h[lo : hi+1] {
					if cnt > 0 {
						f := float64(cnt)
						chBits -= float64(f * math.Log2(f/tot))
					}
				}
				clear(h[lo : hi+1])
			}
		}
		if busy > 0 && busy < n {
			p := float64(busy) / float64(n)
			chBits -= float64(float64(n) * (float64(p*math.Log2(p)) + float64((1-p)*math.Log2(1-p))))
		}
		bits += float64(chBits * scaleUp)
	}
	sc.busy = false
	return bits / pixels
}

// estRowStride is the rows of patches rateEstimate takes one of: the
// first coefficient's predictions read every row.
const estRowStride = 2

// estCoarseStride is the rows of patches the coarse estimate takes one
// of (rateModel.coarseAt).
const estCoarseStride = 8

// estCoarsePatches is the patches of its first channel below which an
// image has no coarse estimate: its histograms would be too sparse to
// lead the search.
const estCoarsePatches = 4096

// estCell is the dead-zone cell of v at a unit step.
func estCell(v float64) int32 {
	a := math.Abs(v) + deadZone
	if !(a < estHalf) {
		a = estHalf
	}
	if v < 0 {
		return -int32(a)
	}
	return int32(a)
}

// estScratch holds rateEstimate's arrays. counts and zeros are zero
// between calls (each clears what it counted), so that a scratch serves
// the next image without clearing 656 KB (8×8) again.
type estScratch struct {
	counts []int32
	zeros  []int32
	dc     []int32
	// busy is set while a rateEstimate counts: a scratch it left
	// (a panic) is not zero, and goes back to no pool.
	busy bool
}

// estScratches holds estScratch values between images.
var estScratches = sync.Pool{New: func() any { return new(estScratch) }}

// takeEstScratch returns a scratch for channels of up to dims
// coefficients, zeroed (putEstScratch hands it back).
func takeEstScratch(dims int) *estScratch {
	sc := estScratches.Get().(*estScratch)
	if n := estBusy * dims * estWidth; len(sc.counts) < n {
		sc.counts, sc.zeros = make([]int32, n), make([]int32, estBusy*dims)
	}
	return sc
}

// putEstScratch hands sc back to the pool once no rateEstimate uses it.
func putEstScratch(sc *estScratch) {
	if !sc.busy {
		estScratches.Put(sc)
	}
}

// restTails holds, for the rows of patches rateEstimate takes, where
// each one's rest ends at any step (rateEstimate), and each coefficient's
// largest magnitude from the lead-th on (absMax, indexed by
// coefficient): found once per image (stepFree.restTails).
type restTails struct {
	// Row i's coefficients from the end whose magnitude exceeds every
	// one after it (the rest's from lead on): their magnitudes' bits
	// in mag[at[i]:at[i+1]] (increasing; ordered as their values, a NaN
	// above every number), their coefficients in j (decreasing). Zeros
	// are left out: their cell is zero at every step. Rows not taken
	// have none.
	at     []int32
	mag    []uint64
	j      []int32
	absMax []float64
}

// restTailsPool holds restTails arrays between images (stepFree's
// release hands them back).
var restTailsPool = sync.Pool{New: func() any { return new(restTails) }}

// restTails returns t's restTails for coefficients from lead on, in
// the rows of patches a rateEstimate of stride estRowStride takes (which
// hold those of every multiple of it), computed once.
func (t *stepFree) restTails(lead, cols int) *restTails {
	if t.tails != nil {
		return t.tails
	}
	rows, dims := t.y.Dims()
	// In the arrays of an earlier image's (every entry of at is set).
	tl := restTailsPool.Get().(*restTails)
	tl.at = resize(tl.at, rows+1)
	// Room for the magnitudes of the rows taken (9.4 a row on kgray and
	// the crops with the 8×8 model, 4.4 with the 4×4): appends that grow
	// them cost allocations and copies.
	size := (rows/(estRowStride*cols) + 1) * cols * ((dims-lead)/6 + 2)
	if cap(tl.mag) < size {
		tl.mag, tl.j = make([]uint64, 0, size), make([]int32, 0, size)
	}
	tl.mag, tl.j = tl.mag[:0], tl.j[:0]
	bits := make([]uint64, dims)
	am := bits[lead:]
	for i0 := 0; i0 < rows; i0 += estRowStride * cols {
		for i := i0; i < min(rows, i0+estRowStride*cols); i++ {
			tl.at[i] = int32(len(tl.mag))
			if i >= i0+cols {
				continue // the rows of patches between
			}
			rest := t.y.RawRowView(i)[lead:dims]
			top := uint64(0)
			for j := len(rest) - 1; j >= 0; j-- {
				b := math.Float64bits(rest[j]) &^ (1 << 63)
				am[j] = max(am[j], b)
				if b > top {
					top = b
					tl.mag = append(tl.mag, b)
					tl.j = append(tl.j, int32(lead+j))
				}
			}
		}
	}
	tl.at[rows] = int32(len(tl.mag))
	tl.absMax = resize(tl.absMax, dims)
	for j, b := range bits {
		tl.absMax[j] = math.Float64frombits(b)
	}
	t.tails = tl
	return tl
}

// estNear is the grid steps (stepGrid) within which rateModel takes
// the estimate from one computed, along the slope, instead of computing
// it.
const estNear = 0.5

// estLinear is the distance in log step within which rateModel takes
// the estimate from one computed along the slope once it knows it
// (rateModel.at): the curve bends little over it.
const estLinear = 0.05

// maxEstLead bounds the SPCA dimensions rateEstimate handles on the
// stack.
const maxEstLead = 16

// rateModel predicts the rate at which an image codes at any step: the
// zero-order estimate (rateEstimate) times a factor calibrated on the
// exact probes, ln r(x) = g(x) + a + β(x − xr) with x the log of the
// step and g the log of the estimate: before any probe a = β = 0 (the
// coded rate over the estimate is 0.86-1.25 on kodim13-24 and the 8
// grey crops, both models, and changes by a few percent over a factor
// of 2 in the step), one probe sets a, two set both.
type rateModel struct {
	in     *encodeInput
	m      *Model
	bases  []*stepBasis
	pixels float64
	sc     *estScratch
	slope  float64      // of g against x where propose last found it
	head   float64      // the header's bits per pixel in the last probe
	g      [][2]float64 // the estimates computed: x, g(x)
	coarse bool         // whether the first proposal starts with coarse estimates
	// slopeKnown is set once slope comes from estimates: at takes the
	// estimate within estLinear of one computed along it.
	slopeKnown bool
	obs        [][3]float64 // the exact probes: x, ln r − g(x), r
}

// newRateModel returns the rate model of img coded with m (a model of
// its own, not one Stepped), transforming the image into in, or nil
// where there is none (no step basis, an image the probes will refuse).
func newRateModel(img image.Image, m *Model, o *Options, in *encodeInput, pixels float64) *rateModel {
	b := img.Bounds()
	if m.base != nil || b.Dx() < 1 || b.Dy() < 1 || int64(b.Dx())*int64(b.Dy()) > maxPixels || !in.share {
		return nil
	}
	if o.Assign != AssignNearest && o.Assign != AssignResponses {
		return nil
	}
	plan, err := planOf(o.Effort)
	if err != nil {
		return nil // the probes say so
	}
	m.stepMu.Lock()
	err = m.loadBases()
	bases := m.stepBasis
	m.stepMu.Unlock()
	if err != nil {
		return nil
	}
	dims := 0
	for _, c := range m.Channels {
		if c.Leading() > maxEstLead {
			return nil
		}
		if !o.Exact {
			if _, err := c.loadFast(); err != nil {
				return nil
			}
		}
		dims = max(dims, c.Dims())
	}
	if in.planes == nil {
		in.prepare(img, m)
	}
	if len(in.planes) != len(m.Channels) {
		return nil
	}
	for ci, c := range m.Channels {
		if in.chans[ci] == nil {
			in.chans[ci] = c.transformSamples(in.planes[ci], in.gray8, m.Patch, o.Exact, plan.newton)
		}
	}
	rows, _ := in.chans[0].y.Dims()
	return &rateModel{in: in, m: m, bases: bases, pixels: pixels, sc: takeEstScratch(dims), slope: -1.2, coarse: rows >= estCoarsePatches}
}

// release hands the model's scratch back: r estimates nothing more.
func (r *rateModel) release() {
	if r.sc != nil {
		putEstScratch(r.sc)
		r.sc = nil
	}
}

// at returns g(x), the log of the estimate at step e^x: taken along the
// slope from the nearest estimate computed within estNear grid steps of
// x (the probes' steps are the proposals rounded to the grid: each took
// an evaluation, 0.03 % from the proposal's) or, once the slope is known
// from estimates, within estLinear; else computed.
func (r *rateModel) at(x float64) float64 {
	near, d := -1, estNear*stepGrid
	if r.slopeKnown {
		d = estLinear
	}
	for i, p := range r.g {
		if e := math.Abs(p[0] - x); e <= d {
			near, d = i, e
		}
	}
	if near >= 0 {
		p := r.g[near]
		if p[0] == x {
			return p[1]
		}
		return p[1] + float64(r.slope*(x-p[0]))
	}
	r.in.estimates++
	g := math.Log(rateEstimate(r.in, r.bases, r.m, math.Exp(x), r.pixels, estRowStride, r.sc))
	r.g = append(r.g, [2]float64{x, g})
	return g
}

// coarseAt is at with the coarse estimate: a row of patches of every
// estCoarseStride.
func (r *rateModel) coarseAt(x float64) float64 {
	r.in.coarse++
	return math.Log(rateEstimate(r.in, r.bases, r.m, math.Exp(x), r.pixels, estCoarseStride, r.sc))
}

// observe records an exact probe: rate at step e^x, of which head was
// the header's (the estimate counts the channels' streams).
func (r *rateModel) observe(x, rate, head float64) {
	r.head = head
	r.obs = append(r.obs, [3]float64{x, math.Log(max(rate-head, 1e-9)) - r.at(x), rate})
}

// propose returns the log step at which the model predicts the rate bpp,
// searched from x.
func (r *rateModel) propose(bpp, x float64) float64 {
	a, beta, xr := 0.0, 0.0, x
	if n := len(r.obs); n > 0 {
		// The last probe, and the probe nearest it in step of those on
		// the other side of the target (else the one before it).
		p := r.obs[n-1]
		a, xr = p[1], p[0]
		q, dq := -1, math.Inf(1)
		for i, o := range r.obs[:n-1] {
			if (o[2] > bpp) != (p[2] > bpp) && o[0] != p[0] && math.Abs(o[0]-p[0]) < dq {
				q, dq = i, math.Abs(o[0]-p[0])
			}
		}
		if q < 0 && n > 1 && r.obs[n-2][0] != p[0] {
			q = n - 2
		}
		if q >= 0 {
			o := r.obs[q]
			beta = max(-0.6, min(0.6, (p[1]-o[1])/(p[0]-o[0])))
		}
	}
	t := math.Log(max(bpp-r.head, 1e-9))
	if len(r.obs) == 0 && r.coarse {
		// The first proposal, often far from the model's step: first
		// with the coarse estimate, then from there with the estimate
		// (mostly one or two evaluations instead of three to five).
		x = r.solve(func(x float64) float64 { return r.coarseAt(x) - t }, x, 0, 2*math.Ln2)
	}
	return r.solve(func(x float64) float64 { return r.at(x) + a + float64(beta*(x-xr)) - t }, x, beta, math.Ln2)
}

// solve returns where h, a function of the log step falling as
// g + beta, meets 0, searched from x by steps of at most reach.
func (r *rateModel) solve(h func(float64) float64, x, beta, reach float64) float64 {
	h0 := h(x)
	if math.IsNaN(h0) || math.IsInf(h0, 0) {
		return x
	}
	// Secant from the slope of the last search (first -1.2, ln rate
	// against ln step near 1 bpp), to within half a percent of the rate
	// (the calibration misses by more).
	slope := r.slope + beta
	for it := 0; it < 8 && math.Abs(h0) > 0.005; it++ {
		x1 := x - h0/slope
		x1 = max(x-reach, min(x+reach, x1))
		if math.Abs(x1-x) < 0.5*stepGrid {
			x = x1 // the grid has no closer step to evaluate
			break
		}
		h1 := h(x1)
		if math.IsNaN(h1) || math.IsInf(h1, 0) {
			break
		}
		if s := (h1 - h0) / (x1 - x); s < -0.05 {
			slope, r.slope, r.slopeKnown = s, s-beta, true
		}
		x, h0 = x1, h1
	}
	return x
}
