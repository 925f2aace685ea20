#include "textflag.h"
#include "go_asm.h"

// LERP4 sets dst = a + t·(b − a) on four lanes (each product rounded,
// then added: no fused multiply-add), clobbering b.
#define LERP4(a, b, t, dst) \
	VSUBPD a, b, b \
	VMULPD b, t, b \
	VADDPD b, a, dst

// The kernels below come in two forms, one per type of the lattice's
// positions: LD loads a node's four components into a YMM register,
// VMOVUPD (float64, 32 bytes a node) or VCVTPS2PD (float32, 16 bytes,
// widened exactly), and SH is log2 of a component's bytes (the strides
// come in components). After the loads both do the same float64
// operations.

// VALUE4 is valueCell4 with the four components of a node in one
// register: the corners at SI + (c&1)·s1 + (c>>1&1)·s2 + (c>>2)·s3 and
// that + s0 (R8..R11: strides in bytes) reduced along axis 0 by Y12,
// then along axes 1..3 by Y13..Y15, in valueCell4's order, into Y0.
#define VALUE4(LD) \
	MOVQ SI, DI \
	LD (DI), Y0 \
	LD (DI)(R8*1), Y8 \
	LERP4(Y0, Y8, Y12, Y0) \
	ADDQ R9, DI \
	LD (DI), Y1 \
	LD (DI)(R8*1), Y8 \
	LERP4(Y1, Y8, Y12, Y1) \
	MOVQ SI, DI \
	ADDQ R10, DI \
	LD (DI), Y2 \
	LD (DI)(R8*1), Y8 \
	LERP4(Y2, Y8, Y12, Y2) \
	ADDQ R9, DI \
	LD (DI), Y3 \
	LD (DI)(R8*1), Y8 \
	LERP4(Y3, Y8, Y12, Y3) \
	MOVQ SI, DI \
	ADDQ R11, DI \
	LD (DI), Y4 \
	LD (DI)(R8*1), Y8 \
	LERP4(Y4, Y8, Y12, Y4) \
	ADDQ R9, DI \
	LD (DI), Y5 \
	LD (DI)(R8*1), Y8 \
	LERP4(Y5, Y8, Y12, Y5) \
	MOVQ SI, DI \
	ADDQ R11, DI \
	ADDQ R10, DI \
	LD (DI), Y6 \
	LD (DI)(R8*1), Y8 \
	LERP4(Y6, Y8, Y12, Y6) \
	ADDQ R9, DI \
	LD (DI), Y7 \
	LD (DI)(R8*1), Y8 \
	LERP4(Y7, Y8, Y12, Y7) \
	LERP4(Y0, Y1, Y13, Y0) \
	LERP4(Y2, Y3, Y13, Y1) \
	LERP4(Y4, Y5, Y13, Y2) \
	LERP4(Y6, Y7, Y13, Y3) \
	LERP4(Y0, Y1, Y14, Y0) \
	LERP4(Y2, Y3, Y14, Y1) \
	LERP4(Y0, Y1, Y15, Y0)

// VALUE4Z is VALUE4 on float32 positions with AVX-512: the two nodes
// along axis 3 (s3 is one node: 16 bytes) loaded and widened together
// into a ZMM register, its low half the lower node, reduced along axes
// 0..2 by Z12..Z14 at once and then along axis 3 between the halves by
// Y15, into Y0 (each lane's operations VALUE4's).
#define VALUE4Z \
	VCVTPS2PD (SI), Z0 \
	VCVTPS2PD (SI)(R8*1), Z8 \
	LERP4(Z0, Z8, Z12, Z0) \
	LEAQ (SI)(R9*1), DI \
	VCVTPS2PD (DI), Z1 \
	VCVTPS2PD (DI)(R8*1), Z8 \
	LERP4(Z1, Z8, Z12, Z1) \
	LEAQ (SI)(R10*1), DI \
	VCVTPS2PD (DI), Z2 \
	VCVTPS2PD (DI)(R8*1), Z8 \
	LERP4(Z2, Z8, Z12, Z2) \
	ADDQ R9, DI \
	VCVTPS2PD (DI), Z3 \
	VCVTPS2PD (DI)(R8*1), Z8 \
	LERP4(Z3, Z8, Z12, Z3) \
	LERP4(Z0, Z1, Z13, Z0) \
	LERP4(Z2, Z3, Z13, Z1) \
	LERP4(Z0, Z1, Z14, Z0) \
	VEXTRACTF64X4 $1, Z0, Y1 \
	LERP4(Y0, Y1, Y15, Y0)

// STRIDES turns the strides in R8..R11 from components into bytes (SH:
// log2 of a component's bytes).
#define STRIDES(SH) \
	SHLQ SH, R8 \
	SHLQ SH, R9 \
	SHLQ SH, R10 \
	SHLQ SH, R11

// FRACS broadcasts the fractions at AX into Y12..Y15.
#define FRACS \
	VBROADCASTSD 0(AX), Y12 \
	VBROADCASTSD 8(AX), Y13 \
	VBROADCASTSD 16(AX), Y14 \
	VBROADCASTSD 24(AX), Y15

// func valueCell4AVX(p *float64, s0, s1, s2, s3 int, t *[4]float64, dst *[4]float64)
// valueCell4 on float64 positions (strides in float64s).
TEXT ·valueCell4AVX(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ s0+8(FP), R8
	MOVQ s1+16(FP), R9
	MOVQ s2+24(FP), R10
	MOVQ s3+32(FP), R11
	STRIDES($3)
	MOVQ t+40(FP), AX
	FRACS
	VALUE4(VMOVUPD)
	MOVQ dst+48(FP), AX
	VMOVUPD Y0, (AX)
	VZEROUPPER
	RET

// func valueCell4AVX32(p *float32, s0, s1, s2, s3 int, t *[4]float64, dst *[4]float64)
// valueCell4 on float32 positions (strides in float32s). With AVX-512
// (hasAVX512) the two nodes along axis 3 (s3 is one node: 16 bytes) are
// loaded and widened together into a ZMM register, its low half the
// lower node: the reductions along axes 0..2 run on both at once (half
// the conversions and the operations of VALUE4, each lane's the same),
// and the one along axis 3 between the halves.
TEXT ·valueCell4AVX32(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ s0+8(FP), R8
	MOVQ s1+16(FP), R9
	MOVQ s2+24(FP), R10
	MOVQ s3+32(FP), R11
	STRIDES($2)
	MOVQ t+40(FP), AX
	CMPB ·hasAVX512(SB), $0
	JNE value32zmm
	FRACS
	VALUE4(VCVTPS2PD)
	MOVQ dst+48(FP), AX
	VMOVUPD Y0, (AX)
	VZEROUPPER
	RET
value32zmm:
	VBROADCASTSD 0(AX), Z12
	VBROADCASTSD 8(AX), Z13
	VBROADCASTSD 16(AX), Z14
	VBROADCASTSD 24(AX), Y15
	VALUE4Z
	MOVQ dst+48(FP), AX
	VMOVUPD Y0, (AX)
	VZEROUPPER
	RET

// PAIR reduces the corners at ptr and ptr+R8 bytes along axis 0:
// a = c0 + t0·e and g = e·inv0 with e = c1 − c0 (AX: t0..t3, inv0..inv3).
#define PAIR(LD, ptr, a, g) \
	LD (ptr), Y10 \
	LD (ptr)(R8*1), Y11 \
	VSUBPD Y10, Y11, Y11 \
	VBROADCASTSD 0(AX), Y15 \
	VMULPD Y11, Y15, Y12 \
	VADDPD Y12, Y10, a \
	VBROADCASTSD 32(AX), Y15 \
	VMULPD Y15, Y11, g

// GROUP reduces two pairs (at ptrA and ptrB) along axis 1, as cellGrad4:
// G = gA + t1·(gB − gA), E = aB − aA, H = E·inv1, A = aA + t1·E.
#define GROUP(LD, ptrA, ptrB, G, H, A) \
	PAIR(LD, ptrA, Y13, Y14) \
	PAIR(LD, ptrB, A, G) \
	VSUBPD Y14, G, G \
	VBROADCASTSD 8(AX), Y15 \
	VMULPD G, Y15, G \
	VADDPD G, Y14, G \
	VSUBPD Y13, A, Y10 \
	VBROADCASTSD 40(AX), Y15 \
	VMULPD Y15, Y10, H \
	VBROADCASTSD 8(AX), Y15 \
	VMULPD Y10, Y15, Y11 \
	VADDPD Y11, Y13, A

// HALF reduces the eight corners from DI (groups at DI, DI+s2) along
// axes 0..2 into G', H', K, A'.
#define HALF(LD, oG, oH, oK, oA) \
	MOVQ DI, BX \
	ADDQ R9, BX \
	GROUP(LD, DI, BX, Y4, Y5, Y6) \
	ADDQ R10, DI \
	MOVQ DI, BX \
	ADDQ R9, BX \
	GROUP(LD, DI, BX, Y7, Y8, Y9) \
	VBROADCASTSD 16(AX), Y15 \
	VSUBPD Y4, Y7, Y7 \
	VMULPD Y7, Y15, Y7 \
	VADDPD Y7, Y4, oG \
	VSUBPD Y5, Y8, Y8 \
	VMULPD Y8, Y15, Y8 \
	VADDPD Y8, Y5, oH \
	VSUBPD Y6, Y9, Y10 \
	VMULPD Y10, Y15, Y11 \
	VADDPD Y11, Y6, oA \
	VBROADCASTSD 48(AX), Y15 \
	VMULPD Y15, Y10, oK

// PAIRZ, GROUPZ and HALFZ are PAIR, GROUP and HALF on ZMM registers: two
// nodes along axis 3 a register (valueCell4AVX32's AVX-512 form).
#define PAIRZ(LD, ptr, a, g) \
	LD (ptr), Z10 \
	LD (ptr)(R8*1), Z11 \
	VSUBPD Z10, Z11, Z11 \
	VBROADCASTSD 0(AX), Z15 \
	VMULPD Z11, Z15, Z12 \
	VADDPD Z12, Z10, a \
	VBROADCASTSD 32(AX), Z15 \
	VMULPD Z15, Z11, g

#define GROUPZ(LD, ptrA, ptrB, G, H, A) \
	PAIRZ(LD, ptrA, Z13, Z14) \
	PAIRZ(LD, ptrB, A, G) \
	VSUBPD Z14, G, G \
	VBROADCASTSD 8(AX), Z15 \
	VMULPD G, Z15, G \
	VADDPD G, Z14, G \
	VSUBPD Z13, A, Z10 \
	VBROADCASTSD 40(AX), Z15 \
	VMULPD Z15, Z10, H \
	VBROADCASTSD 8(AX), Z15 \
	VMULPD Z10, Z15, Z11 \
	VADDPD Z11, Z13, A

#define HALFZ(LD, oG, oH, oK, oA) \
	MOVQ DI, BX \
	ADDQ R9, BX \
	GROUPZ(LD, DI, BX, Z4, Z5, Z6) \
	ADDQ R10, DI \
	MOVQ DI, BX \
	ADDQ R9, BX \
	GROUPZ(LD, DI, BX, Z7, Z8, Z9) \
	VBROADCASTSD 16(AX), Z15 \
	VSUBPD Z4, Z7, Z7 \
	VMULPD Z7, Z15, Z7 \
	VADDPD Z7, Z4, oG \
	VSUBPD Z5, Z8, Z8 \
	VMULPD Z8, Z15, Z8 \
	VADDPD Z8, Z5, oH \
	VSUBPD Z6, Z9, Z10 \
	VMULPD Z10, Z15, Z11 \
	VADDPD Z11, Z6, oA \
	VBROADCASTSD 48(AX), Z15 \
	VMULPD Z15, Z10, oK

// GRAD4 is cellGrad4 on the four components at once, the 16 corners
// from SI (strides R8..R11 in bytes; AX: t0..t3 then inv0..inv3): the
// value in Y12, the derivatives along axes 0..3 in Y0..Y3.
#define GRAD4(LD) \
	MOVQ SI, DI \
	HALF(LD, Y0, Y1, Y2, Y3) \
	MOVQ SI, DI \
	ADDQ R11, DI \
	HALF(LD, Y4, Y5, Y7, Y6) \
	GRADAXIS3

// GRADAXIS3 is GRAD4's reduction along axis 3 of the halves' G', H', K,
// A' (Y0, Y1, Y2, Y3 and Y4, Y5, Y7, Y6).
#define GRADAXIS3 \
	VBROADCASTSD 24(AX), Y15 \
	VSUBPD Y3, Y6, Y10 \
	VMULPD Y10, Y15, Y11 \
	VADDPD Y11, Y3, Y12 \
	VSUBPD Y0, Y4, Y4 \
	VMULPD Y4, Y15, Y4 \
	VADDPD Y4, Y0, Y0 \
	VSUBPD Y1, Y5, Y5 \
	VMULPD Y5, Y15, Y5 \
	VADDPD Y5, Y1, Y1 \
	VSUBPD Y2, Y7, Y7 \
	VMULPD Y7, Y15, Y7 \
	VADDPD Y7, Y2, Y2 \
	VBROADCASTSD 56(AX), Y15 \
	VMULPD Y15, Y10, Y3

// GRADOUT writes GRAD4's value to DX and then its Jacobian to CX, in
// rows k: (d0[k], d1[k], d2[k], d3[k]).
#define GRADOUT \
	VMOVUPD Y12, (DX) \
	VUNPCKLPD Y1, Y0, Y4 \
	VUNPCKHPD Y1, Y0, Y5 \
	VUNPCKLPD Y3, Y2, Y6 \
	VUNPCKHPD Y3, Y2, Y7 \
	VPERM2F128 $0x20, Y6, Y4, Y8 \
	VPERM2F128 $0x20, Y7, Y5, Y9 \
	VPERM2F128 $0x31, Y6, Y4, Y10 \
	VPERM2F128 $0x31, Y7, Y5, Y11 \
	VMOVUPD Y8, (CX) \
	VMOVUPD Y9, 32(CX) \
	VMOVUPD Y10, 64(CX) \
	VMOVUPD Y11, 96(CX)

// func gradCell4AVX(p *float64, s0, s1, s2, s3 int, c *[8]float64, dst *[4]float64, jac *[16]float64)
// evalCell4 with the Jacobian on float64 positions (strides in
// float64s): cellGrad4 on the four components at once (c holds t0..t3
// then inv0..inv3), the Jacobian transposed into rows.
TEXT ·gradCell4AVX(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ s0+8(FP), R8
	MOVQ s1+16(FP), R9
	MOVQ s2+24(FP), R10
	MOVQ s3+32(FP), R11
	STRIDES($3)
	MOVQ c+40(FP), AX
	GRAD4(VMOVUPD)
	MOVQ dst+48(FP), DX
	MOVQ jac+56(FP), CX
	GRADOUT
	VZEROUPPER
	RET

// func gradCell4AVX32(p *float32, s0, s1, s2, s3 int, c *[8]float64, dst *[4]float64, jac *[16]float64)
// gradCell4AVX on float32 positions (strides in float32s); with AVX-512
// the halves along axis 3 at once, as valueCell4AVX32.
TEXT ·gradCell4AVX32(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ s0+8(FP), R8
	MOVQ s1+16(FP), R9
	MOVQ s2+24(FP), R10
	MOVQ s3+32(FP), R11
	STRIDES($2)
	MOVQ c+40(FP), AX
	CMPB ·hasAVX512(SB), $0
	JNE grad32zmm
	GRAD4(VCVTPS2PD)
	JMP grad32out
grad32zmm:
	MOVQ SI, DI
	HALFZ(VCVTPS2PD, Z0, Z1, Z2, Z3)
	VEXTRACTF64X4 $1, Z0, Y4
	VEXTRACTF64X4 $1, Z1, Y5
	VEXTRACTF64X4 $1, Z2, Y7
	VEXTRACTF64X4 $1, Z3, Y6
	GRADAXIS3
grad32out:
	MOVQ dst+48(FP), DX
	MOVQ jac+56(FP), CX
	GRADOUT
	VZEROUPPER
	RET

// func newtonCell4AVX(u, x, mean *[4]float64, scale float64, k *newton4Consts, z, un *[4]float64, c *[4]float64) (base int, flags int)
// newtonCell4Go on the four axes at once: the same divisions and
// subtractions lane by lane (VDIVPD rounds each lane as DIVSD does), the
// clamp's and the cell's tests as ordered compares (false for NaN, as
// Go's < and >), the cell's index by truncation to int32 (the clamp
// bounds p to a few cells, and NaN gives the minimum integer in either
// width: 0 after the clamp to [0, top]).
TEXT ·newtonCell4AVX(SB), NOSPLIT, $0-80
	MOVQ u+0(FP), AX
	MOVQ x+8(FP), BX
	MOVQ mean+16(FP), CX
	VBROADCASTSD scale+24(FP), Y15
	MOVQ k+32(FP), DX
	MOVQ z+40(FP), SI
	MOVQ un+48(FP), DI
	MOVQ c+56(FP), R8
	VMOVUPD (BX), Y0
	VSUBPD (CX), Y0, Y0
	VDIVPD Y15, Y0, Y0
	VMOVUPD Y0, (SI)
	VMOVUPD (AX), Y1
	VDIVPD Y15, Y1, Y1
	VMOVUPD Y1, (DI)
	// Clamped: un < clampLo or un > clampHi in any lane.
	VCMPPD $0x11, 64(DX), Y1, Y2
	VCMPPD $0x1e, 96(DX), Y1, Y3
	VORPD Y3, Y2, Y2
	VMOVMSKPD Y2, R9
	TESTL R9, R9
	JNZ clamped
	// p = (un − lo)/step; i = max(0, min(top, int(p))); f = p − i.
	VSUBPD 0(DX), Y1, Y4
	VDIVPD 32(DX), Y4, Y4
	VCVTTPD2DQY Y4, X5
	VPMINSD 128(DX), X5, X5
	VPXOR X6, X6, X6
	VPMAXSD X6, X5, X5
	VCVTDQ2PD X5, Y6
	VSUBPD Y6, Y4, Y7
	VMOVUPD Y7, (R8)
	// Outside: f < 0 or f > 1 in any lane.
	VXORPD Y8, Y8, Y8
	VCMPPD $0x11, Y8, Y7, Y9
	VCMPPD $0x1e, 160(DX), Y7, Y10
	VORPD Y10, Y9, Y9
	VMOVMSKPD Y9, R10
	// base = Σ i·stride.
	VPMULLD 144(DX), X5, X5
	VPHADDD X5, X5, X5
	VPHADDD X5, X5, X5
	VMOVD X5, R11
	MOVLQSX R11, R11
	XORQ R12, R12
	TESTL R10, R10
	SETNE R12
	SHLQ $1, R12
	MOVQ R11, base+64(FP)
	MOVQ R12, flags+72(FP)
	VZEROUPPER
	RET
clamped:
	MOVQ $0, base+64(FP)
	MOVQ $1, flags+72(FP)
	VZEROUPPER
	RET

// LEVEL4 adds to SI the byte offset of the lattice cell of axis J's
// level (the index at 8·J(BX)) from the level records at CX (level4 at
// DX), its record's address in R; out of range or outside its cell
// (offset -1) it goes to fail. Clobbers AX.
#define LEVEL4(J, R) \
	MOVQ (8*J)(BX), AX \
	CMPQ AX, (level4_n+8*J)(DX) \
	JCC fail \
	ADDQ (level4_start+8*J)(DX), AX \
	SHLQ $4, AX \
	LEAQ (CX)(AX*1), R \
	MOVQ level4Cell_off(R), AX \
	TESTQ AX, AX \
	JMI fail \
	ADDQ AX, SI

// func invertLevels4AVX32(p *float32, n int, k *level4, b *[4]int, dst *[4]float64) (ok bool)
TEXT ·invertLevels4AVX32(SB), NOSPLIT, $0-41
	MOVQ k+16(FP), DX
	MOVQ b+24(FP), BX
	MOVQ level4_flat(DX), CX
	XORQ SI, SI
	LEVEL4(0, R12)
	LEVEL4(1, R13)
	LEVEL4(2, R14)
	LEVEL4(3, R15)
	// The corners lie in the n positions: SI + span <= 4n bytes.
	MOVQ n+8(FP), AX
	SHLQ $2, AX
	SUBQ level4_span(DX), AX
	JLT fail
	CMPQ SI, AX
	JHI fail
	ADDQ p+0(FP), SI
	MOVQ (level4_st+0)(DX), R8
	MOVQ (level4_st+8)(DX), R9
	MOVQ (level4_st+16)(DX), R10
	MOVQ (level4_st+24)(DX), R11
	CMPB ·hasAVX512(SB), $0
	JNE levelszmm
	VBROADCASTSD level4Cell_frac(R12), Y12
	VBROADCASTSD level4Cell_frac(R13), Y13
	VBROADCASTSD level4Cell_frac(R14), Y14
	VBROADCASTSD level4Cell_frac(R15), Y15
	VALUE4(VCVTPS2PD)
denorm:
	// denorm: each product rounded, then the mean added.
	VBROADCASTSD level4_scale(DX), Y1
	VMULPD Y1, Y0, Y0
	VADDPD level4_mean(DX), Y0, Y0
	MOVQ dst+32(FP), AX
	VMOVUPD Y0, (AX)
	VZEROUPPER
	MOVB $1, ok+40(FP)
	RET
levelszmm:
	VBROADCASTSD level4Cell_frac(R12), Z12
	VBROADCASTSD level4Cell_frac(R13), Z13
	VBROADCASTSD level4Cell_frac(R14), Z14
	VBROADCASTSD level4Cell_frac(R15), Y15
	VALUE4Z
	JMP denorm
fail:
	MOVB $0, ok+40(FP)
	RET
