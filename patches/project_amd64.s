#include "textflag.h"

// func projectAVX(dst, block, basis, shift []float64)
// For every group of 16 responses j..j+15 (len(dst) a multiple of 16):
// dst[j+i] = (Σ_l float64(block[l]·basis[l·d+j+i])) − shift[j+i], the
// products rounded by VMULPD and added by VADDPD in the order of l, as
// project sums them (no fused multiply-add).
TEXT ·projectAVX(SB), NOSPLIT, $0-96
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), DX      // d
	MOVQ block_base+24(FP), SI
	MOVQ block_len+32(FP), CX   // number of samples
	MOVQ basis_base+48(FP), R8
	MOVQ shift_base+72(FP), R9
	MOVQ DX, R10
	SHLQ $3, R10                // row stride in bytes
	XORQ BX, BX                 // j
group:
	CMPQ BX, DX
	JGE  done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	LEAQ (R8)(BX*8), R11        // &basis[j]
	MOVQ SI, R12                // &block[0]
	MOVQ CX, R13
	TESTQ R13, R13
	JZ   store
loop:
	VBROADCASTSD (R12), Y4
	VMULPD (R11), Y4, Y5
	VADDPD Y5, Y0, Y0
	VMULPD 32(R11), Y4, Y6
	VADDPD Y6, Y1, Y1
	VMULPD 64(R11), Y4, Y7
	VADDPD Y7, Y2, Y2
	VMULPD 96(R11), Y4, Y8
	VADDPD Y8, Y3, Y3
	ADDQ $8, R12
	ADDQ R10, R11
	DECQ R13
	JNZ  loop
store:
	LEAQ (R9)(BX*8), R14
	VSUBPD (R14), Y0, Y0
	VSUBPD 32(R14), Y1, Y1
	VSUBPD 64(R14), Y2, Y2
	VSUBPD 96(R14), Y3, Y3
	LEAQ (DI)(BX*8), R15
	VMOVUPD Y0, (R15)
	VMOVUPD Y1, 32(R15)
	VMOVUPD Y2, 64(R15)
	VMOVUPD Y3, 96(R15)
	ADDQ $16, BX
	JMP  group
done:
	VZEROUPPER
	RET
