#include "textflag.h"

// KMIN_EDGES is edgeSums.kmin in 4 lanes: p1, p0, q0, q1 in Y0-Y3, the
// thresholds at AX (kminTable: alpha of strengths 1-8, then beta, 4
// copies each), Y15 all but the sign bit, Y14 four 1s; the strengths in
// Y4 (64-bit lanes). With thresholds that grow with the strength, a
// value's first strength whose threshold exceeds it is 1 plus the count
// of thresholds it does not stay below (VCMPPD NLT_US: true for NaN, as
// Go's !(v < t)), and the last of the three tests' first strengths is 1
// plus the count of strengths where one of them fails: those strengths
// are the first ones for each test. Y5-Y9 are scratch.
#define KMIN_EDGES \
	VSUBPD Y1, Y2, Y5; \
	VANDPD Y15, Y5, Y5; \
	VSUBPD Y1, Y0, Y6; \
	VANDPD Y15, Y6, Y6; \
	VSUBPD Y2, Y3, Y7; \
	VANDPD Y15, Y7, Y7; \
	VMOVDQU Y14, Y4; \
	VCMPPD $5, 0(AX), Y5, Y8; \
	VCMPPD $5, 256(AX), Y6, Y9; \
	VORPD  Y9, Y8, Y8; \
	VCMPPD $5, 256(AX), Y7, Y9; \
	VORPD  Y9, Y8, Y8; \
	VPSUBQ Y8, Y4, Y4 \
	VCMPPD $5, 32(AX), Y5, Y8; \
	VCMPPD $5, 288(AX), Y6, Y9; \
	VORPD  Y9, Y8, Y8; \
	VCMPPD $5, 288(AX), Y7, Y9; \
	VORPD  Y9, Y8, Y8; \
	VPSUBQ Y8, Y4, Y4 \
	VCMPPD $5, 64(AX), Y5, Y8; \
	VCMPPD $5, 320(AX), Y6, Y9; \
	VORPD  Y9, Y8, Y8; \
	VCMPPD $5, 320(AX), Y7, Y9; \
	VORPD  Y9, Y8, Y8; \
	VPSUBQ Y8, Y4, Y4 \
	VCMPPD $5, 96(AX), Y5, Y8; \
	VCMPPD $5, 352(AX), Y6, Y9; \
	VORPD  Y9, Y8, Y8; \
	VCMPPD $5, 352(AX), Y7, Y9; \
	VORPD  Y9, Y8, Y8; \
	VPSUBQ Y8, Y4, Y4 \
	VCMPPD $5, 128(AX), Y5, Y8; \
	VCMPPD $5, 384(AX), Y6, Y9; \
	VORPD  Y9, Y8, Y8; \
	VCMPPD $5, 384(AX), Y7, Y9; \
	VORPD  Y9, Y8, Y8; \
	VPSUBQ Y8, Y4, Y4 \
	VCMPPD $5, 160(AX), Y5, Y8; \
	VCMPPD $5, 416(AX), Y6, Y9; \
	VORPD  Y9, Y8, Y8; \
	VCMPPD $5, 416(AX), Y7, Y9; \
	VORPD  Y9, Y8, Y8; \
	VPSUBQ Y8, Y4, Y4 \
	VCMPPD $5, 192(AX), Y5, Y8; \
	VCMPPD $5, 448(AX), Y6, Y9; \
	VORPD  Y9, Y8, Y8; \
	VCMPPD $5, 448(AX), Y7, Y9; \
	VORPD  Y9, Y8, Y8; \
	VPSUBQ Y8, Y4, Y4 \
	VCMPPD $5, 224(AX), Y5, Y8; \
	VCMPPD $5, 480(AX), Y6, Y9; \
	VORPD  Y9, Y8, Y8; \
	VCMPPD $5, 480(AX), Y7, Y9; \
	VORPD  Y9, Y8, Y8; \
	VPSUBQ Y8, Y4, Y4

// KMIN_STORE stores the 4 strengths of Y4 as bytes at DI (X5 scratch).
#define KMIN_STORE \
	VEXTRACTI128 $1, Y4, X5; \
	VSHUFPS $0x88, X5, X4, X4; \
	VPACKUSDW X4, X4, X4; \
	VPACKUSWB X4, X4, X4; \
	MOVL X4, (DI)

#define KMIN_CONSTS \
	VPCMPEQQ Y15, Y15, Y15; \
	VPSRLQ $1, Y15, Y15; \
	VPCMPEQQ Y14, Y14, Y14; \
	VPSRLQ $63, Y14, Y14

// func kminRowAVX2(row []float64, n, m int, t *kminTable, ks []uint8)
// The first strengths of the m vertical edges (m a multiple of 4, at
// least 4) at x = n, 2n, ... of row, whose samples are row[x-2:x+2]: one
// load per edge, four edges transposed into p1, p0, q0, q1.
TEXT ·kminRowAVX2(SB), NOSPLIT, $0-72
	MOVQ row_base+0(FP), SI
	MOVQ n+24(FP), BX
	MOVQ m+32(FP), CX
	MOVQ t+40(FP), AX
	MOVQ ks_base+48(FP), DI
	SHLQ $3, BX
	LEAQ -16(SI)(BX*1), SI
	KMIN_CONSTS

kminRowLoop:
	VMOVUPD    (SI), Y8
	ADDQ       BX, SI
	VMOVUPD    (SI), Y9
	ADDQ       BX, SI
	VMOVUPD    (SI), Y10
	ADDQ       BX, SI
	VMOVUPD    (SI), Y11
	ADDQ       BX, SI
	VUNPCKLPD  Y9, Y8, Y4
	VUNPCKHPD  Y9, Y8, Y5
	VUNPCKLPD  Y11, Y10, Y6
	VUNPCKHPD  Y11, Y10, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0
	VPERM2F128 $0x31, Y6, Y4, Y2
	VPERM2F128 $0x20, Y7, Y5, Y1
	VPERM2F128 $0x31, Y7, Y5, Y3
	KMIN_EDGES
	KMIN_STORE
	ADDQ       $4, DI
	SUBQ       $4, CX
	JNZ        kminRowLoop
	VZEROUPPER
	RET

// func kminColsAVX2(r1, r0, s0, s1 []float64, t *kminTable, ks []uint8)
// The first strengths of the horizontal edges of len(r1) columns (a
// multiple of 4, at least 4), p1 in r1, p0 in r0, q0 in s0, q1 in s1.
TEXT ·kminColsAVX2(SB), NOSPLIT, $0-128
	MOVQ r1_base+0(FP), R8
	MOVQ r1_len+8(FP), CX
	MOVQ r0_base+24(FP), R9
	MOVQ s0_base+48(FP), R10
	MOVQ s1_base+72(FP), R11
	MOVQ t+96(FP), AX
	MOVQ ks_base+104(FP), DI
	XORQ DX, DX
	KMIN_CONSTS

kminColsLoop:
	VMOVUPD (R8)(DX*8), Y0
	VMOVUPD (R9)(DX*8), Y1
	VMOVUPD (R10)(DX*8), Y2
	VMOVUPD (R11)(DX*8), Y3
	KMIN_EDGES
	KMIN_STORE
	ADDQ    $4, DI
	ADDQ    $4, DX
	CMPQ    DX, CX
	JB      kminColsLoop
	VZEROUPPER
	RET
