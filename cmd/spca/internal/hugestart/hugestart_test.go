//go:build linux

package hugestart

import "testing"

func TestCodingCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"spca", "decode", "--model", "m", "x.spc"}, true},
		{[]string{"spca", "--quiet", "encode", "a.png"}, true},
		{[]string{"spca", "info", "encode"}, false}, // a file named encode
		{[]string{"spca", "codec", "train"}, false},
		{[]string{"spca", "--version"}, false},
		{[]string{"spca"}, false},
		{nil, false},
	} {
		if got := codingCommand(c.args); got != c.want {
			t.Errorf("codingCommand(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// A test binary is not an encode or decode command: nothing is done at
// start, and the command falls back to its own advice (cmd/spca hugeHeap).
func TestNotDoneInTests(t *testing.T) {
	if Done() || TakeBallast() != nil {
		t.Fatal("heap advised at start of a test binary")
	}
}
