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

// The 4×4 transpose of 16 bytes: edge e's p1 p0 q0 q1 (bytes 4e..4e+3)
// to the p1s, p0s, q0s and q1s of edges 0..3, and back.
DATA dbtranspose<>+0(SB)/8, $0x0D0905010C080400
DATA dbtranspose<>+8(SB)/8, $0x0F0B07030E0A0602
GLOBL dbtranspose<>(SB), RODATA|NOPTR, $16

// func deblockCols4AVX(ra, rb []uint8, a, b, clip int) int
// deblockGray's pass over the vertical edges of 4×4 patches in two rows
// ra and rb (as long) at once, four edges of each per step: the edges at
// x = 4, 8, ... whose 16 bytes from x − 2 lie in the rows, filtered as
// deblockRowsAVX filters 8 columns (the same 16-bit operations), the
// bytes of the 8 edges gathered into the lanes by a transpose. It stops
// before the first step holding a clipped edge and returns the first
// edge's x it did not filter. a, b and clip must fit 16 bits.
TEXT ·deblockCols4AVX(SB), NOSPLIT, $0-80
	MOVQ ra_base+0(FP), R8
	MOVQ ra_len+8(FP), CX
	MOVQ rb_base+24(FP), R9
	MOVQ a+48(FP), AX
	MOVQ AX, X12
	VPSHUFLW $0, X12, X12
	VPSHUFD $0, X12, X12
	MOVQ b+56(FP), AX
	MOVQ AX, X13
	VPSHUFLW $0, X13, X13
	VPSHUFD $0, X13, X13
	MOVQ clip+64(FP), AX
	MOVQ AX, X14
	VPSHUFLW $0, X14, X14
	VPSHUFD $0, X14, X14
	MOVQ $4, AX
	MOVQ AX, X11
	VPSHUFLW $0, X11, X11
	VPSHUFD $0, X11, X11
	VPADDW X11, X11, X15        // 8
	MOVQ $4, BX                 // x of the step's first edge
cstep:
	LEAQ 14(BX), AX
	CMPQ AX, CX
	JGT  cdone
	LEAQ -2(R8)(BX*1), SI
	LEAQ -2(R9)(BX*1), DI
	VMOVDQU (SI), X0
	VMOVDQU (DI), X1
	VPSHUFB dbtranspose<>(SB), X0, X0 // ra's p1s p0s q0s q1s
	VPSHUFB dbtranspose<>(SB), X1, X1
	VPUNPCKLDQ X1, X0, X2       // p1s of ra, rb; p0s of ra, rb
	VPUNPCKHDQ X1, X0, X3       // q0s; q1s
	VPMOVZXBW X2, X4            // p1
	VPSRLDQ $8, X2, X2
	VPMOVZXBW X2, X5            // p0
	VPMOVZXBW X3, X6            // q0
	VPSRLDQ $8, X3, X3
	VPMOVZXBW X3, X7            // q1
	VPSUBW X5, X6, X8           // q0 − p0
	VPABSW X8, X9
	VPCMPGTW X9, X12, X9        // a > |q0 − p0|
	VPSUBW X5, X4, X10
	VPABSW X10, X10
	VPCMPGTW X10, X13, X10      // b > |p1 − p0|
	VPAND X10, X9, X9
	VPSUBW X6, X7, X10
	VPABSW X10, X10
	VPCMPGTW X10, X13, X10      // b > |q1 − q0|
	VPAND X10, X9, X9           // the edges that pass
	VPSLLW $2, X8, X8
	VPADDW X4, X8, X8
	VPSUBW X7, X8, X8
	VPAND X9, X8, X8            // d8
	VPABSW X8, X10
	VPCMPGTW X14, X10, X10      // |d8| > clip
	VPTEST X10, X10
	JNZ  cdone
	VPSLLW $4, X4, X0
	VPADDW X8, X0, X0
	VPADDW X15, X0, X0
	VPSRAW $4, X0, X0           // (16·p1 + d8 + 8) >> 4
	VPSLLW $3, X5, X1
	VPADDW X8, X1, X1
	VPADDW X11, X1, X1
	VPSRAW $3, X1, X1           // (8·p0 + d8 + 4) >> 3
	VPSLLW $3, X6, X2
	VPSUBW X8, X2, X2
	VPADDW X11, X2, X2
	VPSRAW $3, X2, X2           // (8·q0 − d8 + 4) >> 3
	VPSLLW $4, X7, X3
	VPSUBW X8, X3, X3
	VPADDW X15, X3, X3
	VPSRAW $4, X3, X3           // (16·q1 − d8 + 8) >> 4
	VPACKUSWB X1, X0, X0        // p1s of ra, rb; p0s of ra, rb
	VPACKUSWB X3, X2, X2        // q0s; q1s
	VSHUFPS $0x88, X2, X0, X1   // ra's p1s p0s q0s q1s
	VSHUFPS $0xDD, X2, X0, X3   // rb's
	VPSHUFB dbtranspose<>(SB), X1, X1
	VPSHUFB dbtranspose<>(SB), X3, X3
	VMOVDQU X1, (SI)
	VMOVDQU X3, (DI)
	ADDQ $16, BX
	JMP  cstep
cdone:
	MOVQ BX, ret+72(FP)
	RET

// The p1s, p0s, q0s and q1s of the two edges in 16 bytes of a row of 8×8
// patches (bytes 0-3 and 8-11), as words; and back, for the first and
// the second of two rows interleaved by words.
DATA dbgather8<>+0(SB)/8, $0x0B030A0209010800
DATA dbgather8<>+8(SB)/8, $0x8080808080808080
GLOBL dbgather8<>(SB), RODATA|NOPTR, $16
DATA dbscatterA<>+0(SB)/8, $0x808080800C080400
DATA dbscatterA<>+8(SB)/8, $0x808080800D090501
GLOBL dbscatterA<>(SB), RODATA|NOPTR, $16
DATA dbscatterB<>+0(SB)/8, $0x808080800E0A0602
DATA dbscatterB<>+8(SB)/8, $0x808080800F0B0703
GLOBL dbscatterB<>(SB), RODATA|NOPTR, $16

// func deblockCols8AVX(ra, rb, rc, rd []uint8, a, b, clip int) int
// deblockCols4AVX for 8×8 patches: four rows (as long) at once, two
// edges of each per step (x and x + 8, whose 16 bytes from x − 2 lie in
// the rows), only the bytes of the edges written back.
TEXT ·deblockCols8AVX(SB), NOSPLIT, $0-128
	MOVQ ra_base+0(FP), R8
	MOVQ ra_len+8(FP), CX
	MOVQ rb_base+24(FP), R9
	MOVQ rc_base+48(FP), R10
	MOVQ rd_base+72(FP), R11
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
	MOVQ $8, BX                 // x of the step's first edge
estep:
	LEAQ 14(BX), AX
	CMPQ AX, CX
	JGT  edone
	LEAQ -2(R8)(BX*1), SI
	LEAQ -2(R9)(BX*1), DI
	LEAQ -2(R10)(BX*1), R12
	LEAQ -2(R11)(BX*1), R13
	VMOVDQU (SI), X0
	VMOVDQU (DI), X1
	VMOVDQU (R12), X2
	VMOVDQU (R13), X3
	VPSHUFB dbgather8<>(SB), X0, X0
	VPSHUFB dbgather8<>(SB), X1, X1
	VPSHUFB dbgather8<>(SB), X2, X2
	VPSHUFB dbgather8<>(SB), X3, X3
	VPUNPCKLWD X1, X0, X4       // rows a, b by words
	VPUNPCKLWD X3, X2, X5       // rows c, d
	VPUNPCKLDQ X5, X4, X2       // p1s; p0s
	VPUNPCKHDQ X5, X4, X3       // q0s; q1s
	VPMOVZXBW X2, X4            // p1
	VPSRLDQ $8, X2, X2
	VPMOVZXBW X2, X5            // p0
	VPMOVZXBW X3, X6            // q0
	VPSRLDQ $8, X3, X3
	VPMOVZXBW X3, X7            // q1
	VPSUBW X5, X6, X8           // q0 − p0
	VPABSW X8, X9
	VPCMPGTW X9, X12, X9        // a > |q0 − p0|
	VPSUBW X5, X4, X10
	VPABSW X10, X10
	VPCMPGTW X10, X13, X10      // b > |p1 − p0|
	VPAND X10, X9, X9
	VPSUBW X6, X7, X10
	VPABSW X10, X10
	VPCMPGTW X10, X13, X10      // b > |q1 − q0|
	VPAND X10, X9, X9           // the edges that pass
	VPSLLW $2, X8, X8
	VPADDW X4, X8, X8
	VPSUBW X7, X8, X8
	VPAND X9, X8, X8            // d8
	VPABSW X8, X10
	VPCMPGTW X14, X10, X10      // |d8| > clip
	VPTEST X10, X10
	JNZ  edone
	VPSLLW $4, X4, X0
	VPADDW X8, X0, X0
	VPADDW X15, X0, X0
	VPSRAW $4, X0, X0           // (16·p1 + d8 + 8) >> 4
	VPSLLW $3, X5, X1
	VPADDW X8, X1, X1
	VPADDW X11, X1, X1
	VPSRAW $3, X1, X1           // (8·p0 + d8 + 4) >> 3
	VPSLLW $3, X6, X2
	VPSUBW X8, X2, X2
	VPADDW X11, X2, X2
	VPSRAW $3, X2, X2           // (8·q0 − d8 + 4) >> 3
	VPSLLW $4, X7, X3
	VPSUBW X8, X3, X3
	VPADDW X15, X3, X3
	VPSRAW $4, X3, X3           // (16·q1 − d8 + 8) >> 4
	VPACKUSWB X1, X0, X0        // p1s; p0s
	VPACKUSWB X3, X2, X2        // q0s; q1s
	VSHUFPS $0x88, X2, X0, X1   // rows a, b by words
	VSHUFPS $0xDD, X2, X0, X3   // rows c, d
	VPSHUFB dbscatterA<>(SB), X1, X4
	VPSHUFB dbscatterB<>(SB), X1, X5
	VPSHUFB dbscatterA<>(SB), X3, X6
	VPSHUFB dbscatterB<>(SB), X3, X7
	VMOVD X4, (SI)
	VPEXTRD $2, X4, 8(SI)
	VMOVD X5, (DI)
	VPEXTRD $2, X5, 8(DI)
	VMOVD X6, (R12)
	VPEXTRD $2, X6, 8(R12)
	VMOVD X7, (R13)
	VPEXTRD $2, X7, 8(R13)
	ADDQ $16, BX
	JMP  estep
edone:
	MOVQ BX, ret+120(FP)
	RET
