package spca

import "math"

// polyline is a drawn principal curve: vertices at arc lengths s (s = 0 at
// the start point, negative on the backward half), each with the local
// frame (d×d, columns in dimension order) the curve carried there.
type polyline struct {
	pts    []float64 // V×d
	s      []float64 // V, increasing
	frames []float64 // V×d×d, nil when not kept
}

func (p *polyline) len() int { return len(p.s) }

// drawer draws principal curves with the Appendix algorithm over the
// reference neighbourhood.
type drawer struct {
	nb       *neighbourhood
	d        int
	tau      float64
	q        float64
	dOut     float64 // leaving the manifold: nearest sample farther than this
	maxSteps int     // per half curve
}

// draw draws one curve through start following column `follow` of frame0
// in both directions. Columns 0..earlier-1 of the frame are the transported
// directions of the earlier curves of the sequence: the curve and its mean
// ahead are kept orthogonal to them, so a secondary curve stays in the
// locally orthogonal subspace. The curve stops when it leaves the manifold,
// when it comes back within tau of a guard curve after having been farther
// than 2 tau from it (crossing an earlier curve), when it comes back onto
// itself, or after maxSteps.
func (dr *drawer) draw(start, frame0 []float64, follow, earlier int, guard *polyline, keepFrames bool, s *scratch) polyline {
	d := dr.d
	startFrame := append([]float64(nil), frame0...)
	st := dr.nb.query(start, colOf(startFrame, d, follow, s.w), s)
	alignFrame(st.cov, startFrame, d, s)

	var halves [2]polyline
	for h, sgn := range [2]float64{1, -1} {
		var other *polyline
		if h == 1 {
			other = &halves[0]
		}
		halves[h] = dr.half(start, startFrame, follow, earlier, sgn, guard, other, keepFrames, s)
	}
	// Assemble: backward half reversed, start, forward half.
	fw, bw := &halves[0], &halves[1]
	n := fw.len() + bw.len() + 1
	out := polyline{pts: make([]float64, 0, n*d), s: make([]float64, 0, n)}
	if keepFrames {
		out.frames = make([]float64, 0, n*d*d)
	}
	for i := bw.len() - 1; i >= 0; i-- {
		out.pts = append(out.pts, bw.pts[i*d:i*d+d]...)
		out.s = append(out.s, bw.s[i])
		if keepFrames {
			out.frames = append(out.frames, bw.frames[i*d*d:(i+1)*d*d]...)
		}
	}
	out.pts = append(out.pts, start...)
	out.s = append(out.s, 0)
	if keepFrames {
		out.frames = append(out.frames, startFrame...)
	}
	for i := 0; i < fw.len(); i++ {
		out.pts = append(out.pts, fw.pts[i*d:i*d+d]...)
		out.s = append(out.s, fw.s[i])
		if keepFrames {
			out.frames = append(out.frames, fw.frames[i*d*d:(i+1)*d*d]...)
		}
	}
	return out
}

// half draws one direction (sgn = ±1) from start; the start itself is not
// included. other, if not nil, is the half drawn before (a guard for curves
// that may bend back).
func (dr *drawer) half(start, frame0 []float64, follow, earlier int, sgn float64, guard, other *polyline, keepFrames bool, s *scratch) polyline {
	d := dr.d
	tau := dr.tau
	frame := append([]float64(nil), frame0...)
	x := append([]float64(nil), start...)
	dir := make([]float64, d)
	xn := make([]float64, d)
	var out polyline
	for k := 0; k < d; k++ {
		dir[k] = sgn * frame[k*d+follow]
	}
	st := dr.nb.query(x, dir, s)
	armedGuard, armedOther := false, false
	var guardStep, otherStep, outStep float64 // bounds of their steps (nearVertex)
	if guard != nil {
		guardStep = guard.maxStep(d)
	}
	if other != nil {
		otherStep = other.maxStep(d)
	}
	frozenAt := -1
	stiff := 0.0
	if !math.IsInf(dr.q, 1) {
		stiff = 1 / (dr.q * tau)
	}
	for step := 1; step <= dr.maxSteps; step++ {
		for k := 0; k < d; k++ {
			dir[k] = sgn * frame[k*d+follow]
		}
		// Direction bent towards the local mean ahead (Appendix step 6),
		// kept off the earlier directions.
		for k := 0; k < d; k++ {
			xn[k] = dir[k] + stiff*st.ahead[k]
		}
		for a := 0; a < earlier; a++ {
			t := 0.0
			for k := 0; k < d; k++ {
				t += xn[k] * frame[k*d+a]
			}
			for k := 0; k < d; k++ {
				xn[k] -= t * frame[k*d+a]
			}
		}
		n := norm(xn)
		if n < 1e-9 {
			copy(xn, dir)
			n = 1
		}
		for k := 0; k < d; k++ {
			dir[k] = xn[k] / n
			xn[k] = x[k] + tau*dir[k]
		}
		if guard != nil && crossed(xn, guard, tau, guardStep, &armedGuard, d) {
			break
		}
		if other != nil && crossed(xn, other, tau, otherStep, &armedOther, d) {
			break
		}
		if selfApproach(xn, &out, tau, outStep, d) {
			break
		}
		st = dr.nb.query(xn, dir, s)
		if st.nearest > dr.dOut {
			break
		}
		if frozenAt >= 0 && st.share >= 0.5 {
			// Back onto other data after the edge: drop the straight
			// continuation.
			out.pts = out.pts[:frozenAt*d]
			out.s = out.s[:frozenAt]
			if keepFrames {
				out.frames = out.frames[:frozenAt*d*d]
			}
			break
		}
		if frozenAt < 0 && st.share < minShareAhead {
			frozenAt = out.len()
		}
		if frozenAt >= 0 && float64(out.len()-frozenAt)*tau >= dr.dOut {
			// The straight continuation is at most d_out long: a curve
			// running along an edge would otherwise never leave.
			break
		}
		if frozenAt >= 0 {
			for k := range st.ahead {
				st.ahead[k] = 0
			}
			copy(x, xn)
			out.pts = append(out.pts, x...)
			out.s = append(out.s, sgn*tau*float64(step))
			outStep = stepBound(out.pts, out.len()-1, d, outStep)
			if keepFrames {
				out.frames = append(out.frames, frame...)
			}
			continue
		}
		alignFrame(st.cov, frame, d, s)
		// Keep the followed direction pointing the way we walk relative
		// to the step just taken (alignment preserves signs already; this
		// guards against a flip in a degenerate subspace).
		if dot(colOf(frame, d, follow, s.w), dir)*sgn < 0 {
			for k := 0; k < d; k++ {
				frame[k*d+follow] = -frame[k*d+follow]
			}
		}
		copy(x, xn)
		out.pts = append(out.pts, x...)
		out.s = append(out.s, sgn*tau*float64(step))
		outStep = stepBound(out.pts, out.len()-1, d, outStep)
		if keepFrames {
			out.frames = append(out.frames, frame...)
		}
	}
	return out
}

// minShareAhead is the weight share of the neighbourhood lying ahead of a
// curve point below which the curve has reached the end of the data.
// Inside the data about half of the (tapered) neighbourhood lies ahead; at
// an edge the share falls towards zero. Beyond that point the mean ahead is
// dominated by whatever lies past the edge (the next layer of a rolled
// sheet, the next arm of a spiral) and would pull the curve across the gap
// while it stays within d_out of some sample. So the curve goes on straight
// with its frame frozen (no mean ahead, no re-alignment) until it leaves
// the manifold (d_out), for at most d_out; if instead it comes onto other data (half of the
// neighbourhood ahead again) the straight continuation is dropped and the
// curve ends at the edge.
const minShareAhead = 0.1

// crossed reports whether p is within tau of the polyline g after having
// been farther than 2 tau from it at an earlier step (armed). step bounds
// the distance between consecutive vertices of g (maxStep).
func crossed(p []float64, g *polyline, tau, step float64, armed *bool, d int) bool {
	if g.len() == 0 {
		return false
	}
	if !*armed {
		if !nearVertex(p, g.pts, g.len(), d, 2*tau, 4*tau*tau, false, step) {
			*armed = true
		}
		return false
	}
	return nearVertex(p, g.pts, g.len(), d, tau, tau*tau, true, step)
}

// selfApproach reports whether p comes within tau of a vertex of the half
// drawn so far that is at least four steps back (the curve turning onto
// itself). step bounds the distance between consecutive vertices of h.
func selfApproach(p []float64, h *polyline, tau, step float64, d int) bool {
	return nearVertex(p, h.pts, h.len()-4, d, tau, tau*tau, true, step)
}

// nearVertex reports whether one of the first n vertices of pts (d values
// each, consecutive ones at most step apart) has a squared distance to p
// below r2 = r² (or equal to it, unless strict). It skips the vertices
// the triangle inequality rules out: k vertices after one at distance D,
// none is nearer than D − k·step. Checking every vertex made drawing
// quadratic in the steps of a curve: 80 % of a fit with Tau = MinTau
// (BenchmarkFitSmallTau). The answer is that of the full scan: a skipped
// vertex lies at least r + step away.
func nearVertex(p, pts []float64, n, d int, r, r2 float64, strict bool, step float64) bool {
	for i := 0; i < n; {
		v := dist2(p, pts[i*d:i*d+d])
		if v < r2 || !strict && v == r2 {
			return true
		}
		k := 1
		if gap := math.Sqrt(v) - r; step > 0 && gap > step {
			k = int(min(gap/step, float64(n)))
		}
		i += k
	}
	return false
}

// stepBound returns a bound, with a margin for rounding, on the distance
// between consecutive vertices i-1 and i of pts, or at least prev.
func stepBound(pts []float64, i, d int, prev float64) float64 {
	if i < 1 {
		return prev
	}
	return max(prev, math.Sqrt(dist2(pts[(i-1)*d:i*d], pts[i*d:(i+1)*d]))*(1+1e-9))
}

// maxStep is the largest stepBound of the polyline's vertices.
func (p *polyline) maxStep(d int) float64 {
	step := 0.0
	for i := 1; i < p.len(); i++ {
		step = stepBound(p.pts, i, d, step)
	}
	return step
}

// at writes the point of the polyline at arc length s into dst. Beyond its
// ends the polyline continues straight along its end segment. Vertices
// need not be equally spaced.
func (p *polyline) at(s float64, d int, dst []float64) {
	n := p.len()
	if n == 1 {
		copy(dst, p.pts[:d])
		return
	}
	i := searchSegment(p.s, s)
	s0, s1 := p.s[i], p.s[i+1]
	t := (s - s0) / (s1 - s0)
	a, b := p.pts[i*d:i*d+d], p.pts[(i+1)*d:(i+1)*d+d]
	for k := 0; k < d; k++ {
		dst[k] = a[k] + float64(t*(b[k]-a[k]))
	}
}

// frameAt returns the frame of the vertex nearest to arc length s.
func (p *polyline) frameAt(s float64, d int) []float64 {
	n := p.len()
	if n == 1 {
		return p.frames[:d*d]
	}
	i := searchSegment(p.s, s)
	if s-p.s[i] > p.s[i+1]-s {
		i++
	}
	return p.frames[i*d*d : (i+1)*d*d]
}

// searchSegment returns i such that s lies in [xs[i], xs[i+1]], clamped to
// the first and last segments (len(xs) >= 2).
func searchSegment(xs []float64, s float64) int {
	lo, hi := 0, len(xs)-2
	if s <= xs[0] {
		return 0
	}
	if s >= xs[hi+1] {
		return hi
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if xs[mid] <= s {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// project returns the arc length of the orthogonal projection of x on the
// polyline (nearest point over all segments), and the squared distance.
// With extend, projections beyond the end vertices continue along the end
// segments; without, they stop at the end vertices.
func project(x, pts, s []float64, d int, extend bool) (float64, float64) {
	n := len(s)
	if n == 1 {
		return s[0], dist2(x, pts[:d])
	}
	bestS, best := 0.0, math.Inf(1)
	for i := 0; i+1 < n; i++ {
		a, b := pts[i*d:i*d+d], pts[(i+1)*d:(i+1)*d+d]
		num, den := 0.0, 0.0
		for k := 0; k < d; k++ {
			e := b[k] - a[k]
			num += float64((x[k] - a[k]) * e) // rounded products: no FMA (same on every GOARCH)
			den += float64(e * e)
		}
		t := 0.0
		if den > 0 {
			t = num / den
		}
		if t < 0 && (i > 0 || !extend) {
			t = 0
		}
		if t > 1 && (i+2 < n || !extend) {
			t = 1
		}
		dd := 0.0
		for k := 0; k < d; k++ {
			e := a[k] + float64(t*(b[k]-a[k])) - x[k]
			dd += float64(e * e)
		}
		if dd < best {
			best = dd
			bestS = s[i] + float64(t*(s[i+1]-s[i]))
		}
	}
	return bestS, best
}
