//go:build !amd64

package gridcode

var hasAVX2, hasAVX512 = false, false

func joinKernel(v []int64, planes []byte, w, stride int) int { return 0 }

func addLagKernel(v []int64, s int) int { return s }

func scaleKernel(dst []float64, v []int64, stride int, res float64) int { return 0 }

func scale32Kernel(dst []float32, v []int64, stride int, res float64) (int, uint64) { return 0, 0 }
