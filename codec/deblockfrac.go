package codec

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
// Each sum sees the edges in the filter's order. von and kpix are
// buffers of at least 4·w values (the band's pixels as the vertical
// edges set them, and those edges' kmins). deblockGrayDelta's pass per
// strength, with a call per edge, was 30 % of a grey model's encode of
// colour photographs (kodim13–24).
func deblockErrorsFrac(errs, orig []float64, rec []uint8, w, h, n int, step float64, von, kpix []uint8) bool {
	km, ok := newEdgeKmins(step, n)
	if !ok {
		return false
	}
	orig, rec = orig[:w*h], rec[:w*h]
	var sum [deblockNever]float64 // sum[k]: strength k's change (k >= 1)
	// add adds c to the sums of the strengths from..to-1.
	add := func(c float64, from, to int) {
		for k := from; k < to; k++ {
			sum[k] += c
		}
	}
	for y := 0; y < h; y++ {
		rr, or := rec[y*w:][:w], orig[y*w:][:w]
		for x := n; x+1 < w; x += n {
			e := rr[x-2 : x+2 : x+2]
			p1, p0, q0, q1 := int(e[0]), int(e[1]), int(e[2]), int(e[3])
			k := km.kmin(p1, p0, q0, q1)
			if k > maxDeblock {
				continue
			}
			np1, np0, nq0, nq1 := edgePixels(p1, p0, q0, q1)
			o := or[x-2 : x+2 : x+2]
			add(edgeChangeFloat(p1, p0, q0, q1, np1, np0, nq0, nq1, o[0], o[1], o[2], o[3]), k, deblockNever)
		}
	}
	von, kpix = von[:4*w], kpix[:4*w]
	for y := n; y+1 < h; y += n {
		// The band's rows y−2..y+1 as their vertical edges set them.
		copy(von, rec[(y-2)*w:][:4*w])
		for i := range kpix {
			kpix[i] = deblockNever
		}
		for r := range 4 {
			vr, kr := von[r*w:][:w], kpix[r*w:][:w]
			for x := n; x+1 < w; x += n {
				e := vr[x-2 : x+2 : x+2]
				p1, p0, q0, q1 := int(e[0]), int(e[1]), int(e[2]), int(e[3])
				k := km.kmin(p1, p0, q0, q1)
				if k > maxDeblock {
					continue
				}
				e[0], e[1], e[2], e[3] = edgePixels(p1, p0, q0, q1)
				kp := kr[x-2 : x+2 : x+2]
				kp[0], kp[1], kp[2], kp[3] = uint8(k), uint8(k), uint8(k), uint8(k)
			}
		}
		r0s, r1s, r2s, r3s := rec[(y-2)*w:][:w], rec[(y-1)*w:][:w], rec[y*w:][:w], rec[(y+1)*w:][:w]
		o0s, o1s, o2s, o3s := orig[(y-2)*w:][:w], orig[(y-1)*w:][:w], orig[y*w:][:w], orig[(y+1)*w:][:w]
		for x := range w {
			ks := [4]uint8{kpix[x], kpix[w+x], kpix[2*w+x], kpix[3*w+x]}
			on := [4]int{int(von[x]), int(von[w+x]), int(von[2*w+x]), int(von[3*w+x])}
			off := [4]int{int(r0s[x]), int(r1s[x]), int(r2s[x]), int(r3s[x])}
			for ka := 1; ka <= maxDeblock; {
				// The state from ka on: the pixels of the vertical
				// edges on at ka; it lasts to the next kmin among the
				// others.
				kb := deblockNever
				px := off
				for r, k := range ks {
					if int(k) <= ka {
						px[r] = on[r]
					} else {
						kb = min(kb, int(k))
					}
				}
				if kh := max(ka, km.kmin(px[0], px[1], px[2], px[3])); kh < kb {
					np1, np0, nq0, nq1 := edgePixels(px[0], px[1], px[2], px[3])
					add(edgeChangeFloat(px[0], px[1], px[2], px[3], np1, np0, nq0, nq1, o0s[x], o1s[x], o2s[x], o3s[x]), kh, kb)
				}
				ka = kb
			}
		}
	}
	for k := 1; k <= maxDeblock; k++ {
		errs[k] = errs[0] + sum[k]
	}
	return true
}
