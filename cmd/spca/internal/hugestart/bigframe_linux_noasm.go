//go:build linux && !amd64

package hugestart

// haveBigFrame reports whether bigFrame is implemented: in assembly, on
// amd64 only. On arm64 the frame's lowest bytes are written (the link
// register is saved at the stack pointer), which would leave 4 KB pages
// in the first block of the arena the stack frees.
const haveBigFrame = false

func bigFrame() uintptr { panic("hugestart: no bigFrame on this architecture") }
