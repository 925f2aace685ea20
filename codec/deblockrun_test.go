package codec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEdgeRunKernel checks edgeRunKernel (the assembly where it runs)
// against edgeSums.edge, edge by edge: on rows (vertical edges, with and
// without setting von and kpix) and columns (horizontal edges, stopping
// where kpix says a vertical edge sets a sample) of patches of 4, 5 and
// 8, with deblockParams's thresholds, thresholds that clip and negative
// ones, and samples that are NaN, ±Inf, ±0 or on a threshold: the same
// sums bit for bit (diff and count of the strengths 1..maxDeblock, moved,
// terms), the same edge left to the caller, the same von and kpix.
func TestEdgeRunKernel(t *testing.T) {
	if !hasAVX2 || !hasPOPCNT {
		t.Skip("no kernel here")
	}
	rng := rand.New(rand.NewPCG(24, 8))
	params := map[string]func(k int) (alpha, beta, tc float64){
		"step 30 n 8": func(k int) (float64, float64, float64) { return deblockParams(k, 30, 8) },
		"step 15 n 4": func(k int) (float64, float64, float64) { return deblockParams(k, 15, 4) },
		"clipping":    func(k int) (float64, float64, float64) { kf := float64(k); return 6 * kf, 3 * kf, 0.3 * kf },
		"negative tc": func(k int) (float64, float64, float64) { kf := float64(k); return 6 * kf, 3 * kf, -kf },
		"not doubled": func(k int) (float64, float64, float64) { kf := float64(k); return 5 * kf, 3 * kf, kf },
		"not growing": func(k int) (float64, float64, float64) { kf := float64(9 - k); return 4 * kf, 2 * kf, kf },
	}
	ran, left, states := 0, 0, 0
	for name, p := range params {
		s := newEdgeSums(p)
		sample := func(prev float64) float64 {
			switch rng.IntN(40) {
			case 0:
				return math.NaN()
			case 1:
				return math.Inf(1 - 2*rng.IntN(2))
			case 2:
				return math.Copysign(0, -1)
			case 3:
				return prev + s.alpha[1+rng.IntN(maxDeblock)]
			}
			return prev + rng.NormFloat64()*float64(1+rng.IntN(12))
		}
		for _, n := range []int{4, 5, 8} {
			for trial := range 40 {
				const w = 53
				rec, orig := make([]float64, 4*w), make([]float64, 4*w)
				v := 100.0
				for i := range rec {
					if i%w == 0 || rng.IntN(n) == 0 {
						v = 128 + 40*rng.Float64()
					}
					rec[i] = sample(v)
					orig[i] = rec[i] + rng.NormFloat64()*3
				}
				// Strengths: the edges' first ones, some never, some
				// past never (the caller's).
				ks := make([]uint8, w)
				for i := range ks {
					ks[i] = uint8(1 + rng.IntN(deblockNever))
					if rng.IntN(60) == 0 {
						ks[i] = deblockNever + 1 + uint8(rng.IntN(3))
					}
				}
				kpix := make([]uint8, 4*w)
				for i := range kpix {
					kpix[i] = deblockNever
					if rng.IntN(6) == 0 {
						kpix[i] = uint8(1 + rng.IntN(maxDeblock))
					}
				}
				for mode := range 3 {
					at, step, stride, m := n, n, 1, (w-2)/n
					row := trial % 4
					r, o := rec[row*w:][:w], orig[row*w:][:w]
					if mode == edgeRunCheck {
						at, step, stride, m, r, o = 2*w, 1, w, w, rec, orig
					}
					// Some edges move by exactly tc at their strength
					// (unclipped), or by just over it.
					for j := range m {
						if q, ka := at+j*step, int(ks[j]); ka <= maxDeblock && rng.IntN(6) == 0 {
							a := 100.0
							r[q-2*stride], r[q-stride], r[q], r[q+stride] = a, a, a+2*s.tc[ka], a
							if rng.IntN(2) == 0 {
								r[q] = math.Nextafter(r[q], math.Inf(1))
							}
						}
					}
					von := make([]float64, len(r))
					if mode == edgeRunCheck {
						// The samples as vertical edges set them.
						for i, v := range r {
							von[i] = v
							if rng.IntN(2) == 0 {
								von[i] = sample(v)
							}
						}
					}
					kp := kpix
					if mode == edgeRunSet {
						kp = make([]uint8, w)
					}
					var vonGo []float64
					var kpGo []uint8
					if mode == edgeRunSet {
						vonGo, kpGo = make([]float64, w), make([]uint8, w)
					}
					for i := 0; i < m; i++ {
						kern, ref := *s, *s
						got := edgeRunKernel(&kern, r, o, ks[:m], i, at, step, stride, von, kp, mode)
						want := m
						for j := i; j < m; j++ {
							q := at + j*step
							ka := int(ks[j])
							if ka > deblockNever {
								want = j
								break
							}
							if mode == edgeRunCheck && kpix[q-2*w]&kpix[q-w]&kpix[q]&kpix[q+w] != deblockNever {
								// edgeSums.band's states; none added
								// if one may clip.
								if s.tab == nil || !refStates(&ref, r, von, o, kpix, q, w) {
									want = j
									break
								}
								states++
								continue
							}
							if ka == deblockNever {
								continue
							}
							px := [4]float64{r[q-2*stride], r[q-stride], r[q], r[q+stride]}
							d := (4*(px[2]-px[1]) + px[0] - px[3]) / 8
							if !(math.Abs(d) <= s.tc[ka]) {
								want = j
								break
							}
							ref.edge(&px, &[4]float64{o[q-2*stride], o[q-stride], o[q], o[q+stride]}, ka, deblockNever)
							if mode == edgeRunSet {
								e := vonGo[q-2 : q+2 : q+2]
								// floatEdge's move at ka (ks are not the
								// edges' first strengths here: no tests).
								e[0], e[1], e[2], e[3] = floatEdge(px[0], px[1], px[2], px[3], math.Inf(1), math.Inf(1), s.tc[ka])
								kpGo[q-2], kpGo[q-1], kpGo[q], kpGo[q+1] = uint8(ka), uint8(ka), uint8(ka), uint8(ka)
							}
						}
						if got != want {
							t.Fatalf("%s n %d trial %d mode %d from %d: stopped at %d, want %d", name, n, trial, mode, i, got, want)
						}
						for k := 1; k <= maxDeblock; k++ {
							if math.Float64bits(kern.diff[k]) != math.Float64bits(ref.diff[k]) || kern.count[k] != ref.count[k] {
								t.Fatalf("%s n %d trial %d mode %d from %d: strength %d sums %v %d, edge by edge %v %d", name, n, trial, mode, i, k, kern.diff[k], kern.count[k], ref.diff[k], ref.count[k])
							}
						}
						if math.Float64bits(kern.moved) != math.Float64bits(ref.moved) || kern.terms != ref.terms {
							t.Fatalf("%s n %d trial %d mode %d from %d: moved %v terms %d, edge by edge %v %d", name, n, trial, mode, i, kern.moved, kern.terms, ref.moved, ref.terms)
						}
						if mode == edgeRunSet {
							for x := range vonGo {
								if von[x] != vonGo[x] || kp[x] != kpGo[x] {
									t.Fatalf("%s n %d trial %d from %d: von %v kpix %v, edge by edge %v %v", name, n, trial, i, von, kp, vonGo, kpGo)
								}
							}
						}
						if got > i {
							ran++
						}
						if got < m {
							left++
							i = got
						} else {
							break
						}
					}
				}
			}
		}
	}
	t.Logf("the kernel ran %d times and left %d edges to the caller; %d columns of several states", ran, left, states)
	if ran < 1000 || left < 1000 || states < 1000 {
		t.Fatalf("the kernel ran %d times and left %d edges to the caller", ran, left)
	}
}

// refStates adds the changes of the column of q0 = q in the states of
// its samples (edgeSums.band's loop: rec as they are, von as their
// vertical edges set them from kpix on), and reports whether it did: not
// if the move of one may clip.
func refStates(s *edgeSums, rec, von, orig []float64, kpix []uint8, q, w int) bool {
	type state struct {
		px     [4]float64
		kh, kb int
	}
	ks := [4]uint8{kpix[q-2*w], kpix[q-w], kpix[q], kpix[q+w]}
	off := [4]float64{rec[q-2*w], rec[q-w], rec[q], rec[q+w]}
	on := [4]float64{von[q-2*w], von[q-w], von[q], von[q+w]}
	var states []state
	for ka := 1; ka <= maxDeblock; {
		kb, px := deblockNever, off
		for r, k := range ks {
			if int(k) <= ka {
				px[r] = on[r]
			} else {
				kb = min(kb, int(k))
			}
		}
		if kh := max(ka, s.kmin(px[0], px[1], px[2], px[3])); kh < kb {
			if d := (4*(px[2]-px[1]) + px[0] - px[3]) / 8; !(math.Abs(d) <= s.tc[kh]) {
				return false
			}
			states = append(states, state{px, kh, kb})
		}
		ka = kb
	}
	o := [4]float64{orig[q-2*w], orig[q-w], orig[q], orig[q+w]}
	for _, st := range states {
		s.edge(&st.px, &o, st.kh, st.kb)
	}
	return true
}
