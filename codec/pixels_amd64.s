#include "textflag.h"

// func pixelsAVX(pix, start, w0, y []float64, nz []int)
// For every group of 16 pixels p..p+15 (len(pix) = d, a multiple of 16):
// pix[p+i] = start[p+i] + Σ_t float64(w0[nz[t]·d+p+i]·y[nz[t]]), the
// products rounded by VMULPD and added by VADDPD in the order of t, as
// pixelsFrom's Go loop sums them (no fused multiply-add).
TEXT ·pixelsAVX(SB), NOSPLIT, $0-120
	MOVQ pix_base+0(FP), DI
	MOVQ pix_len+8(FP), DX      // d
	MOVQ start_base+24(FP), SI
	MOVQ w0_base+48(FP), R8
	MOVQ y_base+72(FP), R9
	MOVQ nz_base+96(FP), R10
	MOVQ nz_len+104(FP), CX
	MOVQ DX, R11
	SHLQ $3, R11                // row stride of w0 in bytes
	XORQ BX, BX                 // p
group:
	CMPQ BX, DX
	JGE  done
	LEAQ (SI)(BX*8), R12        // &start[p]
	VMOVUPD (R12), Y0
	VMOVUPD 32(R12), Y1
	VMOVUPD 64(R12), Y2
	VMOVUPD 96(R12), Y3
	LEAQ (R8)(BX*8), R13        // &w0[p]
	XORQ R14, R14               // t
	TESTQ CX, CX
	JZ   store
loop:
	MOVQ (R10)(R14*8), AX       // j = nz[t]
	VBROADCASTSD (R9)(AX*8), Y4 // y[j]
	IMULQ R11, AX               // j·d·8
	VMULPD (R13)(AX*1), Y4, Y5
	VADDPD Y5, Y0, Y0
	VMULPD 32(R13)(AX*1), Y4, Y6
	VADDPD Y6, Y1, Y1
	VMULPD 64(R13)(AX*1), Y4, Y7
	VADDPD Y7, Y2, Y2
	VMULPD 96(R13)(AX*1), Y4, Y8
	VADDPD Y8, Y3, Y3
	INCQ R14
	CMPQ R14, CX
	JLT  loop
store:
	LEAQ (DI)(BX*8), R15        // &pix[p]
	VMOVUPD Y0, (R15)
	VMOVUPD Y1, 32(R15)
	VMOVUPD Y2, 64(R15)
	VMOVUPD Y3, 96(R15)
	ADDQ $16, BX
	JMP  group
done:
	VZEROUPPER
	RET
