#include "textflag.h"
#include "go_asm.h"

// func edgeRunAVX2(s *edgeSums, rec, orig []float64, ks []uint8, i, at, step, stride int, von []float64, kpix []uint8, mode int) int
// edgeSums.edge of the edges i, i+1, ... of a run (edge j's q0 at
// rec[at+j·step], its samples stride apart, its first strength ks[j])
// that pass from there on, unclipped: their changes added in order, a
// lane per sample, each sum (diff[ka], moved) still one addition at a
// time. An edge with ks[j] = deblockNever is skipped; it stops at the
// first edge whose ks[j] exceeds deblockNever, in mode 2 whose four
// kpix (stride apart, as rec) are not all deblockNever (its edge may pass
// at some strength even where ks[j] says never), or whose move may clip
// (not |d| <= tc[ka]): the edge it returns the index of
// (len(ks) at the end) is the caller's. In mode 1 it also writes each
// passing edge's samples to von and its strength to kpix (stride 1).
// The changes of samples that stay are added as +0, which leaves a sum
// as it is: no sum is −0 (squares are +0 or more, and x − x is +0).
TEXT ·edgeRunAVX2(SB), NOSPLIT, $0-176
	MOVQ s+0(FP), DI
	MOVQ rec_base+8(FP), SI
	MOVQ orig_base+32(FP), R8
	MOVQ ks_base+56(FP), R11
	MOVQ ks_len+64(FP), CX
	MOVQ i+80(FP), DX
	MOVQ step+96(FP), R12
	MOVQ stride+104(FP), R13
	MOVQ at+88(FP), BX
	MOVQ R12, AX
	IMULQ DX, AX
	ADDQ AX, BX                 // q0 index of edge i
	SHLQ $3, R13                // stride in bytes
	MOVQ von_base+112(FP), R9
	MOVQ kpix_base+136(FP), R10
	MOVQ mode+160(FP), AX
	MOVQ AX, ret+168(FP)        // mode, kept on the frame
	// Constants: Y15 the move's factors for p1 p0 q0 q1, X14 4, X13 1/8,
	// X12 all but the sign bit; X11 moved, R14 terms.
	MOVQ $0x3fe0000000000000, AX // 0.5
	MOVQ AX, X0
	MOVQ $0x3ff0000000000000, AX // 1
	MOVQ AX, X1
	VUNPCKLPD X1, X0, X0
	MOVQ $0xbff0000000000000, AX // -1
	MOVQ AX, X1
	MOVQ $0xbfe0000000000000, AX // -0.5
	MOVQ AX, X2
	VUNPCKLPD X2, X1, X1
	VINSERTF128 $1, X1, Y0, Y15
	MOVQ $0x4010000000000000, AX // 4
	MOVQ AX, X14
	MOVQ $0x3fc0000000000000, AX // 0.125
	MOVQ AX, X13
	MOVQ $0x7fffffffffffffff, AX
	MOVQ AX, X12
	VMOVSD edgeSums_moved(DI), X11
	MOVQ edgeSums_terms(DI), R14

runLoop:
	CMPQ DX, CX
	JGE  runDone
	MOVBQZX (R11)(DX*1), AX     // ka
	CMPQ AX, $const_deblockNever
	JA   runDone
	CMPQ ret+168(FP), $2
	JNE  runSkip
	// Mode 2: leave the edge to the caller unless no vertical edge sets
	// its samples (kpix all deblockNever: 1..9 AND to 9 only if all are 9).
	LEAQ (R10)(BX*1), R15
	MOVQ R13, R12
	SHRQ $3, R12                // stride in samples (bytes of kpix)
	MOVBLZX (R15), R9
	ANDB (R15)(R12*1), R9
	SUBQ R12, R15
	ANDB (R15), R9
	SUBQ R12, R15
	ANDB (R15), R9
	MOVQ step+96(FP), R12
	CMPB R9, $const_deblockNever
	JNE  runDone

runSkip:
	CMPQ AX, $const_deblockNever
	JEQ  runNext
	LEAQ (SI)(BX*8), R15
	VMOVSD (R15), X2            // q0
	VMOVSD (R15)(R13*1), X3     // q1
	SUBQ R13, R15
	VMOVSD (R15), X1            // p0
	SUBQ R13, R15
	VMOVSD (R15), X0            // p1
	// d = (4(q0 − p0) + p1 − q1)/8, in deblock.go's order.
	VSUBSD X1, X2, X4
	VMULSD X14, X4, X4
	VADDSD X0, X4, X4
	VSUBSD X3, X4, X4
	VMULSD X13, X4, X4
	// |d| <= tc[ka] (false for NaN): the move is not clipped from ka on.
	VANDPD X12, X4, X5
	VMOVSD edgeSums_tc(DI)(AX*8), X6
	VCMPSD $2, X6, X5, X5
	VMOVQ X5, R15
	TESTQ R15, R15
	JZ   runDone
	VUNPCKLPD X1, X0, X7
	VUNPCKLPD X3, X2, X8
	VINSERTF128 $1, X8, Y7, Y7  // px
	VBROADCASTSD X4, Y6
	VMULPD Y15, Y6, Y6
	VADDPD Y6, Y7, Y9           // v: p1 + d/2, p0 + d, q0 − d, q1 − d/2
	// The originals.
	LEAQ (R8)(BX*8), R15
	VMOVSD (R15), X10
	VMOVHPD (R15)(R13*1), X10, X10
	SUBQ R13, R15
	VMOVSD (R15), X1
	SUBQ R13, R15
	VMOVSD (R15), X0
	VUNPCKLPD X1, X0, X0
	VINSERTF128 $1, X10, Y0, Y10 // o
	VSUBPD Y10, Y9, Y0          // v − o
	VSUBPD Y10, Y7, Y1          // px − o
	VMULPD Y0, Y0, Y0           // tn
	VMULPD Y1, Y1, Y1           // tf
	VSUBPD Y1, Y0, Y2           // tn − tf
	VADDPD Y1, Y0, Y3
	VADDPD Y3, Y3, Y3           // 2(tn + tf)
	VCMPPD $4, Y7, Y9, Y4       // v != px (NEQ_UQ: true for NaN)
	VANDPD Y4, Y2, Y2
	VANDPD Y4, Y3, Y3
	VMOVMSKPD Y4, R15
	POPCNTL R15, R15
	ADDQ R15, edgeSums_count(DI)(AX*8)
	ADDQ R15, R14
	// diff[ka] and moved, a sample at a time.
	VMOVSD edgeSums_diff(DI)(AX*8), X5
	VADDSD X2, X5, X5
	VADDSD X3, X11, X11
	VPERMILPD $1, X2, X6
	VPERMILPD $1, X3, X7
	VADDSD X6, X5, X5
	VADDSD X7, X11, X11
	VEXTRACTF128 $1, Y2, X2
	VEXTRACTF128 $1, Y3, X3
	VADDSD X2, X5, X5
	VADDSD X3, X11, X11
	VPERMILPD $1, X2, X6
	VPERMILPD $1, X3, X7
	VADDSD X6, X5, X5
	VADDSD X7, X11, X11
	VMOVSD X5, edgeSums_diff(DI)(AX*8)
	CMPQ ret+168(FP), $1
	JNE  runNext
	// Mode 1: the samples and their strength into von and kpix.
	MOVQ von_base+112(FP), R15
	VMOVUPD Y9, -16(R15)(BX*8)
	IMUL3L $0x01010101, AX, AX
	MOVL AX, -2(R10)(BX*1)

runNext:
	INCQ DX
	ADDQ R12, BX
	JMP  runLoop

runDone:
	VMOVSD X11, edgeSums_moved(DI)
	MOVQ R14, edgeSums_terms(DI)
	MOVQ DX, ret+168(FP)
	VZEROUPPER
	RET
