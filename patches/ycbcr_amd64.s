#include "textflag.h"

// QUANT rounds the 4 values in V as Quantize8 and leaves them as int32 in
// X (Y4 scratch): the maximum against 0 (Y7, returned for NaN), the minimum
// against 255 (Y14), the truncation plus 1 (Y5) where the fraction is at
// least 1/2 (Y15): the truncation and the exact fraction of roundPositive.
#define QUANT(V, X) \
	VMAXPD Y7, V, V \
	VMINPD Y14, V, V \
	VROUNDPD $3, V, Y4 \
	VSUBPD Y4, V, V \
	VCMPPD $0x1d, Y15, V, V \
	VANDPD Y5, V, V \
	VADDPD V, Y4, V \
	VCVTTPD2DQY V, X

// func rgbaRowAVX(dst []uint8, y, cb, cr []float64, k *[9]float64)
// For each group of 4 samples i (len(y)/4 groups; cb, cr at least as long,
// dst at least 4·len(y)): toRGB's operations in its order (products
// rounded by VMULPD, no fused multiply-add; the division by kg by VDIVPD,
// IEEE like DIVSD), then Quantize8 of each of R', G', B' (VMAXPD against 0
// turns NaN into 0, VMINPD clamps at 255, then truncation plus one where
// the fraction is at least 1/2, as roundPositive), stored as R, G, B, 0xff.
// k holds chromaZero, crScale, cbScale, kr, kb, kg, 255, 1/2, 1.
TEXT ·rgbaRowAVX(SB), NOSPLIT, $0-104
	MOVQ dst_base+0(FP), DI
	MOVQ y_base+24(FP), SI
	MOVQ y_len+32(FP), CX
	MOVQ cb_base+48(FP), R8
	MOVQ cr_base+72(FP), R9
	MOVQ k+96(FP), AX
	SHRQ $2, CX
	JZ   done
	VBROADCASTSD 0(AX), Y8   // chromaZero
	VBROADCASTSD 8(AX), Y9   // crScale
	VBROADCASTSD 16(AX), Y10 // cbScale
	VBROADCASTSD 24(AX), Y11 // kr
	VBROADCASTSD 32(AX), Y12 // kb
	VBROADCASTSD 40(AX), Y13 // kg
	VBROADCASTSD 48(AX), Y14 // 255
	VBROADCASTSD 56(AX), Y15 // 1/2
	VXORPD Y7, Y7, Y7        // 0
	VPCMPEQD X6, X6, X6
	VPSLLD $24, X6, X6       // alpha 0xff in the top byte of each pixel
	VBROADCASTSD 64(AX), Y5  // 1
loop:
	VMOVUPD (SI), Y0         // Y'
	VMOVUPD (R9), Y1
	VSUBPD Y8, Y1, Y1
	VMULPD Y9, Y1, Y1
	VADDPD Y1, Y0, Y1        // R' = Y' + crScale·(Cr − 128)
	VMOVUPD (R8), Y2
	VSUBPD Y8, Y2, Y2
	VMULPD Y10, Y2, Y2
	VADDPD Y2, Y0, Y2        // B' = Y' + cbScale·(Cb − 128)
	VMULPD Y11, Y1, Y3
	VSUBPD Y3, Y0, Y0
	VMULPD Y12, Y2, Y3
	VSUBPD Y3, Y0, Y0
	VDIVPD Y13, Y0, Y0       // G' = (Y' − kr·R' − kb·B') / kg
	QUANT(Y1, X1)
	QUANT(Y0, X0)
	QUANT(Y2, X2)
	VPSLLD $8, X0, X0
	VPSLLD $16, X2, X2
	VPOR X0, X1, X1
	VPOR X2, X1, X1
	VPOR X6, X1, X1
	VMOVDQU X1, (DI)
	ADDQ $16, DI
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ  loop
	VZEROUPPER
done:
	RET
