package codec

import (
	"fmt"
	"image"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func TestZZOracle(t *testing.T) {
	mp := os.Getenv("ZZ_MODEL")
	if mp == "" {
		t.Skip()
	}
	m, err := LoadModel(mp)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(os.Getenv("ZZ_IMAGES") + "/*.png")
	sort.Strings(files)
	for _, step := range []float64{15, 30, 60, 120} {
		mm, err := m.Stepped(step)
		if err != nil {
			t.Fatal(err)
		}
		c := mm.Channels[0]
		k, dims := c.Leading(), c.Dims()
		type key struct{ j, b int }
		// per (dim j, own bin b): sum of residual of dim j; for halves A (even files) / B
		sums := [2]map[key][2]float64{{}, {}}
		pair := [2]map[[3]int][2]float64{{}, {}}
		joint := map[string][2]float64{}
		type rec struct {
			half int
			cell []int
			e    []float64
		}
		var recs []rec
		var sseLead, sseRest, npx float64
		for fi, f := range files {
			r, _ := os.Open(f)
			img, _, err := image.Decode(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			p := mm.planes(img)[0]
			y, idx, grid, _ := c.quantizePlane(p, mm.Patch, false, false)
			c.refineNearest(y, idx, step)
			n := grid.Blocks()
			lead := c.leadRows(idx, n)
			npx += float64(n * dims)
			for i := 0; i < n; i++ {
				row := lead.row(i, k)
				yr := y.RawRowView(i)
				cell := make([]int, k)
				e := make([]float64, k)
				for j := 0; j < k; j++ {
					cell[j] = int(idx[i*dims+j])
					e[j] = yr[j] - row[j]
					sseLead += e[j] * e[j]
				}
				for j := k; j < dims; j++ {
					d := yr[j] - c.Rest[j-k].Value(int(idx[i*dims+j]))
					sseRest += d * d
				}
				h := fi % 2
				recs = append(recs, rec{h, cell, e})
				for j := 0; j < k; j++ {
					kk := key{j, cell[j]}
					s := sums[h][kk]
					sums[h][kk] = [2]float64{s[0] + e[j], s[1] + 1}
					for j2 := 0; j2 < k; j2++ {
						if j2 == j {
							continue
						}
						pk := [3]int{j, cell[j2], cell[j]*1000 + j2}
						s := pair[h][pk]
						pair[h][pk] = [2]float64{s[0] + e[j], s[1] + 1}
					}
				}
				js := fmt.Sprint(cell)
				for j := 0; j < k; j++ {
					js2 := js + fmt.Sprint(j)
					s := joint[js2]
					joint[js2] = [2]float64{s[0] + e[j], s[1] + 1}
				}
			}
		}
		const prior = 2.0
		off := func(s [2]float64) float64 { return s[0] / (s[1] + prior) }
		var cvOwn, cvPair, inJoint float64
		for _, r := range recs {
			o := 1 - r.half
			for j := 0; j < k; j++ {
				e := r.e[j] - off(sums[o][key{j, r.cell[j]}])
				cvOwn += e * e
				// pair: average of pair offsets for j2 != j
				var po float64
				var np float64
				for j2 := 0; j2 < k; j2++ {
					if j2 == j {
						continue
					}
					po += off(pair[o][[3]int{j, r.cell[j2], r.cell[j]*1000 + j2}])
					np++
				}
				e2 := r.e[j] - po/np
				cvPair += e2 * e2
				s := joint[fmt.Sprint(r.cell)+fmt.Sprint(j)]
				e3 := r.e[j] - s[0]/s[1]
				inJoint += e3 * e3
			}
		}
		tot := sseLead + sseRest
		db := func(s float64) float64 { return 10 * math.Log10(tot/s) }
		t.Logf("step %v: MSE %.2f lead share %.3f; cv own-bin offsets: lead SSE x%.4f (%.4f dB); cv pair: x%.4f (%.4f dB); in-sample joint: x%.4f (%.4f dB)",
			step, tot/npx, sseLead/tot, cvOwn/sseLead, db(tot-sseLead+cvOwn), cvPair/sseLead, db(tot-sseLead+cvPair), inJoint/sseLead, db(tot-sseLead+inJoint))
	}
}
