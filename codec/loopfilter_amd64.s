#include "textflag.h"
// func loopRowAVX2(out []uint8, rows *[7][]int32, t *[14]int32)
// loopFilterRow for len(out) a multiple of 8, 8 pixels at a time in
// 32-bit lanes: s = Σ_k t_k·(a_k + b_k) over the pairs of the 7×7
// diamond, v = c + ((s − sum·c + 64) >> 7), clamped to 0..255 by the
// saturating packs (|v| < 2^15, so the signed word pack cannot wrap).
// rows[i] is the padded row y+i−3 (pixel x at index x+3).
TEXT ·loopRowAVX2(SB), NOSPLIT, $0-40
	MOVQ out_base+0(FP), DI
	MOVQ out_len+8(FP), CX
	MOVQ rows+24(FP), SI
	MOVQ t+32(FP), BX
	MOVQ 0(SI), R8      // rows[0]: y−3
	MOVQ 24(SI), R9
	MOVQ 48(SI), R10
	MOVQ 72(SI), R11    // rows[3]: y
	MOVQ 96(SI), R12
	MOVQ 120(SI), R13
	MOVQ 144(SI), DX    // rows[6]: y+3
	VPBROADCASTD 0(BX), Y0
	VPBROADCASTD 4(BX), Y1
	VPBROADCASTD 8(BX), Y2
	VPBROADCASTD 12(BX), Y3
	VPBROADCASTD 16(BX), Y4
	VPBROADCASTD 20(BX), Y5
	VPBROADCASTD 24(BX), Y6
	VPBROADCASTD 28(BX), Y7
	VPBROADCASTD 32(BX), Y8
	VPBROADCASTD 36(BX), Y9
	VPBROADCASTD 40(BX), Y10
	VPBROADCASTD 44(BX), Y11
	VPBROADCASTD 48(BX), Y12     // 2·Σ t_k
	XORQ AX, AX
pixels:
	CMPQ AX, CX
	JGE  done
	VPBROADCASTD 52(BX), Y13     // the rounding half
	VMOVDQU 16(R11)(AX*4), Y14
	VPADDD 8(R11)(AX*4), Y14, Y14
	VPMULLD Y0, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 20(R11)(AX*4), Y14
	VPADDD 4(R11)(AX*4), Y14, Y14
	VPMULLD Y2, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 24(R11)(AX*4), Y14
	VPADDD 0(R11)(AX*4), Y14, Y14
	VPMULLD Y6, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 12(R12)(AX*4), Y14
	VPADDD 12(R10)(AX*4), Y14, Y14
	VPMULLD Y1, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 12(R13)(AX*4), Y14
	VPADDD 12(R9)(AX*4), Y14, Y14
	VPMULLD Y3, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 12(DX)(AX*4), Y14
	VPADDD 12(R8)(AX*4), Y14, Y14
	VPMULLD Y7, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 16(R12)(AX*4), Y14
	VPADDD 8(R10)(AX*4), Y14, Y14
	VPMULLD Y4, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 8(R12)(AX*4), Y14
	VPADDD 16(R10)(AX*4), Y14, Y14
	VPMULLD Y5, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 20(R12)(AX*4), Y14
	VPADDD 4(R10)(AX*4), Y14, Y14
	VPMULLD Y8, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 4(R12)(AX*4), Y14
	VPADDD 20(R10)(AX*4), Y14, Y14
	VPMULLD Y10, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 16(R13)(AX*4), Y14
	VPADDD 8(R9)(AX*4), Y14, Y14
	VPMULLD Y9, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 8(R13)(AX*4), Y14
	VPADDD 16(R9)(AX*4), Y14, Y14
	VPMULLD Y11, Y14, Y14
	VPADDD Y14, Y13, Y13
	VMOVDQU 12(R11)(AX*4), Y15   // c
	VPMULLD Y12, Y15, Y14
	VPSUBD Y14, Y13, Y13
	VPSRAD $7, Y13, Y13
	VPADDD Y15, Y13, Y13
	VEXTRACTI128 $1, Y13, X14
	VPACKUSDW X14, X13, X13
	VPACKUSWB X13, X13, X13
	MOVQ X13, (DI)(AX*1)
	ADDQ $8, AX
	JMP  pixels
done:
	VZEROUPPER
	RET

// func dotInt16AVX2(a, b []int16) int64
// The dot product of a and b, len(a) a multiple of 16 up to 16384:
// VPMADDWD sums pairs of products into 32-bit lanes (at most 2048
// products of at most 510² each per lane), widened to 64 bits and summed
// at the end.
TEXT ·dotInt16AVX2(SB), NOSPLIT, $0-56
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VPXOR Y1, Y1, Y1
	XORQ AX, AX
dot:
	CMPQ AX, CX
	JGE  sum
	VMOVDQU (SI)(AX*2), Y0
	VPMADDWD (DI)(AX*2), Y0, Y0
	VPADDD Y0, Y1, Y1
	ADDQ $16, AX
	JMP  dot
sum:
	VEXTRACTI128 $1, Y1, X2
	VPMOVSXDQ X1, Y3
	VPMOVSXDQ X2, Y4
	VPADDQ Y4, Y3, Y3
	VEXTRACTI128 $1, Y3, X4
	VPADDQ X4, X3, X3
	VPSHUFD $0x4E, X3, X4
	VPADDQ X4, X3, X3
	MOVQ X3, AX
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET

// func evenDiffAVX2(d []int16, a, b, r []uint8)
// d[t] = a[2t] + b[2t] - 2 r[2t] for t < len(d) (a multiple of 16),
// 16 at a time: 32 bytes read as 16 words, the even bytes their low
// halves (masked with 0x00ff), summed in 16-bit lanes (|d| <= 510).
// Reads 2*len(d) bytes of a, b and r.
TEXT ·evenDiffAVX2(SB), NOSPLIT, $0-96
	MOVQ d_base+0(FP), DI
	MOVQ d_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), BX
	MOVQ r_base+72(FP), DX
	SHRQ $4, CX
	JZ   evenDone
	VPCMPEQW Y7, Y7, Y7
	VPSRLW   $8, Y7, Y7
evenLoop:
	VPAND  (SI), Y7, Y0
	VPAND  (BX), Y7, Y1
	VPAND  (DX), Y7, Y2
	VPADDW Y1, Y0, Y0
	VPADDW Y2, Y2, Y2
	VPSUBW Y2, Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ  evenLoop
	VZEROUPPER
evenDone:
	RET

// func widenAVX2(dst []int32, src []uint8)
// dst[i] = int32(src[i]) for i < len(src), a multiple of 8 (dst at
// least as long), 8 pixels a step by VPMOVZXBD.
TEXT ·widenAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $3, CX
	JZ widendone
widenloop:
	VPMOVZXBD (SI), Y0
	VMOVDQU Y0, (DI)
	ADDQ $8, SI
	ADDQ $32, DI
	DECQ CX
	JNZ widenloop
	VZEROUPPER
widendone:
	RET

// func loopRowAVX512(out []uint8, rows *[7][]int32, t *[14]int32)
// loopRowAVX2 16 pixels at a time in AVX-512 registers (the last 8, if
// any, as loopRowAVX2 takes them): the same sums in the same 32-bit
// lanes, clamped to 0..255 by VPMAXSD, VPMINSD and a truncating pack, so
// the same pixels.
TEXT ·loopRowAVX512(SB), NOSPLIT, $0-40
	MOVQ out_base+0(FP), DI
	MOVQ out_len+8(FP), CX
	MOVQ rows+24(FP), SI
	MOVQ t+32(FP), BX
	MOVQ 0(SI), R8      // rows[0]: y−3
	MOVQ 24(SI), R9
	MOVQ 48(SI), R10
	MOVQ 72(SI), R11    // rows[3]: y
	MOVQ 96(SI), R12
	MOVQ 120(SI), R13
	MOVQ 144(SI), DX    // rows[6]: y+3
	VPBROADCASTD 0(BX), Z0
	VPBROADCASTD 4(BX), Z1
	VPBROADCASTD 8(BX), Z2
	VPBROADCASTD 12(BX), Z3
	VPBROADCASTD 16(BX), Z4
	VPBROADCASTD 20(BX), Z5
	VPBROADCASTD 24(BX), Z6
	VPBROADCASTD 28(BX), Z7
	VPBROADCASTD 32(BX), Z8
	VPBROADCASTD 36(BX), Z9
	VPBROADCASTD 40(BX), Z10
	VPBROADCASTD 44(BX), Z11
	VPBROADCASTD 48(BX), Z12
	MOVL $255, SI
	VPBROADCASTD SI, Z16        // the clamp's top
	VPXORD Z17, Z17, Z17        // and bottom
	XORQ AX, AX
	MOVQ CX, SI
	ANDQ $-16, SI               // the pixels of whole steps of 16
zpixels:
	CMPQ AX, SI
	JGE  zdone
	VPBROADCASTD 52(BX), Z13     // the rounding half
	VMOVDQU32 16(R11)(AX*4), Z14
	VPADDD 8(R11)(AX*4), Z14, Z14
	VPMULLD Z0, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 20(R11)(AX*4), Z14
	VPADDD 4(R11)(AX*4), Z14, Z14
	VPMULLD Z2, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 24(R11)(AX*4), Z14
	VPADDD 0(R11)(AX*4), Z14, Z14
	VPMULLD Z6, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 12(R12)(AX*4), Z14
	VPADDD 12(R10)(AX*4), Z14, Z14
	VPMULLD Z1, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 12(R13)(AX*4), Z14
	VPADDD 12(R9)(AX*4), Z14, Z14
	VPMULLD Z3, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 12(DX)(AX*4), Z14
	VPADDD 12(R8)(AX*4), Z14, Z14
	VPMULLD Z7, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 16(R12)(AX*4), Z14
	VPADDD 8(R10)(AX*4), Z14, Z14
	VPMULLD Z4, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 8(R12)(AX*4), Z14
	VPADDD 16(R10)(AX*4), Z14, Z14
	VPMULLD Z5, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 20(R12)(AX*4), Z14
	VPADDD 4(R10)(AX*4), Z14, Z14
	VPMULLD Z8, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 4(R12)(AX*4), Z14
	VPADDD 20(R10)(AX*4), Z14, Z14
	VPMULLD Z10, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 16(R13)(AX*4), Z14
	VPADDD 8(R9)(AX*4), Z14, Z14
	VPMULLD Z9, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 8(R13)(AX*4), Z14
	VPADDD 16(R9)(AX*4), Z14, Z14
	VPMULLD Z11, Z14, Z14
	VPADDD Z14, Z13, Z13
	VMOVDQU32 12(R11)(AX*4), Z15   // c
	VPMULLD Z12, Z15, Z14
	VPSUBD Z14, Z13, Z13
	VPSRAD $7, Z13, Z13
	VPADDD Z15, Z13, Z13
	VPMAXSD Z17, Z13, Z13
	VPMINSD Z16, Z13, Z13
	VPMOVDB Z13, X13
	VMOVDQU X13, (DI)(AX*1)
	ADDQ $16, AX
	JMP  zpixels
zdone:
	VZEROUPPER
	RET

// func dotInt16AVX512(a, b []int16) int64
// dotInt16AVX2 32 products at a time (AVX-512BW), a last 16 by masked
// loads: the same exact sum.
TEXT ·dotInt16AVX512(SB), NOSPLIT, $0-56
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VPXORD Z1, Z1, Z1
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~31, DX
dot512:
	CMPQ AX, DX
	JGE  dot512tail
	VMOVDQU16 (SI)(AX*2), Z0
	VPMADDWD (DI)(AX*2), Z0, Z0
	VPADDD Z0, Z1, Z1
	ADDQ $32, AX
	JMP  dot512
dot512tail:
	CMPQ AX, CX
	JGE  dot512sum
	// 16 words by masked loads (nothing read past them; a VEX add of
	// the lower halves would clear Z1's upper half).
	MOVL $0xffff, BX
	KMOVD BX, K1
	VMOVDQU16.Z (SI)(AX*2), K1, Z0
	VMOVDQU16.Z (DI)(AX*2), K1, Z5
	VPMADDWD Z5, Z0, Z0
	VPADDD Z0, Z1, Z1
dot512sum:
	VEXTRACTI64X4 $1, Z1, Y2
	VPMOVSXDQ Y1, Z3
	VPMOVSXDQ Y2, Z4
	VPADDQ Z4, Z3, Z3
	VEXTRACTI64X4 $1, Z3, Y4
	VPADDQ Y4, Y3, Y3
	VEXTRACTI128 $1, Y3, X4
	VPADDQ X4, X3, X3
	VPSHUFD $0x4E, X3, X4
	VPADDQ X4, X3, X3
	MOVQ X3, AX
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET

// func roundLumaAVX512(dst []int32, src []float64)
// dst[i] = patches.Quantize8(src[i]) for i < len(src), a multiple of 8
// (dst at least as long), 8 samples a step: t = trunc(v), t+1 where
// v − t >= 1/2 (exact below 2^52), clamped to 0..255 with VMAXPD's
// second operand 0 taking NaN to 0 (quantize8AVX's steps), then
// truncated to int32.
TEXT ·roundLumaAVX512(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	MOVQ CX, R8
	SHLQ $3, R8                  // a row's bytes: the next row's prefetch
	SHRQ $3, CX
	JZ   rounddone
	MOVQ $0x3FE0000000000000, AX // 1/2
	VPBROADCASTQ AX, Z8
	MOVQ $0x3FF0000000000000, AX // 1
	VPBROADCASTQ AX, Z9
	VPXORQ Z10, Z10, Z10
	MOVQ $0x406FE00000000000, AX // 255
	VPBROADCASTQ AX, Z11
roundloop:
	PREFETCHT0 (SI)(R8*1)
	VMOVUPD (SI), Z0
	VRNDSCALEPD $3, Z0, Z1
	VSUBPD Z1, Z0, Z2
	VCMPPD $0x0D, Z8, Z2, K1
	VADDPD Z9, Z1, K1, Z1
	VMAXPD Z10, Z1, Z1
	VMINPD Z11, Z1, Z1
	VCVTTPD2DQ Z1, Y1
	VMOVDQU Y1, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  roundloop
	VZEROUPPER
rounddone:
	RET

// func moveLumaAVX512(row []float64, out []uint8, in []int32)
// row[x] += float64(int32(out[x]) − in[x]) for x < len(row), a multiple
// of 8 (out and in at least as long), 8 samples a step: the difference
// in 32-bit lanes, converted exactly, one rounded addition as Go's.
TEXT ·moveLumaAVX512(SB), NOSPLIT, $0-72
	MOVQ row_base+0(FP), DI
	MOVQ row_len+8(FP), CX
	MOVQ out_base+24(FP), SI
	MOVQ in_base+48(FP), DX
	SHRQ $3, CX
	JZ   movedone
moveloop:
	VPMOVZXBD (SI), Y0
	VPSUBD (DX), Y0, Y0
	VCVTDQ2PD Y0, Z1
	VADDPD (DI), Z1, Z1
	VMOVUPD Z1, (DI)
	ADDQ $8, SI
	ADDQ $32, DX
	ADDQ $64, DI
	DECQ CX
	JNZ  moveloop
	VZEROUPPER
movedone:
	RET

// func lumaTargetAVX512(y8, t8 []uint8, rec, orig []float64)
// For i < len(rec), a multiple of 8 (the others at least as long), 8
// samples a step: y8[i] = Quantize8(rec[i]) and t8[i] =
// Quantize8(orig[i] − rec[i] + y8[i]), the differences rounded as Go
// rounds them (one subtraction, then one addition), each rounding as
// roundLumaAVX512's.
TEXT ·lumaTargetAVX512(SB), NOSPLIT, $0-96
	MOVQ y8_base+0(FP), DI
	MOVQ t8_base+24(FP), DX
	MOVQ rec_base+48(FP), SI
	MOVQ rec_len+56(FP), CX
	MOVQ orig_base+72(FP), BX
	SHRQ $3, CX
	JZ   targetdone
	MOVQ $0x3FE0000000000000, AX // 1/2
	VPBROADCASTQ AX, Z8
	MOVQ $0x3FF0000000000000, AX // 1
	VPBROADCASTQ AX, Z9
	VPXORQ Z10, Z10, Z10
	MOVQ $0x406FE00000000000, AX // 255
	VPBROADCASTQ AX, Z11
targetloop:
	VMOVUPD (SI), Z0
	VRNDSCALEPD $3, Z0, Z1
	VSUBPD Z1, Z0, Z2
	VCMPPD $0x0D, Z8, Z2, K1
	VADDPD Z9, Z1, K1, Z1
	VMAXPD Z10, Z1, Z1
	VMINPD Z11, Z1, Z1           // y8, a whole number
	VMOVUPD (BX), Z3
	VSUBPD Z0, Z3, Z3            // orig − rec
	VADDPD Z1, Z3, Z3            // + y8
	VRNDSCALEPD $3, Z3, Z4
	VSUBPD Z4, Z3, Z5
	VCMPPD $0x0D, Z8, Z5, K2
	VADDPD Z9, Z4, K2, Z4
	VMAXPD Z10, Z4, Z4
	VMINPD Z11, Z4, Z4
	VCVTTPD2DQ Z1, Y1
	VCVTTPD2DQ Z4, Y4
	VPMOVDB Z1, X1
	VPMOVDB Z4, X4
	MOVQ X1, (DI)
	MOVQ X4, (DX)
	ADDQ $64, SI
	ADDQ $64, BX
	ADDQ $8, DI
	ADDQ $8, DX
	DECQ CX
	JNZ  targetloop
	VZEROUPPER
targetdone:
	RET

// func dot4Int16AVX512(a, b0, b1, b2, b3 []int16, s *[4]int64)
// dotInt16AVX512 of a with 4 planes at once (each of a's loads serves 4
// products), the 4 sums added to s[0..3]: the same exact sums.
TEXT ·dot4Int16AVX512(SB), NOSPLIT, $0-128
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b0_base+24(FP), R8
	MOVQ b1_base+48(FP), R9
	MOVQ b2_base+72(FP), R10
	MOVQ b3_base+96(FP), R11
	MOVQ s+120(FP), DI
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $~31, DX
dot4loop:
	CMPQ AX, DX
	JGE  dot4tail
	VMOVDQU16 (SI)(AX*2), Z0
	VPMADDWD (R8)(AX*2), Z0, Z5
	VPADDD Z5, Z1, Z1
	VPMADDWD (R9)(AX*2), Z0, Z6
	VPADDD Z6, Z2, Z2
	VPMADDWD (R10)(AX*2), Z0, Z7
	VPADDD Z7, Z3, Z3
	VPMADDWD (R11)(AX*2), Z0, Z8
	VPADDD Z8, Z4, Z4
	ADDQ $32, AX
	JMP  dot4loop
dot4tail:
	CMPQ AX, CX
	JGE  dot4sum
	// 16 words by masked loads, as dotInt16AVX512's.
	MOVL $0xffff, BX
	KMOVD BX, K1
	VMOVDQU16.Z (SI)(AX*2), K1, Z0
	VMOVDQU16.Z (R8)(AX*2), K1, Z5
	VPMADDWD Z5, Z0, Z5
	VPADDD Z5, Z1, Z1
	VMOVDQU16.Z (R9)(AX*2), K1, Z6
	VPMADDWD Z6, Z0, Z6
	VPADDD Z6, Z2, Z2
	VMOVDQU16.Z (R10)(AX*2), K1, Z7
	VPMADDWD Z7, Z0, Z7
	VPADDD Z7, Z3, Z3
	VMOVDQU16.Z (R11)(AX*2), K1, Z8
	VPMADDWD Z8, Z0, Z8
	VPADDD Z8, Z4, Z4
dot4sum:
	VEXTRACTI64X4 $1, Z1, Y10
	VPMOVSXDQ Y1, Z11
	VPMOVSXDQ Y10, Z12
	VPADDQ Z12, Z11, Z11
	VEXTRACTI64X4 $1, Z11, Y12
	VPADDQ Y12, Y11, Y11
	VEXTRACTI128 $1, Y11, X12
	VPADDQ X12, X11, X11
	VPSHUFD $0x4E, X11, X12
	VPADDQ X12, X11, X11
	MOVQ X11, BX
	ADDQ BX, 0(DI)
	VEXTRACTI64X4 $1, Z2, Y10
	VPMOVSXDQ Y2, Z11
	VPMOVSXDQ Y10, Z12
	VPADDQ Z12, Z11, Z11
	VEXTRACTI64X4 $1, Z11, Y12
	VPADDQ Y12, Y11, Y11
	VEXTRACTI128 $1, Y11, X12
	VPADDQ X12, X11, X11
	VPSHUFD $0x4E, X11, X12
	VPADDQ X12, X11, X11
	MOVQ X11, BX
	ADDQ BX, 8(DI)
	VEXTRACTI64X4 $1, Z3, Y10
	VPMOVSXDQ Y3, Z11
	VPMOVSXDQ Y10, Z12
	VPADDQ Z12, Z11, Z11
	VEXTRACTI64X4 $1, Z11, Y12
	VPADDQ Y12, Y11, Y11
	VEXTRACTI128 $1, Y11, X12
	VPADDQ X12, X11, X11
	VPSHUFD $0x4E, X11, X12
	VPADDQ X12, X11, X11
	MOVQ X11, BX
	ADDQ BX, 16(DI)
	VEXTRACTI64X4 $1, Z4, Y10
	VPMOVSXDQ Y4, Z11
	VPMOVSXDQ Y10, Z12
	VPADDQ Z12, Z11, Z11
	VEXTRACTI64X4 $1, Z11, Y12
	VPADDQ Y12, Y11, Y11
	VEXTRACTI128 $1, Y11, X12
	VPADDQ X12, X11, X11
	VPSHUFD $0x4E, X11, X12
	VPADDQ X12, X11, X11
	MOVQ X11, BX
	ADDQ BX, 24(DI)
	VZEROUPPER
	RET

// DOT4AVX2SUM adds the 8 32-bit lanes of acc (its low half accx),
// sign-extended to 64 bits, to the int64 at off(DI); clobbers X10-X12
// and BX.
#define DOT4AVX2SUM(acc, accx, off) \
	VEXTRACTI128 $1, acc, X10; \
	VPMOVSXDQ accx, Y11; \
	VPMOVSXDQ X10, Y12; \
	VPADDQ Y12, Y11, Y11; \
	VEXTRACTI128 $1, Y11, X12; \
	VPADDQ X12, X11, X11; \
	VPSHUFD $0x4E, X11, X12; \
	VPADDQ X12, X11, X11; \
	MOVQ X11, BX; \
	ADDQ BX, off(DI)

// func dot4Int16AVX2(a, b0, b1, b2, b3 []int16, s *[4]int64)
// dotInt16AVX2 of a with 4 planes at once (each of a's loads serves 4
// products; len(a) a multiple of 16 up to 16384), the 4 sums widened to
// 64 bits as dotInt16AVX2's and added to s[0..3]: the same exact sums.
TEXT ·dot4Int16AVX2(SB), NOSPLIT, $0-128
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b0_base+24(FP), R8
	MOVQ b1_base+48(FP), R9
	MOVQ b2_base+72(FP), R10
	MOVQ b3_base+96(FP), R11
	MOVQ s+120(FP), DI
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	XORQ AX, AX
dot4avx2loop:
	CMPQ AX, CX
	JGE  dot4avx2sum
	VMOVDQU (SI)(AX*2), Y0
	VPMADDWD (R8)(AX*2), Y0, Y5
	VPADDD Y5, Y1, Y1
	VPMADDWD (R9)(AX*2), Y0, Y6
	VPADDD Y6, Y2, Y2
	VPMADDWD (R10)(AX*2), Y0, Y7
	VPADDD Y7, Y3, Y3
	VPMADDWD (R11)(AX*2), Y0, Y8
	VPADDD Y8, Y4, Y4
	ADDQ $16, AX
	JMP  dot4avx2loop
dot4avx2sum:
	DOT4AVX2SUM(Y1, X1, 0)
	DOT4AVX2SUM(Y2, X2, 8)
	DOT4AVX2SUM(Y3, X3, 16)
	DOT4AVX2SUM(Y4, X4, 24)
	VZEROUPPER
	RET
