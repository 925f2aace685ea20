//go:build !linux

package pngfast

import "testing"

// fenceSize is the most bytes a fence holds.
const fenceSize = 256 << 10

// A fence is, on Linux, memory followed by a page the process may not
// touch (fence_linux_test.go); elsewhere, fresh memory.
type fence struct{}

// at returns n fresh bytes.
func (f *fence) at(tb testing.TB, n int) []byte { return make([]byte, n) }
