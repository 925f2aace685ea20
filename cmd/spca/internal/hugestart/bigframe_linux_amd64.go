package hugestart

// haveBigFrame reports whether bigFrame is implemented.
const haveBigFrame = true

// bigFrame returns its stack pointer, in the stack's lowest arena. Its
// frame of 127 MB makes the runtime grow the calling goroutine's stack to
// stackBytes, 128 MB, before it runs (the stack doubles until the frame
// fits), and is never touched (stackStep).
func bigFrame() uintptr
