package codec

import "golang.org/x/sys/cpu"

// deblockVert4ErrAVX512 is the vertical edges of one row of 4×4 patches
// in deblockErrorsByEdge: rec and orig start two pixels before the row's
// first edge (x = 4), so that edge j is the bytes 4j..4j+3 (p1 p0 | q0
// q1), n edges (at most maxVert4ErrEdges). An edge
// passes at strength k where |q0 − p0| < a_k and both |p1 − p0| and
// |q1 − q0| < b_k (th: a_1..a_8, b_1..b_8; they must not shrink as k
// grows, as deblockParams's do not, so an edge passes from its first
// strength on); sums[k-1] adds the changes of the squared error
// (edgeMoved's delta) of the edges that pass at k. With von and kpix (a
// band row; nil otherwise), edge j's four bytes there get its pixels as
// it sets them (rec's where it never passes) and its first strength
// (maxDeblock+1 where none). Every sum is an integer, so the kernel's
// order of adding them gives the Go loop's totals.
//
//go:noescape
func deblockVert4ErrAVX512(rec, orig, von, kpix []uint8, n int, th *[16]int32, sums *[maxDeblock]int64)

// maxVert4ErrEdges keeps deblockVert4ErrAVX512's 32-bit lanes exact: an
// edge changes the error by at most 4·255·510 in magnitude, and each of
// the 16 lanes takes every 16th edge.
const maxVert4ErrEdges = 16 * 4096

// deblockVert4ErrAVX2 is deblockVert4ErrAVX512 in AVX2, 8 edges a step
// (each of the 8 lanes takes every 8th edge: at most maxVert4ErrEdges/2
// edges a call keep them exact).
//
//go:noescape
func deblockVert4ErrAVX2(rec, orig, von, kpix []uint8, n int, th *[16]int32, sums *[maxDeblock]int64)

// hasVert4Err tells whether deblockVert4ErrKernel runs (AVX-512 or
// AVX2): deblockErrorsByEdge then gathers the edges of larger patches
// for it.
func hasVert4Err() bool { return hasAVX512 || hasAVX2 }

// deblockVert4ErrKernel runs deblockVert4ErrAVX512 (else
// deblockVert4ErrAVX2: without it, on AVX2 alone and under callgrind,
// deblockErrorsByEdge's loop and edgeMoved in Go were 4.5 % of the
// instructions of a grey batch encode) over the n edges of a row of 4×4
// patches (rec, orig and, in a band, von and kpix from the row's byte 2
// on), adding its sums to h, and returns the edges it covered (n, or 0
// without AVX2).
func deblockVert4ErrKernel(rec, orig, von, kpix []uint8, n int, th *[16]int32, h *[maxDeblock]int64) int {
	if !hasVert4Err() || n <= 0 {
		return 0
	}
	if len(rec) < 4*n || len(orig) < 4*n || von != nil && (len(von) < 4*n || len(kpix) < 4*n) {
		panic("codec: deblockVert4ErrKernel: short rows")
	}
	chunk := maxVert4ErrEdges
	if !hasAVX512 {
		chunk /= 2
	}
	for j := 0; j < n; j += chunk {
		c := min(chunk, n-j)
		var v, k []uint8
		if von != nil {
			v, k = von[4*j:], kpix[4*j:]
		}
		if hasAVX512 {
			deblockVert4ErrAVX512(rec[4*j:], orig[4*j:], v, k, c, th, h)
		} else {
			deblockVert4ErrAVX2(rec[4*j:], orig[4*j:], v, k, c, th, h)
		}
	}
	return n
}

// moveEdges8VBMI is moveEdges of the m edges 8 apart of one row, row at
// the first's p1, into or back from edges (see deblockvert_amd64.s).
//
//go:noescape
func moveEdges8VBMI(edges, row *uint8, m int, back bool)

// hasMoveEdges8 selects moveEdges8VBMI (tests switch it off).
var hasMoveEdges8 = hasAVX512BW && cpu.X86.HasAVX512VBMI

// moveEdges8Kernel runs moveEdges8VBMI for the edges x = 8, 16, ... (8m
// + 2 <= len(row)) of row and g (4m bytes) and reports whether it did:
// moveEdges in Go (a 4-byte load and store an edge, their bounds checks)
// was 0.5 % of a grey 8×8 batch encode's samples.
func moveEdges8Kernel(g, row []uint8, m int, back bool) bool {
	if !hasMoveEdges8 || m <= 0 {
		return false
	}
	if len(g) < 4*m || len(row) < 8*m+2 {
		panic("codec: moveEdges8Kernel: edges outside the rows")
	}
	moveEdges8VBMI(&g[0], &row[6], m, back)
	return true
}
