#include "textflag.h"

// func sseLanesAVX512(rec, orig *float64, n int, lanes *[32]float64)
// Lanes 0-7 in Z0, 8-15 in Z1, 16-23 in Z2, 24-31 in Z3: sample i's
// (rec[i] − orig[i])², rounded, added to lane i mod 32, in order.
TEXT ·sseLanesAVX512(SB), NOSPLIT, $0-32
	MOVQ rec+0(FP), SI
	MOVQ orig+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ lanes+24(FP), DX
	VMOVUPD (DX), Z0
	VMOVUPD 64(DX), Z1
	VMOVUPD 128(DX), Z2
	VMOVUPD 192(DX), Z3
	SHLQ $3, CX
	XORQ AX, AX
	TESTQ CX, CX
	JZ   done
loop:
	VMOVUPD (SI)(AX*1), Z4
	VMOVUPD 64(SI)(AX*1), Z5
	VMOVUPD 128(SI)(AX*1), Z6
	VMOVUPD 192(SI)(AX*1), Z7
	VSUBPD (DI)(AX*1), Z4, Z4
	VSUBPD 64(DI)(AX*1), Z5, Z5
	VSUBPD 128(DI)(AX*1), Z6, Z6
	VSUBPD 192(DI)(AX*1), Z7, Z7
	VMULPD Z4, Z4, Z4
	VMULPD Z5, Z5, Z5
	VMULPD Z6, Z6, Z6
	VMULPD Z7, Z7, Z7
	VADDPD Z4, Z0, Z0
	VADDPD Z5, Z1, Z1
	VADDPD Z6, Z2, Z2
	VADDPD Z7, Z3, Z3
	ADDQ $256, AX
	CMPQ AX, CX
	JLT  loop
done:
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VZEROUPPER
	RET
