#include "textflag.h"

// LERP4 sets dst = a + t·(b − a) on four lanes (each product rounded,
// then added: no fused multiply-add), clobbering b.
#define LERP4(a, b, t, dst) \
	VSUBPD a, b, b \
	VMULPD b, t, b \
	VADDPD b, a, dst

// CORNER converts the four float32 values at ptr and ptr+R8 to float64
// and reduces them along axis 0 into dst.
#define CORNER(ptr, dst) \
	VCVTPS2PD (ptr), dst \
	VCVTPS2PD (ptr)(R8*1), Y8 \
	LERP4(dst, Y8, Y12, dst)

// func reduce4AVX(p *float32, s0, s1, s2, s3 int, t *[4]float64, u *[4]float64)
// reduce4 with the four values of a node in one register: the corners at
// p + (c&1)·s1 + (c>>1&1)·s2 + (c>>2)·s3 and that + s0 (strides in
// float32s) reduced along axis 0 by t[0], then along axes 1..3 by
// t[1..3], in reduce4's order.
TEXT ·reduce4AVX(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ s0+8(FP), R8
	SHLQ $2, R8
	MOVQ s1+16(FP), R9
	SHLQ $2, R9
	MOVQ s2+24(FP), R10
	SHLQ $2, R10
	MOVQ s3+32(FP), R11
	SHLQ $2, R11
	MOVQ t+40(FP), AX
	VBROADCASTSD 0(AX), Y12
	VBROADCASTSD 8(AX), Y13
	VBROADCASTSD 16(AX), Y14
	VBROADCASTSD 24(AX), Y15
	MOVQ SI, DI
	CORNER(DI, Y0)
	ADDQ R9, DI
	CORNER(DI, Y1)
	MOVQ SI, DI
	ADDQ R10, DI
	CORNER(DI, Y2)
	ADDQ R9, DI
	CORNER(DI, Y3)
	MOVQ SI, DI
	ADDQ R11, DI
	CORNER(DI, Y4)
	ADDQ R9, DI
	CORNER(DI, Y5)
	MOVQ SI, DI
	ADDQ R11, DI
	ADDQ R10, DI
	CORNER(DI, Y6)
	ADDQ R9, DI
	CORNER(DI, Y7)
	LERP4(Y0, Y1, Y13, Y0)
	LERP4(Y2, Y3, Y13, Y1)
	LERP4(Y4, Y5, Y13, Y2)
	LERP4(Y6, Y7, Y13, Y3)
	LERP4(Y0, Y1, Y14, Y0)
	LERP4(Y2, Y3, Y14, Y1)
	LERP4(Y0, Y1, Y15, Y0)
	MOVQ u+48(FP), AX
	VMOVUPD Y0, (AX)
	VZEROUPPER
	RET
