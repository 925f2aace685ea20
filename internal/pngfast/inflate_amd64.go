package pngfast

import "golang.org/x/sys/cpu"

// hasBMI2 selects the inflater's kernel (tests switch it off).
var hasBMI2 = cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasAVX

// codesBMI2 is codes' loop in assembly, with the same tables and bit
// buffer: it decodes symbols into out from o on while 16 bytes of in
// are left from pos and kernelOutMargin bytes of out from o, and stops
// before a symbol it leaves to the Go loop (the end of the block, an
// invalid code, a distance before the start of out). It returns the
// state where it stopped (pos, bb, nb, o).
//
//go:noescape
func codesBMI2(fast *[1 << litBits]uint32, lit *[litTableLen]uint32, dist *[distTableLen]uint32, base *[128]uint32, in []byte, pos int, bb uint64, nb uint, out []byte, o int) (int, uint64, uint, int)

// codesKernel runs codesBMI2 where it runs and there is room, and
// returns the state where it stopped (unchanged if it did not run).
func codesKernel(f *inflater, in []byte, pos int, bb uint64, nb uint, out []byte, o int) (int, uint64, uint, int) {
	if !hasBMI2 || len(in)-pos < 16 || len(out)-o < kernelOutMargin {
		return pos, bb, nb, o
	}
	return codesBMI2(&f.fast, &f.lit, &f.dist, &fastDistBase, in, pos, bb, nb, out, o)
}
