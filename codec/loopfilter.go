package codec

import (
	"image"
	"math"

	"github.com/spcalab/spca/patches"
	"gonum.org/v1/gonum/mat"
)

// The loop filter of format version 9 (8-bit grey images): a Wiener
// filter the encoder fits to each image and the decoder runs after the
// deblocking filter. Its support is the 7×7 diamond (25 pixels), point
// symmetric, so 12 taps t_k weigh the pairs of pixels at ±o_k
// (loopOffsets) and the centre keeps the rest (the taps sum to the
// identity: a flat area stays flat):
//
//	out = clamp(r + ((Σ_k t_k·(r(p+o_k) + r(p−o_k) − 2·r(p)) + 64) >> 7), 0, 255)
//
// in integers (taps of 8 bits in 1/128, sums in int32, >> rounding to
// −∞ as Go's arithmetic shift does everywhere), pixels outside the image
// replaced by the nearest inside. The encoder solves the least squares
// for the taps between its deblocked reconstruction and the original,
// rounds them and keeps the filter only where it lowers the squared
// error. Measured on held-out grey photographs (default 8×8 model,
// `spca codec eval --rd`): 8 crops of imagecompression.info photographs
// +0.35..+0.52 dB at every step, kodim13–24 +0.04..+0.11 dB.
const (
	loopTaps  = 12
	loopShift = 7
	loopRound = 1 << (loopShift - 1)
	// loopFilterBytes is the size of the header's loop filter: a kind
	// byte (0 none, 1 the 7×7 diamond) and the 12 taps.
	loopFilterBytes = 1 + loopTaps
	loopKindNone    = 0
	loopKindDiamond = 1
	// loopReach is how far from its centre the support reaches.
	loopReach = 3
)

// loopOffsets are the (row, column) offsets of one pixel of each
// symmetric pair of the 7×7 diamond.
var loopOffsets = [loopTaps][2]int{
	{0, 1}, {1, 0}, {0, 2}, {2, 0}, {1, 1}, {1, -1},
	{0, 3}, {3, 0}, {1, 2}, {2, 1}, {1, -2}, {2, -1},
}

// loopFilterGray runs the loop filter with taps over the 8-bit grey
// pixels pix (w×h, rows stride apart) in place.
func loopFilterGray(pix []uint8, stride, w, h int, taps *[loopTaps]int8) {
	loopFilterEach(pix, stride, w, h, taps, nil)
}

// loopFilterEach is loopFilterGray, in place where each is nil; else pix
// stays as it is and each gets the filtered rows in turn, in a buffer
// the next row overwrites.
func loopFilterEach(pix []uint8, stride, w, h int, taps *[loopTaps]int8, each func(y int, row []uint8)) {
	loopFilterEvery(pix, stride, w, h, 1, taps, each)
}

// loopFilterEvery is loopFilterEach for the rows y = 0, sy, 2·sy, ...
// only (each not nil, sy > 1): the others are read, not filtered.
func loopFilterEvery(pix []uint8, stride, w, h, sy int, taps *[loopTaps]int8, each func(y int, row []uint8)) {
	if w < 1 || h < 1 {
		return
	}
	var rowBuf []uint8
	if each != nil {
		rowBuf = make([]uint8, w)
	}
	loopFilterRows(w, h, taps, func(y int, d []int32) {
		row := pix[y*stride:][:w]
		for x := widenKernel(d, row); x < len(row); x++ {
			d[x] = int32(row[x])
		}
	}, func(y int, out []uint8, _ []int32) []uint8 {
		if out == nil { // before: where the row goes
			if y%sy != 0 {
				return nil // skipped
			}
			if each != nil {
				return rowBuf
			}
			return pix[y*stride:][:w]
		}
		if each != nil {
			each(y, out)
		}
		return nil
	})
}

// loopFilterRows runs the loop filter with taps over a w×h image whose
// row y source writes into d (w values of 0..255), each row once. out
// is called twice a row: with out nil for the buffer of filtered row y,
// then with that buffer filled and in, the unfiltered row as source
// wrote it (valid until the next call); where the first call returns
// nil, row y is not filtered (nor the second call made).
func loopFilterRows(w, h int, taps *[loopTaps]int8, source func(y int, d []int32), out func(y int, out []uint8, in []int32) []uint8) {
	// The unfiltered rows y−3..y+3 around row y, copied and padded by
	// loopReach on each side with the nearest pixel inside (rows above
	// and below the image: the nearest row), so the sums need no tests.
	pw := w + 2*loopReach
	buf := make([]int32, (2*loopReach+1)*pw)
	var win [2*loopReach + 1][]int32
	fill := func(dst []int32, y int) {
		d := dst[loopReach : loopReach+w]
		source(min(max(y, 0), h-1), d)
		for x := 0; x < loopReach; x++ {
			dst[x], dst[loopReach+w+x] = d[0], d[w-1]
		}
	}
	for i := range win {
		win[i] = buf[i*pw : (i+1)*pw : (i+1)*pw]
		fill(win[i], i-loopReach)
	}
	// The taps, 2·Σ t_k and the rounding half (loopRowKernel's layout).
	var t [loopTaps + 2]int32
	for k, v := range taps {
		t[k] = int32(v)
		t[loopTaps] += 2 * int32(v)
	}
	t[loopTaps+1] = loopRound
	for y := 0; y < h; y++ {
		if y > 0 { // slide the window down a row
			old := win[0]
			copy(win[:], win[1:])
			win[2*loopReach] = old
			fill(old, y+loopReach)
		}
		row := out(y, nil, nil)
		if row == nil {
			continue
		}
		from := loopRowKernel(row, &win, &t)
		loopFilterRow(row, from, &win, &t)
		out(y, row, win[loopReach][loopReach:loopReach+w])
	}
}

// loopTapsOf returns a header's loop filter taps (each in int8's range:
// parseHeader reads them from bytes, the encoder from int8s).
func loopTapsOf(taps []int) *[loopTaps]int8 {
	var t [loopTaps]int8
	for k, v := range taps {
		t[k] = int8(v)
	}
	return &t
}

// loopFilterLuma runs the loop filter of version 10 on the luma plane
// y of a colour image, in place: the filter sees the luma rounded to 8
// bits (patches.Quantize8, as the grey decoder's pixels), and each
// sample moves by its pixel's change, a whole number, keeping its
// fraction. Rounding the luma itself cost its rounding error in every
// pixel of R, G and B (kodim13–24: see MEASUREMENTS.md, session 29).
// The rows are rounded as they enter the filter's window: a plane of
// rounded samples was 96 pages of fresh memory in a one-image process.
func loopFilterLuma(y patches.Plane, taps *[loopTaps]int8) {
	w, h := y.W, y.H
	if w < 1 || h < 1 {
		return
	}
	row8 := make([]uint8, w)
	loopFilterRows(w, h, taps, func(r int, d []int32) {
		src := y.Pix[r*w:][:w]
		x := roundLumaKernel(d, src)
		if x == 0 { // the bytes 4 at a time (quantize8Kernel), widened
			roundRow(row8, src)
			for x = widenKernel(d, row8); x < w; x++ {
				d[x] = int32(row8[x])
			}
			return
		}
		for ; x < w; x++ {
			d[x] = int32(patches.Quantize8(src[x]))
		}
	}, func(r int, out []uint8, in []int32) []uint8 {
		if out == nil {
			return row8 // free: its row is in the window by now
		}
		moveByChange(y.Pix[r*w:][:w], out, in)
		return nil
	})
}

// lumaTarget sets y8[i] = patches.Quantize8(rec[i]) and t8[i] =
// patches.Quantize8(orig[i] − rec[i] + y8[i]) (all as long): the
// rounded luma and the original chooseLumaLoopFilter fits it to.
func lumaTarget(y8, t8 []uint8, rec, orig []float64) {
	for i := lumaTargetKernel(y8, t8, rec, orig); i < len(rec); i++ {
		q := patches.Quantize8(rec[i])
		y8[i], t8[i] = q, patches.Quantize8(orig[i]-rec[i]+float64(q))
	}
}

// roundRow sets dst[x] = patches.Quantize8(src[x]) (dst as long).
func roundRow(dst []uint8, src []float64) {
	n := len(src) &^ 3
	if n == 0 || !quantize8Kernel(dst, n, src[:n], n) {
		n = 0
	}
	for x := n; x < len(src); x++ {
		dst[x] = patches.Quantize8(src[x])
	}
}

// moveByChange adds to each sample of row its pixel's change, out − in.
func moveByChange(row []float64, out []uint8, in []int32) {
	out, in = out[:len(row)], in[:len(row)]
	for x := moveLumaKernel(row, out, in); x < len(row); x++ {
		row[x] += float64(int32(out[x]) - in[x])
	}
}

// chooseLumaLoopFilter returns the header's loop filter (version 10)
// for the encoder's reconstruction rec of a colour image's luma orig
// (the same size): rec deblocked in place as the decoder will, rounded
// to 8 bits, and the taps fitted to what loopFilterLuma makes of it, or
// nil where they do not lower the squared error. The decoder's luma
// moves by the filtered change of the rounded one, so the fit's
// original is orig − rec + round(rec): its error against the rounded
// luma is the error orig − rec that the change should cancel. That
// original is rounded to 8 bits too, so that the fit and the gain take
// the 8-bit paths (fitLoopFilter's orig8: kernels, a quarter of the
// pixels): in float64 they were 27 % of a colour batch encode's samples
// (kodim13–24), for the same BD-rates within 0.02 points
// (MEASUREMENTS.md, session 29).
func chooseLumaLoopFilter(orig, rec patches.Plane, deblock int, step float64, n int) []int {
	deblockPlane(rec, deblock, step, n)
	w, h := rec.W, rec.H
	sc := loopScratches.Get().(*loopScratch)
	defer loopScratches.Put(sc)
	sc.y8 = resize(sc.y8, 2*w*h) // every value set below
	y8, t8 := sc.y8[:w*h], sc.y8[w*h:]
	lumaTarget(y8, t8, rec.Pix[:w*h], orig.Pix[:w*h])
	taps, ok := fitLoopFilter(nil, t8, y8, w, h)
	if !ok {
		return nil
	}
	// The gain over the rows the fit summed (every pixel of them): the
	// check over every row filtered the whole image once more, ~1 % of
	// a colour batch encode's samples (kodim13–24), to decide what every
	// image of those decided the same way (MEASUREMENTS.md, session 29).
	sy := loopFitRows
	if h < 8*loopFitRows || w < 8*loopFitCols { // fitLoopFilter's every pixel
		sy = 1
	}
	if before, after := loopFilterGain8(t8, y8, w, h, sy, &taps); !(after < before) {
		return nil
	}
	out := make([]int, loopTaps)
	for k, t := range taps {
		out[k] = int(t)
	}
	return out
}

// loopFilterRow filters the pixels of row out from x = from on, from the
// padded unfiltered rows win (the row's own in the middle).
func loopFilterRow(out []uint8, from int, win *[2*loopReach + 1][]int32, t *[loopTaps + 2]int32) {
	m3, m2, m1, r0, p1, p2, p3 := win[0], win[1], win[2], win[3], win[4], win[5], win[6]
	t0, t1, t2, t3, t4, t5 := t[0], t[1], t[2], t[3], t[4], t[5]
	t6, t7, t8, t9, t10, t11 := t[6], t[7], t[8], t[9], t[10], t[11]
	sum := t[loopTaps]
	for x := from; x < len(out); x++ {
		// Each row's pixels x..x+6 (padded: centre at 3), resliced so
		// the constant indices need no bounds checks.
		a := r0[x : x+7 : x+7]
		u1, d1 := p1[x+1:x+6:x+6], m1[x+1:x+6:x+6] // centre at 2
		u2, d2 := p2[x+2:x+5:x+5], m2[x+2:x+5:x+5] // centre at 1
		c := a[3]
		s := t0*(a[4]+a[2]) + t2*(a[5]+a[1]) + t6*(a[6]+a[0]) +
			t1*(u1[2]+d1[2]) + t3*(u2[1]+d2[1]) + t7*(p3[x+3]+m3[x+3]) +
			t4*(u1[3]+d1[1]) + t5*(u1[1]+d1[3]) +
			t8*(u1[4]+d1[0]) + t10*(u1[0]+d1[4]) +
			t9*(u2[2]+d2[0]) + t11*(u2[0]+d2[2])
		v := c + ((s - sum*c + loopRound) >> loopShift)
		out[x] = uint8(min(max(v, 0), 255))
	}
}

// loopFitRows and loopFitCols space the pixels fitLoopFilter sums over
// (every pixel of images under 8 of these in a side): every other row,
// every other pixel of it, alternately the even and the odd ones. A
// quarter of the work for the same BD-rates (crops of 8 held-out
// photographs, against cjpeg by PSNR/SSIM: every pixel −25.9/−21.6 %,
// a quarter −26.0/−21.4, a sixteenth −25.7/−21.3).
const loopFitRows, loopFitCols = 2, 2

// loopFitBand is how many rows of the image fitLoopFilter takes at a
// time (a multiple of loopFitRows).
const loopFitBand = 32

// fitLoopFilter returns the taps of the loop filter that best map the
// deblocked reconstruction rec (w×h, rows in order) to the original
// orig (the same size, 0..255 scale), and whether it lowers the squared
// error at all (else the file asks for none). orig8, where not nil, is
// orig in 8 bits (loopFilterGain): the errors are then read from it,
// whole numbers, as they are from orig.
func fitLoopFilter(orig []float64, orig8, rec []uint8, w, h int) ([loopTaps]int8, bool) {
	if w < 1 || h < 1 {
		return [loopTaps]int8{}, false
	}
	ata, atb := loopFitSums(orig, orig8, rec, w, h)
	return solveLoopTaps(&ata, &atb)
}

// loopFitSums returns fitLoopFilter's normal equations (w, h >= 1): the
// sums of d_k·d_l (l >= k) and of d_k·e over the pixels it sums over,
// the latter a chain of rounded float64 additions in the order of the
// pixels, each product rounded (exact where the errors are whole).
func loopFitSums(orig []float64, orig8, rec []uint8, w, h int) (ata [loopTaps][loopTaps]int64, atb [loopTaps]float64) {
	// The normal equations of the least squares over every pixel, in
	// the differences d_k = r(p+o_k) + r(p−o_k) − 2r(p) (whole numbers:
	// the sums are exact in float64 below 2^53), summed band by band of
	// loopFitBand rows: the planes of a whole 768×512 image took 5 MB of
	// fresh memory (one process per image touches every page of it once).
	sc := loopScratches.Get().(*loopScratch)
	defer loopScratches.Put(sc)
	sy, sx := loopFitRows, loopFitCols
	if h < 8*sy || w < 8*sx { // small images: every pixel
		sy, sx = 1, 1
	}
	band := min(loopFitBand, h) // a multiple of sy (or h)
	pw := w + 2*loopReach
	var off [loopTaps]int
	for k, o := range loopOffsets {
		off[k] = o[0]*pw + o[1]
	}
	// The differences of a band's pixels summed over, plane by plane
	// (|d_k| <= 510 fits 16 bits), and their errors e.
	most := ((band+sy-1)/sy + 1) * ((w+sx-1)/sx + 1)
	sc.d = resize(sc.d, (loopTaps+1)*most) // read only where set (below j)
	dbuf := sc.d
	var d [loopTaps + 1][]int16 // the differences, then e where whole
	for k := range d {
		d[k] = dbuf[k*most : (k+1)*most : (k+1)*most]
	}
	var es []float64
	if orig8 == nil {
		sc.e = resize(sc.e, most)
		es = sc.e
	}
	whole := true                // every e a whole number (8-bit originals)
	var atbWhole [loopTaps]int64 // the sums while whole; atb the same in float64, in order (orig8 nil)
	for y0 := 0; y0 < h; y0 += band {
		y1 := min(y0+band, h)
		j := 0
		// The band's rows and loopReach more on each side, padded in
		// bytes (32 more for the kernel's loads), the differences taken
		// 16 at a time (evenDiff); 8-bit errors are o - r = o + r - 2r.
		sc.src8 = resize(sc.src8, pw*(band+2*loopReach)+32)
		src8 := sc.src8
		for y := y0 - loopReach; y < y1+loopReach; y++ {
			row := rec[min(max(y, 0), h-1)*w:][:w]
			dst := src8[(y-y0+loopReach)*pw:][:pw]
			copy(dst[loopReach:], row)
			for x := range loopReach {
				dst[x], dst[loopReach+w+x] = row[0], row[w-1]
			}
		}
		for y := y0; y < y1; y += sy {
			x0 := (y / sy) % sx
			c := (y-y0+loopReach)*pw + loopReach + x0
			n := (w - x0 + sx - 1) / sx // the row's pixels summed over
			// Plane by plane (flat pixels too: their zeros add nothing).
			for k := range loopTaps {
				evenDiff(d[k][j:j+n], src8[c+off[k]:], src8[c-off[k]:], src8[c:], sx)
			}
			if orig8 != nil {
				evenDiff(d[loopTaps][j:j+n], orig8[y*w+x0:], src8[c:], src8[c:], sx)
			} else {
				whole = floatErrors(es[j:j+n], d[loopTaps][j:j+n], orig[y*w+x0:], src8[c:], sx, whole)
			}
			j += n
		}
		if orig8 == nil {
			addErrorProducts(&atb, &d, es[:j])
		}
		for k := 0; k < loopTaps; k++ {
			dk := d[k][:j]
			// The planes l >= k, then the errors while whole (exact in
			// 64 bits), 4 at a time.
			last := loopTaps - 1
			if whole {
				last = loopTaps
			}
			l := k
			for ; l+3 <= last; l += 4 {
				s := dotInt16x4(dk, &[4][]int16{d[l][:j], d[l+1][:j], d[l+2][:j], d[l+3][:j]})
				for i, v := range s {
					addFitSum(&ata, &atbWhole, k, l+i, v)
				}
			}
			for ; l <= last; l++ {
				addFitSum(&ata, &atbWhole, k, l, dotInt16(dk, d[l][:j]))
			}
		}
	}
	if whole { // the same sums as the float64 ones, exact
		for k, v := range atbWhole {
			atb[k] = float64(v)
		}
	}
	return ata, atb
}

// solveLoopTaps returns the taps that solve the normal equations ata,
// atb (ata's diagonal plus 1), rounded to 1/128 and clamped to int8, and
// whether any is not 0 (false where the system cannot be solved).
func solveLoopTaps(ata *[loopTaps][loopTaps]int64, atb *[loopTaps]float64) ([loopTaps]int8, bool) {
	var taps [loopTaps]int8
	a := mat.NewSymDense(loopTaps, nil)
	b := mat.NewVecDense(loopTaps, nil)
	for k := 0; k < loopTaps; k++ {
		for l := k; l < loopTaps; l++ {
			v := float64(ata[k][l])
			if k == l {
				v += 1 // keeps the system definite on flat images
			}
			a.SetSym(k, l, v)
		}
		b.SetVec(k, atb[k])
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return taps, false
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, b); err != nil {
		return taps, false
	}
	nonzero := false
	for k := range taps {
		v := math.Round(x.AtVec(k) * (1 << loopShift))
		taps[k] = int8(math.Max(-128, math.Min(127, v)))
		nonzero = nonzero || taps[k] != 0
	}
	return taps, nonzero
}

// floatErrors sets es[t] = o[p] - r[p] at p = t*step (the errors of a
// float64 original o against the reconstruction r) and returns whether
// whole holds after them: whether it did before and every error is a
// whole number of at most 510 in size (dotInt16's bound), set in e16 as
// well while it is (e16 as long as es).
func floatErrors(es []float64, e16 []int16, o []float64, r []uint8, step int, whole bool) bool {
	e16 = e16[:len(es)]
	for t := range es {
		p := t * step
		e := o[p] - float64(r[p])
		es[t] = e
		if whole && e == math.Trunc(e) && math.Abs(e) <= 510 {
			e16[t] = int16(e)
		} else {
			whole = false
		}
	}
	return whole
}

// addErrorProducts adds float64(d[k][i]·es[i]) to atb[k] for each k <
// loopTaps, i in order: each sum is a chain of rounded additions in the
// order of the pixels. Six chains go side by side in registers at a
// time (twelve spill), where one plane's chain at a time, through a
// stack slot, waited on a store-forward per term (69 % of fitLoopFilter's
// samples on luminance originals).
func addErrorProducts(atb *[loopTaps]float64, d *[loopTaps + 1][]int16, es []float64) {
	addErrorProducts6((*[6]float64)(atb[:6]), (*[6][]int16)(d[:6]), es)
	addErrorProducts6((*[6]float64)(atb[6:]), (*[6][]int16)(d[6:12]), es)
}

// addErrorProducts6 is addErrorProducts for six planes.
func addErrorProducts6(atb *[6]float64, d *[6][]int16, es []float64) {
	n := len(es)
	d0, d1, d2, d3, d4, d5 := d[0][:n], d[1][:n], d[2][:n], d[3][:n], d[4][:n], d[5][:n]
	a0, a1, a2, a3, a4, a5 := atb[0], atb[1], atb[2], atb[3], atb[4], atb[5]
	// float64(x * e): rounded, no fused multiply-add on any GOARCH.
	for i, e := range es {
		a0 += float64(float64(d0[i]) * e)
		a1 += float64(float64(d1[i]) * e)
		a2 += float64(float64(d2[i]) * e)
		a3 += float64(float64(d3[i]) * e)
		a4 += float64(float64(d4[i]) * e)
		a5 += float64(float64(d5[i]) * e)
	}
	atb[0], atb[1], atb[2], atb[3], atb[4], atb[5] = a0, a1, a2, a3, a4, a5
}

// addFitSum adds v, the dot product of the difference planes k and l
// (l = loopTaps: the errors), to fitLoopFilter's sums.
func addFitSum(ata *[loopTaps][loopTaps]int64, atb *[loopTaps]int64, k, l int, v int64) {
	if l == loopTaps {
		atb[k] += v
	} else {
		ata[k][l] += v
	}
}

// loopFilterGain returns the squared error against orig of rec (w×h,
// rows in order) before and after the loop filter with taps, filtering
// row by row (rec unchanged: a filtered copy of the image was fresh
// memory of its size in a one-image process). orig8, where not nil, is
// orig in 8 bits (the encoder's grey 8-bit image, orig's values
// exactly): the sums are then taken from it by sse8, the same whole
// numbers as the float64 sums in order (each term whole and below 2^16,
// the sums below 2^53), without reading the float64 plane, which the
// caches had lost by then (the float64 loop was ~10 % of an 8×8 encode).
func loopFilterGain(orig []float64, orig8, rec []uint8, w, h int, taps *[loopTaps]int8) (before, after float64) {
	if orig8 != nil {
		return loopFilterGain8(orig8, rec, w, h, 1, taps)
	}
	// Both sums row by row as the filtered rows come, each a chain of
	// additions in the order of the pixels: side by side, in registers
	// (a pass for before, then after through the closure's memory, one
	// store-forward a term, were 5 % of a grey model's encode of colour
	// photographs).
	orig = orig[:w*h]
	loopFilterEach(rec, w, w, h, taps, func(y int, row []uint8) {
		before, after = sseRowPair(before, after, orig[y*w:][:w], rec[y*w:][:w], row)
	})
	return before, after
}

// sseRowPair adds the squared errors of r0 and r1 against o (as long)
// to b and a, pixel by pixel in order: (o − r)² rounded, then the sum.
func sseRowPair(b, a float64, o []float64, r0, r1 []uint8) (float64, float64) {
	r0, r1 = r0[:len(o)], r1[:len(o)]
	for x, v := range o {
		d0, d1 := v-float64(r0[x]), v-float64(r1[x])
		b += float64(d0 * d0) // rounded: the same decision on every GOARCH
		a += float64(d1 * d1)
	}
	return b, a
}

// loopFilterGain8 is loopFilterGain of an 8-bit original over the rows
// y = 0, sy, 2·sy, ... only (each of their pixels): the sums of those
// rows, whole numbers.
func loopFilterGain8(orig8, rec []uint8, w, h, sy int, taps *[loopTaps]int8) (before, after float64) {
	orig8 = orig8[:w*h]
	var b, a int64
	loopFilterEvery(rec, w, w, h, sy, taps, func(y int, row []uint8) {
		o := orig8[y*w:][:w]
		b += sse8(rec[y*w:][:w], o)
		a += sse8(row, o)
	})
	return float64(b), float64(a)
}

// loopFilterAfter8 is loopFilterGain8's after alone, over every row:
// where before is known (the deblocking search's exact error at the
// strength rec is deblocked with), its sse8 a row is not taken again.
func loopFilterAfter8(orig8, rec []uint8, w, h int, taps *[loopTaps]int8) float64 {
	orig8 = orig8[:w*h]
	var a int64
	loopFilterEvery(rec, w, w, h, 1, taps, func(y int, row []uint8) {
		a += sse8(row, orig8[y*w:][:w])
	})
	return float64(a)
}

// loopScratch holds the loop filter fit's planes between the images an
// encoder codes: fresh, they were ~5 % of an 8×8 encode's CPU in
// clearing and page faults (16 -> 71 faults per 768×512 image).
type loopScratch struct {
	src8 []uint8
	y8   []uint8 // chooseLumaLoopFilter's rounded luma and original
	d    []int16
	e    []float64
}

var loopScratches = keptPool{New: func() any { return new(loopScratch) }, keep: func(x any) bool {
	sc := x.(*loopScratch)
	return cap(sc.src8) <= 4*maxKeptValues && cap(sc.y8) <= 4*maxKeptValues && cap(sc.d) <= 4*maxKeptValues && cap(sc.e) <= maxKeptValues
}}

// chooseLoopFilter returns the header's loop filter for the encoder's
// 8-bit reconstruction rec of the original orig: rec deblocked (in
// place) as the decoder will, the taps fitted to it, or nil where they
// do not lower the squared error. orig8 is orig in 8 bits where the
// encoder has it (grayPixels), else nil (see loopFilterGain). The gain
// of an 8-bit original is taken over one row in every (1: every row;
// images under 8 fit rows take every row), for the lower effort levels.
// errs, if not nil, are the deblocking search's exact errors of rec
// against orig8 at each strength (deblockErrorsGray8's): over every row,
// errs[deblock] is then the error before the loop filter, whole, as
// loopFilterGain8 sums it.
func chooseLoopFilter(orig []float64, orig8 []uint8, rec *image.Gray, deblock int, step float64, n, every int, errs []float64) []int {
	deblockImage(rec, deblock, step, n)
	w, h := rec.Rect.Dx(), rec.Rect.Dy()
	taps, ok := fitLoopFilter(orig, orig8, rec.Pix, w, h)
	if !ok {
		return nil
	}
	var before, after float64
	switch {
	case orig8 != nil && every > 1 && h >= 8*loopFitRows && w >= 8*loopFitCols:
		before, after = loopFilterGain8(orig8, rec.Pix, w, h, every, &taps)
	case orig8 != nil && errs != nil:
		before, after = errs[deblock], loopFilterAfter8(orig8, rec.Pix, w, h, &taps)
	default:
		before, after = loopFilterGain(orig, orig8, rec.Pix, w, h, &taps)
	}
	if !(after < before) {
		return nil
	}
	out := make([]int, loopTaps)
	for k, t := range taps {
		out[k] = int(t)
	}
	return out
}

// evenDiff sets d[t] = a[p] + b[p] - 2 r[p] at p = t*step: a loop
// filter difference (|d| <= 510), or with b = r the error a - r. Steps of
// 2 go 16 at a time through the kernel where there is one.
func evenDiff(d []int16, a, b, r []uint8, step int) {
	t := 0
	if step == 2 {
		t = evenDiffKernel(d, a, b, r)
	}
	for ; t < len(d); t++ {
		p := t * step
		d[t] = int16(a[p]) + int16(b[p]) - 2*int16(r[p])
	}
}

// dotInt16x4 returns the dot products of a with each of b (as long),
// exact as dotInt16's: where there is a kernel, each load of a serves 4
// products (fitLoopFilter's sums read its planes from the caches: 90 dot
// products took ~0.8 % of a colour batch encode's samples).
func dotInt16x4(a []int16, b *[4][]int16) [4]int64 {
	var s [4]int64
	for i := range b {
		b[i] = b[i][:len(a)]
	}
	for x := dot4Kernel(a, b, &s); x < len(a); x++ {
		for i := range s {
			s[i] += int64(a[x]) * int64(b[i][x])
		}
	}
	return s
}

// dotInt16 returns the dot product of a and b (as long), exact: each
// product must be at most 510² in size (the kernel's 32-bit lanes), the
// sum is kept in 64 bits.
func dotInt16(a, b []int16) int64 {
	b = b[:len(a)]
	var s int64
	n := 0
	for ; n+dotChunk <= len(a); n += dotChunk {
		s += dotKernel(a[n:n+dotChunk], b[n:n+dotChunk])
	}
	m := n + dotKernelLen(len(a)-n)
	s += dotKernel(a[n:m], b[n:m])
	for i := m; i < len(a); i++ {
		s += int64(a[i]) * int64(b[i])
	}
	return s
}
