#include "textflag.h"

// func deblockHorizErrAVX512(rec, von, kpix, orig []uint8, w, n int, th *[24]int16, sums *[8]int64)
// deblockHorizErrAVX with 32 columns per step in the 16-bit lanes of an
// AVX-512 register, the vertical edges' states and the passing edges
// selected by masks. See deblockerr_amd64.go.
TEXT ·deblockHorizErrAVX512(SB), NOSPLIT, $0-128
	MOVQ rec_base+0(FP), R8
	MOVQ von_base+24(FP), R9
	MOVQ kpix_base+48(FP), R10
	MOVQ orig_base+72(FP), R11
	MOVQ w+96(FP), DX
	MOVQ n+104(FP), CX
	MOVQ th+112(FP), SI
	MOVQ sums+120(FP), DI
	LEAQ (DX)(DX*2), R12        // 3w
	VPXORD Z14, Z14, Z14        // 0
	MOVL $4, AX
	VPBROADCASTW AX, Z11        // 4
	VPADDW Z11, Z11, Z10        // 8
	MOVL $255, AX
	VPBROADCASTW AX, Z13        // 255
	XORQ R13, R13               // k − 1
kloop:
	CMPQ R13, $8
	JGE  kdone
	MOVWLZX (SI)(R13*2), AX
	VPBROADCASTW AX, Z8         // a_k
	MOVWLZX 16(SI)(R13*2), AX
	VPBROADCASTW AX, Z9         // b_k
	MOVWLZX 32(SI)(R13*2), AX
	VPBROADCASTW AX, Z12        // k
	VPXORD Z15, Z15, Z15        // the sums
	XORQ BX, BX                 // x
col:
	CMPQ BX, CX
	JGE  coldone
	LEAQ (R8)(BX*1), AX
	VPMOVZXBW (AX), Z0          // p1, p0, q0, q1 unfiltered
	VPMOVZXBW (AX)(DX*1), Z1
	VPMOVZXBW (AX)(DX*2), Z2
	VPMOVZXBW (AX)(R12*1), Z3
	LEAQ (R9)(BX*1), AX
	LEAQ (R10)(BX*1), R14
	// Row by row: the vertical edge's pixel where it is on at k
	// (kpix <= k).
	VPMOVZXBW (R14), Z5
	VPCMPW $2, Z12, Z5, K1
	VPMOVZXBW (AX), Z4
	VMOVDQU16 Z4, K1, Z0
	VPMOVZXBW (R14)(DX*1), Z5
	VPCMPW $2, Z12, Z5, K1
	VPMOVZXBW (AX)(DX*1), Z4
	VMOVDQU16 Z4, K1, Z1
	VPMOVZXBW (R14)(DX*2), Z5
	VPCMPW $2, Z12, Z5, K1
	VPMOVZXBW (AX)(DX*2), Z4
	VMOVDQU16 Z4, K1, Z2
	VPMOVZXBW (R14)(R12*1), Z5
	VPCMPW $2, Z12, Z5, K1
	VPMOVZXBW (AX)(R12*1), Z4
	VMOVDQU16 Z4, K1, Z3
	// The edges that pass at k (K2), and d8 (0 elsewhere).
	VPSUBW Z1, Z2, Z4           // q0 − p0
	VPABSW Z4, Z5
	VPCMPW $1, Z8, Z5, K1       // |q0 − p0| < a
	VPSUBW Z1, Z0, Z6
	VPABSW Z6, Z6
	VPSUBW Z2, Z3, Z7
	VPABSW Z7, Z7
	VPMAXSW Z7, Z6, Z6
	VPCMPW $1, Z9, Z6, K1, K2   // and both sides' < b
	VPSLLW $2, Z4, Z4
	VPADDW Z0, Z4, Z4
	VPSUBW.Z Z3, Z4, K2, Z4     // d8
	LEAQ (R11)(BX*1), AX
	// p1: (16·p1 + d8 + 8) >> 4 clamped; its change of the error.
	VPSLLW $4, Z0, Z5
	VPADDW Z4, Z5, Z5
	VPADDW Z10, Z5, Z5
	VPSRAW $4, Z5, Z5
	VPMAXSW Z14, Z5, Z5
	VPMINSW Z13, Z5, Z5
	VPMOVZXBW (AX), Z6
	VPADDW Z6, Z6, Z6           // 2o
	VPADDW Z0, Z5, Z7
	VPSUBW Z6, Z7, Z7           // np + p − 2o
	VPSUBW Z0, Z5, Z5           // np − p
	VPMADDWD Z7, Z5, Z5
	VPADDD Z5, Z15, Z15
	// p0: (8·p0 + d8 + 4) >> 3.
	VPSLLW $3, Z1, Z5
	VPADDW Z4, Z5, Z5
	VPADDW Z11, Z5, Z5
	VPSRAW $3, Z5, Z5
	VPMAXSW Z14, Z5, Z5
	VPMINSW Z13, Z5, Z5
	VPMOVZXBW (AX)(DX*1), Z6
	VPADDW Z6, Z6, Z6
	VPADDW Z1, Z5, Z7
	VPSUBW Z6, Z7, Z7
	VPSUBW Z1, Z5, Z5
	VPMADDWD Z7, Z5, Z5
	VPADDD Z5, Z15, Z15
	// q0: (8·q0 − d8 + 4) >> 3.
	VPSLLW $3, Z2, Z5
	VPSUBW Z4, Z5, Z5
	VPADDW Z11, Z5, Z5
	VPSRAW $3, Z5, Z5
	VPMAXSW Z14, Z5, Z5
	VPMINSW Z13, Z5, Z5
	VPMOVZXBW (AX)(DX*2), Z6
	VPADDW Z6, Z6, Z6
	VPADDW Z2, Z5, Z7
	VPSUBW Z6, Z7, Z7
	VPSUBW Z2, Z5, Z5
	VPMADDWD Z7, Z5, Z5
	VPADDD Z5, Z15, Z15
	// q1: (16·q1 − d8 + 8) >> 4.
	VPSLLW $4, Z3, Z5
	VPSUBW Z4, Z5, Z5
	VPADDW Z10, Z5, Z5
	VPSRAW $4, Z5, Z5
	VPMAXSW Z14, Z5, Z5
	VPMINSW Z13, Z5, Z5
	VPMOVZXBW (AX)(R12*1), Z6
	VPADDW Z6, Z6, Z6
	VPADDW Z3, Z5, Z7
	VPSUBW Z6, Z7, Z7
	VPSUBW Z3, Z5, Z5
	VPMADDWD Z7, Z5, Z5
	VPADDD Z5, Z15, Z15
	ADDQ $32, BX
	JMP  col
coldone:
	VEXTRACTI64X4 $1, Z15, Y5
	VPADDD Y5, Y15, Y5
	VEXTRACTI128 $1, Y5, X6
	VPADDD X6, X5, X5
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
