#include "textflag.h"

// func floatRowsAVX(r1, r0, s0, s1 []float64, k *[4][4]float64)
// floatEdge down each of the len(r1)/4 groups of 4 columns of the rows p1
// (r1), p0 (r0), q0 (s0), q1 (s1); k holds alpha, beta, tc and −tc, 4
// copies each, with tc > 0. The tests |q0 − p0| < alpha, |p1 − p0| < beta,
// |q1 − q0| < beta by VCMPPD LT_OQ (false for NaN, as Go's <), the
// absolute values by clearing the sign bit (math.Abs); d = (4·(q0 − p0) +
// p1 − q1)/8 in that order (times 4 and 1/8 exact); min(tc, d) and
// max(−tc, ·) by VMINPD/VMAXPD with d second, which they return for NaN
// as Go's min and max do (no zero ties with tc > 0; and where the tests
// pass the samples are finite, so d is); the moved samples blended in
// where the tests pass.
TEXT ·floatRowsAVX(SB), NOSPLIT, $0-104
	MOVQ r1_base+0(FP), DI
	MOVQ r1_len+8(FP), CX
	MOVQ r0_base+24(FP), SI
	MOVQ s0_base+48(FP), R8
	MOVQ s1_base+72(FP), R9
	MOVQ k+96(FP), AX
	SHRQ $2, CX
	JZ   done
	VPCMPEQQ Y15, Y15, Y15
	VPSRLQ $1, Y15, Y15      // all but the sign bit
	MOVQ $0x4010000000000000, DX
	MOVQ DX, X14
	VBROADCASTSD X14, Y14    // 4
	MOVQ $0x3fc0000000000000, DX
	MOVQ DX, X13
	VBROADCASTSD X13, Y13    // 1/8
	MOVQ $0x3fe0000000000000, DX
	MOVQ DX, X12
	VBROADCASTSD X12, Y12    // 1/2
loop:
	VMOVUPD (DI), Y0         // p1
	VMOVUPD (SI), Y1         // p0
	VMOVUPD (R8), Y2         // q0
	VMOVUPD (R9), Y3         // q1
	VSUBPD Y1, Y2, Y4        // q0 − p0
	VANDPD Y15, Y4, Y5
	VCMPPD $0x11, 0(AX), Y5, Y5   // |q0 − p0| < alpha
	VSUBPD Y1, Y0, Y6
	VANDPD Y15, Y6, Y6
	VCMPPD $0x11, 32(AX), Y6, Y6  // |p1 − p0| < beta
	VANDPD Y6, Y5, Y5
	VSUBPD Y2, Y3, Y6
	VANDPD Y15, Y6, Y6
	VCMPPD $0x11, 32(AX), Y6, Y6  // |q1 − q0| < beta
	VANDPD Y6, Y5, Y5        // the tests pass
	VMULPD Y14, Y4, Y4
	VADDPD Y0, Y4, Y4
	VSUBPD Y3, Y4, Y4
	VMULPD Y13, Y4, Y4       // d
	VMOVUPD 64(AX), Y6
	VMINPD Y4, Y6, Y4        // min(tc, d): d if NaN
	VMOVUPD 96(AX), Y6
	VMAXPD Y4, Y6, Y4        // max(−tc, ·): · if NaN
	VMULPD Y12, Y4, Y6       // d/2
	VADDPD Y6, Y0, Y7
	VBLENDVPD Y5, Y7, Y0, Y0
	VADDPD Y4, Y1, Y7
	VBLENDVPD Y5, Y7, Y1, Y1
	VSUBPD Y4, Y2, Y7
	VBLENDVPD Y5, Y7, Y2, Y2
	VSUBPD Y6, Y3, Y7
	VBLENDVPD Y5, Y7, Y3, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, (SI)
	VMOVUPD Y2, (R8)
	VMOVUPD Y3, (R9)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ  loop
	VZEROUPPER
done:
	RET
