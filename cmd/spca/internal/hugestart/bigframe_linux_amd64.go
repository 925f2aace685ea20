package hugestart

// haveBigFrame reports whether bigFrame is implemented.
const haveBigFrame = true

// bigFrame returns its stack pointer. Its frame of 63 MB makes the
// runtime grow the calling goroutine's stack to 64 MB before it runs (the
// stack doubles until the frame fits) and is never touched (adviseFenced).
func bigFrame() uintptr
