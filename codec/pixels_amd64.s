#include "textflag.h"

// func pixelsAVX(pix, start, w0, y []float64, nz []int)
// For every group of 16 pixels p..p+15 (len(pix) = d, a multiple of 16):
// pix[p+i] = start[p+i] + Σ_t float64(w0[nz[t]·d+p+i]·y[nz[t]]), the
// products rounded by VMULPD and added by VADDPD in the order of t, as
// pixelsFrom's Go loop sums them (no fused multiply-add). Two groups go
// through the list at once (8 sums in flight: with 4, each step waited on
// the latency of its additions), the last odd group on its own.
TEXT ·pixelsAVX(SB), NOSPLIT, $0-120
	MOVQ pix_base+0(FP), DI
	MOVQ pix_len+8(FP), DX      // d
	MOVQ start_base+24(FP), SI
	MOVQ w0_base+48(FP), R8
	MOVQ y_base+72(FP), R9
	MOVQ nz_base+96(FP), R10
	MOVQ nz_len+104(FP), CX
	MOVQ DX, R11
	SHLQ $3, R11                // row stride of w0 in bytes
	XORQ BX, BX                 // p
pair:
	LEAQ 32(BX), R12
	CMPQ R12, DX
	JGT  group
	LEAQ (SI)(BX*8), R12        // &start[p]
	VMOVUPD (R12), Y0
	VMOVUPD 32(R12), Y1
	VMOVUPD 64(R12), Y2
	VMOVUPD 96(R12), Y3
	VMOVUPD 128(R12), Y4
	VMOVUPD 160(R12), Y5
	VMOVUPD 192(R12), Y6
	VMOVUPD 224(R12), Y7
	LEAQ (R8)(BX*8), R13        // &w0[p]
	XORQ R14, R14               // t
	TESTQ CX, CX
	JZ   storepair
looppair:
	MOVQ (R10)(R14*8), AX       // j = nz[t]
	VBROADCASTSD (R9)(AX*8), Y8 // y[j]
	IMULQ R11, AX               // j·d·8
	VMULPD (R13)(AX*1), Y8, Y9
	VADDPD Y9, Y0, Y0
	VMULPD 32(R13)(AX*1), Y8, Y10
	VADDPD Y10, Y1, Y1
	VMULPD 64(R13)(AX*1), Y8, Y11
	VADDPD Y11, Y2, Y2
	VMULPD 96(R13)(AX*1), Y8, Y12
	VADDPD Y12, Y3, Y3
	VMULPD 128(R13)(AX*1), Y8, Y9
	VADDPD Y9, Y4, Y4
	VMULPD 160(R13)(AX*1), Y8, Y10
	VADDPD Y10, Y5, Y5
	VMULPD 192(R13)(AX*1), Y8, Y11
	VADDPD Y11, Y6, Y6
	VMULPD 224(R13)(AX*1), Y8, Y12
	VADDPD Y12, Y7, Y7
	INCQ R14
	CMPQ R14, CX
	JLT  looppair
storepair:
	LEAQ (DI)(BX*8), R15        // &pix[p]
	VMOVUPD Y0, (R15)
	VMOVUPD Y1, 32(R15)
	VMOVUPD Y2, 64(R15)
	VMOVUPD Y3, 96(R15)
	VMOVUPD Y4, 128(R15)
	VMOVUPD Y5, 160(R15)
	VMOVUPD Y6, 192(R15)
	VMOVUPD Y7, 224(R15)
	ADDQ $32, BX
	JMP  pair
group:
	CMPQ BX, DX
	JGE  done
	LEAQ (SI)(BX*8), R12        // &start[p]
	VMOVUPD (R12), Y0
	VMOVUPD 32(R12), Y1
	VMOVUPD 64(R12), Y2
	VMOVUPD 96(R12), Y3
	LEAQ (R8)(BX*8), R13        // &w0[p]
	XORQ R14, R14               // t
	TESTQ CX, CX
	JZ   store
loop:
	MOVQ (R10)(R14*8), AX       // j = nz[t]
	VBROADCASTSD (R9)(AX*8), Y4 // y[j]
	IMULQ R11, AX               // j·d·8
	VMULPD (R13)(AX*1), Y4, Y5
	VADDPD Y5, Y0, Y0
	VMULPD 32(R13)(AX*1), Y4, Y6
	VADDPD Y6, Y1, Y1
	VMULPD 64(R13)(AX*1), Y4, Y7
	VADDPD Y7, Y2, Y2
	VMULPD 96(R13)(AX*1), Y4, Y8
	VADDPD Y8, Y3, Y3
	INCQ R14
	CMPQ R14, CX
	JLT  loop
store:
	LEAQ (DI)(BX*8), R15        // &pix[p]
	VMOVUPD Y0, (R15)
	VMOVUPD Y1, 32(R15)
	VMOVUPD Y2, 64(R15)
	VMOVUPD Y3, 96(R15)
	ADDQ $16, BX
	JMP  group
done:
	VZEROUPPER
	RET

// func pixelsAVX512(pix, start, w0, y []float64, nz []int)
// pixelsAVX for len(pix) a multiple of 64: 64 pixels, 8 per AVX-512
// register, go through the list at once (the same products and sums).
TEXT ·pixelsAVX512(SB), NOSPLIT, $0-120
	MOVQ pix_base+0(FP), DI
	MOVQ pix_len+8(FP), DX      // d
	MOVQ start_base+24(FP), SI
	MOVQ w0_base+48(FP), R8
	MOVQ y_base+72(FP), R9
	MOVQ nz_base+96(FP), R10
	MOVQ nz_len+104(FP), CX
	MOVQ DX, R11
	SHLQ $3, R11                // row stride of w0 in bytes
	XORQ BX, BX                 // p
group512:
	CMPQ BX, DX
	JGE  done512
	LEAQ (SI)(BX*8), R12        // &start[p]
	VMOVUPD (R12), Z0
	VMOVUPD 64(R12), Z1
	VMOVUPD 128(R12), Z2
	VMOVUPD 192(R12), Z3
	VMOVUPD 256(R12), Z4
	VMOVUPD 320(R12), Z5
	VMOVUPD 384(R12), Z6
	VMOVUPD 448(R12), Z7
	LEAQ (R8)(BX*8), R13        // &w0[p]
	XORQ R14, R14               // t
	TESTQ CX, CX
	JZ   store512
loop512:
	MOVQ (R10)(R14*8), AX       // j = nz[t]
	VBROADCASTSD (R9)(AX*8), Z8 // y[j]
	IMULQ R11, AX               // j·d·8
	VMULPD (R13)(AX*1), Z8, Z9
	VADDPD Z9, Z0, Z0
	VMULPD 64(R13)(AX*1), Z8, Z10
	VADDPD Z10, Z1, Z1
	VMULPD 128(R13)(AX*1), Z8, Z11
	VADDPD Z11, Z2, Z2
	VMULPD 192(R13)(AX*1), Z8, Z12
	VADDPD Z12, Z3, Z3
	VMULPD 256(R13)(AX*1), Z8, Z13
	VADDPD Z13, Z4, Z4
	VMULPD 320(R13)(AX*1), Z8, Z14
	VADDPD Z14, Z5, Z5
	VMULPD 384(R13)(AX*1), Z8, Z15
	VADDPD Z15, Z6, Z6
	VMULPD 448(R13)(AX*1), Z8, Z16
	VADDPD Z16, Z7, Z7
	INCQ R14
	CMPQ R14, CX
	JLT  loop512
store512:
	LEAQ (DI)(BX*8), R15        // &pix[p]
	VMOVUPD Z0, (R15)
	VMOVUPD Z1, 64(R15)
	VMOVUPD Z2, 128(R15)
	VMOVUPD Z3, 192(R15)
	VMOVUPD Z4, 256(R15)
	VMOVUPD Z5, 320(R15)
	VMOVUPD Z6, 384(R15)
	VMOVUPD Z7, 448(R15)
	ADDQ $64, BX
	JMP  group512
done512:
	VZEROUPPER
	RET

// func pixels16AVX(pix, start, w0, y []float64)
// pixelsAVX for 16 pixels (a 4×4 patch) over the coefficients of y that
// are not 0, found here: pix[i] = start[i] + Σ_j float64(w0[16·j+i]·y[j])
// over j in order where y[j] != 0 as Go compares (±0 skipped, NaN kept),
// the same products and sums as pixelsAVX given that list.
TEXT ·pixels16AVX(SB), NOSPLIT, $0-96
	MOVQ pix_base+0(FP), DI
	MOVQ start_base+24(FP), SI
	MOVQ w0_base+48(FP), R8
	MOVQ y_base+72(FP), R9
	MOVQ y_len+80(FP), CX
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VXORPD Y9, Y9, Y9
	TESTQ CX, CX
	JZ   store16
loop16:
	VUCOMISD (R9), X9
	JNE  add16
	JPS  add16                  // NaN: kept, as y[j] != 0 is true
	JMP  next16
add16:
	VBROADCASTSD (R9), Y4
	VMULPD (R8), Y4, Y5
	VADDPD Y5, Y0, Y0
	VMULPD 32(R8), Y4, Y6
	VADDPD Y6, Y1, Y1
	VMULPD 64(R8), Y4, Y7
	VADDPD Y7, Y2, Y2
	VMULPD 96(R8), Y4, Y8
	VADDPD Y8, Y3, Y3
next16:
	ADDQ $8, R9
	ADDQ $128, R8
	DECQ CX
	JNZ  loop16
store16:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET

DATA q8half<>+0(SB)/8, $0x3FE0000000000000 // 0.5
GLOBL q8half<>(SB), RODATA|NOPTR, $8
DATA q8one<>+0(SB)/8, $0x3FF0000000000000  // 1
GLOBL q8one<>(SB), RODATA|NOPTR, $8
DATA q8max<>+0(SB)/8, $0x406FE00000000000  // 255
GLOBL q8max<>(SB), RODATA|NOPTR, $8

// Q8_CONSTS loads Q8's constants: 1/2, 1, 0 and 255 in Y8-Y11.
#define Q8_CONSTS \
	VBROADCASTSD q8half<>(SB), Y8 \
	VBROADCASTSD q8one<>(SB), Y9 \
	VXORPD Y10, Y10, Y10 \
	VBROADCASTSD q8max<>(SB), Y11

// Q8 rounds the 4 values at src to 8 bits into the 4 bytes at dst, as
// patches.Quantize8 does (constants in Y8-Y11: Q8_CONSTS).
#define Q8(src, dst) \
	VMOVUPD src, Y0 \
	Q8Y0(dst)

// Q8F rounds the 4 values in v to whole numbers in r as
// patches.Quantize8 does: t = trunc(v), t+1 where v − t >= 1/2,
// max(t, 0) (NaN gives 0), min(t, 255) (constants in Y8-Y11:
// Q8_CONSTS); x is scratch.
#define Q8F(v, r, x) \
	VROUNDPD $3, v, r \
	VSUBPD r, v, x \
	VCMPPD $0x0D, Y8, x, x \
	VANDPD Y9, x, x \
	VADDPD x, r, r \
	VMAXPD Y10, r, r \
	VMINPD Y11, r, r

// Q8Y0 is Q8 of the 4 values in Y0.
#define Q8Y0(dst) \
	Q8F(Y0, Y1, Y3) \
	VCVTTPD2DQY Y1, X1 \
	VPACKSSDW X1, X1, X1 \
	VPACKUSWB X1, X1, X1 \
	VMOVD X1, dst

// func lumaTargetAVX2(y8, t8 []uint8, rec, orig []float64)
// lumaTargetAVX512 in AVX2, 8 samples a step in two registers of 4:
// y8[i] = Quantize8(rec[i]) and t8[i] = Quantize8(orig[i] − rec[i] +
// y8[i]) for i < len(rec), a multiple of 8 (the others at least as
// long), the same operations in the same order (Q8F's rounding).
TEXT ·lumaTargetAVX2(SB), NOSPLIT, $0-96
	MOVQ y8_base+0(FP), DI
	MOVQ t8_base+24(FP), DX
	MOVQ rec_base+48(FP), SI
	MOVQ rec_len+56(FP), CX
	MOVQ orig_base+72(FP), BX
	SHRQ $3, CX
	JZ   ltdone
	Q8_CONSTS
ltloop:
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y4
	Q8F(Y0, Y1, Y3)             // y8
	Q8F(Y4, Y5, Y3)
	VMOVUPD (BX), Y2
	VMOVUPD 32(BX), Y6
	VSUBPD Y0, Y2, Y2           // orig − rec
	VSUBPD Y4, Y6, Y6
	VADDPD Y1, Y2, Y2           // + y8
	VADDPD Y5, Y6, Y6
	Q8F(Y2, Y7, Y3)             // t8
	Q8F(Y6, Y12, Y3)
	VCVTTPD2DQY Y1, X1
	VCVTTPD2DQY Y5, X5
	VCVTTPD2DQY Y7, X7
	VCVTTPD2DQY Y12, X12
	VPACKSSDW X5, X1, X1        // y8's 8 words
	VPACKSSDW X12, X7, X7       // t8's
	VPACKUSWB X7, X1, X1        // y8's 8 bytes, then t8's
	VMOVQ X1, (DI)
	VPEXTRQ $1, X1, (DX)
	ADDQ $64, SI
	ADDQ $64, BX
	ADDQ $8, DI
	ADDQ $8, DX
	DECQ CX
	JNZ  ltloop
	VZEROUPPER
ltdone:
	RET

// func quantize4x4AVX(dst []uint8, stride int, src []float64)
// quantize8AVX for one 4×4 patch (n = 4, 16 values), unrolled.
TEXT ·quantize4x4AVX(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ stride+24(FP), DX
	MOVQ src_base+32(FP), SI
	Q8_CONSTS
	Q8(0(SI), (DI))
	ADDQ DX, DI
	Q8(32(SI), (DI))
	ADDQ DX, DI
	Q8(64(SI), (DI))
	ADDQ DX, DI
	Q8(96(SI), (DI))
	VZEROUPPER
	RET

// func quantize8AVX(dst []uint8, stride int, src []float64, n int)
// Rounds the len(src)/n rows of n values of src (n a multiple of 4) to
// 8 bits as patches.Quantize8 does, row r into dst[r·stride:][:n]:
// t = trunc(v), t+1 where v−t >= 1/2 (exact below 2^52), then clamped
// to 0..255 with VMAXPD's second operand 0 taking NaN to 0.
TEXT ·quantize8AVX(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ stride+24(FP), DX
	MOVQ src_base+32(FP), SI
	MOVQ src_len+40(FP), CX
	MOVQ n+56(FP), R8
	Q8_CONSTS
	LEAQ (SI)(CX*8), CX         // end of src
qrow:
	CMPQ SI, CX
	JGE  qdone
	XORQ BX, BX                 // column
qcol:
	// t = trunc(v); t+1 where v − t >= 1/2; max(t, 0) (NaN gives 0),
	// min(t, 255); packed to bytes.
	Q8((SI)(BX*8), (DI)(BX*1))
	ADDQ $4, BX
	CMPQ BX, R8
	JLT  qcol
	LEAQ (SI)(R8*8), SI
	ADDQ DX, DI
	JMP  qrow
qdone:
	VZEROUPPER
	RET

// func nonzeroAVX(y []float64, nz []int) int
// Writes to nz the indices j, in order, of the y[j] that are not 0 as Go
// compares (VCMPPD NEQ_UQ: NaN kept, ±0 skipped), 4 values a compare,
// the set bits of its mask taken lowest first; len(y) is a multiple of 4
// and nz holds len(y). Returns how many.
TEXT ·nonzeroAVX(SB), NOSPLIT, $0-56
	MOVQ   y_base+0(FP), SI
	MOVQ   y_len+8(FP), CX
	MOVQ   nz_base+24(FP), DI
	XORQ   DX, DX
	XORQ   AX, AX
	VXORPD Y15, Y15, Y15

nzGroup:
	CMPQ      DX, CX
	JAE       nzDone
	VMOVUPD   (SI)(DX*8), Y0
	VCMPPD    $4, Y15, Y0, Y0
	VMOVMSKPD Y0, BX

nzBits:
	TESTQ BX, BX
	JZ    nzNext
	BSFQ  BX, R8
	ADDQ  DX, R8
	MOVQ  R8, (DI)(AX*8)
	INCQ  AX
	LEAQ  -1(BX), R9
	ANDQ  R9, BX
	JMP   nzBits

nzNext:
	ADDQ $4, DX
	JMP  nzGroup

nzDone:
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET

// PIX64_SUMS is the part of pixels64AVX512 and pixels64Gray8AVX512 up to
// the stores, after their arguments (start in SI, w0 in R8, y in R9, n in
// CX; dst in DI and the stride in bytes in R12, left there): the mask of y's nonzero coefficients (a compare of 8 a step, a masked
// load for a short last group, not past y), and the sums of the patch's
// rows 0-7 in Z0-Z7: start's, then each nonzero coefficient's products
// (VMULPD, rounded) added in increasing order of j (VADDPD), where it
// jumps to the label store64 (which must follow it). Z9 is left 0.
#define PIX64_SUMS \
	XORQ BX, BX \
	XORQ DX, DX \
	VPXORQ Z9, Z9, Z9 \
mask64: \
	MOVQ CX, AX \
	SUBQ DX, AX \
	JLE  sums64 \
	CMPQ AX, $8 \
	JGE  whole64 \
	MOVQ $1, R10 \
	SHLXQ AX, R10, R10 \
	DECQ R10 \
	KMOVW R10, K2 \
	VMOVUPD.Z (R9)(DX*8), K2, Z10 \
	JMP  cmp64 \
whole64: \
	VMOVUPD (R9)(DX*8), Z10 \
cmp64: \
	VCMPPD $4, Z9, Z10, K1 \
	KMOVW K1, R11 \
	SHLXQ DX, R11, R11 \
	ORQ  R11, BX \
	ADDQ $8, DX \
	JMP  mask64 \
sums64: \
	VMOVUPD (SI), Z0 \
	VMOVUPD 64(SI), Z1 \
	VMOVUPD 128(SI), Z2 \
	VMOVUPD 192(SI), Z3 \
	VMOVUPD 256(SI), Z4 \
	VMOVUPD 320(SI), Z5 \
	VMOVUPD 384(SI), Z6 \
	VMOVUPD 448(SI), Z7 \
	TESTQ BX, BX \
	JZ   store64 \
loop64: \
	TZCNTQ BX, AX \
	VBROADCASTSD (R9)(AX*8), Z8 \
	SHLQ $9, AX \
	VMULPD (R8)(AX*1), Z8, Z10 \
	VADDPD Z10, Z0, Z0 \
	VMULPD 64(R8)(AX*1), Z8, Z11 \
	VADDPD Z11, Z1, Z1 \
	VMULPD 128(R8)(AX*1), Z8, Z12 \
	VADDPD Z12, Z2, Z2 \
	VMULPD 192(R8)(AX*1), Z8, Z13 \
	VADDPD Z13, Z3, Z3 \
	VMULPD 256(R8)(AX*1), Z8, Z14 \
	VADDPD Z14, Z4, Z4 \
	VMULPD 320(R8)(AX*1), Z8, Z15 \
	VADDPD Z15, Z5, Z5 \
	VMULPD 384(R8)(AX*1), Z8, Z16 \
	VADDPD Z16, Z6, Z6 \
	VMULPD 448(R8)(AX*1), Z8, Z17 \
	VADDPD Z17, Z7, Z7 \
	BLSRQ BX, BX \
	JNZ  loop64

// func pixels64AVX512(dst *float64, stride int, start, w0, y *float64, n int)
// pixelsAVX512 for 64 pixels (an 8×8 patch, n = len(y) at most 64) over
// the coefficients of y that are not 0, found here as a bit mask (8
// compares instead of nonzeroAVX's list): pixel i = start[i] + Σ_j
// float64(w0[64·j+i]·y[j]) over j in order where y[j] != 0 as Go compares
// (±0 skipped, NaN kept), the same products and sums, row r (pixels 8r to
// 8r+7) stored at dst[r·stride:][:8] (stride 8: contiguous; a plane's
// width: straight into its rows).
TEXT ·pixels64AVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), R12
	SHLQ $3, R12                // the stride in bytes
	MOVQ start+16(FP), SI
	MOVQ w0+24(FP), R8
	MOVQ y+32(FP), R9
	MOVQ n+40(FP), CX
	PIX64_SUMS
store64:
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, (DI)(R12*1)
	LEAQ    (DI)(R12*2), DI
	VMOVUPD Z2, (DI)
	VMOVUPD Z3, (DI)(R12*1)
	LEAQ    (DI)(R12*2), DI
	VMOVUPD Z4, (DI)
	VMOVUPD Z5, (DI)(R12*1)
	LEAQ    (DI)(R12*2), DI
	VMOVUPD Z6, (DI)
	VMOVUPD Z7, (DI)(R12*1)
	VZEROUPPER
	RET

// Q8ZV rounds the 8 values in v as Q8Z does (Q8F's rounding: trunc, +1
// by a masked addition where v − trunc >= 1/2, max with 0 taking NaN to
// 0, min with 255; constants in Z10-Z13: 1/2, 1, 0, 255), converted to 8
// dwords in vy, v's low half; x and K1 are scratch.
#define Q8ZV(v, vy, x) \
	VRNDSCALEPD $3, v, x \
	VSUBPD x, v, v \
	VCMPPD $0x0D, Z10, v, K1 \
	VADDPD Z11, x, K1, x \
	VMAXPD Z12, x, x \
	VMINPD Z13, x, x \
	VCVTTPD2DQ x, vy

// func pixels64Gray8AVX512(dst *uint8, stride int, start, w0, y *float64, n int)
// pixels64AVX512's pixels rounded to 8 bits as quantize8AVX rounds them
// (patches.Quantize8), row r at dst[r·stride:][:8]: an 8×8 patch of a
// grey reconstruction without the 64 values stored and read again.
TEXT ·pixels64Gray8AVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), R12         // in bytes
	MOVQ start+16(FP), SI
	MOVQ w0+24(FP), R8
	MOVQ y+32(FP), R9
	MOVQ n+40(FP), CX
	PIX64_SUMS
store64:
	VBROADCASTSD q8half<>(SB), Z10
	VBROADCASTSD q8one<>(SB), Z11
	VPXORQ Z12, Z12, Z12
	VBROADCASTSD q8max<>(SB), Z13
	Q8ZV(Z0, Y0, Z14)
	Q8ZV(Z1, Y1, Z15)
	Q8ZV(Z2, Y2, Z16)
	Q8ZV(Z3, Y3, Z17)
	Q8ZV(Z4, Y4, Z18)
	Q8ZV(Z5, Y5, Z19)
	Q8ZV(Z6, Y6, Z20)
	Q8ZV(Z7, Y7, Z21)
	// Rows in pairs: 16 dwords, each 0-255, to 16 bytes (VPMOVDB
	// truncates), the first row's 8 in the low quadword.
	VINSERTI64X4 $1, Y1, Z0, Z0
	VINSERTI64X4 $1, Y3, Z2, Z2
	VINSERTI64X4 $1, Y5, Z4, Z4
	VINSERTI64X4 $1, Y7, Z6, Z6
	VPMOVDB Z0, X0
	VPMOVDB Z2, X2
	VPMOVDB Z4, X4
	VPMOVDB Z6, X6
	VMOVQ   X0, (DI)
	VMOVHPS X0, (DI)(R12*1)
	LEAQ    (DI)(R12*2), DI
	VMOVQ   X2, (DI)
	VMOVHPS X2, (DI)(R12*1)
	LEAQ    (DI)(R12*2), DI
	VMOVQ   X4, (DI)
	VMOVHPS X4, (DI)(R12*1)
	LEAQ    (DI)(R12*2), DI
	VMOVQ   X6, (DI)
	VMOVHPS X6, (DI)(R12*1)
	VZEROUPPER
	RET

// func recon16AVX(dst *uint8, stride int, start, w0 *float64, levels *[]float64, ix *int32, n int) (ok bool)
// A 4×4 patch from its indices ix beyond the leading ones, as
// pixels16AVX then quantize4x4AVX make it from y[j] = levels[j][ix[j]]:
// pix[i] = start[i] + Σ_j float64(w0[16·j+i]·y[j]) over j in order
// where y[j] != 0 (±0 skipped, NaN kept), rounded to 8 bits into the
// rows dst[r·stride:][:4]. Returns false, writing nothing, where an
// ix[j] is out of [0, len(levels[j])). levels and ix hold n entries, w0
// 16·n and start 16.
TEXT ·recon16AVX(SB), NOSPLIT, $0-57
	MOVQ start+16(FP), SI
	MOVQ w0+24(FP), R8
	MOVQ levels+32(FP), R9
	MOVQ ix+40(FP), R10
	MOVQ n+48(FP), CX
	VMOVUPD (SI), Y12
	VMOVUPD 32(SI), Y13
	VMOVUPD 64(SI), Y14
	VMOVUPD 96(SI), Y15
	VXORPD Y9, Y9, Y9
	TESTQ CX, CX
	JZ   rstore
rloop:
	MOVLQSX (R10), AX           // ix[j]
	CMPQ AX, 8(R9)              // unsigned: negative ones too
	JCC  rbad
	MOVQ (R9), BX               // levels[j]
	LEAQ (BX)(AX*8), BX         // &levels[j][ix[j]]
	VUCOMISD (BX), X9
	JNE  radd
	JPS  radd                   // NaN: kept, as y[j] != 0 is true
	JMP  rnext
radd:
	VBROADCASTSD (BX), Y4
	VMULPD (R8), Y4, Y5
	VADDPD Y5, Y12, Y12
	VMULPD 32(R8), Y4, Y6
	VADDPD Y6, Y13, Y13
	VMULPD 64(R8), Y4, Y7
	VADDPD Y7, Y14, Y14
	VMULPD 96(R8), Y4, Y8
	VADDPD Y8, Y15, Y15
rnext:
	ADDQ $4, R10
	ADDQ $24, R9
	ADDQ $128, R8
	DECQ CX
	JNZ  rloop
rstore:
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), DX
	Q8_CONSTS
	VMOVAPD Y12, Y0
	Q8Y0((DI))
	ADDQ DX, DI
	VMOVAPD Y13, Y0
	Q8Y0((DI))
	ADDQ DX, DI
	VMOVAPD Y14, Y0
	Q8Y0((DI))
	ADDQ DX, DI
	VMOVAPD Y15, Y0
	Q8Y0((DI))
	VZEROUPPER
	MOVB $1, ok+56(FP)
	RET
rbad:
	VZEROUPPER
	MOVB $0, ok+56(FP)
	RET

// Q8Z rounds the 8 values in Z (two rows of a 4×4 patch) to 8 bits, as
// Q8Y0 does (the truncation, plus 1 by a masked addition where the
// fraction is at least 1/2, clamped to [0, 255], NaN to 0), and stores
// the first row's 4 bytes at (DI), the second's at (DI)(DX*1).
// Constants in Z8-Z11 (Q8Z_CONSTS); clobbers Z1, Z2, K2 and AX.
#define Q8Z(Z) \
	VRNDSCALEPD $3, Z, Z1 \
	VSUBPD Z1, Z, Z2 \
	VCMPPD $0x0D, Z8, Z2, K2 \
	VADDPD Z9, Z1, K2, Z1 \
	VMAXPD Z10, Z1, Z1 \
	VMINPD Z11, Z1, Z1 \
	VCVTTPD2DQ Z1, Y1 \
	VPMOVUSDB Y1, X1 \
	VMOVQ X1, AX \
	MOVL AX, (DI) \
	SHRQ $32, AX \
	MOVL AX, (DI)(DX*1)

// func recon16AVX512(dst *uint8, stride int, start, w0 *float64, levels *[]float64, ix *int32, n int) (ok bool)
// recon16AVX with the patch's 16 sums in two AVX-512 registers and no
// branch on the coefficients: each one's products are added under a
// mask that is set where it is not ±0 (NaN kept), so a zero adds
// nothing, as recon16AVX's branch skips it. Which coefficients are 0
// follows no pattern a branch predictor learns (a 4×4 batch decode has
// about three nonzero of the 15 a patch).
TEXT ·recon16AVX512(SB), NOSPLIT, $0-57
	MOVQ start+16(FP), SI
	MOVQ w0+24(FP), R8
	MOVQ levels+32(FP), R9
	MOVQ ix+40(FP), R10
	MOVQ n+48(FP), CX
	VMOVUPD (SI), Z12
	VMOVUPD 64(SI), Z13
	VPXORQ Z7, Z7, Z7
	TESTQ CX, CX
	JZ   zstore
zloop:
	MOVLQSX (R10), AX           // ix[j]
	CMPQ AX, 8(R9)              // unsigned: negative ones too
	JCC  zbad
	MOVQ (R9), BX               // levels[j]
	VBROADCASTSD (BX)(AX*8), Z4
	VCMPPD $4, Z7, Z4, K1       // not equal, or unordered (NaN)
	VMULPD (R8), Z4, Z5
	VMULPD 64(R8), Z4, Z6
	VADDPD Z5, Z12, K1, Z12
	VADDPD Z6, Z13, K1, Z13
	ADDQ $4, R10
	ADDQ $24, R9
	ADDQ $128, R8
	DECQ CX
	JNZ  zloop
zstore:
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), DX
	VBROADCASTSD q8half<>(SB), Z8
	VBROADCASTSD q8one<>(SB), Z9
	VPXORQ Z10, Z10, Z10
	VBROADCASTSD q8max<>(SB), Z11
	Q8Z(Z12)
	LEAQ (DI)(DX*2), DI
	Q8Z(Z13)
	VZEROUPPER
	MOVB $1, ok+56(FP)
	RET
zbad:
	VZEROUPPER
	MOVB $0, ok+56(FP)
	RET

// func copy8x8AVX(dst *float64, stride int, src *float64)
// The 64 values at src, 8 rows of 8, into dst[r·stride:][:8] for r < 8:
// every load first (16 YMM), then the stores row by row.
TEXT ·copy8x8AVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), CX
	MOVQ src+16(FP), SI
	SHLQ $3, CX // the stride in bytes
	VMOVUPD 0(SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VMOVUPD 128(SI), Y4
	VMOVUPD 160(SI), Y5
	VMOVUPD 192(SI), Y6
	VMOVUPD 224(SI), Y7
	VMOVUPD 256(SI), Y8
	VMOVUPD 288(SI), Y9
	VMOVUPD 320(SI), Y10
	VMOVUPD 352(SI), Y11
	VMOVUPD 384(SI), Y12
	VMOVUPD 416(SI), Y13
	VMOVUPD 448(SI), Y14
	VMOVUPD 480(SI), Y15
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	ADDQ    CX, DI
	VMOVUPD Y2, (DI)
	VMOVUPD Y3, 32(DI)
	ADDQ    CX, DI
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	ADDQ    CX, DI
	VMOVUPD Y6, (DI)
	VMOVUPD Y7, 32(DI)
	ADDQ    CX, DI
	VMOVUPD Y8, (DI)
	VMOVUPD Y9, 32(DI)
	ADDQ    CX, DI
	VMOVUPD Y10, (DI)
	VMOVUPD Y11, 32(DI)
	ADDQ    CX, DI
	VMOVUPD Y12, (DI)
	VMOVUPD Y13, 32(DI)
	ADDQ    CX, DI
	VMOVUPD Y14, (DI)
	VMOVUPD Y15, 32(DI)
	VZEROUPPER
	RET
