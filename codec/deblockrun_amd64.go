package codec

import "golang.org/x/sys/cpu"

// edgeRunAVX2 adds the changes of a run of edges to s (see
// deblockrun_amd64.s) and returns the index of the first edge it leaves
// to the caller, len(ks) if none.
//
//go:noescape
func edgeRunAVX2(s *edgeSums, rec, orig []float64, ks []uint8, i, at, step, stride int, von []float64, kpix []uint8, mode int) int

var hasPOPCNT = cpu.X86.HasPOPCNT

// edgeRunKernel is edgeRunAVX2 where it runs (it returns i where not),
// after checking that every edge's samples lie in the slices.
func edgeRunKernel(s *edgeSums, rec, orig []float64, ks []uint8, i, at, step, stride int, von []float64, kpix []uint8, mode int) int {
	if !hasAVX2 || !hasPOPCNT || i >= len(ks) {
		return i
	}
	first, last := at+i*step, at+(len(ks)-1)*step
	if i < 0 || step < 1 || stride < 1 || first-2*stride < 0 || last+stride >= min(len(rec), len(orig)) ||
		mode == edgeRunSet && (stride != 1 || last+1 >= min(len(von), len(kpix))) ||
		mode == edgeRunCheck && last+stride >= min(len(von), len(kpix)) {
		panic("codec: edgeRunKernel: edges outside the samples")
	}
	return edgeRunAVX2(s, rec, orig, ks, i, at, step, stride, von, kpix, mode)
}
