#include "textflag.h"

// func deblockHorizErrAVX(rec, von, kpix, orig []uint8, w, n int, th *[24]int16, sums *[8]int64)
// See deblockerr_amd64.go. Strength by strength (k outer, the rows stay
// in the L1 cache), 16 columns per step in 16-bit lanes.
TEXT ·deblockHorizErrAVX(SB), NOSPLIT, $0-128
	MOVQ rec_base+0(FP), R8
	MOVQ von_base+24(FP), R9
	MOVQ kpix_base+48(FP), R10
	MOVQ orig_base+72(FP), R11
	MOVQ w+96(FP), DX
	MOVQ n+104(FP), CX
	MOVQ th+112(FP), SI
	MOVQ sums+120(FP), DI
	LEAQ (DX)(DX*2), R12        // 3w
	VPXOR Y14, Y14, Y14         // 0
	MOVQ $4, AX
	MOVQ AX, X11
	VPBROADCASTW X11, Y11       // 4
	VPADDW Y11, Y11, Y10        // 8
	MOVQ $255, AX
	MOVQ AX, X13
	VPBROADCASTW X13, Y13       // 255
	XORQ R13, R13               // k − 1
kloop:
	CMPQ R13, $8
	JGE  kdone
	VPBROADCASTW (SI)(R13*2), Y8   // a_k
	VPBROADCASTW 16(SI)(R13*2), Y9 // b_k
	VPBROADCASTW 32(SI)(R13*2), Y12 // k
	VPXOR Y15, Y15, Y15         // the sums
	XORQ BX, BX                 // x
col:
	CMPQ BX, CX
	JGE  coldone
	LEAQ (R8)(BX*1), AX
	VPMOVZXBW (AX), Y0          // p1, p0, q0, q1 unfiltered
	VPMOVZXBW (AX)(DX*1), Y1
	VPMOVZXBW (AX)(DX*2), Y2
	VPMOVZXBW (AX)(R12*1), Y3
	LEAQ (R9)(BX*1), AX
	LEAQ (R10)(BX*1), R14
	// Row by row: the vertical edge's pixel where it is on at k.
	VPMOVZXBW (AX), Y4
	VPMOVZXBW (R14), Y5
	VPCMPGTW Y12, Y5, Y5        // kpix > k: off
	VPSUBW Y0, Y4, Y4
	VPANDN Y4, Y5, Y4
	VPADDW Y4, Y0, Y0
	VPMOVZXBW (AX)(DX*1), Y4
	VPMOVZXBW (R14)(DX*1), Y5
	VPCMPGTW Y12, Y5, Y5
	VPSUBW Y1, Y4, Y4
	VPANDN Y4, Y5, Y4
	VPADDW Y4, Y1, Y1
	VPMOVZXBW (AX)(DX*2), Y4
	VPMOVZXBW (R14)(DX*2), Y5
	VPCMPGTW Y12, Y5, Y5
	VPSUBW Y2, Y4, Y4
	VPANDN Y4, Y5, Y4
	VPADDW Y4, Y2, Y2
	VPMOVZXBW (AX)(R12*1), Y4
	VPMOVZXBW (R14)(R12*1), Y5
	VPCMPGTW Y12, Y5, Y5
	VPSUBW Y3, Y4, Y4
	VPANDN Y4, Y5, Y4
	VPADDW Y4, Y3, Y3
	// The edges that pass at k, and d8 (0 elsewhere).
	VPSUBW Y1, Y2, Y4           // q0 − p0
	VPABSW Y4, Y5
	VPCMPGTW Y5, Y8, Y5         // a > |q0 − p0|
	VPSUBW Y1, Y0, Y6
	VPABSW Y6, Y6
	VPCMPGTW Y6, Y9, Y6         // b > |p1 − p0|
	VPAND Y6, Y5, Y5
	VPSUBW Y2, Y3, Y6
	VPABSW Y6, Y6
	VPCMPGTW Y6, Y9, Y6         // b > |q1 − q0|
	VPAND Y6, Y5, Y5
	VPSLLW $2, Y4, Y4
	VPADDW Y0, Y4, Y4
	VPSUBW Y3, Y4, Y4
	VPAND Y5, Y4, Y4            // d8
	LEAQ (R11)(BX*1), AX
	// p1: (16·p1 + d8 + 8) >> 4 clamped; its change of the error.
	VPSLLW $4, Y0, Y5
	VPADDW Y4, Y5, Y5
	VPADDW Y10, Y5, Y5
	VPSRAW $4, Y5, Y5
	VPMAXSW Y14, Y5, Y5
	VPMINSW Y13, Y5, Y5
	VPMOVZXBW (AX), Y6
	VPADDW Y6, Y6, Y6           // 2o
	VPADDW Y0, Y5, Y7
	VPSUBW Y6, Y7, Y7           // np + p − 2o
	VPSUBW Y0, Y5, Y5           // np − p
	VPMADDWD Y7, Y5, Y5
	VPADDD Y5, Y15, Y15
	// p0: (8·p0 + d8 + 4) >> 3.
	VPSLLW $3, Y1, Y5
	VPADDW Y4, Y5, Y5
	VPADDW Y11, Y5, Y5
	VPSRAW $3, Y5, Y5
	VPMAXSW Y14, Y5, Y5
	VPMINSW Y13, Y5, Y5
	VPMOVZXBW (AX)(DX*1), Y6
	VPADDW Y6, Y6, Y6
	VPADDW Y1, Y5, Y7
	VPSUBW Y6, Y7, Y7
	VPSUBW Y1, Y5, Y5
	VPMADDWD Y7, Y5, Y5
	VPADDD Y5, Y15, Y15
	// q0: (8·q0 − d8 + 4) >> 3.
	VPSLLW $3, Y2, Y5
	VPSUBW Y4, Y5, Y5
	VPADDW Y11, Y5, Y5
	VPSRAW $3, Y5, Y5
	VPMAXSW Y14, Y5, Y5
	VPMINSW Y13, Y5, Y5
	VPMOVZXBW (AX)(DX*2), Y6
	VPADDW Y6, Y6, Y6
	VPADDW Y2, Y5, Y7
	VPSUBW Y6, Y7, Y7
	VPSUBW Y2, Y5, Y5
	VPMADDWD Y7, Y5, Y5
	VPADDD Y5, Y15, Y15
	// q1: (16·q1 − d8 + 8) >> 4.
	VPSLLW $4, Y3, Y5
	VPSUBW Y4, Y5, Y5
	VPADDW Y10, Y5, Y5
	VPSRAW $4, Y5, Y5
	VPMAXSW Y14, Y5, Y5
	VPMINSW Y13, Y5, Y5
	VPMOVZXBW (AX)(R12*1), Y6
	VPADDW Y6, Y6, Y6
	VPADDW Y3, Y5, Y7
	VPSUBW Y6, Y7, Y7
	VPSUBW Y3, Y5, Y5
	VPMADDWD Y7, Y5, Y5
	VPADDD Y5, Y15, Y15
	ADDQ $16, BX
	JMP  col
coldone:
	VEXTRACTI128 $1, Y15, X5
	VPADDD X5, X15, X5
	VPSHUFD $0x0E, X5, X6
	VPADDD X6, X5, X5
	VPSHUFD $0x01, X5, X6
	VPADDD X6, X5, X5
	VMOVD X5, AX
	MOVLQSX AX, AX
	MOVQ AX, (DI)(R13*8)
	INCQ R13
	JMP  kloop
kdone:
	VZEROUPPER
	RET

// func sse8AVX(a, b []uint8) int64
TEXT ·sse8AVX(SB), NOSPLIT, $0-56
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VPXOR Y2, Y2, Y2
	XORQ BX, BX
sloop:
	CMPQ BX, CX
	JGE  sdone
	VPMOVZXBW (SI)(BX*1), Y0
	VPMOVZXBW (DI)(BX*1), Y1
	VPSUBW Y1, Y0, Y0
	VPMADDWD Y0, Y0, Y0
	VPADDD Y0, Y2, Y2
	ADDQ $16, BX
	JMP  sloop
sdone:
	VEXTRACTI128 $1, Y2, X3
	VPMOVZXDQ X2, Y2            // the lanes are below 2^31: as unsigned
	VPMOVZXDQ X3, Y3
	VPADDQ Y3, Y2, Y2
	VEXTRACTI128 $1, Y2, X3
	VPADDQ X3, X2, X2
	VPSHUFD $0x0E, X2, X3
	VPADDQ X3, X2, X2
	VMOVQ X2, AX
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET
