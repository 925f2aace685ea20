//go:build !amd64

package codec

// hasRunKernel is amd64's (arith_amd64.go): run's Go loop elsewhere.
const hasRunKernel = false

func runDual(d *rangeDecoder, dims *arDim, devL, devU *uint8, j, end, busy int) (jOut, k, neg int) {
	panic("codec: no run kernel on this architecture")
}

func unaryDual(d *rangeDecoder, p *arProb, n int) (u int) {
	panic("codec: no unary kernel on this architecture")
}

func valueDual(e *rangeEncoder, zero *arProb, p *arDim, act, v int) (status int) {
	panic("codec: no value kernel on this architecture")
}

func runEncDual(e *rangeEncoder, dims *arDim, row, left, up, centre *int32, j, end, busy int) (jOut, status int) {
	panic("codec: no run kernel on this architecture")
}

func patchDual(d *rangeDecoder, dims *arDim, devL, devU *uint8, p *patchRun) (status int) {
	panic("codec: no patch kernel on this architecture")
}

func patchEncDual(e *rangeEncoder, dims *arDim, left, up *int32, p *patchRun) (status int) {
	panic("codec: no patch kernel on this architecture")
}

// patchEncVector is patchEncDual's AVX-512 prologue: amd64 only.
const patchEncVector = false

// patchDecVector is patchDual's AVX-512 prologue: amd64 only.
const patchDecVector = false
