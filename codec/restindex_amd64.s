#include "textflag.h"

// restTable's layout (restindex.go): slices lo, scale, last (float64),
// firstAt, tAt (int64), first (int32), t (float64), 24 bytes each; steps.
#define RT_LO 0
#define RT_SCALE 24
#define RT_LAST 48
#define RT_FIRSTAT 72
#define RT_TAT 96
#define RT_FIRST 120
#define RT_T 144
#define RT_STEPS 168
#define RT_NEAR 176
#define RT_BASE 200

// func restIndicesAVX(out []int32, row []float64, rt *restTable)
TEXT ·restIndicesAVX(SB), NOSPLIT, $8-56
	MOVQ out_base+0(FP), DI
	MOVQ out_len+8(FP), CX
	MOVQ row_base+24(FP), SI
	MOVQ rt+48(FP), DX
	MOVQ RT_LO(DX), R8
	MOVQ RT_SCALE(DX), R9
	MOVQ RT_LAST(DX), R10
	MOVQ RT_FIRSTAT(DX), R11
	MOVQ RT_TAT(DX), R12
	MOVQ RT_FIRST(DX), R13
	MOVQ RT_T(DX), R14
	MOVQ RT_NEAR(DX), R15
	MOVQ RT_STEPS(DX), AX
	MOVQ AX, 0(SP)              // steps
	MOVQ RT_BASE(DX), DX
	VXORPD Y10, Y10, Y10        // 0
	VPCMPEQQ Y11, Y11, Y11      // all ones: the gathers' masks
	XORQ BX, BX                 // j
group:
	CMPQ BX, CX
	JGE  done
	VMOVUPD (SI)(BX*8), Y0      // v
	// All four in their windows, lo < v <= hi (ordered compares: false
	// for NaN): base + [t[s] < v] + [t[s+1] < v], no gathers.
	MOVQ BX, AX
	SHLQ $5, AX                 // the group's window, 128 bytes a group
	VCMPPD $0x1e, (R15)(AX*1), Y0, Y6   // v > lo (GT_OQ)
	VCMPPD $0x12, 32(R15)(AX*1), Y0, Y7 // v <= hi (LE_OQ)
	VCMPPD $0x1e, 64(R15)(AX*1), Y0, Y8 // v > t[s]
	VCMPPD $0x1e, 96(R15)(AX*1), Y0, Y9 // v > t[s+1]
	VANDPD Y7, Y6, Y6
	VMOVMSKPD Y6, AX
	CMPL AX, $15
	JNE  gathered
	VMOVDQU (DX)(BX*8), Y3
	VPSUBQ Y8, Y3, Y3           // true lanes are −1
	VPSUBQ Y9, Y3, Y3
	VPSHUFD $0x08, Y3, Y3       // the low halves: lanes 0 1 | 4 5
	VPERMQ $0x08, Y3, Y3        // qwords 0 2
	VMOVDQU X3, (DI)(BX*4)
	ADDQ $4, BX
	JMP  group
gathered:
	VSUBPD (R8)(BX*8), Y0, Y1   // v − lo
	VMULPD (R9)(BX*8), Y1, Y1   // · scale
	VMAXPD Y10, Y1, Y1          // !(x >= 0): 0
	VMINPD (R10)(BX*8), Y1, Y1  // at most the last bucket
	VCVTTPD2DQY Y1, X1          // bucket
	VPMOVSXDQ X1, Y1
	VPADDQ (R11)(BX*8), Y1, Y1  // its place in first
	VMOVDQU Y11, Y2
	VPXOR X3, X3, X3
	VPGATHERQD X2, (R13)(Y1*4), X3
	VPMOVSXDQ X3, Y3            // i: the place of the first threshold to test
	MOVQ 0(SP), AX
scan:
	VMOVDQU Y11, Y4
	VXORPD Y5, Y5, Y5
	VGATHERQPD Y4, (R14)(Y3*8), Y5 // t[i]
	VCMPPD $0x11, Y0, Y5, Y6    // t[i] < v (ordered: false for NaN)
	VPSUBQ Y6, Y3, Y3           // i+1 where t[i] < v
	DECQ AX
	JNZ  scan
	VPSUBQ (R12)(BX*8), Y3, Y3  // the index in the dimension's thresholds
	VPSHUFD $0x08, Y3, Y3       // the low halves: lanes 0 1 | 4 5
	VPERMQ $0x08, Y3, Y3        // qwords 0 2
	VMOVDQU X3, (DI)(BX*4)
	ADDQ $4, BX
	JMP  group
done:
	VZEROUPPER
	RET

// func sameCountAVX2(a, b []int32) int
// How many of the first len(a) (a multiple of 8) elements of a and b
// are equal: VPCMPEQD, VMOVMSKPS, POPCNT, 8 at a time.
TEXT ·sameCountAVX2(SB), NOSPLIT, $0-56
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	XORQ AX, AX
	SHRQ $3, CX
	JZ   sameDone
sameLoop:
	VMOVDQU  (SI), Y0
	VPCMPEQD (DI), Y0, Y0
	VMOVMSKPS Y0, DX
	POPCNTL  DX, DX
	ADDQ     DX, AX
	ADDQ     $32, SI
	ADDQ     $32, DI
	DECQ     CX
	JNZ      sameLoop
	VZEROUPPER
sameDone:
	MOVQ AX, ret+48(FP)
	RET

// func restFarAVX2(q []int32, row []float64, lo, span, at, lenB []int32, levels []float64, limit float64) int
// Per group of 8 dimensions (len(q) a multiple of 8): the cells outside
// their safe runs, uint32(q−lo) > span (the differences biased by
// 0x80000000 and compared signed with span, biased too); none, the next
// group.
// Else 2 if one of those cells is past its quantiser's levels (unsigned
// q >= len, lenB biased as span), and for the others their levels
// gathered from levels[at[j]+q[j]] (masked lanes load nothing) and
// compared as findOutliers does: |row[j] − level| (the difference
// rounded, the sign bit cleared) > limit, false for NaN (VCMPPD
// GT_OQ); 1 at the first group with one. 0 if none.
TEXT ·restFarAVX2(SB), NOSPLIT, $0-184
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), CX
	MOVQ row_base+24(FP), R10
	MOVQ lo_base+48(FP), DI
	MOVQ span_base+72(FP), DX
	MOVQ at_base+96(FP), R8
	MOVQ lenB_base+120(FP), R11
	MOVQ levels_base+144(FP), R9
	VBROADCASTSD limit+168(FP), Y8
	MOVQ $0x80000000, AX
	MOVQ AX, X4
	VPBROADCASTD X4, Y4
	MOVQ $0x7fffffffffffffff, AX
	MOVQ AX, X7
	VPBROADCASTQ X7, Y7
	XORQ AX, AX
	SHRQ $3, CX
	JZ   farDone
farLoop:
	VMOVDQU  (SI), Y0
	VPSUBD   (DI), Y0, Y1
	VPXOR    Y4, Y1, Y1
	VPCMPGTD (DX), Y1, Y1        // outside the safe run
	VPTEST   Y1, Y1
	JZ       farNext
	VPXOR    Y4, Y0, Y2
	VMOVDQU  (R11), Y3
	VPCMPGTD Y2, Y3, Y3          // q < len, unsigned
	VPANDN   Y1, Y3, Y5          // outside and past the levels
	VPTEST   Y5, Y5
	JNZ      farBad
	VPADDD   (R8), Y0, Y2        // the levels' places
	VPMOVSXDQ X1, Y3
	VMOVDQU  Y3, Y9
	VXORPD   Y5, Y5, Y5
	VGATHERDPD Y3, (R9)(X2*8), Y5
	VMOVUPD  (R10), Y6
	VSUBPD   Y5, Y6, Y6
	VANDPD   Y7, Y6, Y6
	VCMPPD   $0x1e, Y8, Y6, Y6
	VANDPD   Y9, Y6, Y6
	VEXTRACTI128 $1, Y1, X10
	VPMOVSXDQ X10, Y3
	VMOVDQU  Y3, Y11
	VEXTRACTI128 $1, Y2, X12
	VXORPD   Y5, Y5, Y5
	VGATHERDPD Y3, (R9)(X12*8), Y5
	VMOVUPD  32(R10), Y13
	VSUBPD   Y5, Y13, Y13
	VANDPD   Y7, Y13, Y13
	VCMPPD   $0x1e, Y8, Y13, Y13
	VANDPD   Y11, Y13, Y13
	VORPD    Y13, Y6, Y6
	VPTEST   Y6, Y6
	JNZ      farFound
farNext:
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	ADDQ $32, R8
	ADDQ $32, R11
	ADDQ $64, R10
	DECQ CX
	JNZ  farLoop
farDone:
	MOVQ AX, ret+176(FP)
	VZEROUPPER
	RET
farFound:
	MOVQ $1, AX
	JMP  farDone
farBad:
	MOVQ $2, AX
	JMP  farDone

// func levelsAVX2(y []float64, ix, at, lenB []int32, levels []float64) bool
// Per group of 4 (len(y) a multiple of 4): false if an index is past its
// quantiser's levels (unsigned ix >= len, the indices biased by
// 0x80000000 and compared signed with lenB, biased too), else the levels
// levels[at[j]+ix[j]] gathered into y[j]; true at the end.
TEXT ·levelsAVX2(SB), NOSPLIT, $0-121
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ ix_base+24(FP), SI
	MOVQ at_base+48(FP), R8
	MOVQ lenB_base+72(FP), R11
	MOVQ levels_base+96(FP), R9
	MOVQ $0x80000000, AX
	MOVQ AX, X4
	VPBROADCASTD X4, X4
	SHRQ $2, CX
	JZ   levOK
levLoop:
	VMOVDQU  (SI), X0
	VPXOR    X4, X0, X1
	VMOVDQU  (R11), X2
	VPCMPGTD X1, X2, X2          // ix < len, unsigned
	VMOVMSKPS X2, AX
	CMPL     AX, $15
	JNE      levBad
	VPADDD   (R8), X0, X0        // the levels' places
	VPCMPEQD Y3, Y3, Y3
	VGATHERDPD Y3, (R9)(X0*8), Y5
	VMOVUPD  Y5, (DI)
	ADDQ $16, SI
	ADDQ $16, R8
	ADDQ $16, R11
	ADDQ $32, DI
	DECQ CX
	JNZ  levLoop
levOK:
	MOVB $1, ret+120(FP)
	VZEROUPPER
	RET
levBad:
	MOVB $0, ret+120(FP)
	VZEROUPPER
	RET

// func restCountsAVX2(idx []int32, dims, from int, c, counts []int32, flags []uint8)
// Per patch i: SI at idx[i*dims+from], DI at c, BX the 8-chunks left, AX
// the equal ones; R8 the chunks of 8 (len(c)>>3), R9 4 if a last chunk of
// 4 follows, R10 the patch's stride in bytes, R11 counts, R12 flags, R13
// the patches left, R14 the next patch's first index.
TEXT ·restCountsAVX2(SB), NOSPLIT, $0-112
	MOVQ idx_base+0(FP), R14
	MOVQ dims+24(FP), R10
	SHLQ $2, R10
	MOVQ from+32(FP), AX
	LEAQ (R14)(AX*4), R14
	MOVQ c_len+48(FP), R8
	MOVQ R8, R9
	ANDQ $4, R9
	SHRQ $3, R8
	MOVQ counts_base+64(FP), R11
	MOVQ counts_len+72(FP), R13
	MOVQ flags_base+88(FP), R12
	TESTQ R13, R13
	JZ countsDone
countsPatch:
	MOVQ R14, SI
	MOVQ c_base+40(FP), DI
	XORL AX, AX
	MOVQ R8, BX
	TESTQ BX, BX
	JZ countsFour
countsEight:
	VMOVDQU  (SI), Y0
	VPCMPEQD (DI), Y0, Y0
	VMOVMSKPS Y0, DX
	POPCNTL  DX, DX
	ADDL     DX, AX
	ADDQ     $32, SI
	ADDQ     $32, DI
	DECQ     BX
	JNZ      countsEight
countsFour:
	TESTQ R9, R9
	JZ countsOne
	VMOVDQU  (SI), X0
	VPCMPEQD (DI), X0, X0
	VMOVMSKPS X0, DX
	POPCNTL  DX, DX
	ADDL     DX, AX
countsOne:
	// The count of those off c, and the flag: 1 where it is not 0.
	MOVQ c_len+48(FP), DX
	SUBL AX, DX
	MOVL DX, (R11)
	XORL AX, AX
	TESTL DX, DX
	SETNE AL
	MOVB AL, (R12)
	ADDQ $4, R11
	INCQ R12
	ADDQ R10, R14
	DECQ R13
	JNZ countsPatch
	VZEROUPPER
countsDone:
	RET

// func levelsCentreAVX2(y []float64, ix, ctr []int32, ctrLev []float64, at, lenB []int32, levels []float64) int
// levelsAVX2 knowing the centres: per chunk of up to 64 dimensions, y
// takes the centres' levels ctrLev (4 at a time) and a mask the
// dimensions whose ix differs from ctr (4 compared at a time); then each
// of those, lowest first, is checked (unsigned ix >= its count, lenB's
// unbiased: 0) and its level levels[at[j]+ix[j]] stored into y[j].
// 2 at the end if every ix was its centre, else 1.
TEXT ·levelsCentreAVX2(SB), NOSPLIT, $0-176
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), R13
	MOVQ ix_base+24(FP), SI
	MOVQ ctr_base+48(FP), R10
	MOVQ ctrLev_base+72(FP), R12
	MOVQ at_base+96(FP), R8
	MOVQ lenB_base+120(FP), R11
	MOVQ levels_base+144(FP), R9
	MOVQ $2, ret+168(FP)        // every index at its centre, so far
	XORQ BX, BX                 // the chunk's first dimension
lcChunk:
	CMPQ BX, R13
	JGE  lcOK
	MOVQ R13, R14
	SUBQ BX, R14
	MOVQ $64, AX
	CMPQ R14, AX
	CMOVQGT AX, R14             // the chunk's dimensions, a multiple of 4
	XORQ DX, DX                 // the mask of dimensions off their centre
	XORQ CX, CX                 // the group's first dimension in the chunk
lcGroup:
	LEAQ (BX)(CX*1), AX
	VMOVDQU (SI)(AX*4), X0
	VPCMPEQD (R10)(AX*4), X0, X0
	VMOVUPD (R12)(AX*8), Y1
	VMOVUPD Y1, (DI)(AX*8)
	VMOVMSKPS X0, AX
	XORQ $15, AX
	SHLQ CX, AX
	ORQ  AX, DX
	ADDQ $4, CX
	CMPQ CX, R14
	JLT  lcGroup
	TESTQ DX, DX
	JZ   lcNext
	MOVQ $1, ret+168(FP)
lcOff:
	BSFQ DX, AX
	ADDQ BX, AX                 // j
	MOVL (SI)(AX*4), CX         // ix[j]
	MOVL (R11)(AX*4), R15
	XORL $0x80000000, R15       // its count
	CMPL CX, R15
	JCC  lcBad                  // unsigned: negative ones too
	ADDL (R8)(AX*4), CX
	MOVSD (R9)(CX*8), X2
	MOVSD X2, (DI)(AX*8)
	LEAQ -1(DX), CX
	ANDQ CX, DX
	JNZ  lcOff
lcNext:
	ADDQ R14, BX
	JMP  lcChunk
lcOK:
	VZEROUPPER
	RET
lcBad:
	MOVQ $0, ret+168(FP)
	VZEROUPPER
	RET
