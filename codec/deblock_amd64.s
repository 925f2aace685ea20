#include "textflag.h"

// func deblockRowsAVX(r1, r0, s0, s1 []uint8, a, b, clip int) int
// deblockGray's pass over a horizontal edge, 8 columns at a time in
// 16-bit lanes: rows r1 r0 above the edge, s0 s1 below (len(r1) a
// multiple of 8, the others as long). An edge passes where |q0 − p0| < a,
// |p1 − p0| < b and |q1 − q0| < b; d8 = 4(q0 − p0) + p1 − q1 there, 0
// elsewhere; p1 += d8/16, p0 += d8/8, q0 −= d8/8, q1 −= d8/16, rounded
// by an arithmetic shift of the sums with a half added and clamped to
// 0..255 by the unsigned saturating pack, as the Go loop does. It stops
// before the first group of 8 holding an edge with |d8| > clip (the Go
// code's clipped branch) and returns the number of columns it filtered.
// a, b and clip must fit 16 bits.
TEXT ·deblockRowsAVX(SB), NOSPLIT, $0-128
	MOVQ r1_base+0(FP), R8
	MOVQ r1_len+8(FP), CX
	MOVQ r0_base+24(FP), R9
	MOVQ s0_base+48(FP), R10
	MOVQ s1_base+72(FP), R11
	MOVQ a+96(FP), AX
	MOVQ AX, X12
	VPSHUFLW $0, X12, X12
	VPSHUFD $0, X12, X12
	MOVQ b+104(FP), AX
	MOVQ AX, X13
	VPSHUFLW $0, X13, X13
	VPSHUFD $0, X13, X13
	MOVQ clip+112(FP), AX
	MOVQ AX, X14
	VPSHUFLW $0, X14, X14
	VPSHUFD $0, X14, X14
	MOVQ $4, AX
	MOVQ AX, X11
	VPSHUFLW $0, X11, X11
	VPSHUFD $0, X11, X11
	VPADDW X11, X11, X15        // 8
	XORQ BX, BX
group:
	CMPQ BX, CX
	JGE  done
	VPMOVZXBW (R8)(BX*1), X0    // p1
	VPMOVZXBW (R9)(BX*1), X1    // p0
	VPMOVZXBW (R10)(BX*1), X2   // q0
	VPMOVZXBW (R11)(BX*1), X3   // q1
	VPSUBW X1, X2, X4           // q0 − p0
	VPABSW X4, X5
	VPCMPGTW X5, X12, X5        // a > |q0 − p0|
	VPSUBW X1, X0, X6
	VPABSW X6, X6
	VPCMPGTW X6, X13, X6        // b > |p1 − p0|
	VPAND X6, X5, X5
	VPSUBW X2, X3, X6
	VPABSW X6, X6
	VPCMPGTW X6, X13, X6        // b > |q1 − q0|
	VPAND X6, X5, X5            // the edges that pass
	VPSLLW $2, X4, X4
	VPADDW X0, X4, X4
	VPSUBW X3, X4, X4
	VPAND X5, X4, X4            // d8
	VPABSW X4, X6
	VPCMPGTW X14, X6, X6        // |d8| > clip
	VPTEST X6, X6
	JNZ  done
	VPSLLW $4, X0, X7
	VPADDW X4, X7, X7
	VPADDW X15, X7, X7
	VPSRAW $4, X7, X7           // (16·p1 + d8 + 8) >> 4
	VPSLLW $3, X1, X8
	VPADDW X4, X8, X8
	VPADDW X11, X8, X8
	VPSRAW $3, X8, X8           // (8·p0 + d8 + 4) >> 3
	VPSLLW $3, X2, X9
	VPSUBW X4, X9, X9
	VPADDW X11, X9, X9
	VPSRAW $3, X9, X9           // (8·q0 − d8 + 4) >> 3
	VPSLLW $4, X3, X10
	VPSUBW X4, X10, X10
	VPADDW X15, X10, X10
	VPSRAW $4, X10, X10         // (16·q1 − d8 + 8) >> 4
	VPACKUSWB X7, X7, X7
	VPACKUSWB X8, X8, X8
	VPACKUSWB X9, X9, X9
	VPACKUSWB X10, X10, X10
	VMOVQ X7, (R8)(BX*1)
	VMOVQ X8, (R9)(BX*1)
	VMOVQ X9, (R10)(BX*1)
	VMOVQ X10, (R11)(BX*1)
	ADDQ $8, BX
	JMP  group
done:
	MOVQ BX, ret+120(FP)
	RET
