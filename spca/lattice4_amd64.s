#include "textflag.h"

// LERP4 sets dst = a + t·(b − a) on four lanes (each product rounded,
// then added: no fused multiply-add), clobbering b.
#define LERP4(a, b, t, dst) \
	VSUBPD a, b, b \
	VMULPD b, t, b \
	VADDPD b, a, dst

// func valueCell4AVX(p *float64, s0, s1, s2, s3 int, t *[4]float64, dst *[4]float64)
// valueCell4 with the four components of a node in one register: the
// corners at p + (c&1)·s1 + (c>>1&1)·s2 + (c>>2)·s3 and that + s0
// (strides in float64s) reduced along axis 0 by t[0], then along axes
// 1..3 by t[1..3], in valueCell4's order.
TEXT ·valueCell4AVX(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ s0+8(FP), R8
	SHLQ $3, R8
	MOVQ s1+16(FP), R9
	SHLQ $3, R9
	MOVQ s2+24(FP), R10
	SHLQ $3, R10
	MOVQ s3+32(FP), R11
	SHLQ $3, R11
	MOVQ t+40(FP), AX
	VBROADCASTSD 0(AX), Y12
	VBROADCASTSD 8(AX), Y13
	VBROADCASTSD 16(AX), Y14
	VBROADCASTSD 24(AX), Y15

	// Corners 0..3 (axis 3 low): p, p+s1, p+s2, p+s1+s2.
	MOVQ SI, DI
	VMOVUPD (DI), Y0
	VMOVUPD (DI)(R8*1), Y8
	LERP4(Y0, Y8, Y12, Y0)
	ADDQ R9, DI
	VMOVUPD (DI), Y1
	VMOVUPD (DI)(R8*1), Y8
	LERP4(Y1, Y8, Y12, Y1)
	MOVQ SI, DI
	ADDQ R10, DI
	VMOVUPD (DI), Y2
	VMOVUPD (DI)(R8*1), Y8
	LERP4(Y2, Y8, Y12, Y2)
	ADDQ R9, DI
	VMOVUPD (DI), Y3
	VMOVUPD (DI)(R8*1), Y8
	LERP4(Y3, Y8, Y12, Y3)
	// Corners 4..7: the same + s3.
	MOVQ SI, DI
	ADDQ R11, DI
	VMOVUPD (DI), Y4
	VMOVUPD (DI)(R8*1), Y8
	LERP4(Y4, Y8, Y12, Y4)
	ADDQ R9, DI
	VMOVUPD (DI), Y5
	VMOVUPD (DI)(R8*1), Y8
	LERP4(Y5, Y8, Y12, Y5)
	MOVQ SI, DI
	ADDQ R11, DI
	ADDQ R10, DI
	VMOVUPD (DI), Y6
	VMOVUPD (DI)(R8*1), Y8
	LERP4(Y6, Y8, Y12, Y6)
	ADDQ R9, DI
	VMOVUPD (DI), Y7
	VMOVUPD (DI)(R8*1), Y8
	LERP4(Y7, Y8, Y12, Y7)

	// Axis 1: pairs (0,1) (2,3) (4,5) (6,7).
	LERP4(Y0, Y1, Y13, Y0)
	LERP4(Y2, Y3, Y13, Y1)
	LERP4(Y4, Y5, Y13, Y2)
	LERP4(Y6, Y7, Y13, Y3)
	// Axis 2.
	LERP4(Y0, Y1, Y14, Y0)
	LERP4(Y2, Y3, Y14, Y1)
	// Axis 3.
	LERP4(Y0, Y1, Y15, Y0)
	MOVQ dst+48(FP), AX
	VMOVUPD Y0, (AX)
	VZEROUPPER
	RET
