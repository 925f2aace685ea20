#include "textflag.h"

// CHANGE sets dst to the change of the squared error of 8 edges' pixel
// (before in Y3, after in Y4, as int32s) against the original at
// o(BX*8): (after - o)² - (before - o)², each step rounded.
#define CHANGE(o, dst) \
	VCVTDQ2PD Y3, Z3 \
	VCVTDQ2PD Y4, Z4 \
	VMOVUPD (o)(BX*8), Z5 \
	VSUBPD Z5, Z4, Z4 \
	VSUBPD Z5, Z3, Z3 \
	VMULPD Z4, Z4, Z4 \
	VMULPD Z3, Z3, Z3 \
	VSUBPD Z3, Z4, dst

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
	CHANGE(R8, Z6)
	VPSRLD $8, Y1, Y3
	VPANDD Y15, Y3, Y3
	VPSRLD $8, Y2, Y4
	VPANDD Y15, Y4, Y4
	CHANGE(R9, Z7)
	VADDPD Z7, Z6, Z6 // the changes added in order p1, p0, q0, q1
	VPSRLD $16, Y1, Y3
	VPANDD Y15, Y3, Y3
	VPSRLD $16, Y2, Y4
	VPANDD Y15, Y4, Y4
	CHANGE(R10, Z7)
	VADDPD Z7, Z6, Z6
	VPSRLD $24, Y1, Y3
	VPSRLD $24, Y2, Y4
	CHANGE(R11, Z7)
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
