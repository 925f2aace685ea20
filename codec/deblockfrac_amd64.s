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

// UNPACK sets p1, p0, q0 and q1 to the bytes 0..3 of each dword of src
// (c255: 255 in each) and d to d8 = 4(q0 - p0) + p1 - q1.
#define UNPACK(src, c255, p1, p0, q0, q1, d) \
	VPAND c255, src, p1 \
	VPSRLD $8, src, p0 \
	VPAND c255, p0, p0 \
	VPSRLD $16, src, q0 \
	VPAND c255, q0, q0 \
	VPSRLD $24, src, q1 \
	VPSUBD p0, q0, d \
	VPSLLD $2, d, d \
	VPADDD p1, d, d \
	VPSUBD q1, d, d

// NEWPIX sets dst (Y4 in AVX-512, X4 in AVX2) to the pixel v filtered:
// (16·v + add + 8) >> 4 clamped to 0..255 (add: d8, added or taken
// once or twice by op1 d1 and op2 d2 into dst, op2 VPOR zero for once;
// edgePixels's eighths as sixteenths, the same numbers), with 8 in c8,
// 0 in zero and 255 in c255.
#define NEWPIX(v, op1, d1, op2, d2, c8, zero, c255, dst) \
	VPSLLD $4, v, dst \
	op1 d1, dst, dst \
	op2 d2, dst, dst \
	VPADDD c8, dst, dst \
	VPSRAD $4, dst, dst \
	VPMAXSD zero, dst, dst \
	VPMINSD c255, dst, dst

// func fracTermsAVX512(sum *[maxDeblock]float64, old []uint32, o1, o0, oq0, oq1 []float64, mask []uint8)
TEXT ·fracTermsAVX512(SB), NOSPLIT, $64-152
	MOVQ sum+0(FP), DI
	MOVQ old_base+8(FP), SI
	MOVQ old_len+16(FP), CX
	MOVQ o1_base+32(FP), R8
	MOVQ o0_base+56(FP), R9
	MOVQ oq0_base+80(FP), R10
	MOVQ oq1_base+104(FP), R11
	MOVQ mask_base+128(FP), R12
	VMOVUPD (DI), Z0 // the sums, strength k in lane k-1
	MOVL $0xff, AX
	VPBROADCASTD AX, Y15
	MOVL $8, AX
	VPBROADCASTD AX, Y2
	VPXORD Y14, Y14, Y14
	XORQ BX, BX
loop:
	CMPQ BX, CX
	JAE done
	VMOVDQU (SI)(BX*4), Y1 // 8 edges' pixels, p1 in byte 0 .. q1 in byte 3
	UNPACK(Y1, Y15, Y9, Y10, Y11, Y12, Y13)
	NEWPIX(Y9, VPADDD, Y13, VPOR, Y14, Y2, Y14, Y15, Y4)
	CHANGE(Y9, Y4, Z3, Z4, Z5, R8, Z6)
	NEWPIX(Y10, VPADDD, Y13, VPADDD, Y13, Y2, Y14, Y15, Y4)
	CHANGE(Y10, Y4, Z3, Z4, Z5, R9, Z7)
	VADDPD Z7, Z6, Z6 // the changes added in order p1, p0, q0, q1
	NEWPIX(Y11, VPSUBD, Y13, VPSUBD, Y13, Y2, Y14, Y15, Y4)
	CHANGE(Y11, Y4, Z3, Z4, Z5, R10, Z7)
	VADDPD Z7, Z6, Z6
	NEWPIX(Y12, VPSUBD, Y13, VPOR, Y14, Y2, Y14, Y15, Y4)
	CHANGE(Y12, Y4, Z3, Z4, Z5, R11, Z7)
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

// fracC8 is 8 in 4 dword lanes (fracTermsAVX2's rounding).
DATA fracC8<>+0(SB)/4, $8
DATA fracC8<>+4(SB)/4, $8
DATA fracC8<>+8(SB)/4, $8
DATA fracC8<>+12(SB)/4, $8
GLOBL fracC8<>(SB), RODATA|NOPTR, $16

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

// func fracTermsAVX2(sum *[maxDeblock]float64, old []uint32, o1, o0, oq0, oq1 []float64, mask []uint8)
TEXT ·fracTermsAVX2(SB), NOSPLIT, $32-152
	MOVQ old_base+8(FP), SI
	MOVQ old_len+16(FP), CX
	MOVQ o1_base+32(FP), R8
	MOVQ o0_base+56(FP), R9
	MOVQ oq0_base+80(FP), R10
	MOVQ oq1_base+104(FP), R11
	MOVQ mask_base+128(FP), R12
	MOVQ sum+0(FP), DI
	VMOVUPD (DI), Y0 // strengths 1-4
	VMOVUPD 32(DI), Y1 // strengths 5-8
	MOVL $0xff, AX
	VMOVD AX, X15
	VPBROADCASTD X15, X15
	XORQ BX, BX
loop4:
	CMPQ BX, CX
	JAE done4
	VMOVDQU (SI)(BX*4), X12 // 4 edges' pixels
	UNPACK(X12, X15, X8, X9, X10, X11, X2)
	VPXOR X13, X13, X13 // 0
	VMOVDQU fracC8<>(SB), X14 // 8
	NEWPIX(X8, VPADDD, X2, VPOR, X13, X14, X13, X15, X4)
	CHANGE(X8, X4, Y3, Y4, Y5, R8, Y6)
	NEWPIX(X9, VPADDD, X2, VPADDD, X2, X14, X13, X15, X4)
	CHANGE(X9, X4, Y3, Y4, Y5, R9, Y7)
	VADDPD Y7, Y6, Y6
	NEWPIX(X10, VPSUBD, X2, VPSUBD, X2, X14, X13, X15, X4)
	CHANGE(X10, X4, Y3, Y4, Y5, R10, Y7)
	VADDPD Y7, Y6, Y6
	NEWPIX(X11, VPSUBD, X2, VPOR, X13, X14, X13, X15, X4)
	CHANGE(X11, X4, Y3, Y4, Y5, R11, Y7)
	VADDPD Y7, Y6, Y6
	VMOVUPD Y6, t-32(SP)
	VMOVDQU fracBits<>+0(SB), Y13
	VMOVDQU fracBits<>+32(SB), Y14
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
