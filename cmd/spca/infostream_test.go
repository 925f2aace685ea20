package main

import (
	"os"
	"sync/atomic"
	"testing"
)

// info - of an endless stream that is no model (cat /dev/zero | spca
// info -) copied 1 GiB to a temporary file before looking at its first
// bytes (2.3 s of disk writes for "more than 1073741824 bytes from a
// pipe"). A stream whose first bytes are no model's is refused from
// them, with the message of a file of zeros.
func TestInfoEndlessStream(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var written atomic.Int64
	go func() {
		defer w.Close()
		zeros := make([]byte, 64<<10)
		for written.Load() < 256<<20 {
			n, err := w.Write(zeros)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	stdin, isTerm := os.Stdin, stdinIsTerminal
	os.Stdin, stdinIsTerminal = r, func() bool { return false }
	defer func() { os.Stdin, stdinIsTerminal = stdin, isTerm }()
	wantError(t, []string{"info", "-"}, "stdin: invalid model file: not an SPCA, codec, adaptation or classifier model")
	if n := written.Load(); n > 4<<20 {
		t.Errorf("info - read %d MB of a stream of zeros, want its first bytes only", n>>20)
	}
}
