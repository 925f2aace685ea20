#include "textflag.h"

// One strength's edges after strength 8's: the mask of the edges that
// pass at k (K3, |q0 − p0| in Z6 below a_k, the larger side difference
// in Z7 below b_k), their change added to its sums (acc), and one taken
// from their first strength (Z31).
#define STRENGTH(aoff, boff, acc) \
	VPCMPD.BCST $1, aoff(SI), Z6, K4, K1 \
	VPCMPD.BCST $1, boff(SI), Z7, K1, K3 \
	VPADDD Z9, acc, K3, acc \
	VPSUBD Z29, Z31, K3, Z31

// One strength's 16 lanes of sums, widened to 64 bits and added up, added
// to sums (DI) at off.
#define REDUCE(acc, off) \
	VMOVDQA32 acc, Z0 \
	VEXTRACTI64X4 $1, Z0, Y8 \
	VPMOVSXDQ Y8, Z8 \
	VPMOVSXDQ Y0, Z0 \
	VPADDQ Z8, Z0, Z0 \
	VEXTRACTI64X4 $1, Z0, Y8 \
	VPADDQ Y8, Y0, Y0 \
	VEXTRACTI128 $1, Y0, X8 \
	VPADDQ X8, X0, X0 \
	VPSHUFD $0x0E, X0, X8 \
	VPADDQ X8, X0, X0 \
	VMOVQ X0, AX \
	ADDQ AX, off(DI)

// func deblockVert4ErrAVX512(rec, orig, von, kpix []uint8, n int, th *[16]int32, sums *[8]int64)
// See deblockvert_amd64.go. 16 edges per step, one in each 32-bit lane
// (the edge's four pixels are the lane's four bytes); K4 masks the lanes
// past the last edge of a last step (masked loads and stores: nothing
// past it is read or written; its lanes pass at no strength and change
// nothing).
TEXT ·deblockVert4ErrAVX512(SB), NOSPLIT, $0-120
	MOVQ rec_base+0(FP), R8
	MOVQ orig_base+24(FP), R9
	MOVQ von_base+48(FP), R10
	MOVQ kpix_base+72(FP), R11
	MOVQ n+96(FP), CX
	MOVQ th+104(FP), SI
	MOVQ sums+112(FP), DI
	SHLQ $2, CX                 // bytes
	MOVL $0xffff, AX
	KMOVW AX, K5                // every lane
	MOVL $255, AX
	VPBROADCASTD AX, Z24
	MOVL $4, AX
	VPBROADCASTD AX, Z25
	MOVL $8, AX
	VPBROADCASTD AX, Z26
	VPXORD Z27, Z27, Z27
	MOVL $9, AX                 // never
	VPBROADCASTD AX, Z28
	MOVL $1, AX
	VPBROADCASTD AX, Z29
	MOVL $0x01010101, AX
	VPBROADCASTD AX, Z30
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	XORQ BX, BX
loop:
	CMPQ BX, CX
	JGE  done
	KMOVW K5, K4
	MOVQ CX, AX
	SUBQ BX, AX
	CMPQ AX, $64
	JGE  whole
	// The last edges: (CX − BX)/4 lanes.
	SHRQ $2, AX
	MOVL $1, DX
	SHLXL AX, DX, DX
	DECL DX
	KMOVW DX, K4
whole:
	VMOVDQU32.Z (R8)(BX*1), K4, Z0
	VPANDD Z24, Z0, Z1          // p1
	VPSRLD $8, Z0, Z2
	VPANDD Z24, Z2, Z2          // p0
	VPSRLD $16, Z0, Z3
	VPANDD Z24, Z3, Z3          // q0
	VPSRLD $24, Z0, Z4          // q1
	VPSUBD Z2, Z3, Z5           // q0 − p0
	VPABSD Z5, Z6
	VPSUBD Z2, Z1, Z7
	VPABSD Z7, Z7
	VPSUBD Z3, Z4, Z9
	VPABSD Z9, Z9
	VPMAXSD Z9, Z7, Z7          // max(|p1 − p0|, |q1 − q0|)
	// Strength 8 (the thresholds do not shrink with k): K2, the edges
	// that pass at all; d8 = 4(q0 − p0) + p1 − q1 there, 0 elsewhere.
	VPCMPD.BCST $1, 28(SI), Z6, K4, K1
	VPCMPD.BCST $1, 60(SI), Z7, K1, K2
	VPSLLD $2, Z5, Z5
	VPADDD Z1, Z5, Z5
	VPSUBD.Z Z4, Z5, K2, Z5
	// The new pixels, rounded and clamped as edgeMoved's.
	VPSLLD $4, Z1, Z10
	VPADDD Z5, Z10, Z10
	VPADDD Z26, Z10, Z10
	VPSRAD $4, Z10, Z10
	VPMAXSD Z27, Z10, Z10
	VPMINSD Z24, Z10, Z10       // np1
	VPSLLD $3, Z2, Z11
	VPADDD Z5, Z11, Z11
	VPADDD Z25, Z11, Z11
	VPSRAD $3, Z11, Z11
	VPMAXSD Z27, Z11, Z11
	VPMINSD Z24, Z11, Z11       // np0
	VPSLLD $3, Z3, Z12
	VPSUBD Z5, Z12, Z12
	VPADDD Z25, Z12, Z12
	VPSRAD $3, Z12, Z12
	VPMAXSD Z27, Z12, Z12
	VPMINSD Z24, Z12, Z12       // nq0
	VPSLLD $4, Z4, Z13
	VPSUBD Z5, Z13, Z13
	VPADDD Z26, Z13, Z13
	VPSRAD $4, Z13, Z13
	VPMAXSD Z27, Z13, Z13
	VPMINSD Z24, Z13, Z13       // nq1
	// The edge's change of the error: Σ (np − p)(np + p − 2o).
	VMOVDQU32.Z (R9)(BX*1), K4, Z14
	VPANDD Z24, Z14, Z15
	VPADDD Z15, Z15, Z15
	VPADDD Z1, Z10, Z9
	VPSUBD Z15, Z9, Z9
	VPSUBD Z1, Z10, Z15
	VPMULLD Z15, Z9, Z9
	VPSRLD $8, Z14, Z15
	VPANDD Z24, Z15, Z15
	VPADDD Z15, Z15, Z15
	VPADDD Z2, Z11, Z8
	VPSUBD Z15, Z8, Z8
	VPSUBD Z2, Z11, Z15
	VPMULLD Z15, Z8, Z8
	VPADDD Z8, Z9, Z9
	VPSRLD $16, Z14, Z15
	VPANDD Z24, Z15, Z15
	VPADDD Z15, Z15, Z15
	VPADDD Z3, Z12, Z8
	VPSUBD Z15, Z8, Z8
	VPSUBD Z3, Z12, Z15
	VPMULLD Z15, Z8, Z8
	VPADDD Z8, Z9, Z9
	VPSRLD $24, Z14, Z15
	VPADDD Z15, Z15, Z15
	VPADDD Z4, Z13, Z8
	VPSUBD Z15, Z8, Z8
	VPSUBD Z4, Z13, Z15
	VPMULLD Z15, Z8, Z8
	VPADDD Z8, Z9, Z9
	// Each strength's sum of the edges on at it; the first strength.
	VMOVDQA32 Z28, Z31
	VPADDD Z9, Z23, K2, Z23
	VPSUBD Z29, Z31, K2, Z31
	STRENGTH(0, 32, Z16)
	STRENGTH(4, 36, Z17)
	STRENGTH(8, 40, Z18)
	STRENGTH(12, 44, Z19)
	STRENGTH(16, 48, Z20)
	STRENGTH(20, 52, Z21)
	STRENGTH(24, 56, Z22)
	TESTQ R10, R10
	JZ   next
	// A band row: the pixels as the edge sets them (unchanged where it
	// never passes) and its first strength in each of its bytes.
	VPSLLD $8, Z11, Z11
	VPSLLD $16, Z12, Z12
	VPSLLD $24, Z13, Z13
	VPORD Z11, Z10, Z10
	VPORD Z12, Z13, Z13
	VPORD Z13, Z10, Z10
	VMOVDQU32 Z10, K4, (R10)(BX*1)
	VPMULLD Z30, Z31, Z31
	VMOVDQU32 Z31, K4, (R11)(BX*1)
next:
	ADDQ $64, BX
	JMP  loop
done:
	REDUCE(Z16, 0)
	REDUCE(Z17, 8)
	REDUCE(Z18, 16)
	REDUCE(Z19, 24)
	REDUCE(Z20, 32)
	REDUCE(Z21, 40)
	REDUCE(Z22, 48)
	REDUCE(Z23, 56)
	VZEROUPPER
	RET
