#include "textflag.h"

// func joinAVX2(v []int64, planes []byte, w, stride int)
// v[i] = unzig(planes[i] | planes[m+i]<<8 | planes[2m+i]<<16) (the
// planes up to w), for i < len(v)&^3, m = stride. w is 1, 2 or 3.
TEXT ·joinAVX2(SB), NOSPLIT, $0-64
	MOVQ v_base+0(FP), DI
	MOVQ v_len+8(FP), CX
	MOVQ planes_base+24(FP), SI
	MOVQ w+48(FP), DX
	MOVQ stride+56(FP), R8
	SHRQ $2, CX
	JZ   done
	MOVQ $1, AX
	MOVQ AX, X15
	VPBROADCASTQ X15, Y15 // ones
	VPXOR Y14, Y14, Y14   // zero
	LEAQ (SI)(R8*2), R9   // plane 2
	ADDQ SI, R8           // plane 1
	CMPQ DX, $2
	JEQ  w2
	JGT  w3

w1:
	VPMOVZXBQ (SI), Y0
	VPAND     Y15, Y0, Y3
	VPSUBQ    Y3, Y14, Y3
	VPSRLQ    $1, Y0, Y0
	VPXOR     Y3, Y0, Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $4, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       w1
	JMP       done

w2:
	VPMOVZXBQ (SI), Y0
	VPMOVZXBQ (R8), Y1
	VPSLLQ    $8, Y1, Y1
	VPOR      Y1, Y0, Y0
	VPAND     Y15, Y0, Y3
	VPSUBQ    Y3, Y14, Y3
	VPSRLQ    $1, Y0, Y0
	VPXOR     Y3, Y0, Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $4, SI
	ADDQ      $4, R8
	ADDQ      $32, DI
	DECQ      CX
	JNZ       w2
	JMP       done

w3:
	VPMOVZXBQ (SI), Y0
	VPMOVZXBQ (R8), Y1
	VPMOVZXBQ (R9), Y2
	VPSLLQ    $8, Y1, Y1
	VPSLLQ    $16, Y2, Y2
	VPOR      Y1, Y0, Y0
	VPOR      Y2, Y0, Y0
	VPAND     Y15, Y0, Y3
	VPSUBQ    Y3, Y14, Y3
	VPSRLQ    $1, Y0, Y0
	VPXOR     Y3, Y0, Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $4, SI
	ADDQ      $4, R8
	ADDQ      $4, R9
	ADDQ      $32, DI
	DECQ      CX
	JNZ       w3

done:
	VZEROUPPER
	RET

// func addLagAVX2(v []int64, s int)
// v[i] += v[i-s] in order of i for s <= i < s+(len(v)-s)&^3; s >= 4, so
// that each group of 4 reads values that earlier groups have summed.
TEXT ·addLagAVX2(SB), NOSPLIT, $0-32
	MOVQ v_base+0(FP), SI
	MOVQ v_len+8(FP), CX
	MOVQ s+24(FP), DX
	SUBQ DX, CX
	SHRQ $2, CX
	JZ   lagdone
	LEAQ (SI)(DX*8), DI
lag:
	VMOVDQU (SI), Y0
	VPADDQ  (DI), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     lag
lagdone:
	VZEROUPPER
	RET

// func scaleAVX512(dst []float64, v []int64, stride int, res float64)
// dst[i*stride] = float64(v[i])*res for i < len(v)&^3.
TEXT ·scaleAVX512(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ v_base+24(FP), SI
	MOVQ v_len+32(FP), CX
	MOVQ stride+48(FP), R8
	VBROADCASTSD res+56(FP), Y15
	SHLQ $3, R8            // stride in bytes
	LEAQ (R8)(R8*2), R9    // 3 strides
	LEAQ (R8*4), R10       // 4 strides
	SHRQ $2, CX
	JZ   scaledone
scale:
	VCVTQQ2PD    (SI), Y0
	VMULPD       Y15, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMOVSD       X0, (DI)
	VMOVHPD      X0, (DI)(R8*1)
	VMOVSD       X1, (DI)(R8*2)
	VMOVHPD      X1, (DI)(R9*1)
	ADDQ         $32, SI
	ADDQ         R10, DI
	DECQ         CX
	JNZ          scale
scaledone:
	VZEROUPPER
	RET

// func scale32AVX512(dst []float32, v []int64, stride int, res float64) (mag uint64)
// dst[i*stride] = float32(float64(v[i])*res) for i < len(v)&^3; mag is
// the OR of their |v[i]| (VPABSQ leaves math.MinInt64 as 1<<63).
TEXT ·scale32AVX512(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ v_base+24(FP), SI
	MOVQ v_len+32(FP), CX
	MOVQ stride+48(FP), R8
	VBROADCASTSD res+56(FP), Y15
	VPXOR Y14, Y14, Y14    // the magnitudes' OR
	SHLQ $2, R8            // stride in bytes
	LEAQ (R8)(R8*2), R9    // 3 strides
	LEAQ (R8*4), R10       // 4 strides
	SHRQ $2, CX
	JZ   scale32done
scale32:
	VPABSQ       (SI), Y1
	VPOR         Y1, Y14, Y14
	VCVTQQ2PD    (SI), Y0
	VMULPD       Y15, Y0, Y0
	VCVTPD2PSY   Y0, X0
	VMOVSS       X0, (DI)
	VEXTRACTPS   $1, X0, (DI)(R8*1)
	VEXTRACTPS   $2, X0, (DI)(R8*2)
	VEXTRACTPS   $3, X0, (DI)(R9*1)
	ADDQ         $32, SI
	ADDQ         R10, DI
	DECQ         CX
	JNZ          scale32
scale32done:
	VEXTRACTI128 $1, Y14, X1
	VPOR         X1, X14, X14
	VPSHUFD      $0x4e, X14, X1
	VPOR         X1, X14, X14
	VMOVQ        X14, AX
	MOVQ         AX, mag+64(FP)
	VZEROUPPER
	RET
