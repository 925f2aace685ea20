//go:build !linux

package fence

import "testing"

// Size is the most bytes a fence holds.
const Size = 256 << 10

// A Fence is, on Linux, memory followed by a page the process may not
// touch (fence_linux.go); elsewhere, fresh memory.
type Fence struct{}

// At returns n fresh bytes, or nil for n > Size.
func (f *Fence) At(tb testing.TB, n int) []byte {
	if n > Size {
		return nil
	}
	return make([]byte, n)
}
