#include "textflag.h"
#include "go_asm.h"

// func edgeRunAVX2(s *edgeSums, rec, orig []float64, ks []uint8, i, at, step, stride int, von []float64, kpix []uint8, mode int) int
// edgeSums.edge of the edges i, i+1, ... of a run (edge j's q0 at
// rec[at+j·step], its samples stride apart, its first strength ks[j])
// that pass from there on, unclipped: their changes added in order, a
// lane per sample, each sum (diff[ka], moved) still one addition at a
// time. An edge with ks[j] = deblockNever is skipped; it stops at the
// first edge whose ks[j] exceeds deblockNever or whose move may clip
// (not |d| <= tc[ka]): the edge it returns the index of
// (len(ks) at the end) is the caller's. In mode 1 it also writes each
// passing edge's samples to von and its strength to kpix (stride 1).
// In mode 2 (the columns of a band, stride w) an edge whose four kpix
// are not all deblockNever (a vertical edge sets a sample from kpix on,
// to its value in von) takes edgeSums.band's states, where the
// thresholds grow (s.tab set); otherwise it is the caller's.
// The changes of samples that stay are added as +0, which leaves a sum
// as it is: no sum is −0 (squares are +0 or more, and x − x is +0).
TEXT ·edgeRunAVX2(SB), NOSPLIT, $320-176
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
	VBROADCASTSD X12, Y12
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
	JNE  runMulti

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

// A column of several states (mode 2): edgeSums.band's loop over them.
// Each state's samples, first strength kh and move d go to the frame
// (at most 5 states, 64 bytes each) unless its edge is off; if one may
// clip, the column is the caller's with nothing added. Then each state's
// changes: diff[kh] and diff[kb] (kb the state's end), moved, counts.
runMulti:
	MOVQ edgeSums_tab(DI), R15
	TESTQ R15, R15
	JZ   runDone                // thresholds that do not grow: no kmin here
	// The strengths of the column's four samples as dwords in X2.
	LEAQ (R10)(BX*1), R15
	MOVQ R13, R12
	SHRQ $3, R12
	MOVBLZX (R15), CX
	SHLL $16, CX
	MOVBLZX (R15)(R12*1), R9
	SHLL $24, R9
	ORL  R9, CX
	SUBQ R12, R15
	MOVBLZX (R15), R9
	SHLL $8, R9
	ORL  R9, CX
	SUBQ R12, R15
	MOVBLZX (R15), R9
	ORL  R9, CX
	VMOVD CX, X2
	VPMOVZXBD X2, X2
	MOVL $const_deblockNever, CX
	VMOVD CX, X3
	VPBROADCASTD X3, X3
	// The samples as they are (off, Y0) and as their vertical edges set
	// them (on, Y1).
	LEAQ (SI)(BX*8), R15
	VMOVSD (R15), X5
	VMOVHPD (R15)(R13*1), X5, X5
	SUBQ R13, R15
	SUBQ R13, R15
	VMOVSD (R15), X0
	VMOVHPD (R15)(R13*1), X0, X0
	VINSERTF128 $1, X5, Y0, Y0
	MOVQ von_base+112(FP), R15
	LEAQ (R15)(BX*8), R15
	VMOVSD (R15), X5
	VMOVHPD (R15)(R13*1), X5, X5
	SUBQ R13, R15
	SUBQ R13, R15
	VMOVSD (R15), X1
	VMOVHPD (R15)(R13*1), X1, X1
	VINSERTF128 $1, X5, Y1, Y1
	MOVQ $1, AX                 // ka
	XORQ R12, R12               // the frame's bytes of states
multiState:
	VMOVD AX, X5
	VPBROADCASTD X5, X5
	VPCMPGTD X5, X2, X6         // rows whose strength exceeds ka: off
	VPMOVSXDQ X6, Y7
	VBLENDVPD Y7, Y0, Y1, Y4    // px
	VBLENDVPS X6, X2, X3, X8
	VPSHUFD $0x4e, X8, X9
	VPMINUD X9, X8, X8
	VPSHUFD $0xb1, X8, X9
	VPMINUD X9, X8, X8
	VMOVD X8, R9                // kb: the least strength above ka, never if none
	// kmin of px: 1 + the strengths 1..8 where a test fails (NLT_US:
	// true for NaN), for thresholds that grow.
	VPERMPD $0xf8, Y4, Y5       // p1 q0 q1 q1
	VPERMPD $0xa5, Y4, Y6       // p0 p0 q0 q0
	VSUBPD Y6, Y5, Y5           // p1 − p0, q0 − p0, q1 − q0
	VANDPD Y12, Y5, Y6
	VPERMPD $0x55, Y6, Y7       // |q0 − p0|
	VPERMPD $0x00, Y6, Y8       // |p1 − p0|
	VPERMPD $0xaa, Y6, Y9       // |q1 − q0|
	VCMPPD $5, edgeSums_alpha+8(DI), Y7, Y10
	VCMPPD $5, edgeSums_beta+8(DI), Y8, Y6
	VORPD Y6, Y10, Y10
	VCMPPD $5, edgeSums_beta+8(DI), Y9, Y6
	VORPD Y6, Y10, Y10
	VMOVMSKPD Y10, R15
	POPCNTL R15, R15
	VCMPPD $5, edgeSums_alpha+40(DI), Y7, Y10
	VCMPPD $5, edgeSums_beta+40(DI), Y8, Y6
	VORPD Y6, Y10, Y10
	VCMPPD $5, edgeSums_beta+40(DI), Y9, Y6
	VORPD Y6, Y10, Y10
	VMOVMSKPD Y10, CX
	POPCNTL CX, CX
	LEAQ 1(R15)(CX*1), R15      // kmin
	CMPQ R15, AX
	CMOVQLT AX, R15             // kh = max(ka, kmin)
	CMPQ R15, R9
	JGE  multiNext              // off in this state
	// d, in deblock.go's order: q0 − p0 is lane 1 of Y5.
	VPERMILPD $1, X5, X6
	VMULSD X14, X6, X6
	VADDSD X4, X6, X6
	VEXTRACTF128 $1, Y4, X7
	VPERMILPD $1, X7, X7
	VSUBSD X7, X6, X6
	VMULSD X13, X6, X6
	VANDPD X12, X6, X7
	VMOVSD edgeSums_tc(DI)(R15*8), X8
	VCMPSD $2, X8, X7, X7
	VMOVQ X7, CX
	TESTQ CX, CX
	JZ   runDone                // may clip: the column is the caller's
	VMOVUPD Y4, 0(SP)(R12*1)
	VMOVSD X6, 32(SP)(R12*1)
	MOVQ R15, 40(SP)(R12*1)
	MOVQ R9, 48(SP)(R12*1)
	ADDQ $64, R12
multiNext:
	MOVQ R9, AX
	CMPQ AX, $const_maxDeblock
	JLE  multiState
	TESTQ R12, R12
	JZ   multiDone
	// The originals of the column (Y10).
	LEAQ (R8)(BX*8), R15
	VMOVSD (R15), X5
	VMOVHPD (R15)(R13*1), X5, X5
	SUBQ R13, R15
	SUBQ R13, R15
	VMOVSD (R15), X10
	VMOVHPD (R15)(R13*1), X10, X10
	VINSERTF128 $1, X5, Y10, Y10
	XORQ CX, CX
multiCommit:
	VMOVUPD 0(SP)(CX*1), Y7     // px
	VBROADCASTSD 32(SP)(CX*1), Y6
	MOVQ 40(SP)(CX*1), AX       // kh
	MOVQ 48(SP)(CX*1), R9       // kb
	VMULPD Y15, Y6, Y6
	VADDPD Y6, Y7, Y9           // v
	VSUBPD Y10, Y9, Y0
	VSUBPD Y10, Y7, Y1
	VMULPD Y0, Y0, Y0
	VMULPD Y1, Y1, Y1
	VSUBPD Y1, Y0, Y2           // tn − tf
	VADDPD Y1, Y0, Y3
	VADDPD Y3, Y3, Y3           // 2(tn + tf)
	VCMPPD $4, Y7, Y9, Y4
	VANDPD Y4, Y2, Y2
	VANDPD Y4, Y3, Y3
	VMOVMSKPD Y4, R15
	POPCNTL R15, R15
	ADDQ R15, edgeSums_count(DI)(AX*8)
	SUBQ R15, edgeSums_count(DI)(R9*8)
	ADDQ R15, R14
	VMOVSD edgeSums_diff(DI)(AX*8), X5
	VMOVSD edgeSums_diff(DI)(R9*8), X8
	VADDSD X2, X5, X5
	VSUBSD X2, X8, X8
	VADDSD X3, X11, X11
	VPERMILPD $1, X2, X6
	VPERMILPD $1, X3, X7
	VADDSD X6, X5, X5
	VSUBSD X6, X8, X8
	VADDSD X7, X11, X11
	VEXTRACTF128 $1, Y2, X2
	VEXTRACTF128 $1, Y3, X3
	VADDSD X2, X5, X5
	VSUBSD X2, X8, X8
	VADDSD X3, X11, X11
	VPERMILPD $1, X2, X6
	VPERMILPD $1, X3, X7
	VADDSD X6, X5, X5
	VSUBSD X6, X8, X8
	VADDSD X7, X11, X11
	VMOVSD X5, edgeSums_diff(DI)(AX*8)
	VMOVSD X8, edgeSums_diff(DI)(R9*8)
	ADDQ $64, CX
	CMPQ CX, R12
	JB   multiCommit
multiDone:
	MOVQ ks_len+64(FP), CX
	MOVQ step+96(FP), R12
	JMP  runNext

runDone:
	VMOVSD X11, edgeSums_moved(DI)
	MOVQ R14, edgeSums_terms(DI)
	MOVQ DX, ret+168(FP)
	VZEROUPPER
	RET
