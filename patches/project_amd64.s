#include "textflag.h"

// PROJECTARGS loads the arguments (dst, block, basis, shift []float64) of
// projectAVX and projectAVX512: dst at DI, d in DX, block at SI, its
// length in CX, basis at R8, shift at R9, the basis row stride in bytes
// in R10, and zeroes BX (the first response).
#define PROJECTARGS \
	MOVQ dst_base+0(FP), DI \
	MOVQ dst_len+8(FP), DX \
	MOVQ block_base+24(FP), SI \
	MOVQ block_len+32(FP), CX \
	MOVQ basis_base+48(FP), R8 \
	MOVQ shift_base+72(FP), R9 \
	MOVQ DX, R10 \
	SHLQ $3, R10 \
	XORQ BX, BX

// GRAYARGS loads the arguments (dst []float64, pix []uint8, stride, n int,
// basis, shift []float64) of the 8-bit kernels: dst at DI, pix at SI,
// stride in DX, n in CX, basis at R8, shift at R9.
#define GRAYARGS \
	MOVQ dst_base+0(FP), DI \
	MOVQ pix_base+24(FP), SI \
	MOVQ stride+48(FP), DX \
	MOVQ n+56(FP), CX \
	MOVQ basis_base+64(FP), R8 \
	MOVQ shift_base+88(FP), R9

// func projectAVX(dst, block, basis, shift []float64)
// For every group of 16 responses j..j+15 (len(dst) a multiple of 16):
// dst[j+i] = (Σ_l float64(block[l]·basis[l·d+j+i])) − shift[j+i], the
// products rounded by VMULPD and added by VADDPD in the order of l, as
// project sums them (no fused multiply-add).
TEXT ·projectAVX(SB), NOSPLIT, $0-96
	PROJECTARGS
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

// The AVX-512 kernels' steps, on 8 accumulators Z0-Z7 of 8 responses each.
// ZERO8 clears them.
#define ZERO8 \
	VPXORQ Z0, Z0, Z0 \
	VPXORQ Z1, Z1, Z1 \
	VPXORQ Z2, Z2, Z2 \
	VPXORQ Z3, Z3, Z3 \
	VPXORQ Z4, Z4, Z4 \
	VPXORQ Z5, Z5, Z5 \
	VPXORQ Z6, Z6, Z6 \
	VPXORQ Z7, Z7, Z7

// MULADD8 adds to them the products of the sample broadcast in Z8 and the
// basis row at R11 (64 values), each product rounded before it is added.
#define MULADD8 \
	VMULPD (R11), Z8, Z9 \
	VMULPD 64(R11), Z8, Z10 \
	VMULPD 128(R11), Z8, Z11 \
	VMULPD 192(R11), Z8, Z12 \
	VMULPD 256(R11), Z8, Z13 \
	VMULPD 320(R11), Z8, Z14 \
	VMULPD 384(R11), Z8, Z15 \
	VMULPD 448(R11), Z8, Z16 \
	VADDPD Z9, Z0, Z0 \
	VADDPD Z10, Z1, Z1 \
	VADDPD Z11, Z2, Z2 \
	VADDPD Z12, Z3, Z3 \
	VADDPD Z13, Z4, Z4 \
	VADDPD Z14, Z5, Z5 \
	VADDPD Z15, Z6, Z6 \
	VADDPD Z16, Z7, Z7

// SUBSTORE8 subtracts the 64 shifts at sh from them and stores them at dst.
#define SUBSTORE8(sh, dst) \
	VSUBPD (sh), Z0, Z0 \
	VSUBPD 64(sh), Z1, Z1 \
	VSUBPD 128(sh), Z2, Z2 \
	VSUBPD 192(sh), Z3, Z3 \
	VSUBPD 256(sh), Z4, Z4 \
	VSUBPD 320(sh), Z5, Z5 \
	VSUBPD 384(sh), Z6, Z6 \
	VSUBPD 448(sh), Z7, Z7 \
	VMOVUPD Z0, (dst) \
	VMOVUPD Z1, 64(dst) \
	VMOVUPD Z2, 128(dst) \
	VMOVUPD Z3, 192(dst) \
	VMOVUPD Z4, 256(dst) \
	VMOVUPD Z5, 320(dst) \
	VMOVUPD Z6, 384(dst) \
	VMOVUPD Z7, 448(dst)

// func projectAVX512(dst, block, basis, shift []float64)
// projectAVX for len(dst) a multiple of 64: 8 responses per register, 64
// at once in 8 accumulators, so that the additions of one sample's
// products do not wait on the previous sample's (the chain of additions
// into one accumulator was the AVX kernel's bound); the same products
// and sums, in the same order.
TEXT ·projectAVX512(SB), NOSPLIT, $0-96
	PROJECTARGS
group512:
	CMPQ BX, DX
	JGE  done512
	ZERO8
	LEAQ (R8)(BX*8), R11        // &basis[j]
	MOVQ SI, R12                // &block[0]
	MOVQ CX, R13
	TESTQ R13, R13
	JZ   store512
loop512:
	VBROADCASTSD (R12), Z8
	MULADD8
	ADDQ $8, R12
	ADDQ R10, R11
	DECQ R13
	JNZ  loop512
store512:
	LEAQ (R9)(BX*8), R14
	LEAQ (DI)(BX*8), R15
	SUBSTORE8(R14, R15)
	ADDQ $64, BX
	JMP  group512
done512:
	VZEROUPPER
	RET

// ROW8 converts the 8 bytes at R12 to doubles at off(SP) and steps R12
// to the next row (DX bytes on).
#define ROW8(off) \
	VPMOVZXBD (R12), Y9 \
	VCVTDQ2PD Y9, Z9 \
	VMOVUPD Z9, off(SP) \
	ADDQ DX, R12

// func projectGray8AVX512(dst []float64, pix []uint8, stride, n int, basis, shift []float64)
// For each of n 8×8 blocks side by side, the first at pix (rows
// stride bytes apart, the next 8 bytes to the right), its 64 samples as
// float64 (exact) into the frame, then its 64 responses into dst (64
// each) as projectAVX512 sums them.
TEXT ·projectGray8AVX512(SB), $512-112
	GRAYARGS
gblock:
	TESTQ CX, CX
	JZ    gdone
	// The block's samples, row by row: 8 bytes to 8 doubles.
	MOVQ SI, R12
	ROW8(0)
	ROW8(64)
	ROW8(128)
	ROW8(192)
	ROW8(256)
	ROW8(320)
	ROW8(384)
	VPMOVZXBD (R12), Y9
	VCVTDQ2PD Y9, Z9
	VMOVUPD Z9, 448(SP)
	ZERO8
	MOVQ R8, R11                // &basis[0]
	XORQ R12, R12               // sample offset in the frame
gloop:
	VBROADCASTSD (SP)(R12*1), Z8
	MULADD8
	ADDQ $512, R11
	ADDQ $8, R12
	CMPQ R12, $512
	JLT  gloop
	SUBSTORE8(R9, DI)
	ADDQ $512, DI
	ADDQ $8, SI
	DECQ CX
	JMP  gblock
gdone:
	VZEROUPPER
	RET

// FROW8 adds the products of the 8 samples of the plane row at R12 (8
// doubles) with basis rows R11 on, in the order of the samples, and
// steps R11 past the 8 basis rows and R12 to the next plane row.
#define FROW8 \
	VBROADCASTSD (R12), Z8 \
	MULADD8 \
	VBROADCASTSD 8(R12), Z8 \
	ADDQ $512, R11 \
	MULADD8 \
	VBROADCASTSD 16(R12), Z8 \
	ADDQ $512, R11 \
	MULADD8 \
	VBROADCASTSD 24(R12), Z8 \
	ADDQ $512, R11 \
	MULADD8 \
	VBROADCASTSD 32(R12), Z8 \
	ADDQ $512, R11 \
	MULADD8 \
	VBROADCASTSD 40(R12), Z8 \
	ADDQ $512, R11 \
	MULADD8 \
	VBROADCASTSD 48(R12), Z8 \
	ADDQ $512, R11 \
	MULADD8 \
	VBROADCASTSD 56(R12), Z8 \
	ADDQ $512, R11 \
	MULADD8 \
	ADDQ $512, R11 \
	ADDQ DX, R12

// PREFETCHROWS(off) prefetches the line off bytes on in each of the 8
// plane rows from SI (DX bytes apart; R13 and R14 scratch).
#define PREFETCHROWS(off) \
	LEAQ (SI)(DX*2), R14 \
	ADDQ DX, R14 \
	LEAQ (R14)(DX*2), R13 \
	ADDQ DX, R13 \
	PREFETCHT0 off(SI) \
	PREFETCHT0 off(SI)(DX*1) \
	PREFETCHT0 off(SI)(DX*2) \
	PREFETCHT0 off(R14) \
	PREFETCHT0 off(SI)(DX*4) \
	PREFETCHT0 off(R14)(DX*2) \
	PREFETCHT0 off(R13) \
	PREFETCHT0 off(R14)(DX*4)

// func projectFloat8AVX512(dst, pix []float64, stride, n int, basis, shift []float64)
// For each of n 8×8 blocks side by side, the first at pix (rows stride
// doubles apart, the next 8 doubles to the right), its 64 responses into
// dst (64 each) as projectAVX512 sums them for the block's samples
// copied row by row, read from the plane where they lie.
TEXT ·projectFloat8AVX512(SB), NOSPLIT, $0-112
	GRAYARGS
	SHLQ $3, DX                 // the stride in bytes
fblock:
	TESTQ CX, CX
	JZ    fdone
	// The 8 rows of the block after next, for the loads that begin each
	// row (a fifth of the kernel's samples waited on them: the plane is
	// out of the L2, each row a line of its own, and a block's ~600
	// instructions keep the next block's loads out of reach). A
	// prefetch past the plane does not fault.
	PREFETCHROWS(128)
	ZERO8
	MOVQ R8, R11                // &basis[0]
	MOVQ SI, R12                // the block's first row
	MOVQ $8, R13
frow:
	FROW8
	DECQ R13
	JNZ  frow
	SUBSTORE8(R9, DI)
	ADDQ $512, DI
	ADDQ $64, SI
	DECQ CX
	JMP  fblock
fdone:
	VZEROUPPER
	RET

// ROW4X4(off) converts the 16 bytes at R12 (row r of 4 side-by-side 4×4
// blocks) to doubles: blocks 0 and 1's 4 samples to off(SP) and
// 128+off(SP), blocks 2 and 3's to 256+off(SP) and 384+off(SP) (block k's
// 16 samples at 128·k(SP)); steps R12 to the next row (DX bytes on).
#define ROW4X4(off) \
	VPMOVZXBD (R12), Y9 \
	VCVTDQ2PD Y9, Z9 \
	VMOVUPD Y9, off(SP) \
	VEXTRACTF64X4 $1, Z9, Y10 \
	VMOVUPD Y10, 128+off(SP) \
	VPMOVZXBD 8(R12), Y9 \
	VCVTDQ2PD Y9, Z9 \
	VMOVUPD Y9, 256+off(SP) \
	VEXTRACTF64X4 $1, Z9, Y10 \
	VMOVUPD Y10, 384+off(SP) \
	ADDQ DX, R12

// func projectGray4AVX512(dst []float64, pix []uint8, stride, n int, basis, shift []float64)
// For each of n groups of 4 side-by-side 4×4 blocks, the first at
// pix (rows stride bytes apart, the next group 16 bytes to the right),
// their samples as float64 (exact) into the frame, then their 16
// responses each into dst (64 a group): block k's in Z(2k), Z(2k+1),
// each sample's products rounded and added in order as project does.
TEXT ·projectGray4AVX512(SB), $512-112
	GRAYARGS
qgroup:
	TESTQ CX, CX
	JZ    qdone
	MOVQ SI, R12
	ROW4X4(0)
	ROW4X4(32)
	ROW4X4(64)
	ROW4X4(96)
	ZERO8
	MOVQ R8, R11                // &basis[0]
	XORQ R12, R12               // sample offset in a block's frame
qloop:
	VMOVUPD (R11), Z24
	VMOVUPD 64(R11), Z25
	VBROADCASTSD (SP)(R12*1), Z8
	VBROADCASTSD 128(SP)(R12*1), Z17
	VBROADCASTSD 256(SP)(R12*1), Z18
	VBROADCASTSD 384(SP)(R12*1), Z19
	VMULPD Z24, Z8, Z9
	VMULPD Z25, Z8, Z10
	VMULPD Z24, Z17, Z11
	VMULPD Z25, Z17, Z12
	VMULPD Z24, Z18, Z13
	VMULPD Z25, Z18, Z14
	VMULPD Z24, Z19, Z15
	VMULPD Z25, Z19, Z16
	VADDPD Z9, Z0, Z0
	VADDPD Z10, Z1, Z1
	VADDPD Z11, Z2, Z2
	VADDPD Z12, Z3, Z3
	VADDPD Z13, Z4, Z4
	VADDPD Z14, Z5, Z5
	VADDPD Z15, Z6, Z6
	VADDPD Z16, Z7, Z7
	ADDQ $128, R11
	ADDQ $8, R12
	CMPQ R12, $128
	JLT  qloop
	VMOVUPD (R9), Z24
	VMOVUPD 64(R9), Z25
	VSUBPD Z24, Z0, Z0
	VSUBPD Z25, Z1, Z1
	VSUBPD Z24, Z2, Z2
	VSUBPD Z25, Z3, Z3
	VSUBPD Z24, Z4, Z4
	VSUBPD Z25, Z5, Z5
	VSUBPD Z24, Z6, Z6
	VSUBPD Z25, Z7, Z7
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	VMOVUPD Z4, 256(DI)
	VMOVUPD Z5, 320(DI)
	VMOVUPD Z6, 384(DI)
	VMOVUPD Z7, 448(DI)
	ADDQ $512, DI
	ADDQ $16, SI
	DECQ CX
	JMP  qgroup
qdone:
	VZEROUPPER
	RET

// The pair kernels' steps, on 16 accumulators: Z0-Z7 the first block's 64
// responses, Z8-Z15 the second's. ZERO16 clears them.
#define ZERO16 \
	ZERO8 \
	VPXORQ Z8, Z8, Z8 \
	VPXORQ Z9, Z9, Z9 \
	VPXORQ Z10, Z10, Z10 \
	VPXORQ Z11, Z11, Z11 \
	VPXORQ Z12, Z12, Z12 \
	VPXORQ Z13, Z13, Z13 \
	VPXORQ Z14, Z14, Z14 \
	VPXORQ Z15, Z15, Z15

// LOAD8(p) loads the 64 doubles at p (a basis row, the shifts) into
// Z16-Z23.
#define LOAD8(p) \
	VMOVUPD (p), Z16 \
	VMOVUPD 64(p), Z17 \
	VMOVUPD 128(p), Z18 \
	VMOVUPD 192(p), Z19 \
	VMOVUPD 256(p), Z20 \
	VMOVUPD 320(p), Z21 \
	VMOVUPD 384(p), Z22 \
	VMOVUPD 448(p), Z23

// MULADD2(a, b) adds to them the products of the basis row at R11 (64
// values, loaded once into Z16-Z23) with the first block's sample at a
// and the second's at b (broadcast into Z24 and Z25): the products
// MULADD8 rounds and adds for each block alone, in the same order.
#define MULADD2(a, b) \
	LOAD8(R11) \
	VBROADCASTSD a, Z24 \
	VBROADCASTSD b, Z25 \
	VMULPD Z16, Z24, Z26 \
	VMULPD Z16, Z25, Z27 \
	VMULPD Z17, Z24, Z28 \
	VMULPD Z17, Z25, Z29 \
	VADDPD Z26, Z0, Z0 \
	VADDPD Z27, Z8, Z8 \
	VADDPD Z28, Z1, Z1 \
	VADDPD Z29, Z9, Z9 \
	VMULPD Z18, Z24, Z30 \
	VMULPD Z18, Z25, Z31 \
	VMULPD Z19, Z24, Z26 \
	VMULPD Z19, Z25, Z27 \
	VADDPD Z30, Z2, Z2 \
	VADDPD Z31, Z10, Z10 \
	VADDPD Z26, Z3, Z3 \
	VADDPD Z27, Z11, Z11 \
	VMULPD Z20, Z24, Z28 \
	VMULPD Z20, Z25, Z29 \
	VMULPD Z21, Z24, Z30 \
	VMULPD Z21, Z25, Z31 \
	VADDPD Z28, Z4, Z4 \
	VADDPD Z29, Z12, Z12 \
	VADDPD Z30, Z5, Z5 \
	VADDPD Z31, Z13, Z13 \
	VMULPD Z22, Z24, Z26 \
	VMULPD Z22, Z25, Z27 \
	VMULPD Z23, Z24, Z28 \
	VMULPD Z23, Z25, Z29 \
	VADDPD Z26, Z6, Z6 \
	VADDPD Z27, Z14, Z14 \
	VADDPD Z28, Z7, Z7 \
	VADDPD Z29, Z15, Z15

// SUBSTORE16 subtracts the 64 shifts at R9 from both blocks' responses
// and stores the first block's at DI, the second's 512 bytes on.
#define SUBSTORE16 \
	LOAD8(R9) \
	VSUBPD Z16, Z0, Z0 \
	VSUBPD Z17, Z1, Z1 \
	VSUBPD Z18, Z2, Z2 \
	VSUBPD Z19, Z3, Z3 \
	VSUBPD Z20, Z4, Z4 \
	VSUBPD Z21, Z5, Z5 \
	VSUBPD Z22, Z6, Z6 \
	VSUBPD Z23, Z7, Z7 \
	VSUBPD Z16, Z8, Z8 \
	VSUBPD Z17, Z9, Z9 \
	VSUBPD Z18, Z10, Z10 \
	VSUBPD Z19, Z11, Z11 \
	VSUBPD Z20, Z12, Z12 \
	VSUBPD Z21, Z13, Z13 \
	VSUBPD Z22, Z14, Z14 \
	VSUBPD Z23, Z15, Z15 \
	VMOVUPD Z0, (DI) \
	VMOVUPD Z1, 64(DI) \
	VMOVUPD Z2, 128(DI) \
	VMOVUPD Z3, 192(DI) \
	VMOVUPD Z4, 256(DI) \
	VMOVUPD Z5, 320(DI) \
	VMOVUPD Z6, 384(DI) \
	VMOVUPD Z7, 448(DI) \
	VMOVUPD Z8, 512(DI) \
	VMOVUPD Z9, 576(DI) \
	VMOVUPD Z10, 640(DI) \
	VMOVUPD Z11, 704(DI) \
	VMOVUPD Z12, 768(DI) \
	VMOVUPD Z13, 832(DI) \
	VMOVUPD Z14, 896(DI) \
	VMOVUPD Z15, 960(DI)

// ROW16(off) converts the 16 bytes at R12 (row r of two side-by-side
// blocks) to doubles, the first block's 8 at off(SP), the second's at
// 512+off(SP), and steps R12 to the next row (DX bytes on).
#define ROW16(off) \
	VPMOVZXBD (R12), Y24 \
	VCVTDQ2PD Y24, Z24 \
	VMOVUPD Z24, off(SP) \
	VPMOVZXBD 8(R12), Y25 \
	VCVTDQ2PD Y25, Z25 \
	VMOVUPD Z25, 512+off(SP) \
	ADDQ DX, R12

// func projectGray8x2AVX512(dst []float64, pix []uint8, stride, n int, basis, shift []float64)
// projectGray8AVX512 for n pairs of side-by-side 8×8 blocks (2n blocks),
// each basis row loaded once for both blocks of a pair: the single-block
// kernel's 9 loads for 8 products a sample (two 512-bit loads a cycle)
// kept it from the multiplier's 2 products a cycle. Each block's
// responses are the same products, rounded and added in the same order.
TEXT ·projectGray8x2AVX512(SB), $1024-112
	GRAYARGS
g2pair:
	TESTQ CX, CX
	JZ    g2done
	MOVQ SI, R12
	ROW16(0)
	ROW16(64)
	ROW16(128)
	ROW16(192)
	ROW16(256)
	ROW16(320)
	ROW16(384)
	ROW16(448)
	ZERO16
	MOVQ R8, R11                // &basis[0]
	XORQ R12, R12               // sample offset in a block's frame
g2loop:
	MULADD2((SP)(R12*1), 512(SP)(R12*1))
	ADDQ $512, R11
	ADDQ $8, R12
	CMPQ R12, $512
	JLT  g2loop
	SUBSTORE16
	ADDQ $1024, DI
	ADDQ $16, SI
	DECQ CX
	JMP  g2pair
g2done:
	VZEROUPPER
	RET

// func projectFloat8x2AVX512(dst, pix []float64, stride, n int, basis, shift []float64)
// projectFloat8AVX512 for n pairs of side-by-side blocks (2n blocks),
// each basis row loaded once for both blocks of a pair, as
// projectGray8x2AVX512; the rows of the next pair prefetched.
TEXT ·projectFloat8x2AVX512(SB), NOSPLIT, $0-112
	GRAYARGS
	SHLQ $3, DX                 // the stride in bytes
f2pair:
	TESTQ CX, CX
	JZ    f2done
	PREFETCHROWS(128)
	PREFETCHROWS(192)
	ZERO16
	MOVQ R8, R11                // &basis[0]
	MOVQ SI, R12                // the pair's first row
	MOVQ $8, R13
f2row:
	// The row's 8 samples of each block (the second's 64 bytes on), in
	// order, with basis rows R11 on.
	MOVQ $8, R14
f2sample:
	MULADD2((R12), 64(R12))
	ADDQ $512, R11
	ADDQ $8, R12
	DECQ R14
	JNZ  f2sample
	LEAQ -64(R12)(DX*1), R12    // the next plane row
	DECQ R13
	JNZ  f2row
	SUBSTORE16
	ADDQ $1024, DI
	ADDQ $128, SI
	DECQ CX
	JMP  f2pair
f2done:
	VZEROUPPER
	RET
