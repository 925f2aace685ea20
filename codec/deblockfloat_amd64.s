#include "textflag.h"

// FLOAT_CONSTS sets Y15 to all but the sign bit and Y14, Y13, Y12 to 4,
// 1/8 and 1/2 (4 copies each), for FLOAT_EDGE.
#define FLOAT_CONSTS \
	VPCMPEQQ Y15, Y15, Y15; \
	VPSRLQ $1, Y15, Y15; \
	MOVQ $0x4010000000000000, DX; \
	MOVQ DX, X14; \
	VBROADCASTSD X14, Y14; \
	MOVQ $0x3fc0000000000000, DX; \
	MOVQ DX, X13; \
	VBROADCASTSD X13, Y13; \
	MOVQ $0x3fe0000000000000, DX; \
	MOVQ DX, X12; \
	VBROADCASTSD X12, Y12

// FLOAT_EDGE is floatEdge in 4 lanes: p1, p0, q0, q1 in Y0-Y3, filtered
// in place where the tests pass, with k (alpha, beta, tc, −tc) at AX and
// FLOAT_CONSTS's registers; Y4-Y7 are scratch. The tests |q0 − p0| <
// alpha, |p1 − p0| < beta, |q1 − q0| < beta by VCMPPD LT_OQ (false for
// NaN, as Go's <), the absolute values by clearing the sign bit
// (math.Abs); d = (4·(q0 − p0) + p1 − q1)/8 in that order (times 4 and
// 1/8 exact); min(tc, d) and max(−tc, ·) by VMINPD/VMAXPD with d second,
// which they return for NaN as Go's min and max do; the moved samples
// p1 + d/2, p0 + d, q0 − d, q1 − d/2 blended in where the tests pass.
#define FLOAT_EDGE \
	VSUBPD Y1, Y2, Y4; \
	VANDPD Y15, Y4, Y5; \
	VCMPPD $0x11, 0(AX), Y5, Y5; \
	VSUBPD Y1, Y0, Y6; \
	VANDPD Y15, Y6, Y6; \
	VCMPPD $0x11, 32(AX), Y6, Y6; \
	VANDPD Y6, Y5, Y5; \
	VSUBPD Y2, Y3, Y6; \
	VANDPD Y15, Y6, Y6; \
	VCMPPD $0x11, 32(AX), Y6, Y6; \
	VANDPD Y6, Y5, Y5; \
	VMULPD Y14, Y4, Y4; \
	VADDPD Y0, Y4, Y4; \
	VSUBPD Y3, Y4, Y4; \
	VMULPD Y13, Y4, Y4; \
	VMOVUPD 64(AX), Y6; \
	VMINPD Y4, Y6, Y4; \
	VMOVUPD 96(AX), Y6; \
	VMAXPD Y4, Y6, Y4; \
	VMULPD Y12, Y4, Y6; \
	VADDPD Y6, Y0, Y7; \
	VBLENDVPD Y5, Y7, Y0, Y0; \
	VADDPD Y4, Y1, Y7; \
	VBLENDVPD Y5, Y7, Y1, Y1; \
	VSUBPD Y4, Y2, Y7; \
	VBLENDVPD Y5, Y7, Y2, Y2; \
	VSUBPD Y6, Y3, Y7; \
	VBLENDVPD Y5, Y7, Y3, Y3

// func floatRowsAVX(r1, r0, s0, s1 []float64, k *[4][4]float64)
// floatEdge down each of the len(r1)/4 groups of 4 columns of the rows p1
// (r1), p0 (r0), q0 (s0), q1 (s1); k holds alpha, beta, tc and −tc, 4
// copies each, with tc > 0 (FLOAT_EDGE: no zero ties in its min and max
// with tc > 0; and where the tests pass the samples are finite, so d is).
TEXT ·floatRowsAVX(SB), NOSPLIT, $0-104
	MOVQ r1_base+0(FP), DI
	MOVQ r1_len+8(FP), CX
	MOVQ r0_base+24(FP), SI
	MOVQ s0_base+48(FP), R8
	MOVQ s1_base+72(FP), R9
	MOVQ k+96(FP), AX
	SHRQ $2, CX
	JZ   done
	FLOAT_CONSTS
loop:
	VMOVUPD (DI), Y0         // p1
	VMOVUPD (SI), Y1         // p0
	VMOVUPD (R8), Y2         // q0
	VMOVUPD (R9), Y3         // q1
	FLOAT_EDGE
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

// func floatColsAVX(pix []float64, stride, w, n, groups int, k *[4][4]float64)
// floatEdge at each vertical edge x = n, 2n, … (x+1 < w) of groups·4 rows
// of pix, stride samples apart, 4 rows at a time, left to right: the 4
// samples x−2 … x+1 of the 4 rows are transposed (p1, p0, q0, q1 each of
// the 4 rows), filtered as floatRowsAVX filters (FLOAT_EDGE), transposed back
// and stored before the next edge's are loaded. k as floatRowsAVX's.
TEXT ·floatColsAVX(SB), NOSPLIT, $0-64
	MOVQ pix_base+0(FP), DI
	MOVQ stride+24(FP), R10
	SHLQ $3, R10             // bytes a row
	MOVQ w+32(FP), R11
	MOVQ n+40(FP), R12
	MOVQ groups+48(FP), CX
	MOVQ k+56(FP), AX
	TESTQ CX, CX
	JZ   cdone
	FLOAT_CONSTS
	LEAQ (R10)(R10*2), R13   // 3 rows
cgroup:
	MOVQ R12, BX             // x = n
cedge:
	LEAQ 1(BX), DX
	CMPQ DX, R11
	JGE  cnext               // x+1 ≥ w: the group is done
	LEAQ -16(DI)(BX*8), SI   // &row0[x−2]
	VMOVUPD (SI), Y8             // row 0: p1 p0 q0 q1
	VMOVUPD (SI)(R10*1), Y9      // row 1
	VMOVUPD (SI)(R10*2), Y10     // row 2
	VMOVUPD (SI)(R13*1), Y11     // row 3
	VUNPCKLPD Y9, Y8, Y4     // r0[0] r1[0] r0[2] r1[2]
	VUNPCKHPD Y9, Y8, Y5     // r0[1] r1[1] r0[3] r1[3]
	VUNPCKLPD Y11, Y10, Y6
	VUNPCKHPD Y11, Y10, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0   // p1 of the 4 rows
	VPERM2F128 $0x20, Y7, Y5, Y1   // p0
	VPERM2F128 $0x31, Y6, Y4, Y2   // q0
	VPERM2F128 $0x31, Y7, Y5, Y3   // q1
	FLOAT_EDGE
	VUNPCKLPD Y1, Y0, Y4     // back to rows: the same transposition
	VUNPCKHPD Y1, Y0, Y5
	VUNPCKLPD Y3, Y2, Y6
	VUNPCKHPD Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y8
	VPERM2F128 $0x20, Y7, Y5, Y9
	VPERM2F128 $0x31, Y6, Y4, Y10
	VPERM2F128 $0x31, Y7, Y5, Y11
	VMOVUPD Y8, (SI)
	VMOVUPD Y9, (SI)(R10*1)
	VMOVUPD Y10, (SI)(R10*2)
	VMOVUPD Y11, (SI)(R13*1)
	ADDQ R12, BX
	JMP  cedge
cnext:
	LEAQ (DI)(R10*4), DI     // the next 4 rows
	DECQ CX
	JNZ  cgroup
	VZEROUPPER
cdone:
	RET
