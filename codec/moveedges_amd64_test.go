package codec

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/spcalab/spca/internal/fence"
)

// TestMoveEdges8 checks moveEdges8Kernel (VBMI) against moveEdges in Go
// for 8-pixel patches, both ways, for 0 to 40 edges (whole and short
// last groups of 16) in rows of 8m+2 to 8m+9 bytes: the same bytes
// gathered, the same rows after the move back, and no byte written past
// the edges (g's last 4m, the rows' bytes between and after the edges).
func TestMoveEdges8(t *testing.T) {
	if !hasMoveEdges8 {
		t.Skip("no AVX-512 VBMI")
	}
	defer func(h bool) { hasMoveEdges8 = h }(hasMoveEdges8)
	rng := rand.New(rand.NewPCG(34, 88))
	fill := func(b []uint8) {
		for i := range b {
			b[i] = uint8(rng.IntN(256))
		}
	}
	for m := 0; m <= 40; m++ {
		for extra := 0; extra < 8; extra++ {
			w := 8*m + 2 + extra
			a, b := make([]uint8, w), make([]uint8, w)
			fill(a)
			fill(b)
			// Gathered, with guard bytes after 4m.
			var got, want [2][]uint8
			for v, k := range []bool{true, false} {
				hasMoveEdges8 = k
				ga, gb := make([]uint8, 4*m+64), make([]uint8, 4*m+64)
				for i := range ga {
					ga[i], gb[i] = 0xEE, 0xEE
				}
				moveEdges(ga[:4*m], gb[:4*m], a, b, 8, m, false)
				r := &got
				if v == 1 {
					r = &want
				}
				r[0], r[1] = ga, gb
			}
			if !bytes.Equal(got[0], want[0]) || !bytes.Equal(got[1], want[1]) {
				t.Fatalf("%d edges, rows of %d: gathered\n%v\n%v\nin Go\n%v\n%v", m, w, got[0], got[1], want[0], want[1])
			}
			// Back from new bytes into copies of the rows.
			ga, gb := make([]uint8, 4*m), make([]uint8, 4*m)
			fill(ga)
			fill(gb)
			var rows [2][2][]uint8
			for v, k := range []bool{true, false} {
				hasMoveEdges8 = k
				ra, rb := bytes.Clone(a), bytes.Clone(b)
				moveEdges(ga, gb, ra, rb, 8, m, true)
				rows[v] = [2][]uint8{ra, rb}
			}
			if !bytes.Equal(rows[0][0], rows[1][0]) || !bytes.Equal(rows[0][1], rows[1][1]) {
				t.Fatalf("%d edges, rows of %d: moved back\n%v\n%v\nin Go\n%v\n%v", m, w, rows[0][0], rows[0][1], rows[1][0], rows[1][1])
			}
		}
	}
}

// TestMoveEdges8StaysInRows runs moveEdges8Kernel with the row (8m+2
// bytes, the least moveEdges allows) and the gathered edges (4m bytes)
// each ending where memory the process may not touch begins (fence, on
// Linux), both ways, for 1-40 edges: its masked loads and stores touch no
// byte past them (TestMoveEdges8's rows are Go slices, whose next bytes
// are readable: a group's load planted 4 bytes longer passed it and
// faults here), and the bytes moved are moveEdges's in Go.
func TestMoveEdges8StaysInRows(t *testing.T) {
	if !hasMoveEdges8 {
		t.Skip("no AVX-512 VBMI")
	}
	var rowFence, edgeFence fence.Fence
	for m := 1; m <= 40; m++ {
		row := rowFence.At(t, 8*m+2)
		g := edgeFence.At(t, 4*m)
		for i := range row {
			row[i] = uint8(7*i + 3)
		}
		moveEdges8Kernel(g, row, m, false)
		for j := range m {
			if !bytes.Equal(g[4*j:4*j+4], row[8*j+6:8*j+10]) {
				t.Fatalf("%d edges: edge %d gathered %v, the row's %v", m, j, g[4*j:4*j+4], row[8*j+6:8*j+10])
			}
		}
		for i := range g {
			g[i] = uint8(11*i + 5)
		}
		want := bytes.Clone(row)
		for j := range m {
			copy(want[8*j+6:8*j+10], g[4*j:4*j+4])
		}
		moveEdges8Kernel(g, row, m, true)
		if !bytes.Equal(row, want) {
			t.Fatalf("%d edges: moved back\n%v\nwant\n%v", m, row, want)
		}
	}
}
