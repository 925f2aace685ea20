#include "textflag.h"

// The lanes' first points.
DATA scan4Lanes<>+0(SB)/8, $0
DATA scan4Lanes<>+8(SB)/8, $1
DATA scan4Lanes<>+16(SB)/8, $2
DATA scan4Lanes<>+24(SB)/8, $3
GLOBL scan4Lanes<>(SB), RODATA|NOPTR, $32

// func scan4AVX2(xs []float64, stride, n int, z *[4]float64, best *[4]float64, idx *[4]int64)
//
// Four points a step, one in each lane: coordinate j of points i..i+3 from
// xs[j*stride+i:]; v = ((t0·t0 + t1·t1) + t2·t2) + t3·t3 with tj = z[j] - x,
// each product and sum rounded (no FMA), as dist2; where v < the lane's
// best (ordered: never for NaN), the lane keeps v and i. The lanes start
// at +Inf and point 0. n is a multiple of 4.
TEXT ·scan4AVX2(SB), NOSPLIT, $0-64
	MOVQ xs_base+0(FP), SI
	MOVQ stride+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ z+40(FP), DX
	VBROADCASTSD 0(DX), Y0
	VBROADCASTSD 8(DX), Y1
	VBROADCASTSD 16(DX), Y2
	VBROADCASTSD 24(DX), Y3
	LEAQ (SI)(BX*8), R8  // coordinate 1
	LEAQ (R8)(BX*8), R9  // 2
	LEAQ (R9)(BX*8), R10 // 3
	MOVQ $0x7ff0000000000000, AX
	MOVQ AX, X4
	VPBROADCASTQ X4, Y4 // lanes' best: +Inf
	VPXOR Y5, Y5, Y5    // lanes' points: 0
	VMOVDQU scan4Lanes<>(SB), Y6
	MOVQ $4, AX
	MOVQ AX, X11
	VPBROADCASTQ X11, Y11
	XORQ AX, AX
	JMP check

loop:
	VMOVUPD (SI)(AX*8), Y8
	VSUBPD Y8, Y0, Y8
	VMULPD Y8, Y8, Y8
	VMOVUPD (R8)(AX*8), Y9
	VSUBPD Y9, Y1, Y9
	VMULPD Y9, Y9, Y9
	VADDPD Y9, Y8, Y8
	VMOVUPD (R9)(AX*8), Y9
	VSUBPD Y9, Y2, Y9
	VMULPD Y9, Y9, Y9
	VADDPD Y9, Y8, Y8
	VMOVUPD (R10)(AX*8), Y9
	VSUBPD Y9, Y3, Y9
	VMULPD Y9, Y9, Y9
	VADDPD Y9, Y8, Y8
	VCMPPD $0x11, Y4, Y8, Y10 // v < best, ordered
	VBLENDVPD Y10, Y8, Y4, Y4
	VBLENDVPD Y10, Y6, Y5, Y5
	VPADDQ Y11, Y6, Y6
	ADDQ $4, AX

check:
	CMPQ AX, CX
	JLT loop
	MOVQ best+48(FP), DX
	VMOVUPD Y4, (DX)
	MOVQ idx+56(FP), DX
	VMOVDQU Y5, (DX)
	VZEROUPPER
	RET
