//go:build amd64 && !amd64.v3

package codec

// goldenReference says that TestGolden's sums apply: they were recorded on
// amd64 below GOAMD64=v3, where the compiler never fuses a multiply-add.
const goldenReference = true
