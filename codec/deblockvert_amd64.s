#include "textflag.h"

// deblockVert4ErrAVX2's constants: 255, 4, 8, 9 (never) and 0x01010101
// in 8 lanes each, then the lane indices 0..7.
DATA v4c<>+0(SB)/8, $0x000000ff000000ff
DATA v4c<>+8(SB)/8, $0x000000ff000000ff
DATA v4c<>+16(SB)/8, $0x000000ff000000ff
DATA v4c<>+24(SB)/8, $0x000000ff000000ff
DATA v4c<>+32(SB)/8, $0x0000000400000004
DATA v4c<>+40(SB)/8, $0x0000000400000004
DATA v4c<>+48(SB)/8, $0x0000000400000004
DATA v4c<>+56(SB)/8, $0x0000000400000004
DATA v4c<>+64(SB)/8, $0x0000000800000008
DATA v4c<>+72(SB)/8, $0x0000000800000008
DATA v4c<>+80(SB)/8, $0x0000000800000008
DATA v4c<>+88(SB)/8, $0x0000000800000008
DATA v4c<>+96(SB)/8, $0x0000000900000009
DATA v4c<>+104(SB)/8, $0x0000000900000009
DATA v4c<>+112(SB)/8, $0x0000000900000009
DATA v4c<>+120(SB)/8, $0x0000000900000009
DATA v4c<>+128(SB)/8, $0x0101010101010101
DATA v4c<>+136(SB)/8, $0x0101010101010101
DATA v4c<>+144(SB)/8, $0x0101010101010101
DATA v4c<>+152(SB)/8, $0x0101010101010101
DATA v4c<>+160(SB)/8, $0x0000000100000000
DATA v4c<>+168(SB)/8, $0x0000000300000002
DATA v4c<>+176(SB)/8, $0x0000000500000004
DATA v4c<>+184(SB)/8, $0x0000000700000006
GLOBL v4c<>(SB), RODATA|NOPTR, $192

// One strength k < 8 in deblockVert4ErrAVX2: the lanes that pass at k
// (|q0 − p0| in Y6 below a_k, the larger side difference in Y7 below
// b_k, within strength 8's Y8: the thresholds do not shrink), one taken
// from their first strength (Y14), their change (Y9) added to the
// strength's sums in the frame at acc.
#define V4STRENGTH(aoff, boff, acc) \
	VPBROADCASTD aoff(SI), Y10 \
	VPCMPGTD Y6, Y10, Y10 \
	VPBROADCASTD boff(SI), Y11 \
	VPCMPGTD Y7, Y11, Y11 \
	VPAND Y11, Y10, Y10 \
	VPAND Y8, Y10, Y10 \
	VPADDD Y10, Y14, Y14 \
	VPAND Y9, Y10, Y10 \
	VPADDD acc(SP), Y10, Y10 \
	VMOVDQU Y10, acc(SP)

// One new pixel in deblockVert4ErrAVX2: np = clamp((p << sh ± d +
// round) >> sh, 0, 255), d in Y5 (op adds or subtracts it), 0 in Y15,
// round the constant at v4c+roff (8 or 4).
#define V4NEW(p, sh, roff, op, np) \
	VPSLLD $sh, p, np \
	op Y5, np, np \
	VPADDD v4c<>+roff(SB), np, np \
	VPSRAD $sh, np, np \
	VPMAXSD Y15, np, np \
	VPMINSD v4c<>+0(SB), np, np

// One sample's change of the squared error, (np − p)(np + p − 2o), added
// to Y9 (o: the byte of Y0 at shift, masked by and; t, u scratch).
#define V4CHANGE(shift, np, p, t, u) \
	VPSRLD $shift, Y0, t \
	VPAND v4c<>+0(SB), t, t \
	VPADDD t, t, t \
	VPADDD p, np, u \
	VPSUBD t, u, u \
	VPSUBD p, np, t \
	VPMULLD t, u, u \
	VPADDD u, Y9, Y9

// A strength's 8 lanes of sums in the frame (acc, acc+16), widened to
// 64 bits and added up, added to sums (DI) at off.
#define V4REDUCE(acc, acc16, off) \
	VPMOVSXDQ acc(SP), Y0 \
	VPMOVSXDQ acc16(SP), Y1 \
	VPADDQ Y1, Y0, Y0 \
	ADDLANES4(X1, off)

// The 4 quadwords of Y0 added up, added to sums (DI) at off (x scratch):
// REDUCE's and V4REDUCE's last steps.
#define ADDLANES4(x, off) \
	VEXTRACTI128 $1, Y0, x \
	VPADDQ x, X0, X0 \
	VPSHUFD $0x0E, X0, x \
	VPADDQ x, X0, X0 \
	VMOVQ X0, AX \
	ADDQ AX, off(DI)

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
	ADDLANES4(X8, off)

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

// func deblockVert4ErrAVX2(rec, orig, von, kpix []uint8, n int, th *[16]int32, sums *[8]int64)
// deblockVert4ErrAVX512 in AVX2: 8 edges per step, one in each 32-bit
// lane, loads and stores masked (VPMASKMOVD) to the lanes of the edges
// left (nothing past the last edge is read or written; the other lanes
// hold zeros, which may pass but move nothing and change no sum).
// Strength k's sums in the frame at 32(k−1), the
// lanes' mask at 256.
TEXT ·deblockVert4ErrAVX2(SB), NOSPLIT, $288-120
	MOVQ rec_base+0(FP), R8
	MOVQ orig_base+24(FP), R9
	MOVQ von_base+48(FP), R10
	MOVQ kpix_base+72(FP), R11
	MOVQ n+96(FP), CX
	MOVQ th+104(FP), SI
	MOVQ sums+112(FP), DI
	VPXOR Y0, Y0, Y0
	VMOVDQU Y0, 0(SP)
	VMOVDQU Y0, 32(SP)
	VMOVDQU Y0, 64(SP)
	VMOVDQU Y0, 96(SP)
	VMOVDQU Y0, 128(SP)
	VMOVDQU Y0, 160(SP)
	VMOVDQU Y0, 192(SP)
	VMOVDQU Y0, 224(SP)
	XORQ BX, BX                 // edge
v4loop:
	CMPQ BX, CX
	JGE  v4done
	MOVQ CX, AX
	SUBQ BX, AX                 // edges left
	MOVQ AX, X0
	VPBROADCASTD X0, Y0
	VPCMPGTD v4c<>+160(SB), Y0, Y15 // lanes below the edges left
	VMOVDQU Y15, 256(SP)
	VPMASKMOVD (R8)(BX*4), Y15, Y0
	VPAND v4c<>+0(SB), Y0, Y1   // p1
	VPSRLD $8, Y0, Y2
	VPAND v4c<>+0(SB), Y2, Y2   // p0
	VPSRLD $16, Y0, Y3
	VPAND v4c<>+0(SB), Y3, Y3   // q0
	VPSRLD $24, Y0, Y4          // q1
	VPSUBD Y2, Y3, Y5           // q0 − p0
	VPABSD Y5, Y6
	VPSUBD Y2, Y1, Y7
	VPABSD Y7, Y7
	VPSUBD Y3, Y4, Y0
	VPABSD Y0, Y0
	VPMAXSD Y0, Y7, Y7          // max(|p1 − p0|, |q1 − q0|)
	// Strength 8: Y8, the edges that pass at all; d = 4(q0 − p0) + p1 −
	// q1 there, 0 elsewhere.
	VPBROADCASTD 28(SI), Y0
	VPCMPGTD Y6, Y0, Y0
	VPBROADCASTD 60(SI), Y8
	VPCMPGTD Y7, Y8, Y8
	VPAND Y0, Y8, Y8            // (lanes past the last edge: zeros, no change)
	VPSLLD $2, Y5, Y5
	VPADDD Y1, Y5, Y5
	VPSUBD Y4, Y5, Y5
	VPAND Y8, Y5, Y5
	// The new pixels, rounded and clamped as edgeMoved's.
	VPXOR Y15, Y15, Y15
	V4NEW(Y1, 4, 64, VPADDD, Y10) // np1
	V4NEW(Y2, 3, 32, VPADDD, Y11) // np0
	V4NEW(Y3, 3, 32, VPSUBD, Y12) // nq0
	V4NEW(Y4, 4, 64, VPSUBD, Y13) // nq1
	// The edge's change of the error: Σ (np − p)(np + p − 2o).
	VMOVDQU 256(SP), Y15
	VPMASKMOVD (R9)(BX*4), Y15, Y0
	VPXOR Y9, Y9, Y9
	V4CHANGE(0, Y10, Y1, Y5, Y14)
	V4CHANGE(8, Y11, Y2, Y5, Y14)
	V4CHANGE(16, Y12, Y3, Y5, Y14)
	V4CHANGE(24, Y13, Y4, Y5, Y14)
	TESTQ R10, R10
	JZ   v4sums
	// A band row: the pixels as the edge sets them (unchanged where it
	// never passes).
	VPSLLD $8, Y11, Y11
	VPSLLD $16, Y12, Y12
	VPSLLD $24, Y13, Y13
	VPOR Y11, Y10, Y10
	VPOR Y12, Y13, Y13
	VPOR Y13, Y10, Y10
	VPMASKMOVD Y10, Y15, (R10)(BX*4)
v4sums:
	// Each strength's sum of the edges on at it; the first strength.
	VMOVDQU v4c<>+96(SB), Y14
	VPADDD Y8, Y14, Y14
	VPAND Y8, Y9, Y10
	VPADDD 224(SP), Y10, Y10
	VMOVDQU Y10, 224(SP)
	V4STRENGTH(0, 32, 0)
	V4STRENGTH(4, 36, 32)
	V4STRENGTH(8, 40, 64)
	V4STRENGTH(12, 44, 96)
	V4STRENGTH(16, 48, 128)
	V4STRENGTH(20, 52, 160)
	V4STRENGTH(24, 56, 192)
	TESTQ R10, R10
	JZ   v4next
	VPMULLD v4c<>+128(SB), Y14, Y14
	VPMASKMOVD Y14, Y15, (R11)(BX*4)
v4next:
	ADDQ $8, BX
	JMP  v4loop
v4done:
	V4REDUCE(0, 16, 0)
	V4REDUCE(32, 48, 8)
	V4REDUCE(64, 80, 16)
	V4REDUCE(96, 112, 24)
	V4REDUCE(128, 144, 32)
	V4REDUCE(160, 176, 40)
	V4REDUCE(192, 208, 48)
	V4REDUCE(224, 240, 56)
	VZEROUPPER
	RET

// moveEdges8's byte tables. gather: byte 4e+i of 16 edges taken four
// apart is byte 8e+i of their 128 bytes (p1 p0 q0 q1 at 8e..8e+3).
// scatterLo, scatterHi: byte 8e+i (i < 4) of the first and the second 64
// of those 128 bytes is byte 4e+i, 32+4e+i of the 64 taken apart (the
// bytes i >= 4 are not stored: index 0).
DATA edges8gather<>+0(SB)/8, $0x0B0A090803020100
DATA edges8gather<>+8(SB)/8, $0x1B1A191813121110
DATA edges8gather<>+16(SB)/8, $0x2B2A292823222120
DATA edges8gather<>+24(SB)/8, $0x3B3A393833323130
DATA edges8gather<>+32(SB)/8, $0x4B4A494843424140
DATA edges8gather<>+40(SB)/8, $0x5B5A595853525150
DATA edges8gather<>+48(SB)/8, $0x6B6A696863626160
DATA edges8gather<>+56(SB)/8, $0x7B7A797873727170
GLOBL edges8gather<>(SB), RODATA|NOPTR, $64
DATA edges8scatterLo<>+0(SB)/8, $0x0000000003020100
DATA edges8scatterLo<>+8(SB)/8, $0x0000000007060504
DATA edges8scatterLo<>+16(SB)/8, $0x000000000B0A0908
DATA edges8scatterLo<>+24(SB)/8, $0x000000000F0E0D0C
DATA edges8scatterLo<>+32(SB)/8, $0x0000000013121110
DATA edges8scatterLo<>+40(SB)/8, $0x0000000017161514
DATA edges8scatterLo<>+48(SB)/8, $0x000000001B1A1918
DATA edges8scatterLo<>+56(SB)/8, $0x000000001F1E1D1C
GLOBL edges8scatterLo<>(SB), RODATA|NOPTR, $64
DATA edges8scatterHi<>+0(SB)/8, $0x0000000023222120
DATA edges8scatterHi<>+8(SB)/8, $0x0000000027262524
DATA edges8scatterHi<>+16(SB)/8, $0x000000002B2A2928
DATA edges8scatterHi<>+24(SB)/8, $0x000000002F2E2D2C
DATA edges8scatterHi<>+32(SB)/8, $0x0000000033323130
DATA edges8scatterHi<>+40(SB)/8, $0x0000000037363534
DATA edges8scatterHi<>+48(SB)/8, $0x000000003B3A3938
DATA edges8scatterHi<>+56(SB)/8, $0x000000003F3E3D3C
GLOBL edges8scatterHi<>(SB), RODATA|NOPTR, $64

// func moveEdges8VBMI(edges, row *uint8, m int, back bool)
// moveEdges for n = 8 with VPERMI2B and VPERMB (AVX-512 VBMI), 16 edges
// a step: edges[4e+i] = row[8e+i] for e < m, i < 4 (row at the first edge's
// p1), or row[8e+i] = edges[4e+i] with back. The loads and stores are masked
// to those bytes (a last group's too): nothing past 8(m−1)+4 bytes of
// row and 4m of edges is read or written, and no other byte of row written.
TEXT ·moveEdges8VBMI(SB), NOSPLIT, $0-25
	MOVQ edges+0(FP), DI
	MOVQ row+8(FP), SI
	MOVQ m+16(FP), CX
	MOVBLZX back+24(FP), DX
	MOVQ $-1, R8                // all ones, for BZHI
	MOVQ $0x0F0F0F0F0F0F0F0F, R9 // the bytes 0-3 of each 8
	VMOVDQU64 edges8gather<>(SB), Z4
	VMOVDQU64 edges8scatterLo<>(SB), Z5
	VMOVDQU64 edges8scatterHi<>(SB), Z6
	TESTQ DX, DX
	JNZ  mback
mgroup:
	TESTQ CX, CX
	JLE  mdone
	MOVQ CX, AX
	CMPQ AX, $16
	JLE  mcount
	MOVQ $16, AX
mcount:
	// The group's edges (AX), their bytes of row: 8(AX−1)+4 = 8·AX − 4.
	MOVQ AX, BX
	SHLQ $3, BX
	SUBQ $4, BX
	MOVQ $64, R10
	CMPQ BX, R10
	CMOVQLT BX, R10             // min(bytes, 64)
	BZHIQ R10, R8, R11
	KMOVQ R11, K1
	SUBQ R10, BX                // the bytes past the first 64 (0 to 60)
	BZHIQ BX, R8, R11
	KMOVQ R11, K2
	VMOVDQU8.Z (SI), K1, Z0
	VMOVDQU8.Z 64(SI), K2, Z1
	VMOVDQA64 Z4, Z2
	VPERMI2B Z1, Z0, Z2
	SHLQ $2, AX                 // the bytes of g
	BZHIQ AX, R8, R11
	KMOVQ R11, K3
	VMOVDQU8 Z2, K3, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  mgroup
mback:
	TESTQ CX, CX
	JLE  mdone
	MOVQ CX, AX
	CMPQ AX, $16
	JLE  mbcount
	MOVQ $16, AX
mbcount:
	MOVQ AX, BX
	SHLQ $2, BX                 // the bytes of g
	BZHIQ BX, R8, R11
	KMOVQ R11, K1
	VMOVDQU8.Z (DI), K1, Z0
	VPERMB Z0, Z5, Z2
	VPERMB Z0, Z6, Z3
	// Stores: the edges' bytes of the first 8 edges (8 bytes each), then
	// of the others.
	MOVQ AX, BX
	SHLQ $3, BX
	MOVQ $64, R10
	CMPQ BX, R10
	CMOVQLT BX, R10
	BZHIQ R10, R8, R11
	ANDQ R9, R11
	KMOVQ R11, K2
	SUBQ R10, BX
	BZHIQ BX, R8, R11
	ANDQ R9, R11
	KMOVQ R11, K3
	VMOVDQU8 Z2, K2, (SI)
	VMOVDQU8 Z3, K3, 64(SI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  mback
mdone:
	VZEROUPPER
	RET
