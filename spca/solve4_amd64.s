#include "textflag.h"

// Sign masks for the adjugate's terms: SIGNODD flips lanes 1 and 3,
// SIGNEVEN lanes 0 and 2 (x - y is x + (-y) exactly, and (-a)·c is
// -(a·c) exactly).
DATA solve4SignOdd<>+0(SB)/8, $0
DATA solve4SignOdd<>+8(SB)/8, $0x8000000000000000
DATA solve4SignOdd<>+16(SB)/8, $0
DATA solve4SignOdd<>+24(SB)/8, $0x8000000000000000
GLOBL solve4SignOdd<>(SB), RODATA|NOPTR, $32
DATA solve4SignEven<>+0(SB)/8, $0x8000000000000000
DATA solve4SignEven<>+8(SB)/8, $0
DATA solve4SignEven<>+16(SB)/8, $0x8000000000000000
DATA solve4SignEven<>+24(SB)/8, $0
GLOBL solve4SignEven<>(SB), RODATA|NOPTR, $32

// COL sets OUT to one column of the adjugate (the coefficients of one
// entry of b in x0..x3): (±R[i]·M1 ± R[j]·M2) ± R[l]·M3 lane by lane,
// with R's entries picked by VPERMPD (1,0,0,0), (2,2,1,1), (3,3,3,2),
// each product rounded, SG1 the signs of the first and third terms and
// SG2 those of the second. Clobbers Y13 and Y14.
#define COL(R, M1, M2, M3, SG1, SG2, OUT) \
	VPERMPD $0x01, R, Y13 \
	VMULPD M1, Y13, Y13 \
	VXORPD SG1, Y13, Y13 \
	VPERMPD $0x5A, R, Y14 \
	VMULPD M2, Y14, Y14 \
	VXORPD SG2, Y14, Y14 \
	VADDPD Y14, Y13, Y13 \
	VPERMPD $0xBF, R, Y14 \
	VMULPD M3, Y14, Y14 \
	VXORPD SG1, Y14, Y14 \
	VADDPD Y14, Y13, OUT

// SOLVE4MINORS is solve4AVX up to the adjugate's columns, the rows of a
// at SI: it writes maxAbs16(a) to SCALE and the determinant to DET, and
// leaves the rows in Y0..Y3 and the minors in Y7..Y12 (the frame's 96
// bytes below SP scratch).
#define SOLVE4MINORS(DET, SCALE) \
	VMOVUPD 0(SI), Y0 \
	VMOVUPD 32(SI), Y1 \
	VMOVUPD 64(SI), Y2 \
	VMOVUPD 96(SI), Y3 \
	VPCMPEQQ Y7, Y7, Y7 \
	VPSRLQ $1, Y7, Y7 \
	VPAND Y7, Y0, Y4 \
	VPAND Y7, Y1, Y5 \
	VPCMPGTQ Y4, Y5, Y6 \
	VBLENDVPD Y6, Y5, Y4, Y4 \
	VPAND Y7, Y2, Y5 \
	VPCMPGTQ Y4, Y5, Y6 \
	VBLENDVPD Y6, Y5, Y4, Y4 \
	VPAND Y7, Y3, Y5 \
	VPCMPGTQ Y4, Y5, Y6 \
	VBLENDVPD Y6, Y5, Y4, Y4 \
	VEXTRACTI128 $1, Y4, X5 \
	VPCMPGTQ X4, X5, X6 \
	VBLENDVPD X6, X5, X4, X4 \
	VPSHUFD $0x4e, X4, X5 \
	VPCMPGTQ X4, X5, X6 \
	VBLENDVPD X6, X5, X4, X4 \
	VMOVSD X4, SCALE \
	/* s0..s3 = r0[0,0,0,1]·r1[1,2,3,2] - r1[0,0,0,1]·r0[1,2,3,2] (Y4), */ \
	/* c0..c3 likewise of rows 2 and 3 (Y5). */ \
	VPERMPD $0x40, Y0, Y4 \
	VPERMPD $0xB9, Y1, Y6 \
	VMULPD Y6, Y4, Y4 \
	VPERMPD $0x40, Y1, Y6 \
	VPERMPD $0xB9, Y0, Y7 \
	VMULPD Y7, Y6, Y6 \
	VSUBPD Y6, Y4, Y4 \
	VPERMPD $0x40, Y2, Y5 \
	VPERMPD $0xB9, Y3, Y6 \
	VMULPD Y6, Y5, Y5 \
	VPERMPD $0x40, Y3, Y6 \
	VPERMPD $0xB9, Y2, Y7 \
	VMULPD Y7, Y6, Y6 \
	VSUBPD Y6, Y5, Y5 \
	/* s4, s5, c4, c5 (Y6) = [r0[1], r0[2], r2[1], r2[2]]·[r1[3], r1[3], */ \
	/* r3[3], r3[3]] - [r1[1], r1[2], r3[1], r3[2]]·[r0[3], r0[3], r2[3], r2[3]]. */ \
	VPERMPD $0xF9, Y0, Y6 \
	VPERMPD $0xF9, Y2, Y7 \
	VPERM2F128 $0x20, Y7, Y6, Y8 \
	VPERM2F128 $0x31, Y7, Y6, Y9 \
	VPERMPD $0xF9, Y1, Y6 \
	VPERMPD $0xF9, Y3, Y7 \
	VPERM2F128 $0x20, Y7, Y6, Y10 \
	VPERM2F128 $0x31, Y7, Y6, Y11 \
	VMULPD Y11, Y8, Y8 \
	VMULPD Y9, Y10, Y10 \
	VSUBPD Y10, Y8, Y6 \
	/* det = s0·c5 - s1·c4 + s2·c3 + s3·c2 - s4·c1 + s5·c0, in order, in */ \
	/* X13 and X14 (a VEX scalar op on X0-X3 would clear the rows' upper */ \
	/* lanes). */ \
	VMOVUPD Y4, m-96(SP) \
	VMOVUPD Y5, m-64(SP) \
	VMOVUPD Y6, m-32(SP) \
	VMOVSD m-96(SP), X13 \
	VMULSD m-8(SP), X13, X13 \
	VMOVSD m-88(SP), X14 \
	VMULSD m-16(SP), X14, X14 \
	VSUBSD X14, X13, X13 \
	VMOVSD m-80(SP), X14 \
	VMULSD m-40(SP), X14, X14 \
	VADDSD X14, X13, X13 \
	VMOVSD m-72(SP), X14 \
	VMULSD m-48(SP), X14, X14 \
	VADDSD X14, X13, X13 \
	VMOVSD m-32(SP), X14 \
	VMULSD m-56(SP), X14, X14 \
	VSUBSD X14, X13, X13 \
	VMOVSD m-24(SP), X14 \
	VMULSD m-64(SP), X14, X14 \
	VADDSD X14, X13, X13 \
	VMOVSD X13, DET \
	/* The minors as the columns take them: c5 c5 c4 c3 (Y7), c4 c2 c2 */ \
	/* c1 (Y8), c3 c1 c0 c0 (Y9); s5 s5 s4 s3 (Y10), s4 s2 s2 s1 (Y11), */ \
	/* s3 s1 s0 s0 (Y12). */ \
	VPERMPD $0xEF, Y6, Y7 \
	VBLENDPD $0x08, Y5, Y7, Y7 \
	VPERMPD $0x6A, Y5, Y8 \
	VPERMPD $0xAA, Y6, Y9 \
	VBLENDPD $0x01, Y9, Y8, Y8 \
	VPERMPD $0x07, Y5, Y9 \
	VPERMPD $0xC5, Y6, Y10 \
	VBLENDPD $0x08, Y4, Y10, Y10 \
	VPERMPD $0x6A, Y4, Y11 \
	VPERMPD $0x00, Y6, Y12 \
	VBLENDPD $0x01, Y12, Y11, Y11 \
	VPERMPD $0x07, Y4, Y12

// SOLVE4ADJ is solve4AVX's adjugate times b (at DI) after SOLVE4MINORS,
// into Y4: x = ((T0·b0 + T1·b1) + T2·b2) + T3·b3, the columns T of rows
// 1, 0 with the c minors and 3, 2 with the s minors.
#define SOLVE4ADJ \
	COL(Y1, Y7, Y8, Y9, solve4SignOdd<>(SB), solve4SignEven<>(SB), Y4) \
	VBROADCASTSD 0(DI), Y15 \
	VMULPD Y15, Y4, Y4 \
	COL(Y0, Y7, Y8, Y9, solve4SignEven<>(SB), solve4SignOdd<>(SB), Y5) \
	VBROADCASTSD 8(DI), Y15 \
	VMULPD Y15, Y5, Y5 \
	VADDPD Y5, Y4, Y4 \
	COL(Y3, Y10, Y11, Y12, solve4SignOdd<>(SB), solve4SignEven<>(SB), Y5) \
	VBROADCASTSD 16(DI), Y15 \
	VMULPD Y15, Y5, Y5 \
	VADDPD Y5, Y4, Y4 \
	COL(Y2, Y10, Y11, Y12, solve4SignEven<>(SB), solve4SignOdd<>(SB), Y5) \
	VBROADCASTSD 24(DI), Y15 \
	VMULPD Y15, Y5, Y5 \
	VADDPD Y5, Y4, Y4

// func solve4AVX(a *[16]float64, b *[4]float64, x *[4]float64) (det, scale float64)
// solve4Go's determinant and adjugate times b (before the division by
// the determinant) with the rows in registers: the same products,
// rounded, summed in the same order (TestSolve4Kernel); and scale,
// maxAbs16(a): the largest of the entries' bits with the sign cleared,
// compared as integers (nonnegative: a signed compare serves).
TEXT ·solve4AVX(SB), NOSPLIT, $96-40
	MOVQ a+0(FP), SI
	SOLVE4MINORS(det+24(FP), scale+32(FP))
	MOVQ b+8(FP), DI
	SOLVE4ADJ
	MOVQ x+16(FP), DI
	VMOVUPD Y4, 0(DI)
	VZEROUPPER
	RET

// func newtonSolve4AVX(jac *[16]float64, z, xx, un *[4]float64, scale float64, u *[4]float64) (step float64, ok bool)
// newtonStep4's step from the Jacobian on: b = z − xx, solve4 (solve4AVX
// and its test of the determinant, the adjugate's product times 1/det),
// the step's squared length summed in order, u = (un + b)·scale and the
// step's length sqrt(s2)·scale; u is left as it is where solve4 fails.
TEXT ·newtonSolve4AVX(SB), NOSPLIT, $144-57
	MOVQ z+8(FP), AX
	MOVQ xx+16(FP), BX
	VMOVUPD (AX), Y0
	VSUBPD (BX), Y0, Y0
	VMOVUPD Y0, b-144(SP)
	MOVQ jac+0(FP), SI
	SOLVE4MINORS(det-104(SP), sc-112(SP))
	LEAQ b-144(SP), DI
	SOLVE4ADJ
	// solve4: fails unless |det| > 1e-12·s·s·s·s (s: maxAbs16).
	MOVSD $1e-12, X2
	VMOVSD sc-112(SP), X1
	VMULSD X1, X2, X2
	VMULSD X1, X2, X2
	VMULSD X1, X2, X2
	VMULSD X1, X2, X2
	MOVQ det-104(SP), AX
	MOVQ AX, X0
	BTRQ $63, AX
	MOVQ AX, X3
	UCOMISD X2, X3
	JLS nostep
	// b = x·(1/det).
	MOVSD $1.0, X5
	VDIVSD X0, X5, X5
	VBROADCASTSD X5, Y5
	VMULPD Y5, Y4, Y4
	// s2 = ((b0² + b1²) + b2²) + b3², the squares rounded.
	VMULPD Y4, Y4, Y6
	VEXTRACTF128 $1, Y6, X7
	VPERMILPD $1, X6, X8
	VADDSD X8, X6, X9
	VADDSD X7, X9, X9
	VPERMILPD $1, X7, X8
	VADDSD X8, X9, X9
	VSQRTSD X9, X9, X9
	VMOVSD scale+32(FP), X10
	VMULSD X10, X9, X9
	VMOVSD X9, step+48(FP)
	// u = (un + b)·scale.
	MOVQ un+24(FP), AX
	VADDPD (AX), Y4, Y4
	VBROADCASTSD X10, Y10
	VMULPD Y10, Y4, Y4
	MOVQ u+40(FP), AX
	VMOVUPD Y4, (AX)
	MOVB $1, ok+56(FP)
	VZEROUPPER
	RET
nostep:
	MOVQ $0, step+48(FP)
	MOVB $0, ok+56(FP)
	VZEROUPPER
	RET
