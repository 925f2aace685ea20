// Package gridcode stores integer samples of smooth functions on tensor
// grids compactly: the n-dimensional Lorenzo predictor (a first
// difference along every axis, exact on multilinear functions), zigzag
// coding, and byte planes of the smallest width that holds the values,
// so that a general-purpose compressor (zstd) finds runs of small bytes.
// The model files of spca and codec use it for their lattices and tables.
package gridcode

import "math/bits"

// Diff replaces v, the values on a grid of g[j] nodes along axis j (axis
// 0 slowest, len(v) a multiple of their product: the grid repeated), by
// their first differences along every axis. Undiff inverts it.
func Diff(v []int64, g []int) {
	s := 1
	for j := len(g) - 1; j >= 0; j-- {
		n := g[j]
		for b := 0; b < len(v); b += s * n {
			for i := b + s*n - 1; i >= b+s; i-- {
				v[i] -= v[i-s]
			}
		}
		s *= n
	}
}

// Undiff undoes Diff: prefix sums along every axis. Its int64 arithmetic
// wraps, so any values give a deterministic result.
func Undiff(v []int64, g []int) { UndiffAxes(v, g, 0, len(g)) }

// UndiffAxes undoes Diff along the axes lo <= j < hi of g only: Undiff is
// UndiffAxes(v, g, 0, len(g)). A decoder that did the last axis with
// AddLastPlane and does axis 0 as it stores the values calls it for the
// axes between.
func UndiffAxes(v []int64, g []int, lo, hi int) {
	s := 1
	for _, n := range g[hi:] {
		s *= n
	}
	for j := hi - 1; j >= lo; j-- {
		n := g[j]
		if n < 1 || s < 1 {
			return // no values (len(v) is the product of g)
		}
		for b := 0; b < len(v); b += s * n {
			if s == 1 {
				// The running sum stays in a register: v[i] += v[i-1] waited
				// for the store of v[i-1] at every step (model loads decode
				// 64K-1M values per coordinate through here).
				row := v[b : b+n]
				acc := row[0]
				for i := 1; i < len(row); i++ {
					acc += row[i]
					row[i] = acc
				}
				continue
			}
			// Row k += row k-1 for k = 1..n-1, s values each, as one run:
			// the value s before has had its sum already. One loop per
			// block instead of n-1 (lattice rows of 13: 16 -> ~8
			// instructions per value), 4 values a step by AVX2 where it can.
			blk := v[b : b+s*n]
			i0 := addLagKernel(blk, s)
			cur, prev := blk[i0:], blk[i0-s:len(blk)-s]
			prev = prev[:len(cur)]
			for i := range cur {
				cur[i] += prev[i]
			}
		}
		s *= n
	}
}

// JoinPlanes sets v to the values that Planes wrote as planes (w byte
// planes of len(v) bytes each, w = len(planes)/len(v) from 1 to 8) after
// Zigzag and Diff, with Undiff's running sums done along the last axis
// (rows of n >= 1 values) only: AddPlane of every plane, Unzigzag and
// that step of Undiff in one pass over v instead of w+2. The caller
// undoes the other axes (UndiffAxes). A model load decodes a million
// lattice values so (spca, codec's fast path).
func JoinPlanes(v []int64, planes []byte, n int) {
	if m := len(v); m > 0 {
		JoinPlanesStride(v, planes, len(planes)/m, m, n, 1)
	}
}

// JoinPlanesStride is JoinPlanes of values whose w byte planes start
// stride >= len(v) bytes apart in planes (byte b of value a at
// planes[b*stride+a]): a slab of a grid whose planes hold more values,
// such as the nodes of one step along axis 0 (spca decodes its lattices
// so, a slab at a time in the L1 cache). With rows > 1 it also undoes the
// axis before the last, of rows nodes (blocks of rows×n values, len(v) a
// multiple of them): row r of a block += row r-1, added as row r is
// summed (UndiffAxes' pass over that axis, its stride of n a row not a
// multiple of 4 (13), read every value where it stored parts of two
// groups of 4, which stalled the loads: 2.5 times its other axes).
func JoinPlanesStride(v []int64, planes []byte, w, stride, n, rows int) {
	m := len(v)
	if m == 0 {
		return
	}
	if stride < m {
		panic("gridcode: plane stride below the values")
	}
	if w > 0 {
		_ = planes[(w-1)*stride+m-1]
	}
	// The width is the same for every row: one switch, then the rows (of
	// 13 values in a lattice), in one run of indices checked against m
	// once: per-row slices and the switch were a third of the
	// instructions (8×8 Kodak model load: 12.6 -> ~8 M).
	v = v[:m]
	if k := joinKernel(v, planes, w, stride); k > 0 {
		// The values by AVX2 (the last few here), then the running sums
		// along the rows: 8×8 colour model load, 3 lattices of 4 planes
		// of 3 bytes, JoinPlanes 26.8 -> ~? M instructions.
		for a := k; a < m; a++ {
			var z int64
			for b := w - 1; b >= 0; b-- {
				z = z<<8 | int64(planes[b*stride+a])
			}
			v[a] = unzig(z)
		}
		if rows > 1 {
			for i, r := 0, 0; i < m; i, r = i+n, r+1 {
				row := v[i:min(m, i+n)]
				if r == rows {
					r = 0
				}
				if r == 0 {
					sumRow(row)
					continue
				}
				prev := v[i-n : i][:len(row)]
				acc := row[0]
				row[0] = acc + prev[0]
				for a := 1; a < len(row); a++ {
					acc += row[a]
					row[a] = acc + prev[a]
				}
			}
		} else if n > 1 {
			for i := 0; i < m; i += n {
				sumRow(v[i:min(m, i+n)])
			}
		}
		return
	}
	defer addRows(v, n, rows)
	switch w {
	case 1:
		p0 := planes[:m]
		for i := 0; i < m; i += n {
			var acc int64
			e := i + n
			if e > m {
				e = m
			}
			for a := i; a < e; a++ {
				z := int64(p0[a])
				acc += unzig(z)
				v[a] = acc
			}
		}
	case 2:
		p0, p1 := planes[:m], planes[stride:][:m]
		for i := 0; i < m; i += n {
			var acc int64
			e := i + n
			if e > m {
				e = m
			}
			for a := i; a < e; a++ {
				z := int64(p0[a]) | int64(p1[a])<<8
				acc += unzig(z)
				v[a] = acc
			}
		}
	case 3:
		p0, p1, p2 := planes[:m], planes[stride:][:m], planes[2*stride:][:m]
		for i := 0; i < m; i += n {
			var acc int64
			e := i + n
			if e > m {
				e = m
			}
			for a := i; a < e; a++ {
				z := int64(p0[a]) | int64(p1[a])<<8 | int64(p2[a])<<16
				acc += unzig(z)
				v[a] = acc
			}
		}
	default:
		for i := 0; i < m; i += n {
			row := v[i:min(m, i+n)]
			var acc int64
			for a := range row {
				var z int64
				for b := w - 1; b >= 0; b-- {
					z = z<<8 | int64(planes[b*stride+i+a])
				}
				acc += unzig(z)
				row[a] = acc
			}
		}
	}
}

// Slab returns the number of values in a slab of axis 0 of the grid g
// (the product of g[1:]; 1 for one axis).
func Slab(g []int) int {
	s := 1
	for _, n := range g[1:] {
		s *= n
	}
	return s
}

// UndiffSlabs decodes the values that Planes wrote after Zigzag and Diff
// on the grid g (w byte planes of m = g[0]×Slab(g) bytes each) a slab of
// axis 0 at a time, through buf (2×Slab(g) values at least, which it
// overwrites): for i = 0, 1, ..., g[0]-1 it calls store(i, v) with v the
// values of slab i (every axis undone), until store returns false. What
// JoinPlanes and UndiffAxes do over the whole grid, in two slabs, [cur |
// acc]: cur joined (JoinPlanesStride: Unzigzag and the last two axes),
// the axes between undone in it, then added to acc, which holds the slab
// before (axis 0); v is acc. The same integer sums, hence the same
// values; a slab (2,197 values for an 8×8 codec model's 51×13×13×13
// lattice) stays in the L1 cache, where the grid's scratch took fresh
// pages and passes over the L2 cache (spca's lattices, codec's fast
// paths).
func UndiffSlabs(buf []int64, planes []byte, w int, g []int, store func(i int, v []int64) bool) {
	if len(g) == 0 || g[0] < 1 {
		return
	}
	slab := Slab(g)
	if slab < 1 {
		return
	}
	m := g[0] * slab
	cur, acc := buf[:slab], buf[slab:2*slab]
	clear(acc)
	inner := g[1:]
	last, rows := 1, 1 // the axes JoinPlanesStride undoes
	if len(inner) > 0 {
		last = inner[len(inner)-1]
	}
	if len(inner) > 1 {
		rows = inner[len(inner)-2]
	}
	pair := append([]int{2}, inner...) // [cur | acc] as a grid of two slabs
	for i := range g[0] {
		p := planes
		if w > 0 {
			p = planes[i*slab:]
		}
		JoinPlanesStride(cur, p, w, m, last, rows)
		if len(inner) > 2 {
			UndiffAxes(cur, inner, 0, len(inner)-2)
		}
		UndiffAxes(buf[:2*slab], pair, 0, 1) // acc += cur
		if !store(i, acc) {
			return
		}
	}
}

// sumRow replaces row by its running sums.
func sumRow(row []int64) {
	acc := row[0]
	for a := 1; a < len(row); a++ {
		acc += row[a]
		row[a] = acc
	}
}

// addRows adds to each row of n values of v the row before, within
// blocks of rows rows (JoinPlanesStride's Go loops; nothing if rows <= 1).
func addRows(v []int64, n, rows int) {
	if rows <= 1 {
		return
	}
	for b := 0; b < len(v); b += n * rows {
		for r := 1; r < rows && b+r*n < len(v); r++ {
			cur := v[b+r*n : min(len(v), b+(r+1)*n)]
			prev := v[b+(r-1)*n:][:len(cur)]
			for a := range cur {
				cur[a] += prev[a]
			}
		}
	}
}

// unzig inverts the zigzag map of one value (0, 1, 2, 3, 4, ... to 0,
// -1, 1, -2, 2, ...); small enough to inline in JoinPlanes' loops.
func unzig(z int64) int64 { return int64(uint64(z)>>1) ^ -(z & 1) }

// Zigzag maps v in place to unsigned values (0, -1, 1, -2, ... to 0, 1,
// 2, 3, ...), stored in int64, and returns the width in bytes (1 to 8)
// that holds them all.
func Zigzag(v []int64) int {
	var all uint64
	for i, r := range v {
		z := uint64(r<<1) ^ uint64(r>>63)
		v[i] = int64(z)
		all |= z
	}
	return max(1, (bits.Len64(all)+7)/8)
}

// Unzigzag undoes Zigzag.
func Unzigzag(v []int64) {
	for i, z := range v {
		v[i] = unzig(z)
	}
}

// Planes writes the zigzagged values v, w bytes each, as w byte planes
// (all low bytes first) through put, which may keep no reference to its
// argument.
func Planes(v []int64, w int, put func([]byte)) {
	buf := make([]byte, min(len(v), 8192))
	for b := 0; b < w; b++ {
		for i := 0; i < len(v); i += len(buf) {
			p := buf[:min(len(buf), len(v)-i)]
			for a := range p {
				p[a] = byte(uint64(v[i+a]) >> (8 * b))
			}
			put(p)
		}
	}
}

// AddPlane adds byte plane b of values (src, the bytes of dst's values
// at that place) to dst; plane 0 sets them.
func AddPlane(dst []int64, src []byte, b int) {
	dst = dst[:len(src)]
	if b == 0 {
		for a, c := range src {
			dst[a] = int64(c)
		}
		return
	}
	sh := 8 * b
	for a, c := range src {
		dst[a] |= int64(c) << sh
	}
}

// Scale sets dst[i*stride] to float64(v[i])·res for every value of v
// (dst must hold them: it panics otherwise), 4 values a step with
// AVX-512: the same products (a conversion of an int64 and a product
// round once each either way).
func Scale(dst []float64, stride int, v []int64, res float64) {
	if len(v) == 0 {
		return
	}
	_ = dst[(len(v)-1)*stride]
	k := scaleKernel(dst, v, stride, res)
	for i := k; i < len(v); i++ {
		dst[i*stride] = float64(v[i]) * res
	}
}

// Scale32 is Scale rounded to float32: dst[i*stride] =
// float32(float64(v[i])·res). It returns the bitwise OR of the
// magnitudes |v[i]| (math.MinInt64's is 1<<63): below 1<<24 every v[i]
// is an integer a float32 holds exactly, and so is its product by a
// power of two within float32's exponents, which the caller can then
// widen back to float64(v[i])·res (the lattices of spca's snapped models).
func Scale32(dst []float32, stride int, v []int64, res float64) (mag uint64) {
	if len(v) == 0 {
		return 0
	}
	_ = dst[(len(v)-1)*stride]
	k, mag := scale32Kernel(dst, v, stride, res)
	for i := k; i < len(v); i++ {
		dst[i*stride] = float32(float64(v[i]) * res)
		mag |= abs64(v[i])
	}
	return mag
}

// abs64 is |v| as an unsigned integer (1<<63 for math.MinInt64).
func abs64(v int64) uint64 {
	if v < 0 {
		return -uint64(v)
	}
	return uint64(v)
}
