#include "textflag.h"

DATA quarter<>+0(SB)/8, $0.25
GLOBL quarter<>(SB), RODATA|NOPTR, $8

// func halveAVX2(dst, r0, r1 []float64)
// dst[x] = (r0[2x] + r0[2x+1] + r1[2x] + r1[2x+1]) / 4, summed in that
// order, for x < len(dst)&^3 (r0 and r1 hold 2 len(dst) values or more).
// ×0.25 is /4 to the last bit.
TEXT ·halveAVX2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ r0_base+24(FP), SI
	MOVQ r1_base+48(FP), DX
	SHRQ $2, CX
	JZ   done
	VBROADCASTSD quarter<>(SB), Y15
loop:
	VMOVUPD   (SI), Y0          // a0 a1 a2 a3
	VMOVUPD   32(SI), Y1        // a4 a5 a6 a7
	VMOVUPD   (DX), Y2          // b0 .. b3
	VMOVUPD   32(DX), Y3        // b4 .. b7
	VUNPCKLPD Y1, Y0, Y4        // a0 a4 a2 a6
	VUNPCKHPD Y1, Y0, Y5        // a1 a5 a3 a7
	VUNPCKLPD Y3, Y2, Y6        // b0 b4 b2 b6
	VUNPCKHPD Y3, Y2, Y7        // b1 b5 b3 b7
	VADDPD    Y5, Y4, Y4
	VADDPD    Y6, Y4, Y4
	VADDPD    Y7, Y4, Y4
	VMULPD    Y15, Y4, Y4       // means of pixels 0 2 1 3
	VPERMPD   $0xd8, Y4, Y4     // 0 1 2 3
	VMOVUPD   Y4, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop
done:
	VZEROUPPER
	RET
