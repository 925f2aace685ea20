package codec

import "math"

// deblockErrorsFrac fills errs[1:] as deblockErrorsGray does where the
// original holds fractions (the luminance of a colour image coded by a
// grey model), to the last bit (errs[0] holds the unfiltered error),
// and reports whether it could: with newEdgeKmins's conditions, by edge
// as deblockErrorsByEdge does, in two passes over the image instead of
// a filtered copy per strength. The sums are float64 ones, which depend
// on their order: strength k's is errs[0] plus the chain of every edge's
// change (deblockGrayDelta's term, rounded alike) that passes at k, in
// deblockGray's order, the vertical edges row by row, then the
// horizontal ones. So each strength keeps a sum of its own, and each
// edge adds its change to the sums of the strengths it passes at: a
// vertical edge the same change from its kmin on; a horizontal edge the
// change of each state of its pixels (vertical edges set them from
// their own kmins on) from its kmin in that state to the next state.
// Each sum sees the edges in the filter's order. sc lends the buffers.
// deblockGrayDelta's pass per strength, with a call per edge, was 30 %
// of a grey model's encode of colour photographs (kodim13–24).
//
// The edges of a row, or the states of a band's columns, are listed
// (fracList: pixels before and after, original, strengths) and then
// added, 8 at a time in AVX-512 where it runs (fracTermsKernel): the
// changes themselves in Go, a call per edge, were 8 % of that encode.
func deblockErrorsFrac(errs, orig []float64, rec []uint8, w, h, n int, step float64, sc *deblockScratch) bool {
	km, ok := newEdgeKmins(step, n)
	if !ok {
		return false
	}
	orig, rec = orig[:w*h], rec[:w*h]
	var sum [maxDeblock]float64 // sum[k-1]: strength k's change
	m := 0                      // vertical edges a row
	if w >= 2 {
		m = (w - 2) / n
	}
	l := &sc.frac
	l.resize(max(m, 5*w))
	for y := 0; y < h; y++ {
		km.vertTerms(l, rec[y*w:][:w], orig[y*w:][:w], n, m)
		l.addTo(&sum)
	}
	sc.von, sc.kpix = resize(sc.von, 4*w), resize(sc.kpix, 4*w)
	von, kpix := sc.von[:4*w], sc.kpix[:4*w]
	for y := n; y+1 < h; y += n {
		// The band's rows y−2..y+1 as their vertical edges set them,
		// and those edges' kmins (deblockNever where none).
		copy(von, rec[(y-2)*w:][:4*w])
		fillBytes(kpix, deblockNever)
		for r := range 4 {
			km.vertPixels(rec[(y-2+r)*w:][:w], n, m, von[r*w:][:w], kpix[r*w:][:w])
		}
		km.horizTerms(l, rec[(y-2)*w:][:4*w], orig[(y-2)*w:][:4*w], von, kpix, w)
		l.addTo(&sum)
	}
	for k := 1; k <= maxDeblock; k++ {
		errs[k] = errs[0] + sum[k-1]
	}
	return true
}

// strengthsFrom returns the strengths k..kb-1 as bits (bit k-1 for
// strength k, k from 1 on, kb up to deblockNever).
func strengthsFrom(k, kb int) uint8 {
	return uint8(0xff) << (k - 1) &^ (uint8(0xff) << (kb - 1))
}

// fracList lists edges for their changes of the squared error: the
// pixels p1 p0 | q0 q1 of each (bytes 0..3 of old; the filter sets them
// to edgePixels's), the original under them (o[0..3]) and the strengths
// it passes at (mask: bit k-1 for strength k), in the filter's order.
type fracList struct {
	old  []uint32
	o    [4][]float64
	mask []uint8
	n    int // listed
}

// resize makes room for n edges (the list empty).
func (l *fracList) resize(n int) {
	l.old, l.mask = resize(l.old, n), resize(l.mask, n)
	for r := range l.o {
		l.o[r] = resize(l.o[r], n)
	}
	l.n = 0
}

// fits reports whether the list's planes hold at most maxKeptValues each.
func (l *fracList) fits() bool {
	return cap(l.old) <= maxKeptValues && cap(l.mask) <= maxKeptValues && cap(l.o[0]) <= maxKeptValues &&
		cap(l.o[1]) <= maxKeptValues && cap(l.o[2]) <= maxKeptValues && cap(l.o[3]) <= maxKeptValues
}

// add lists the edge p1 p0 | q0 q1 over the original o1 o0 | oq0 oq1,
// filtered at the strengths in mask.
func (l *fracList) add(p1, p0, q0, q1 int, o1, o0, oq0, oq1 float64, mask uint8) {
	j := l.n
	l.old[j] = uint32(p1) | uint32(p0)<<8 | uint32(q0)<<16 | uint32(q1)<<24
	l.o[0][j], l.o[1][j], l.o[2][j], l.o[3][j] = o1, o0, oq0, oq1
	l.mask[j] = mask
	l.n = j + 1
}

// addTo adds each listed edge's change (edgeChangeFloat) to the sums of
// the strengths it passes at, edge after edge, and empties the list:
// 8 edges a step in the kernel where it runs, the rest here.
func (l *fracList) addTo(sum *[maxDeblock]float64) {
	n := l.n
	i := fracTermsKernel(sum, l.old[:n], l.o[0][:n], l.o[1][:n], l.o[2][:n], l.o[3][:n], l.mask[:n])
	fracTermsGo(sum, l.old[i:n], l.o[0][i:n], l.o[1][i:n], l.o[2][i:n], l.o[3][i:n], l.mask[i:n])
	l.n = 0
}

// fracTermsGo adds the change of each edge (pixels old, bytes 0..3, set
// to edgePixels's; original o1 o0 | oq0 oq1) to the sums of the
// strengths in its mask, edge after edge: the kernels' twin. The sums
// stay in registers, and each edge adds to every one, +0 to those not in
// its mask: no sum is −0 (each starts at +0, a rounded sum is −0 only of
// two −0, and no change is −0: a difference of squares of its own
// rounding is +0 where they are equal), so adding +0 leaves it as it is,
// without a branch on the mask.
func fracTermsGo(sum *[maxDeblock]float64, old []uint32, o1, o0, oq0, oq1 []float64, mask []uint8) {
	mask = mask[:len(old)]
	o1, o0, oq0, oq1 = o1[:len(old)], o0[:len(old)], oq0[:len(old)], oq1[:len(old)]
	s0, s1, s2, s3, s4, s5, s6, s7 := sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7]
	for i, p := range old {
		p1, p0, q0, q1 := int(p&0xff), int(p>>8&0xff), int(p>>16&0xff), int(p>>24)
		np1, np0, nq0, nq1 := edgePixels(p1, p0, q0, q1)
		t := edgeChangeFloat(p1, p0, q0, q1, np1, np0, nq0, nq1, o1[i], o0[i], oq0[i], oq1[i])
		b, m := math.Float64bits(t), uint64(mask[i])
		s0 += math.Float64frombits(b & -(m & 1))
		s1 += math.Float64frombits(b & -(m >> 1 & 1))
		s2 += math.Float64frombits(b & -(m >> 2 & 1))
		s3 += math.Float64frombits(b & -(m >> 3 & 1))
		s4 += math.Float64frombits(b & -(m >> 4 & 1))
		s5 += math.Float64frombits(b & -(m >> 5 & 1))
		s6 += math.Float64frombits(b & -(m >> 6 & 1))
		s7 += math.Float64frombits(b & -(m >> 7 & 1))
	}
	sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7] = s0, s1, s2, s3, s4, s5, s6, s7
}

// vertTerms lists the m vertical edges x = n, 2n, ... of the row rr
// (original or) in l, each at the strengths from its kmin on (none where
// it passes at none).
func (km *edgeKmins) vertTerms(l *fracList, rr []uint8, or []float64, n, m int) {
	for j := range m {
		x := n * (j + 1)
		e, o := rr[x-2:x+2:x+2], or[x-2:x+2:x+2]
		p1, p0, q0, q1 := int(e[0]), int(e[1]), int(e[2]), int(e[3])
		l.add(p1, p0, q0, q1, o[0], o[1], o[2], o[3], strengthsFrom(km.kmin(p1, p0, q0, q1), deblockNever))
	}
}

// vertPixels sets the pixels of the m vertical edges x = n, 2n, ... of
// the row rr in von as the filter sets them where it passes, and their
// kmin in kpix (where no strength passes, kmin is deblockNever and the
// pixels are never read).
func (km *edgeKmins) vertPixels(rr []uint8, n, m int, von, kpix []uint8) {
	for j := range m {
		x := n * (j + 1)
		e := rr[x-2 : x+2 : x+2]
		p1, p0, q0, q1 := int(e[0]), int(e[1]), int(e[2]), int(e[3])
		k := uint8(km.kmin(p1, p0, q0, q1))
		v, kp := von[x-2:x+2:x+2], kpix[x-2:x+2:x+2]
		v[0], v[1], v[2], v[3] = edgePixels(p1, p0, q0, q1)
		kp[0], kp[1], kp[2], kp[3] = k, k, k, k
	}
}

// horizTerms lists the horizontal edges of a band (its four rows rec
// and orig, w pixels each; von and kpix as vertPixels sets them) in l,
// column by column: each state of the column's pixels at the strengths
// it passes at (at most 5·w).
func (km *edgeKmins) horizTerms(l *fracList, rec []uint8, orig []float64, von, kpix []uint8, w int) {
	r0s, r1s, r2s, r3s := rec[:w], rec[w:2*w], rec[2*w:3*w], rec[3*w:4*w]
	o0s, o1s, o2s, o3s := orig[:w], orig[w:2*w], orig[2*w:3*w], orig[3*w:4*w]
	k0s, k1s, k2s, k3s := kpix[:w], kpix[w:2*w], kpix[2*w:3*w], kpix[3*w:4*w]
	v0s, v1s, v2s, v3s := von[:w], von[w:2*w], von[2*w:3*w], von[3*w:4*w]
	for x := range w {
		o1, o0, oq0, oq1 := o0s[x], o1s[x], o2s[x], o3s[x]
		if min(k0s[x], k1s[x], k2s[x], k3s[x]) == deblockNever {
			// No vertical edge sets the column's pixels: one state.
			p1, p0, q0, q1 := int(r0s[x]), int(r1s[x]), int(r2s[x]), int(r3s[x])
			l.add(p1, p0, q0, q1, o1, o0, oq0, oq1, strengthsFrom(km.kmin(p1, p0, q0, q1), deblockNever))
			continue
		}
		ks := [4]uint8{k0s[x], k1s[x], k2s[x], k3s[x]}
		on := [4]int{int(v0s[x]), int(v1s[x]), int(v2s[x]), int(v3s[x])}
		off := [4]int{int(r0s[x]), int(r1s[x]), int(r2s[x]), int(r3s[x])}
		for ka := 1; ka <= maxDeblock; {
			// The state from ka on: the pixels of the vertical edges on
			// at ka; it lasts to the next kmin among the others.
			px, kb := bandState(&ks, ka, &on, &off)
			if kh := max(ka, km.kmin(px[0], px[1], px[2], px[3])); kh < kb {
				l.add(px[0], px[1], px[2], px[3], o1, o0, oq0, oq1, strengthsFrom(kh, kb))
			}
			ka = kb
		}
	}
}
