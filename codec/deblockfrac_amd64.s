#include "textflag.h"

// CHANGE sets dst to the change of the squared error of a pixel of 8
// edges (AVX-512: before in Y3, after in Y4 as int32s, vb, va, vo Z
// registers) or 4 (AVX2: X and Y) against the original at o(BX*8):
// (after - o)² - (before - o)², each step rounded.
#define CHANGE(xb, xa, vb, va, vo, o, dst) \
	VCVTDQ2PD xb, vb \
	VCVTDQ2PD xa, va \
	VMOVUPD (o)(BX*8), vo \
	VSUBPD vo, va, va \
	VSUBPD vo, vb, vb \
	VMULPD va, va, va \
	VMULPD vb, vb, vb \
	VSUBPD vb, va, dst

// LANE adds the change at t(SP) to the sums (Z0) of the strengths in
// the mask byte at m(AX).
#define LANE(m, t) \
	KMOVB m(AX), K1 \
	VBROADCASTSD t(SP), Z8 \
	VADDPD Z8, Z0, K1, Z0

// func fracTermsAVX512(sum *[maxDeblock]float64, old, new []uint32, o1, o0, oq0, oq1 []float64, mask []uint8)
TEXT ·fracTermsAVX512(SB), NOSPLIT, $64-176
	MOVQ sum+0(FP), DI
	MOVQ old_base+8(FP), SI
	MOVQ old_len+16(FP), CX
	MOVQ new_base+32(FP), DX
	MOVQ o1_base+56(FP), R8
	MOVQ o0_base+80(FP), R9
	MOVQ oq0_base+104(FP), R10
	MOVQ oq1_base+128(FP), R11
	MOVQ mask_base+152(FP), R12
	VMOVUPD (DI), Z0 // the sums, strength k in lane k-1
	MOVL $0xff, AX
	VPBROADCASTD AX, Y15
	XORQ BX, BX
loop:
	CMPQ BX, CX
	JAE done
	VMOVDQU (SI)(BX*4), Y1 // 8 edges' pixels before, p1 in byte 0 .. q1 in byte 3
	VMOVDQU (DX)(BX*4), Y2 // and after
	VPANDD Y15, Y1, Y3
	VPANDD Y15, Y2, Y4
	CHANGE(Y3, Y4, Z3, Z4, Z5, R8, Z6)
	VPSRLD $8, Y1, Y3
	VPANDD Y15, Y3, Y3
	VPSRLD $8, Y2, Y4
	VPANDD Y15, Y4, Y4
	CHANGE(Y3, Y4, Z3, Z4, Z5, R9, Z7)
	VADDPD Z7, Z6, Z6 // the changes added in order p1, p0, q0, q1
	VPSRLD $16, Y1, Y3
	VPANDD Y15, Y3, Y3
	VPSRLD $16, Y2, Y4
	VPANDD Y15, Y4, Y4
	CHANGE(Y3, Y4, Z3, Z4, Z5, R10, Z7)
	VADDPD Z7, Z6, Z6
	VPSRLD $24, Y1, Y3
	VPSRLD $24, Y2, Y4
	CHANGE(Y3, Y4, Z3, Z4, Z5, R11, Z7)
	VADDPD Z7, Z6, Z6
	VMOVUPD Z6, t-64(SP)
	LEAQ (R12)(BX*1), AX
	// Edge after edge, each masked add to its strengths' sums.
	LANE(0, t-64)
	LANE(1, t-56)
	LANE(2, t-48)
	LANE(3, t-40)
	LANE(4, t-32)
	LANE(5, t-24)
	LANE(6, t-16)
	LANE(7, t-8)
	ADDQ $8, BX
	JMP loop
done:
	VMOVUPD Z0, (DI)
	VZEROUPPER
	RET

// fracBits holds the bits of strengths 1..8 in qword lanes, for
// fracTermsAVX2's masks.
DATA fracBits<>+0(SB)/8, $1
DATA fracBits<>+8(SB)/8, $2
DATA fracBits<>+16(SB)/8, $4
DATA fracBits<>+24(SB)/8, $8
DATA fracBits<>+32(SB)/8, $16
DATA fracBits<>+40(SB)/8, $32
DATA fracBits<>+48(SB)/8, $64
DATA fracBits<>+56(SB)/8, $128
GLOBL fracBits<>(SB), RODATA|NOPTR, $64

// LANE4 adds the change at t(SP) to the sums of strengths 1-4 (Y0)
// and 5-8 (Y1) in the mask byte at m(AX), +0 to the others.
#define LANE4(m, t) \
	MOVBQZX m(AX), DI \
	VMOVQ DI, X9 \
	VPBROADCASTQ X9, Y9 \
	VPAND Y13, Y9, Y10 \
	VPCMPEQQ Y13, Y10, Y10 \
	VPAND Y14, Y9, Y11 \
	VPCMPEQQ Y14, Y11, Y11 \
	VBROADCASTSD t(SP), Y8 \
	VANDPD Y8, Y10, Y10 \
	VADDPD Y10, Y0, Y0 \
	VANDPD Y8, Y11, Y11 \
	VADDPD Y11, Y1, Y1

// func fracTermsAVX2(sum *[maxDeblock]float64, old, new []uint32, o1, o0, oq0, oq1 []float64, mask []uint8)
TEXT ·fracTermsAVX2(SB), NOSPLIT, $32-176
	MOVQ old_base+8(FP), SI
	MOVQ old_len+16(FP), CX
	MOVQ new_base+32(FP), DX
	MOVQ o1_base+56(FP), R8
	MOVQ o0_base+80(FP), R9
	MOVQ oq0_base+104(FP), R10
	MOVQ oq1_base+128(FP), R11
	MOVQ mask_base+152(FP), R12
	MOVQ sum+0(FP), DI
	VMOVUPD (DI), Y0 // strengths 1-4
	VMOVUPD 32(DI), Y1 // strengths 5-8
	VMOVDQU fracBits<>+0(SB), Y13
	VMOVDQU fracBits<>+32(SB), Y14
	MOVL $0xff, AX
	VMOVD AX, X15
	VPBROADCASTD X15, X15
	XORQ BX, BX
loop4:
	CMPQ BX, CX
	JAE done4
	VMOVDQU (SI)(BX*4), X12 // 4 edges' pixels before
	VMOVDQU (DX)(BX*4), X2 // and after
	VPAND X15, X12, X3
	VPAND X15, X2, X4
	CHANGE(X3, X4, Y3, Y4, Y5, R8, Y6)
	VPSRLD $8, X12, X3
	VPAND X15, X3, X3
	VPSRLD $8, X2, X4
	VPAND X15, X4, X4
	CHANGE(X3, X4, Y3, Y4, Y5, R9, Y7)
	VADDPD Y7, Y6, Y6
	VPSRLD $16, X12, X3
	VPAND X15, X3, X3
	VPSRLD $16, X2, X4
	VPAND X15, X4, X4
	CHANGE(X3, X4, Y3, Y4, Y5, R10, Y7)
	VADDPD Y7, Y6, Y6
	VPSRLD $24, X12, X3
	VPSRLD $24, X2, X4
	CHANGE(X3, X4, Y3, Y4, Y5, R11, Y7)
	VADDPD Y7, Y6, Y6
	VMOVUPD Y6, t-32(SP)
	LEAQ (R12)(BX*1), AX
	LANE4(0, t-32)
	LANE4(1, t-24)
	LANE4(2, t-16)
	LANE4(3, t-8)
	ADDQ $4, BX
	JMP loop4
done4:
	MOVQ sum+0(FP), DI
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VZEROUPPER
	RET
