#include "textflag.h"

// Words 0-2 of a pixel of 3 bytes (word 3, the next pixel's byte, kept).
DATA rgbMask<>+0(SB)/8, $0x0000ffffffffffff
DATA rgbMask<>+8(SB)/8, $0
GLOBL rgbMask<>(SB), RODATA|NOPTR, $16

DATA lowBytes<>+0(SB)/8, $0x00ff00ff00ff00ff
DATA lowBytes<>+8(SB)/8, $0x00ff00ff00ff00ff
GLOBL lowBytes<>(SB), RODATA|NOPTR, $16

// func averageRGBAVX(row, prev []byte, n int)
// Unfilters the first n pixels (3 bytes each) of an Average row, the
// pixel before the first taken as 0: row[i] += (left + up) >> 1, a pixel
// at a time in 16-bit lanes. Each pixel's 4-byte load and store reach
// the next pixel's first byte (stored back unchanged): row and prev hold
// 3n+1 bytes or more. The next pixel's bytes are loaded before this
// pixel's store, which overlaps them: loaded after it, each load waited
// for the store to reach the cache (a store it only partly covers cannot
// be forwarded), ~4 times the pixel's own chain of 4 dependent steps.
TEXT ·averageRGBAVX(SB), NOSPLIT, $0-56
	MOVQ row_base+0(FP), SI
	MOVQ prev_base+24(FP), DX
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JZ   avgdone
	VPXOR   X15, X15, X15
	VMOVDQU rgbMask<>(SB), X14
	VMOVDQU lowBytes<>(SB), X13
	VPAND   X14, X13, X12       // words 0-2 to bytes, word 3 to 0
	VPXOR   X0, X0, X0          // left, word 3 zero
	MOVL       (SI), X1
	VPUNPCKLBW X15, X1, X1      // raw
avg:
	DECQ       CX
	JZ         avglast
	MOVL       3(SI), X3        // the next pixel's raw, before the store
	MOVL       (DX), X2
	VPUNPCKLBW X15, X2, X2      // up
	VPAND      X14, X2, X2      // word 3 zero: the next pixel's byte kept
	VPADDW     X0, X2, X2
	VPSRLW     $1, X2, X2
	VPADDW     X2, X1, X1
	VPAND      X12, X1, X0
	VPAND      X13, X1, X1
	VPACKUSWB  X1, X1, X1
	MOVL       X1, (SI)
	VPUNPCKLBW X15, X3, X1
	ADDQ       $3, SI
	ADDQ       $3, DX
	JMP        avg
avglast:
	MOVL       (DX), X2
	VPUNPCKLBW X15, X2, X2
	VPAND      X14, X2, X2
	VPADDW     X0, X2, X2
	VPSRLW     $1, X2, X2
	VPADDW     X2, X1, X1
	VPAND      X13, X1, X1
	VPACKUSWB  X1, X1, X1
	MOVL       X1, (SI)
avgdone:
	RET

// func paethRGBAVX(row, prev []byte, n int)
// Unfilters the first n pixels of a Paeth row as averageRGBAVX does an
// Average row: the one of left a, up b and up-left c nearest a+b-c, ties
// to a then b (paethByte), in 16-bit lanes; word 3 of a, b and c is 0,
// so that the next pixel's byte is stored back unchanged.
TEXT ·paethRGBAVX(SB), NOSPLIT, $0-56
	MOVQ row_base+0(FP), SI
	MOVQ prev_base+24(FP), DX
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JZ   paethdone
	VPXOR   X15, X15, X15
	VMOVDQU rgbMask<>(SB), X14
	VMOVDQU lowBytes<>(SB), X13
	VPAND   X14, X13, X12       // words 0-2 to bytes, word 3 to 0
	VPXOR   X0, X0, X0          // left a
	VPXOR   X3, X3, X3          // up-left c
	MOVL       (SI), X1
	VPUNPCKLBW X15, X1, X1      // raw
paeth:
	MOVL       (DX), X2
	VPUNPCKLBW X15, X2, X2
	VPAND      X14, X2, X2      // up b
	DECQ       CX
	JZ         paethlast
	MOVL       3(SI), X9        // the next pixel's raw, before the store
	VPSUBW     X3, X2, X4       // b-c
	VPSUBW     X3, X0, X5       // a-c
	VPADDW     X4, X5, X6       // a+b-2c
	VPABSW     X4, X4           // pa
	VPABSW     X5, X5           // pb
	VPABSW     X6, X6           // pc
	VPCMPGTW   X6, X5, X7       // pb > pc
	VPBLENDVB  X7, X3, X2, X8   // b, or c where pb > pc
	VPMINSW    X6, X5, X10
	VPCMPGTW   X10, X4, X10     // pa > min(pb, pc)
	VPBLENDVB  X10, X8, X0, X11 // a, or that where pa > min
	VPADDW     X11, X1, X1
	VPAND      X12, X1, X0
	VPAND      X13, X1, X1
	VMOVDQA    X2, X3
	VPACKUSWB  X1, X1, X1
	MOVL       X1, (SI)
	VPUNPCKLBW X15, X9, X1
	ADDQ       $3, SI
	ADDQ       $3, DX
	JMP        paeth
paethlast:
	VPSUBW     X3, X2, X4
	VPSUBW     X3, X0, X5
	VPADDW     X4, X5, X6
	VPABSW     X4, X4
	VPABSW     X5, X5
	VPABSW     X6, X6
	VPCMPGTW   X6, X5, X7
	VPBLENDVB  X7, X3, X2, X8
	VPMINSW    X6, X5, X10
	VPCMPGTW   X10, X4, X10
	VPBLENDVB  X10, X8, X0, X11
	VPADDW     X11, X1, X1
	VPAND      X13, X1, X1
	VPACKUSWB  X1, X1, X1
	MOVL       X1, (SI)
paethdone:
	RET
