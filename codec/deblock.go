package codec

import (
	"encoding/binary"
	"image"
	"math"

	"github.com/spcalab/spca/patches"
)

// Unless Options.Deblock says otherwise, Encode chooses the deblocking
// strength of a version-5 file itself: it reconstructs the image as the
// decoder will and keeps the strength 0..maxDeblock with the smallest
// squared error (bestDeblock). The decoder is unchanged: the strength is
// the header's byte, as when it was a fixed default (4, chosen on two
// images that were themselves test images).

// deblockErrors returns the squared error against orig of the
// reconstruction rec deblocked at each strength 0..maxDeblock; with
// gray8 the pixels are rounded to 8 bits before and while filtering, as
// the decoder of a grey 8-bit image does. Each strength filters a copy
// of rec and sums every pixel's squared error in raster order: the
// errors as the encoder has always computed them, which deblockSearch
// reproduces without the copies where it can tell it would choose the
// same strength.
func deblockErrors(orig, rec patches.Plane, step float64, n int, gray8 bool) []float64 {
	clamp := func(v float64) float64 { return math.Max(0, math.Min(255, math.Round(v))) }
	if gray8 {
		g := image.NewGray(image.Rect(0, 0, rec.W, rec.H))
		for i, v := range rec.Pix {
			g.Pix[i] = uint8(clamp(v))
		}
		return deblockErrorsGray(orig, g, step, n)
	}
	if n < 2 || !(step > 0) {
		return deblockErrorsAt(orig, rec, n, nil)
	}
	return deblockErrorsAt(orig, rec, n, func(k int) (alpha, beta, tc float64) { return deblockParams(k, step, n) })
}

// deblockErrorsAt is deblockErrors of a float64 plane at the thresholds
// of each strength that params gives (nil: no filter).
func deblockErrorsAt(orig, rec patches.Plane, n int, params func(k int) (alpha, beta, tc float64)) []float64 {
	errs := make([]float64, maxDeblock+1)
	base := rec.Pix
	work := make([]float64, len(base))
	for k := range errs {
		copy(work, base)
		if k > 0 && params != nil {
			alpha, beta, tc := params(k)
			deblockFloat(work, rec.W, rec.W, rec.H, n, alpha, beta, tc)
		}
		errs[k] = sseFloat(work, orig.Pix)
	}
	return errs
}

// sseFloat is the squared error of rec against orig, summed in order.
func sseFloat(rec, orig []float64) float64 {
	var s float64
	orig = orig[:len(rec)]
	for i, v := range rec {
		d := v - orig[i]
		s += float64(d * d)
	}
	return s
}

// sseLanes is a squared error of rec against orig summed in 32 lanes
// (addRow: the sample in column x of each row in lane x mod 32, each
// lane in order; sum: the lanes pairwise): the search's unfiltered error
// (searchDeblockAt), added row by row as the search reads the rows, and
// within a bound of sseFloat's sum instead of its bits. sseFloat's pass
// over the planes (one chain of additions, from memory) was 2.8 % of a
// colour encode (kodim13-24, c8b).
type sseLanes [32]float64

// addRow adds the squared errors of the samples of row against orow.
func (l *sseLanes) addRow(row, orow []float64) {
	orow = orow[:len(row)]
	for x := sseLanesKernel(row, orow, (*[32]float64)(l)); x < len(row); x++ {
		d := row[x] - orow[x]
		l[x%32] += float64(d * d)
	}
}

// sum adds the lanes pairwise: lane l and l+16, then l and l+8, l+4,
// l+2, l+1.
func (l *sseLanes) sum() float64 {
	a := *l
	for w := 16; w >= 1; w /= 2 {
		for i := range w {
			a[i] += a[i+w]
		}
	}
	return a[0]
}

// sseLanesGo adds the squared errors of rec[:n] against orig to lanes
// as sseLanes does (sample i to lane i mod 32), n a multiple of 32: the
// kernel's twin.
func sseLanesGo(rec, orig []float64, n int, lanes *[32]float64) {
	for i := 0; i < n; i += 32 {
		r, o := (*[32]float64)(rec[i:]), (*[32]float64)(orig[i:])
		for l := range lanes {
			d := r[l] - o[l]
			lanes[l] += float64(d * d)
		}
	}
}

// deblockErrorsGray is deblockErrors of an 8-bit grey reconstruction
// (rec, unchanged), filtered as the decoder does (deblockImage): the same
// values and sums as float64 pixels rounded alike, in an eighth of the
// memory (two float64 copies of a 768×512 image cost a fresh encoding
// process ~1300 page faults, ~20 ms). Each strength's error is the
// unfiltered error plus, for every pixel an edge sets, the change of its
// squared error: the same sum where orig holds whole numbers (8-bit
// images: every term is an integer, exact in float64), without a pass
// over every pixel per strength. With patches of 4 pixels or more it
// goes by edge (whole numbers: deblockErrorsByEdge; fractions, as a
// colour image's luminance: deblockErrorsFrac); otherwise it filters a
// copy per strength. kodim13 grey, 4×4 model: 29 → 8 ms of
// CPU per encode (~28 → 8 % of it).
func deblockErrorsGray(orig patches.Plane, rec *image.Gray, step float64, n int) []float64 {
	// 8-bit originals (whole numbers 0..255): the changes summed in
	// integers, and the unfiltered error too, in the pass that converts
	// them (its terms are whole numbers below 2^16 and their sum below
	// 2^53, so the float64 sum in any order is the same number).
	sc := deblockScratches.Get().(*deblockScratch)
	defer deblockScratches.Put(sc)
	whole := resize(sc.whole, len(orig.Pix))
	sc.whole = whole
	sse0, ok := wholeErrors(whole, orig.Pix, rec.Pix[:len(orig.Pix)])
	if ok {
		return deblockErrorsWhole(whole, sse0, rec, step, n, 1)
	}
	errs, done := newDeblockErrors(sseGrayFloat(rec.Pix, orig.Pix), step, n)
	if done {
		return errs
	}
	w, h := rec.Rect.Dx(), rec.Rect.Dy()
	if !deblockErrorsFrac(errs, orig.Pix, rec.Pix, w, h, n, step, sc) {
		deblockErrorsCopies(errs, orig.Pix, rec.Pix, w, h, n, step)
	}
	return errs
}

// sseGrayFloat is the squared error of the 8-bit rec against orig (as
// long), summed pixel by pixel in order.
func sseGrayFloat(rec []uint8, orig []float64) float64 {
	var s float64
	for i, v := range rec[:len(orig)] {
		d := float64(v) - orig[i]
		s += float64(d * d)
	}
	return s
}

// deblockErrorsCopies fills errs[1:] as deblockErrorsGray does, errs[0]
// holding the unfiltered error: per strength, a copy of rec filtered and
// the change of every pixel the filter sets, in its order.
func deblockErrorsCopies(errs, orig []float64, rec []uint8, w, h, n int, step float64) {
	work := make([]uint8, len(rec))
	for k := 1; k <= maxDeblock; k++ {
		copy(work, rec)
		th := newDeblockThresholds(deblockParams(k, step, n))
		errs[k] = errs[0] + deblockGrayDelta[float64, float64](work, orig, w, h, n, th)
	}
}

// newDeblockErrors returns the errors of the strengths 0..maxDeblock
// with the unfiltered error sse0 in place 0, and whether they are final:
// with patches under 2 pixels or no step the filter changes nothing, and
// every strength's error is sse0.
func newDeblockErrors(sse0, step float64, n int) ([]float64, bool) {
	errs := make([]float64, maxDeblock+1)
	errs[0] = sse0
	if n < 2 || !(step > 0) {
		for k := range errs {
			errs[k] = sse0
		}
		return errs, true
	}
	return errs, false
}

// deblockErrorsGray8 is deblockErrorsGray of an original of 8-bit pixels
// (w×h, rows in order), as the encoder of a grey 8-bit image has it: the
// same errors without reading and converting its float64 plane. It looks
// at one group of block rows in every (the groups deblockErrorsByEdge
// visits; 1: every row, the exact errors), for the lower effort levels:
// errs[0] is still the whole image's unfiltered error, each strength's
// the change of the rows visited added to it, so the strengths compare as
// on those rows.
func deblockErrorsGray8(orig []uint8, rec *image.Gray, step float64, n, every int) []float64 {
	return deblockErrorsWhole(orig, float64(sse8(rec.Pix[:len(orig)], orig)), rec, step, n, every)
}

// deblockErrorsWhole is deblockErrorsGray of an original in whole
// numbers 0..255,
// whose unfiltered error is sse0, over one group of block rows in every
// where deblockErrorsByEdge can (else every row).
func deblockErrorsWhole[O uint8 | int16](orig []O, sse0 float64, rec *image.Gray, step float64, n, every int) []float64 {
	errs, done := newDeblockErrors(sse0, step, n)
	if done {
		return errs
	}
	w, h := rec.Rect.Dx(), rec.Rect.Dy()
	if deblockErrorsByEdge(errs, orig, rec.Pix, w, h, n, step, every) {
		return errs
	}
	work := make([]uint8, len(rec.Pix))
	for k := 1; k <= maxDeblock; k++ {
		copy(work, rec.Pix)
		th := newDeblockThresholds(deblockParams(k, step, n))
		errs[k] = sse0 + float64(deblockGrayDelta[O, int64](work, orig, w, h, n, th))
	}
	return errs
}

// deblockErrorsByEdge fills errs[1:] as deblockErrorsGray does (errs[0]
// holds the unfiltered error), in two passes over the image instead of
// one per strength, and reports whether it could: it needs patches of 4
// pixels or more and moves no edge clips (deblockParams's thresholds).
// Then the edges across one direction touch disjoint pixels, and an edge
// that passes moves its pixels by amounts that depend on the pixels only.
// A vertical edge reads the reconstruction, so from the first strength
// that passes it (its kmin) on, it sets the same pixels. A horizontal
// edge reads four pixels in one column, each set or not by one vertical
// edge: over the strengths its pixels take at most five states, between
// the kmins of those vertical edges, and in each state it is on from its
// own kmin. Every edge adds its change of the squared error to the
// strengths it is on at (a difference array), in integers. It visits the
// rows y whose group (y+2)/n is a multiple of every (1: every row): the
// horizontal edge y·n's band, rows y·n−2..y·n+1, is in group y, so the
// groups visited hold whole bands.
func deblockErrorsByEdge[O uint8 | int16](errs []float64, orig []O, rec []uint8, w, h, n int, step float64, every int) bool {
	const never = deblockNever
	km, ok := newEdgeKmins(step, n)
	if !ok {
		return false
	}
	// th16: the thresholds of each strength for deblockHorizErrKernel
	// (pixel differences are at most 255: clamped past them they decide
	// alike), then the strengths.
	var th16 [24]int16
	var th32 [16]int32 // a_k, b_k for deblockVert4ErrKernel
	for k := maxDeblock; k >= 1; k-- {
		th := newDeblockThresholds(deblockParams(k, step, n))
		th16[k-1], th16[8+k-1], th16[16+k-1] = int16(min(max(th.a, 0), 256)), int16(min(max(th.b, 0), 256)), int16(k)
		th32[k-1], th32[8+k-1] = int32(th16[k-1]), int32(th16[8+k-1])
	}
	moved := edgeMoved
	var diff [never + 1]int64 // diff[k]: change of the error from strength k on
	// hsum[k-1]: changes of the error at strength k that the kernels add
	// up as each strength's own total, not a difference.
	var hsum [maxDeblock]int64
	orig8, is8 := any(orig).([]uint8)
	sc := deblockScratches.Get().(*deblockScratch)
	defer deblockScratches.Put(sc)
	gathered := 0 // edges a row that the kernel takes gathered
	if n > 4 && is8 && w >= 2 && hasVert4Err() {
		// Patches over 4 pixels: each row's edges gathered four bytes
		// apart for deblockVert4ErrKernel (and its outputs back).
		gathered = (w - 2) / n
		sc.edges = resize(sc.edges, 4*4*gathered)
	}
	// Vertical edges, row by row. Around each horizontal edge, in the
	// band of its four rows y−2..y+1 (disjoint bands: n >= 4), von holds
	// every pixel as its vertical edge sets it, kpix that edge's kmin
	// (never: no edge sets the pixel); rows outside every band add to diff
	// only. (Planes of the whole image were 2 bytes a pixel of fresh
	// memory.)
	vertical := func(y int, vr, kr []uint8) {
		rr, or := rec[y*w:][:w], orig[y*w:][:w]
		x := n
		if n == 4 && is8 && w >= 2 {
			// 4×4 patches: the row's edges are its bytes from 2 on in
			// fours, 16 edges at a time in AVX-512 (all of them).
			var v, kr2 []uint8
			if vr != nil {
				v, kr2 = vr[2:], kr[2:]
			}
			x += 4 * deblockVert4ErrKernel(rr[2:], orig8[y*w+2:][:w-2], v, kr2, (w-2)/4, &th32, &hsum)
		} else if m := gathered; m > 0 {
			// Larger patches: the m edges x = n, 2n, ... (x+1 < w) four
			// bytes apart, p1 p0 | q0 q1 each (a 4-byte load and store
			// an edge).
			cr, co, cv, ck := sc.edges[:4*m], sc.edges[4*m:8*m], sc.edges[8*m:12*m], sc.edges[12*m:16*m]
			moveEdges(cr, co, rr, orig8[y*w:][:w], n, m, false)
			if vr == nil {
				cv, ck = nil, nil
			}
			if deblockVert4ErrKernel(cr, co, cv, ck, m, &th32, &hsum) == m {
				if vr != nil {
					moveEdges(cv, ck, vr, kr, n, m, true)
				}
				x = w // every edge
			}
		}
		for ; x+1 < w; x += n {
			// The edge's four pixels resliced: one bounds check each.
			e := rr[x-2 : x+2 : x+2]
			p1, p0, q0, q1 := int(e[0]), int(e[1]), int(e[2]), int(e[3])
			k := km.kmin(p1, p0, q0, q1)
			if k > maxDeblock {
				continue
			}
			o := or[x-2 : x+2 : x+2]
			np1, np0, nq0, nq1, delta := moved(p1, p0, q0, q1, int(o[0]), int(o[1]), int(o[2]), int(o[3]))
			diff[k] += delta
			if vr != nil {
				v, kp := vr[x-2:x+2:x+2], kr[x-2:x+2:x+2]
				v[0], v[1], v[2], v[3] = np1, np0, nq0, nq1
				kp[0], kp[1], kp[2], kp[3] = uint8(k), uint8(k), uint8(k), uint8(k)
			}
		}
	}
	for y := 0; y < h; y++ {
		if every > 1 && (y+2)/n%every != 0 {
			continue
		}
		b := (y + 2) / n * n // the horizontal edge whose band may hold row y
		if b < n || b+1 >= h || y > b+1 {
			vertical(y, nil, nil)
		}
	}
	sc.von, sc.kpix = resize(sc.von, 4*w), resize(sc.kpix, 4*w)
	von, kpix := sc.von, sc.kpix
	// Horizontal edges: with 8-bit originals, whole groups of 16 columns
	// strength by strength in AVX2 (into hsum); the other columns state
	// by state. A column whose
	// four pixels no vertical edge sets (most, with 8-pixel patches) has
	// one state.
	for y := n; y+1 < h; y += n {
		if every > 1 && y/n%every != 0 {
			continue
		}
		copy(von, rec[(y-2)*w:][:4*w])
		fillBytes(kpix, never)
		for r := range 4 {
			vertical(y-2+r, von[r*w:][:w], kpix[r*w:][:w])
		}
		k0s, k1s, k2s, k3s := kpix[:w], kpix[w:][:w], kpix[2*w:][:w], kpix[3*w:][:w]
		r0s, r1s, r2s, r3s := rec[(y-2)*w:][:w], rec[(y-1)*w:][:w], rec[y*w:][:w], rec[(y+1)*w:][:w]
		o0s, o1s, o2s, o3s := orig[(y-2)*w:][:w], orig[(y-1)*w:][:w], orig[y*w:][:w], orig[(y+1)*w:][:w]
		x0 := 0
		if is8 {
			x0 = deblockHorizErrKernel(rec[(y-2)*w:], von, kpix, orig8[(y-2)*w:], 0, w, &th16, &hsum)
		}
		for x := x0; x < w; x++ {
			if min(k0s[x], k1s[x], k2s[x], k3s[x]) == never {
				p1, p0, q0, q1 := int(r0s[x]), int(r1s[x]), int(r2s[x]), int(r3s[x])
				if kh := km.kmin(p1, p0, q0, q1); kh <= maxDeblock {
					_, _, _, _, delta := moved(p1, p0, q0, q1, int(o0s[x]), int(o1s[x]), int(o2s[x]), int(o3s[x]))
					diff[kh] += delta // on to the end: diff[never] is not summed
				}
				continue
			}
			ks := [4]uint8{k0s[x], k1s[x], k2s[x], k3s[x]}
			i := 2*w + x // row y in the band
			on := [4]int{int(von[i-2*w]), int(von[i-w]), int(von[i]), int(von[i+w])}
			off := [4]int{int(r0s[x]), int(r1s[x]), int(r2s[x]), int(r3s[x])}
			for ka := 1; ka <= maxDeblock; {
				// The state from ka on: the pixels of the vertical edges
				// on at ka; it lasts to the next kmin among the others.
				px, kb := bandState(&ks, ka, &on, &off)
				if kh := max(ka, km.kmin(px[0], px[1], px[2], px[3])); kh < kb {
					_, _, _, _, delta := moved(px[0], px[1], px[2], px[3], int(o0s[x]), int(o1s[x]), int(o2s[x]), int(o3s[x]))
					diff[kh] += delta
					diff[kb] -= delta
				}
				ka = kb
			}
		}
	}
	sse := int64(errs[0])
	for k := 1; k <= maxDeblock; k++ {
		sse += diff[k]
		errs[k] = float64(sse + hsum[k-1])
	}
	return true
}

// fillBytes sets every byte of b to v, by doubling copies (a byte loop
// filling deblockErrorsByEdge's kpix was 1 % of an 8×8 encode).
func fillBytes(b []uint8, v uint8) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for f := 1; f < len(b); f *= 2 {
		copy(b[f:], b[:f])
	}
}

// moveEdges copies the four bytes around each of the m vertical edges
// x = n, 2n, ... of rows a and b (p1 p0 | q0 q1, x+1 < len) to ga and
// gb, four bytes apart, or with back from ga and gb to the rows.
func moveEdges(ga, gb, a, b []uint8, n, m int, back bool) {
	ga, gb = ga[:4*m], gb[:4*m]
	if last := n*m + 2; last > len(a) || last > len(b) || n < 4 {
		panic("codec: moveEdges: edges outside the rows")
	}
	if n == 8 && moveEdges8Kernel(ga, a, m, back) && moveEdges8Kernel(gb, b, m, back) {
		return
	}
	le := binary.LittleEndian
	for j, x := 0, n-2; j < 4*m; j, x = j+4, x+n {
		ra, rb := a[x:x+4:x+4], b[x:x+4:x+4]
		if back {
			le.PutUint32(ra, le.Uint32(ga[j:j+4:j+4]))
			le.PutUint32(rb, le.Uint32(gb[j:j+4:j+4]))
		} else {
			le.PutUint32(ga[j:j+4:j+4], le.Uint32(ra))
			le.PutUint32(gb[j:j+4:j+4], le.Uint32(rb))
		}
	}
}

// edgeKmins are the first strengths at which pixel differences pass
// the deblocking filter's tests on 8-bit pixels: kA[d] (kB[d]) is the
// first strength 1..maxDeblock whose ceiling of alpha (beta) exceeds d,
// deblockNever if none. deblockParams's thresholds grow with the
// strength, so an edge passes at every strength from its kmin on.
type edgeKmins struct{ kA, kB [256]uint8 }

// newEdgeKmins returns the tables of the strengths at step for n×n
// patches, and whether they serve a search by edge: patches of 4 pixels
// or more whose edges touch disjoint pixels, and no move of an edge that
// passes clipped by tc (else its pixels would depend on the strength).
func newEdgeKmins(step float64, n int) (*edgeKmins, bool) {
	if n < 4 {
		return nil, false
	}
	t := new(edgeKmins)
	for d := range t.kA {
		t.kA[d], t.kB[d] = deblockNever, deblockNever
	}
	var next *deblockThresholds // strength k+1's
	for k := maxDeblock; k >= 1; k-- {
		th := newDeblockThresholds(deblockParams(k, step, n))
		// The largest |4(q0 − p0) + p1 − q1| of an edge that passes.
		if 3*(th.a-1)+2*(th.b-1) > th.clip {
			return nil, false
		}
		// Thresholds that grow with the strength (past int's range,
		// thresholds converted from float64 need not).
		if next != nil && (th.a > next.a || th.b > next.b) {
			return nil, false
		}
		next = th
		for d := 0; d < 256; d++ {
			if d < th.a {
				t.kA[d] = uint8(k)
			}
			if d < th.b {
				t.kB[d] = uint8(k)
			}
		}
	}
	return t, true
}

// kmin is the first strength whose tests the edge p1 p0 | q0 q1 (pixels
// 0..255: their differences index the tables as bytes) passes,
// deblockNever if none.
func (t *edgeKmins) kmin(p1, p0, q0, q1 int) int {
	return int(max(t.kA[uint8(abs(q0-p0))], t.kB[uint8(abs(p1-p0))], t.kB[uint8(abs(q1-q0))]))
}

// edgeMoved returns the pixels of an edge that passes (p1 p0 | q0 q1)
// and the change of their squared error against o1 o0 | oq0 oq1.
func edgeMoved(p1, p0, q0, q1, o1, o0, oq0, oq1 int) (np1, np0, nq0, nq1 uint8, delta int64) {
	np1, np0, nq0, nq1 = edgePixels(p1, p0, q0, q1)
	delta = squareChange(p1, np1, o1) + squareChange(p0, np0, o0) + squareChange(q0, nq0, oq0) + squareChange(q1, nq1, oq1)
	return
}

// edgePixels returns the pixels of an edge that passes (p1 p0 | q0 q1)
// and whose move is not clipped, as deblockThresholds.filter sets them
// (roundEighths and roundSixteenths written as deblockGray's clamps,
// without branches).
func edgePixels(p1, p0, q0, q1 int) (np1, np0, nq0, nq1 uint8) {
	d8 := 4*(q0-p0) + p1 - q1
	return uint8(min(255, max(0, (16*p1+d8+8)>>4))), uint8(min(255, max(0, (8*p0+d8+4)>>3))),
		uint8(min(255, max(0, (8*q0-d8+4)>>3))), uint8(min(255, max(0, (16*q1-d8+8)>>4)))
}

// edgeChangeFloat is the change of the squared error against the
// float64 original o1 o0 | oq0 oq1 of the edge p1 p0 | q0 q1 set to np1
// np0 | nq0 nq1: deblockGrayDelta's term, in its order and roundings.
func edgeChangeFloat(p1, p0, q0, q1 int, np1, np0, nq0, nq1 uint8, o1, o0, oq0, oq1 float64) float64 {
	return squareChangeFloat(p1, np1, o1) + squareChangeFloat(p0, np0, o0) +
		squareChangeFloat(q0, nq0, oq0) + squareChangeFloat(q1, nq1, oq1)
}

// squareChangeFloat is squareChange against a float64 original, each
// square rounded (no fused multiply-add).
func squareChangeFloat(old int, v uint8, o float64) float64 {
	a, b := float64(v)-o, float64(old)-o
	return float64(a*a) - float64(b*b)
}

// squareChange is the change of (pixel − o)² when the pixel goes from
// old to v.
func squareChange(old int, v uint8, o int) int64 {
	a, b := int64(v)-int64(o), int64(old)-int64(o)
	return a*a - b*b
}

// deblockScratch holds the deblocking search's planes between the images
// an encoder codes (fresh, they were a megabyte of page faults per
// 768×512 image).
type deblockScratch struct {
	whole     []int16
	von, kpix []uint8
	vonF      []float64 // searchDeblockFloat's band
	kmins     []uint8   // searchDeblockAt's first strengths of a row's or band's edges
	edges     []uint8   // deblockErrorsByEdge's edges of a row, four bytes each: rec, orig, von, kpix
	rec       []uint8   // the encoder's 8-bit reconstruction (encodeVersion)
	frac      fracList  // deblockErrorsFrac's edges of a row or band
}

var deblockScratches = keptPool{New: func() any { return new(deblockScratch) }, keep: func(x any) bool {
	sc := x.(*deblockScratch)
	return cap(sc.whole) <= maxKeptValues && cap(sc.vonF) <= maxKeptValues && cap(sc.von) <= maxKeptValues && cap(sc.kpix) <= maxKeptValues && cap(sc.rec) <= maxKeptValues && cap(sc.kmins) <= maxKeptValues && cap(sc.edges) <= maxKeptValues && sc.frac.fits()
}}

// wholeErrors converts orig to whole (same length) and returns the
// squared error of rec against it, and whether every orig is a whole
// number in 0..255 (if not, neither result is).
func wholeErrors(whole []int16, orig []float64, rec []uint8) (sse float64, ok bool) {
	whole, rec = whole[:len(orig)], rec[:len(orig)]
	var s int64
	for i, x := range orig {
		// int16(x) is only defined for x in range: tested first. The
		// first fraction ends the pass (a luminance plane's first
		// sample, mostly).
		if !(x >= 0 && x <= 255) {
			return 0, false
		}
		v := int16(x)
		if float64(v) != x {
			return 0, false
		}
		whole[i] = v
		d := int64(rec[i]) - int64(v)
		s += d * d
	}
	return float64(s), true
}

// bestDeblock returns the strength with the smallest squared error summed
// over the channels (the lowest on ties).
func bestDeblock(sse [][]float64) int {
	best, bestErr := 0, math.Inf(1)
	for k := 0; k <= maxDeblock; k++ {
		var s float64
		for _, e := range sse {
			s += e[k]
		}
		if s < bestErr {
			best, bestErr = k, s
		}
	}
	return best
}

// deblockParams returns the thresholds of the deblocking filter of
// strength k for patches of n×n pixels coded at quantiser step: in pixel
// units, u = step/n is the step of a patch's mean (the first PCA
// coefficient of a smooth patch is n times its mean), and an edge is
// smoothed where the jump across it is below alpha = k·u/2 and each side
// varies by less than beta = k·u/4 next to it, by at most tc = k·u/4 —
// a discontinuity the size of the quantisation error, not an edge of
// the image.
func deblockParams(k int, step float64, n int) (alpha, beta, tc float64) {
	u := step / float64(n)
	kf := float64(k)
	return kf * u / 2, kf * u / 4, kf * u / 4
}

// deblockImage runs the filter over a decoded grey image in place.
func deblockImage(img image.Image, k int, step float64, n int) {
	if k <= 0 || n < 2 || !(step > 0) {
		return
	}
	alpha, beta, tc := deblockParams(k, step, n)
	switch g := img.(type) {
	case *image.Gray:
		deblockGray(g.Pix, g.Stride, g.Rect.Dx(), g.Rect.Dy(), n, alpha, beta, tc)
	case *image.Gray16:
		// 16-bit samples: the thresholds, in 8-bit units, scale by 257.
		deblockGray16(g.Pix, g.Stride/2, g.Rect.Dx(), g.Rect.Dy(), n, 257*alpha, 257*beta, 257*tc)
	}
}

// deblockPlane runs the filter over a decoded plane (0..255 scale) in
// place.
func deblockPlane(p patches.Plane, k int, step float64, n int) {
	d := newPlaneDeblock(k, step, n)
	d.cols(p, 0, p.H)
	d.rows(p)
}

// planeDeblock is deblockPlane in its two passes: cols filters the
// vertical edges of some rows (each row on its own), rows the horizontal
// edges once cols has filtered every row. A decoder runs cols on each
// row of patches as soon as it is reconstructed (reconstructPlaneInto),
// while its pixels are in the processor's cache.
type planeDeblock struct {
	n               int
	alpha, beta, tc float64
	on              bool
}

// newPlaneDeblock returns deblockPlane's filter at strength k (off
// where deblockPlane does nothing).
func newPlaneDeblock(k int, step float64, n int) *planeDeblock {
	if k <= 0 || n < 2 || !(step > 0) {
		return &planeDeblock{}
	}
	alpha, beta, tc := deblockParams(k, step, n)
	return &planeDeblock{n: n, alpha: alpha, beta: beta, tc: tc, on: true}
}

// cols filters the vertical edges of p's rows y0 to y1−1.
func (d *planeDeblock) cols(p patches.Plane, y0, y1 int) {
	if d.on && y0 < y1 {
		deblockFloatCols(p.Pix[y0*p.W:], p.W, p.W, y1-y0, d.n, d.alpha, d.beta, d.tc)
	}
}

// rows filters p's horizontal edges.
func (d *planeDeblock) rows(p patches.Plane) {
	if d.on {
		deblockFloatRows(p.Pix, p.W, p.W, p.H, d.n, d.alpha, d.beta, d.tc)
	}
}

// edge filters p's horizontal edge at row y (a multiple of n, of rows
// whose vertical edges cols has filtered), if it is one of rows': the
// edges touch rows y−2 to y+1 only, so for n of 4 or more they are
// filtered in any order (smaller patches: in rows' order only).
func (d *planeDeblock) edge(p patches.Plane, y int) {
	if d.on && y >= d.n && y+1 < p.H {
		deblockFloatRows(p.Pix[(y-d.n)*p.W:], p.W, p.W, d.n+2, d.n, d.alpha, d.beta, d.tc)
	}
}

// deblockFloat is deblockEdges on float64 samples (stride apart), with
// the accesses written out instead of passed as functions: the same
// operations in the same order, so the same values to the last bit
// (TestDeblockFloat), in a fraction of the time (a colour decode
// filters three planes; 4.5 % of its CPU went to the calls).
func deblockFloat(pix []float64, stride, w, h, n int, alpha, beta, tc float64) {
	deblockFloatCols(pix, stride, w, h, n, alpha, beta, tc)
	deblockFloatRows(pix, stride, w, h, n, alpha, beta, tc)
}

// deblockFloatCols is deblockFloat's first pass: the vertical edges of
// every row, each row on its own.
func deblockFloatCols(pix []float64, stride, w, h, n int, alpha, beta, tc float64) {
	// The vertical edges of 4 rows at a time by the AVX kernel where it
	// applies (this pass was 5 % of the instructions of a colour decode),
	// the rest here: the rows are independent.
	for y := floatColsKernel(pix, stride, w, h, n, alpha, beta, tc); y < h; y++ {
		row := pix[y*stride:][:w]
		for x := n; x+1 < w; x += n {
			e := row[x-2 : x+2 : x+2]
			e[0], e[1], e[2], e[3] = floatEdge(e[0], e[1], e[2], e[3], alpha, beta, tc)
		}
	}
}

// deblockFloatRows is deblockFloat's second pass: the horizontal edges,
// once deblockFloatCols has filtered every row.
func deblockFloatRows(pix []float64, stride, w, h, n int, alpha, beta, tc float64) {
	for y := n; y+1 < h; y += n {
		r1, r0 := pix[(y-2)*stride:][:w], pix[(y-1)*stride:][:w]
		floatEdgeRows(r1, r0, pix[y*stride:][:w], pix[(y+1)*stride:][:w], alpha, beta, tc)
	}
}

// floatEdgeRows applies floatEdge down each column of the rows p1 (r1),
// p0 (r0), q0 (s0) and q1 (s1) around a horizontal edge. The columns are
// independent: 4 at a time by the AVX kernel where it applies (this pass
// was about 4 % of the instructions of a colour decode).
func floatEdgeRows(r1, r0, s0, s1 []float64, alpha, beta, tc float64) {
	for x := floatRowsKernel(r1, r0, s0, s1, alpha, beta, tc); x < len(r1); x++ {
		r1[x], r0[x], s0[x], s1[x] = floatEdge(r1[x], r0[x], s0[x], s1[x], alpha, beta, tc)
	}
}

// floatEdge returns the samples of the edge p1 p0 | q0 q1 after
// deblockEdges's filter, unchanged if it fails the tests.
func floatEdge(p1, p0, q0, q1, alpha, beta, tc float64) (np1, np0, nq0, nq1 float64) {
	if !(math.Abs(q0-p0) < alpha && math.Abs(p1-p0) < beta && math.Abs(q1-q0) < beta) {
		return p1, p0, q0, q1
	}
	d := (4*(q0-p0) + p1 - q1) / 8
	d = max(-tc, min(tc, d)) // as math.Max and math.Min, also for NaN and ±0
	return p1 + d/2, p0 + d, q0 - d, q1 - d/2
}

// deblockGray16 is deblockEdges on the big-endian 16-bit samples of a
// grey image (stride samples apart), rounded and clamped to 0..65535 as
// they are set, with the accesses written out.
func deblockGray16(pix []uint8, stride, w, h, n int, alpha, beta, tc float64) {
	edge := func(i, step int) {
		get := func(i int) float64 { return float64(uint16(pix[2*i])<<8 | uint16(pix[2*i+1])) }
		p1, p0, q0, q1 := floatEdge(get(i-2*step), get(i-step), get(i), get(i+step), alpha, beta, tc)
		for j, v := range [4]float64{p1, p0, q0, q1} {
			x := uint16(max(0, min(65535, math.Round(v))))
			at := 2 * (i + (j-2)*step)
			pix[at], pix[at+1] = byte(x>>8), byte(x)
		}
	}
	eachEdge(stride, w, h, n, edge)
}

// eachEdge calls edge with the index of q0 and the step across the edge
// for every vertical patch edge (x a multiple of n), row by row, then
// every horizontal one: deblockEdges's order.
func eachEdge(stride, w, h, n int, edge func(i, step int)) {
	for y := 0; y < h; y++ {
		for x := n; x+1 < w; x += n {
			edge(y*stride+x, 1)
		}
	}
	for y := n; y+1 < h; y += n {
		for x := 0; x < w; x++ {
			edge(y*stride+x, stride)
		}
	}
}

// deblockThresholds is a filter strength (deblockParams) for 8-bit
// pixels in whole numbers, deciding and setting every edge as
// deblockEdges does with rounding and clamping accessors, bit for bit
// (TestDeblockGray): the tests |q0 − p0| < alpha, |p1 − p0| < beta and
// |q1 − q0| < beta on whole numbers are the same against the ceilings of
// alpha and beta; an unclipped move d = (4(q0 − p0) + p1 − q1)/8 is a
// multiple of 1/8, so p0 + d and p1 + d/2 are exact in float64 and
// rounding them half away from zero is a shift. Integer operations
// instead of float64 ones, rounding and clamping: the decoder filters
// every edge once, the encoder's search at nine strengths.
type deblockThresholds struct {
	a, b int
	// clip: |4(q0 − p0) + p1 − q1| above it moves by ±tc (8·tc floored).
	// With deblockParams's thresholds no edge that passes is clipped
	// (|4(q0 − p0) + p1 − q1| < 3·alpha + 2·beta = 8·tc).
	clip int
	tc   float64
}

func newDeblockThresholds(alpha, beta, tc float64) *deblockThresholds {
	return &deblockThresholds{a: int(math.Ceil(alpha)), b: int(math.Ceil(beta)), clip: int(math.Floor(8 * tc)), tc: tc}
}

// roundEighths returns v/8 rounded half away from zero and clamped to
// 0..255 (negative v clamp to 0 either way).
func roundEighths(v int) uint8 {
	if v < 0 {
		return 0
	}
	return uint8(min(255, (v+4)>>3))
}

// roundSixteenths is roundEighths of v/16.
func roundSixteenths(v int) uint8 {
	if v < 0 {
		return 0
	}
	return uint8(min(255, (v+8)>>4))
}

// filter returns whether the edge p1 p0 | q0 q1 is filtered and, if so,
// its new pixels.
func (th *deblockThresholds) filter(p1, p0, q0, q1 int) (ok bool, np1, np0, nq0, nq1 uint8) {
	if abs(q0-p0) >= th.a || abs(p1-p0) >= th.b || abs(q1-q0) >= th.b {
		return false, 0, 0, 0, 0
	}
	d8 := 4*(q0-p0) + p1 - q1 // 8·d before clipping
	if abs(d8) > th.clip {
		d := math.Copysign(th.tc, float64(d8))
		set := func(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }
		return true, set(float64(p1) + d/2), set(float64(p0) + d), set(float64(q0) - d), set(float64(q1) - d/2)
	}
	return true, roundSixteenths(16*p1 + d8), roundEighths(8*p0 + d8), roundEighths(8*q0 - d8), roundSixteenths(16*q1 - d8)
}

// deblockGray is deblockEdges on 8-bit pixels, rounded and clamped to
// 0..255 as they are set, with the pixel accesses written out rather
// than passed as functions: the same pixels (TestDeblockGray), in a fifth
// of the time (the encoder filters every image at nine strengths to
// choose one).
func deblockGray(pix []uint8, stride, w, h, n int, alpha, beta, tc float64) {
	th := newDeblockThresholds(alpha, beta, tc)
	// 4×4 patches' vertical edges go in AVX two rows at once, 8×8 ones
	// four (deblockColsKernel), the rest of each row in Go from from.
	from, group := n, 0
	var rows [4][]uint8
	switch n {
	case 4:
		group = 2
	case 8:
		group = 4
	}
	for y := 0; y < h; y++ {
		row := pix[y*stride:][:w]
		if group > 0 && y%group == 0 {
			from = n
			if y+group <= h {
				for r := range group {
					rows[r] = pix[(y+r)*stride:][:w]
				}
				from = deblockColsKernel(rows[:group], n, th)
			}
		}
		for x := from; x+1 < w; x += n {
			e := row[x-2 : x+2 : x+2]
			e[0], e[1], e[2], e[3] = th.edge(int(e[0]), int(e[1]), int(e[2]), int(e[3]))
		}
	}
	for y := n; y+1 < h; y += n {
		r1, r0 := pix[(y-2)*stride:][:w], pix[(y-1)*stride:][:w]
		s0, s1 := pix[y*stride:][:w], pix[(y+1)*stride:][:w]
		r0, s0, s1 = r0[:len(r1)], s0[:len(r1)], s1[:len(r1)]
		for x := 0; x < len(r1); x++ {
			if x%8 == 0 {
				// Whole groups of 8 columns in AVX; the Go loop takes
				// over for the group it stops at and the last columns.
				x += deblockRowsKernel(r1[x:], r0[x:], s0[x:], s1[x:], th)
				if x == len(r1) {
					break
				}
			}
			p1, p0, q0, q1 := int(r1[x]), int(r0[x]), int(s0[x]), int(s1[x])
			// th.edge written out: a call per pixel of the row was a
			// third of this pass.
			pass := (abs(q0-p0) - th.a) & (abs(p1-p0) - th.b) & (abs(q1-q0) - th.b) >> signShift
			d8 := (4*(q0-p0) + p1 - q1) & pass
			if abs(d8) > th.clip {
				r1[x], r0[x], s0[x], s1[x] = th.edge(p1, p0, q0, q1)
				continue
			}
			r1[x] = uint8(min(255, max(0, (16*p1+d8+8)>>4)))
			r0[x] = uint8(min(255, max(0, (8*p0+d8+4)>>3)))
			s0[x] = uint8(min(255, max(0, (8*q0-d8+4)>>3)))
			s1[x] = uint8(min(255, max(0, (16*q1-d8+8)>>4)))
		}
	}
}

// edge returns the pixels of the edge p1 p0 | q0 q1 after the filter,
// unchanged if it fails the tests, as filter decides and sets them but
// without a branch on the tests, which no predictor guesses: an edge
// that fails them moves by d8 = 0, which sets every pixel to itself.
// The decoder's deblocking took 1.3-1.4 ms of a 768×512 decode, as
// much with the tests and the call written out as with filter.
func (th *deblockThresholds) edge(p1, p0, q0, q1 int) (np1, np0, nq0, nq1 uint8) {
	// Negative where all three differences are below their thresholds.
	pass := (abs(q0-p0) - th.a) & (abs(p1-p0) - th.b) & (abs(q1-q0) - th.b) >> signShift
	d8 := (4*(q0-p0) + p1 - q1) & pass
	if abs(d8) > th.clip {
		_, np1, np0, nq0, nq1 = th.filter(p1, p0, q0, q1)
		return np1, np0, nq0, nq1
	}
	clamp := func(v int) uint8 { return uint8(min(255, max(0, v))) }
	return clamp((16*p1 + d8 + 8) >> 4), clamp((8*p0 + d8 + 4) >> 3), clamp((8*q0 - d8 + 4) >> 3), clamp((16*q1 - d8 + 8) >> 4)
}

// deblockGrayDelta is deblockGray of pix (stride w) at the thresholds th,
// returning the change of the squared error against orig (w×h samples)
// that the pixels it sets make.
func deblockGrayDelta[O uint8 | int16 | float64, A int64 | float64](pix []uint8, orig []O, w, h, n int, th *deblockThresholds) A {
	var delta A
	edge := func(i, step int) {
		p1, p0, q0, q1 := int(pix[i-2*step]), int(pix[i-step]), int(pix[i]), int(pix[i+step])
		ok, np1, np0, nq0, nq1 := th.filter(p1, p0, q0, q1)
		if !ok {
			return
		}
		pix[i-2*step], pix[i-step], pix[i], pix[i+step] = np1, np0, nq0, nq1
		change := func(old int, v uint8, o O) A {
			a, b := A(v)-A(o), A(old)-A(o)
			return A(a*a) - A(b*b) // rounded: no FMA when A is float64
		}
		delta += change(p1, np1, orig[i-2*step]) + change(p0, np0, orig[i-step]) +
			change(q0, nq0, orig[i]) + change(q1, nq1, orig[i+step])
	}
	for y := 0; y < h; y++ {
		row := y * w
		for x := n; x+1 < w; x += n {
			edge(row+x, 1)
		}
	}
	for y := n; y+1 < h; y += n {
		for x := 0; x < w; x++ {
			edge(y*w+x, w)
		}
	}
	return delta
}

// deblockEdges filters the vertical patch edges (x a multiple of n), then
// the horizontal ones, as H.264's normal filter: across an edge between
// p1 p0 | q0 q1, where |q0 − p0| < alpha, |p1 − p0| < beta and
// |q1 − q0| < beta, p0 and q0 move towards each other by
// (4(q0 − p0) + p1 − q1)/8 clipped to ±tc, and p1 and q1 by half that.
// The products are by powers of two, so the result is the same on every
// platform.
func deblockEdges(get func(int) float64, set func(int, float64), stride, w, h, n int, alpha, beta, tc float64) {
	edge := func(i, step int) {
		p1, p0, q0, q1 := get(i-2*step), get(i-step), get(i), get(i+step)
		if !(math.Abs(q0-p0) < alpha && math.Abs(p1-p0) < beta && math.Abs(q1-q0) < beta) {
			return
		}
		d := (4*(q0-p0) + p1 - q1) / 8
		d = math.Max(-tc, math.Min(tc, d))
		set(i-step, p0+d)
		set(i, q0-d)
		set(i-2*step, p1+d/2)
		set(i+step, q1-d/2)
	}
	eachEdge(stride, w, h, n, edge)
}

// deblockSearch is one channel's result of the encoder's search for the
// deblocking strength: the squared error at each strength, exact (bound
// nil: the errors deblockErrors sums) or within bound of those.
type deblockSearch struct {
	errs  []float64
	bound []float64 // per strength, or nil: errs are exact
	// same[k]: strength k sets no sample to a new value, so the exact
	// error is errs[0]'s to the last bit.
	same      []bool
	orig, rec patches.Plane // for the exact errors if they are needed
	n         int
	params    func(k int) (alpha, beta, tc float64)
}

// exactDeblock wraps errors that are the exact ones.
func exactDeblock(errs []float64) deblockSearch { return deblockSearch{errs: errs} }

// exact returns the errors deblockErrors sums.
func (s *deblockSearch) exact() []float64 {
	if s.bound != nil {
		s.errs, s.bound, s.same = deblockErrorsAt(s.orig, s.rec, s.n, s.params), nil, nil
	}
	return s.errs
}

// searchDeblockFloat is deblockErrors of a float64 plane (colour
// channels, 16-bit images) without a filtered copy and a sum over every
// sample per strength, by edge as deblockErrorsByEdge does for 8-bit
// images: with patches of 4 samples or more the vertical edges of a row
// touch disjoint samples, and so do the bands of four rows that the
// horizontal edges touch. An edge's tests pass from a first strength on
// (the thresholds grow with it), and from the first strength whose tc
// does not clip its move on, it sets the same values (with
// deblockParams's thresholds no move of an edge that passes is clipped
// but by rounding: those strengths are taken one by one). A horizontal
// edge reads samples each set, or not, by one vertical edge from its
// first strength on: at most five states. Every change of a sample's
// squared error is added to the strengths it holds at (a difference
// array). The samples take deblockFloat's values, but the sum is in
// another order than deblockErrors's, which rounds at each of its w·h
// additions: the result holds a bound on the difference, and
// chooseDeblock decides by these errors where the bounds separate the
// winner (TestSearchDeblockFloat). A colour encode of kodim13 spent 22 %
// of its CPU in deblockErrors (a 3 MB copy, a filter pass and a sum per
// strength and channel); a 16-bit grey one, one more float64 copy of the
// image. It looks at one group of block rows in every (searchDeblockAt;
// 1: every row), for the lower effort levels.
func searchDeblockFloat(orig, rec patches.Plane, step float64, n, every int) deblockSearch {
	if n < 4 || !(step > 0) {
		return exactDeblock(deblockErrors(orig, rec, step, n, false))
	}
	return searchDeblockAt(orig, rec, n, func(k int) (alpha, beta, tc float64) { return deblockParams(k, step, n) }, every)
}

// deblockNever is the strength searchDeblockAt gives an edge whose tests
// pass at no strength.
const deblockNever = maxDeblock + 1

// bandState returns the pixels of a band column from strength ka on (on
// where its vertical edge's kmin ks[r] is at most ka, off elsewhere) and
// the strength at which they next change (deblockNever: none), for the
// deblocking searches that walk a column's states.
func bandState[T int | float64](ks *[4]uint8, ka int, on, off *[4]T) (px [4]T, kb int) {
	px, kb = *off, deblockNever
	for r, k := range ks {
		if int(k) <= ka {
			px[r] = on[r]
		} else {
			kb = min(kb, int(k))
		}
	}
	return px, kb
}

// edgeSums are searchDeblockAt's thresholds and its sums over the
// edges, with methods instead of closures over them: as closures, the
// sums went through memory at every call and the calls were not inlined
// (the search was 26 % of the instructions of a colour encode).
type edgeSums struct {
	alpha, beta, tc [deblockNever]float64
	invA, invB      float64
	// doubled: alpha[k] = 2·beta[k] at every strength, all finite
	// (deblockParams's): an edge's three tests are then one, the largest
	// of |q0 − p0|, 2|p1 − p0| and 2|q1 − q0| against alpha.
	doubled bool
	diff    [deblockNever + 1]float64 // diff[k]: change of the error from strength k on
	count   [deblockNever + 1]int     // count[k]: samples that change value from strength k on
	moved   float64                   // the magnitudes of every term added to diff
	terms   int
	// tab holds alpha and beta for the kernels that find the edges'
	// first strengths a row or a band at a time; nil where the
	// thresholds do not grow with the strength (they count on it).
	tab *kminTable
	kt  kminTable
}

// newEdgeSums returns sums at zero with the thresholds of each strength
// that params gives.
func newEdgeSums(params func(k int) (alpha, beta, tc float64)) *edgeSums {
	s := new(edgeSums)
	s.doubled = true
	for k := 1; k <= maxDeblock; k++ {
		s.alpha[k], s.beta[k], s.tc[k] = params(k)
		s.doubled = s.doubled && s.alpha[k] == 2*s.beta[k] && !math.IsInf(s.alpha[k], 0)
	}
	s.invA, s.invB = 1/s.alpha[1], 1/s.beta[1]
	s.setTable()
	return s
}

// kminTable holds the thresholds alpha of strengths 1..maxDeblock, then
// beta, 4 copies each: the operands of the kmin kernels' comparisons.
type kminTable [2 * maxDeblock][4]float64

// setTable fills the kernels' table from the thresholds if they grow
// with the strength (none NaN), and leaves tab nil otherwise.
func (s *edgeSums) setTable() {
	for k := 1; k <= maxDeblock; k++ {
		if k > 1 && !(s.alpha[k-1] <= s.alpha[k] && s.beta[k-1] <= s.beta[k]) {
			s.tab = nil
			return
		}
		s.kt[k-1] = [4]float64{s.alpha[k], s.alpha[k], s.alpha[k], s.alpha[k]}
		s.kt[maxDeblock+k-1] = [4]float64{s.beta[k], s.beta[k], s.beta[k], s.beta[k]}
	}
	s.tab = &s.kt
}

// kminRow returns the first strengths (kmin) of the vertical edges of
// row, at x = n, 2n, ... while x+1 < len(row), in ks's storage: by the
// kernel where it runs (a third of the search's instructions went to
// kmin, most of its time to mispredicted branches), the rest one by one.
func (s *edgeSums) kminRow(row []float64, n int, ks []uint8) []uint8 {
	m := 0
	if len(row) >= 2 {
		m = (len(row) - 2) / n
	}
	ks = ks[:m]
	for j := kminRowKernel(s.tab, row, n, ks); j < m; j++ {
		x := n * (j + 1)
		ks[j] = uint8(s.kmin(row[x-2], row[x-1], row[x], row[x+1]))
	}
	return ks
}

// kminCols returns the first strengths of the horizontal edges of the
// columns of the four rows of w samples, as kminRow.
func (s *edgeSums) kminCols(rows []float64, w int, ks []uint8) []uint8 {
	ks = ks[:w]
	r1, r0, s0, s1 := rows[:w], rows[w:2*w], rows[2*w:3*w], rows[3*w:4*w]
	for x := kminColsKernel(s.tab, r1, r0, s0, s1, ks); x < w; x++ {
		ks[x] = uint8(s.kmin(r1[x], r0[x], s0[x], s1[x]))
	}
	return ks
}

// firstBelow returns the first strength k whose threshold t[k] exceeds v
// (maxDeblock+1 if none), guessed from v·inv (thresholds in proportion
// to the strength, inv = 1/t[1]) and set right by comparing with them:
// a loop over the strengths was 15 % of the search.
func firstBelow(v, inv float64, t *[deblockNever]float64) int {
	k := maxDeblock // also where v·inv is NaN (0·Inf: thresholds of a subnormal step)
	if g := v * inv; g < maxDeblock {
		k = int(g) + 1 // v >= 0
	}
	for k > 1 && v < t[k-1] {
		k--
	}
	for k <= maxDeblock && !(v < t[k]) {
		k++
	}
	return k
}

// kmin is the first strength whose tests the edge p1 p0 | q0 q1 passes
// (deblockNever if none): the last of the first strengths of its three
// tests, each of which passes from its first on.
func (s *edgeSums) kmin(p1, p0, q0, q1 float64) int {
	a, b0, b1 := math.Abs(q0-p0), math.Abs(p1-p0), math.Abs(q1-q0)
	if !(a < s.alpha[maxDeblock] && b0 < s.beta[maxDeblock] && b1 < s.beta[maxDeblock]) {
		return deblockNever
	}
	if s.doubled {
		// b < beta[k] exactly where 2b < alpha[k], and the first
		// strength grows with the value: one search, for the largest.
		m := a
		if 2*b0 > m {
			m = 2 * b0
		}
		if 2*b1 > m {
			m = 2 * b1
		}
		return firstBelow(m, s.invA, &s.alpha)
	}
	return max(firstBelow(a, s.invA, &s.alpha), firstBelow(b0, s.invB, &s.beta), firstBelow(b1, s.invB, &s.beta))
}

// unclipped reports whether floatEdge does not clip the edge's move at
// strength k.
func (s *edgeSums) unclipped(p1, p0, q0, q1 float64, k int) bool {
	d := (4*(q0-p0) + p1 - q1) / 8
	return max(-s.tc[k], min(s.tc[k], d)) == d
}

// change adds the change of a sample whose original is o from value
// from to v at the strengths ka..kb-1.
func (s *edgeSums) change(o, from, v float64, ka, kb int) {
	if v == from {
		return
	}
	dn, df := v-o, from-o
	tn, tf := float64(dn*dn), float64(df*df)
	s.diff[ka] += tn - tf
	s.diff[kb] -= tn - tf
	s.count[ka]++
	s.count[kb]--
	s.moved += 2 * (tn + tf)
	s.terms++
}

// changes adds the changes of the four samples of an edge whose
// originals are o from values from to v at the strengths ka..kb-1 (ka <
// kb): change for each in turn, in the same order and with the same
// roundings, with the sums held in registers between them (four calls
// each reading and writing six sums through memory were a third of the
// search's instructions).
func (s *edgeSums) changes(o, from, v *[4]float64, ka, kb int) {
	da, db, moved, c := s.diff[ka], s.diff[kb], s.moved, 0
	// Written out: as a loop over the four, this took more instructions
	// than four calls of change.
	if v[0] != from[0] {
		dn, df := v[0]-o[0], from[0]-o[0]
		tn, tf := float64(dn*dn), float64(df*df)
		da, db, moved, c = da+(tn-tf), db-(tn-tf), moved+2*(tn+tf), c+1
	}
	if v[1] != from[1] {
		dn, df := v[1]-o[1], from[1]-o[1]
		tn, tf := float64(dn*dn), float64(df*df)
		da, db, moved, c = da+(tn-tf), db-(tn-tf), moved+2*(tn+tf), c+1
	}
	if v[2] != from[2] {
		dn, df := v[2]-o[2], from[2]-o[2]
		tn, tf := float64(dn*dn), float64(df*df)
		da, db, moved, c = da+(tn-tf), db-(tn-tf), moved+2*(tn+tf), c+1
	}
	if v[3] != from[3] {
		dn, df := v[3]-o[3], from[3]-o[3]
		tn, tf := float64(dn*dn), float64(df*df)
		da, db, moved, c = da+(tn-tf), db-(tn-tf), moved+2*(tn+tf), c+1
	}
	s.diff[ka], s.diff[kb], s.moved = da, db, moved
	s.count[ka] += c
	s.count[kb] -= c
	s.terms += c
}

// edge adds the changes of an edge of samples px, whose originals are
// o, that passes from strength ka on, up to kb-1. Its tests pass at each
// of those strengths: floatEdge's values without them.
func (s *edgeSums) edge(px, o *[4]float64, ka, kb int) {
	p1, p0, q0, q1 := px[0], px[1], px[2], px[3]
	d := (4*(q0-p0) + p1 - q1) / 8
	if math.Abs(d) <= s.tc[ka] {
		// Not clipped at ka (the loop's first dk equals d): the same
		// values up to kb, in one call.
		s.changes(o, px, &[4]float64{p1 + d/2, p0 + d, q0 - d, q1 - d/2}, ka, kb)
		return
	}
	for k := ka; k < kb; k++ {
		dk := max(-s.tc[k], min(s.tc[k], d)) // as floatEdge
		end := k + 1
		if dk == d {
			end = kb // unclipped: the same values from here on
		}
		s.changes(o, px, &[4]float64{p1 + dk/2, p0 + dk, q0 - dk, q1 - dk/2}, k, end)
		k = end - 1
	}
}

// band adds the changes of the four rows of rec from index at (w samples
// each) around a horizontal edge, orig the originals, and reports
// whether it could: not if a vertical edge there clips its move at its
// first strength. von and kpix are scratch of 4w values, ks of 2w.
func (s *edgeSums) band(orig, rec []float64, at, w, n int, von []float64, kpix, ks []uint8) bool {
	const never = deblockNever
	rows, band := rec[at:][:4*w], orig[at:][:4*w]
	diff, count, moved, terms := s.diff, s.count, s.moved, s.terms
	copy(von, rows)
	kpix[0] = never
	for i := 1; i < len(kpix); i *= 2 {
		copy(kpix[i:], kpix[:i])
	}
	// The vertical edges: von holds each sample as they set it, kpix the
	// strength they set it from.
	for r := range 4 {
		row, vr, kr := rows[r*w:][:w], von[r*w:][:w], kpix[r*w:][:w]
		kv := s.kminRow(row, n, ks[w:])
		for j := 0; j < len(kv); j++ {
			// The kernel takes the edges that pass unclipped; the
			// others come here.
			if j = edgeRunKernel(s, row, band[r*w:][:w], kv, j, n, n, 1, vr, kr, edgeRunSet); j == len(kv) {
				break
			}
			x := n * (j + 1)
			e := row[x-2 : x+2 : x+2]
			k := int(kv[j])
			if k == never {
				continue
			}
			if !s.unclipped(e[0], e[1], e[2], e[3], k) {
				s.diff, s.count, s.moved, s.terms = diff, count, moved, terms // none of the band's changes
				return false
			}
			v := vr[x-2 : x+2 : x+2]
			v[0], v[1], v[2], v[3] = floatEdge(e[0], e[1], e[2], e[3], s.alpha[k], s.beta[k], s.tc[k])
			kr[x-2], kr[x-1], kr[x], kr[x+1] = uint8(k), uint8(k), uint8(k), uint8(k)
			// The changes, in the order of the samples in the band (the
			// edges of a row touch disjoint samples, n >= 4).
			s.changes((*[4]float64)(band[r*w+x-2:]), (*[4]float64)(e), (*[4]float64)(v), k, never)
		}
	}
	// The horizontal edge, column by column, in each state of its
	// samples: from ka on, those whose vertical edge is on.
	kh := s.kminCols(rows, w, ks)
	for x := 0; x < w; x++ {
		// The kernel takes the columns whose edges pass unclipped in
		// each state; the others come here.
		if x = edgeRunKernel(s, rows, band, kh, x, 2*w, 1, w, von, kpix, edgeRunCheck); x == w {
			break
		}
		ks := [4]uint8{kpix[x], kpix[w+x], kpix[2*w+x], kpix[3*w+x]}
		off := [4]float64{rows[x], rows[w+x], rows[2*w+x], rows[3*w+x]}
		if ks == [4]uint8{never, never, never, never} {
			// No vertical edge sets these samples: one state.
			if kh := int(kh[x]); kh < never {
				o := [4]float64{band[x], band[w+x], band[2*w+x], band[3*w+x]}
				s.edge(&off, &o, kh, never)
			}
			continue
		}
		on := [4]float64{von[x], von[w+x], von[2*w+x], von[3*w+x]}
		for ka := 1; ka <= maxDeblock; {
			px, kb := bandState(&ks, ka, &on, &off)
			if kh := max(ka, s.kmin(px[0], px[1], px[2], px[3])); kh < kb {
				o := [4]float64{band[x], band[w+x], band[2*w+x], band[3*w+x]}
				s.edge(&px, &o, kh, kb)
			}
			ka = kb
		}
	}
	return true
}

// The modes of edgeRunKernel: edges of a row, with their samples and
// strengths set in von and kpix too, columns of one state (no vertical
// edge sets their samples, by kpix).
const (
	edgeRunPlain = iota
	edgeRunSet
	edgeRunCheck
)

// searchDeblockAt is searchDeblockFloat at the thresholds of each
// strength that params gives, which must grow with the strength, over
// the rows y whose group (y+2)/n is a multiple of every (1: every row;
// whole bands, and their unfiltered error too). With every > 1 the errors
// are those rows' alone: the result has no bounds (chooseDeblock takes
// them as they are) and its exact is theirs.
func searchDeblockAt(orig, rec patches.Plane, n int, params func(k int) (alpha, beta, tc float64), every int) deblockSearch {
	const never = deblockNever
	w, h := rec.W, rec.H
	s := newEdgeSums(params)
	sc := deblockScratches.Get().(*deblockScratch)
	defer deblockScratches.Put(sc)
	sc.vonF, sc.kpix, sc.kmins = resize(sc.vonF, 4*w), resize(sc.kpix, 4*w), resize(sc.kmins, 2*w)
	von, kpix, ks := sc.vonF, sc.kpix, sc.kmins
	var sse sseLanes // the unfiltered error, row by row
	for y := 0; y < h; y++ {
		if every > 1 && (y+2)/n%every != 0 {
			continue
		}
		if b := (y + 2) / n * n; b >= n && b+1 < h && y <= b+1 {
			if y == b-2 {
				for r := range 4 {
					sse.addRow(rec.Pix[(y+r)*w:][:w], orig.Pix[(y+r)*w:][:w])
				}
			}
			if at := (b - 2) * w; y == b-2 && !s.band(orig.Pix, rec.Pix, at, w, n, von, kpix, ks) {
				// The band filtered at each strength.
				for k := 1; k <= maxDeblock; k++ {
					copy(von, rec.Pix[at:][:4*w])
					for r := range 4 {
						deblockFloat(von[r*w:][:w], w, w, 1, n, s.alpha[k], s.beta[k], s.tc[k])
					}
					r1, r0, s0, s1 := von[:w], von[w:2*w], von[2*w:3*w], von[3*w:]
					for x := range r1 {
						r1[x], r0[x], s0[x], s1[x] = floatEdge(r1[x], r0[x], s0[x], s1[x], s.alpha[k], s.beta[k], s.tc[k])
					}
					for i, v := range von {
						s.change(orig.Pix[at+i], rec.Pix[at+i], v, k, k+1)
					}
				}
			}
			continue
		}
		row, orow := rec.Pix[y*w:][:w], orig.Pix[y*w:][:w]
		sse.addRow(row, orow)
		kv := s.kminRow(row, n, ks)
		for j := 0; j < len(kv); j++ {
			if j = edgeRunKernel(s, row, orow, kv, j, n, n, 1, nil, nil, edgeRunPlain); j == len(kv) {
				break
			}
			x := n * (j + 1)
			e := row[x-2 : x+2 : x+2]
			if k := int(kv[j]); k < never {
				px := [4]float64{e[0], e[1], e[2], e[3]}
				o := [4]float64{orow[x-2], orow[x-1], orow[x], orow[x+1]}
				s.edge(&px, &o, k, never)
			}
		}
	}
	sse0 := sse.sum()
	if every > 1 {
		errs, e := make([]float64, never), sse0
		errs[0] = sse0
		for k := 1; k <= maxDeblock; k++ {
			e += s.diff[k]
			errs[k] = e
		}
		return exactDeblock(errs)
	}
	ds := deblockSearch{orig: orig, rec: rec, n: n, params: params,
		errs: make([]float64, never), bound: make([]float64, never), same: make([]bool, never)}
	// deblockErrors's sum and sseLanes's (a shorter chain of additions
	// in each lane, then five) are each within (N-1)·u of the total.
	ds.errs[0], ds.same[0], ds.bound[0] = sse0, true, 4*float64(len(rec.Pix))*0x1p-53*sse0
	e, c := sse0, 0
	for k := 1; k <= maxDeblock; k++ {
		e += s.diff[k]
		c += s.count[k]
		ds.errs[k], ds.same[k] = e, c == 0
		// deblockErrors's sum of N terms is within (N-1)·u of their total
		// (u = 2^-53, relative to it), and so is sse0; each change here
		// rounds within u of its terms, and their sums within a u of
		// moved per term. Four times that, to be safe.
		ds.bound[k] = 4 * float64(len(rec.Pix)+8*s.terms+4*never) * 0x1p-53 * (sse0 + s.moved + math.Abs(e))
	}
	return ds
}

// chooseDeblock returns the strength with the smallest squared error
// summed over the channels, the lowest on ties: bestDeblock of the exact
// errors. exact tells whether it needed deblockErrors's errors of a
// search (the bounds did not separate the winner).
func chooseDeblock(ss []deblockSearch) (best int, exact bool) {
	errs := make([][]float64, len(ss))
	allExact := true
	for c, s := range ss {
		errs[c] = s.errs
		allExact = allExact && s.bound == nil
	}
	if allExact {
		return bestDeblock(errs), false
	}
	// Each candidate's summed error lies in [lo, hi]. A strength that
	// sets no sample in any channel has the error of strength 0 to the
	// last bit, and 0 wins that tie: it is no candidate.
	var lo, hi [maxDeblock + 1]float64
	cand := make([]int, 0, maxDeblock+1)
	for k := 0; k <= maxDeblock; k++ {
		same := k > 0
		for _, s := range ss {
			b := 0.0
			if s.bound != nil {
				b = s.bound[k]
				same = same && s.same[k]
			}
			lo[k] += s.errs[k] - b
			hi[k] += s.errs[k] + b
		}
		if !same {
			// The sum over at most three channels rounds within 3u.
			lo[k], hi[k] = lo[k]*(1-1e-15), hi[k]*(1+1e-15)
			cand = append(cand, k)
		}
	}
	win := cand[0]
	for _, k := range cand {
		if hi[k] < hi[win] {
			win = k
		}
	}
	for _, k := range cand {
		if k != win && !(lo[k] > hi[win]) {
			for c := range ss {
				errs[c] = ss[c].exact()
			}
			return bestDeblock(errs), true
		}
	}
	return win, false
}
