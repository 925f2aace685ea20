package cliutil

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestProgress checks the progress line: a stage is drawn at once with its
// counts, bar and percentage, further updates within progressRefresh are
// not drawn (except the end), a new stage is drawn at once, and Finish
// erases the line, once.
func TestProgress(t *testing.T) {
	var out bytes.Buffer
	b := &Progress{w: &out, cols: 80}
	cb := b.Callback()
	cb("fit", 3, 12)
	want := "\rfit 3 / 12 [==========------------------------------]  25 %\x1b[K"
	if got := out.String(); got != want {
		t.Fatalf("first drawing %q, want %q", got, want)
	}
	out.Reset()
	cb("fit", 4, 12) // within progressRefresh of the first: not drawn
	cb("fit", 0, 0)  // no total: ignored
	if out.Len() != 0 {
		t.Errorf("drawn again within %v: %q", progressRefresh, out.String())
	}
	cb("fit", 12, 12) // the end is drawn at once
	if got := out.String(); !strings.HasPrefix(got, "\rfit 12 / 12 [========================================] 100 %") {
		t.Errorf("end drawn as %q", got)
	}
	out.Reset()
	cb("evaluate", 1, 2) // a new stage at once
	if got := out.String(); !strings.HasPrefix(got, "\revaluate 1 / 2 [====================--------------------]  50 %") {
		t.Errorf("new stage drawn as %q", got)
	}
	b.last = time.Now().Add(-progressRefresh)
	out.Reset()
	cb("evaluate", 5, 2) // past the total: drawn as the total
	if got := out.String(); !strings.Contains(got, "2 / 2") || !strings.Contains(got, "100 %") {
		t.Errorf("done > total drawn as %q", got)
	}
	out.Reset()
	b.Finish()
	b.Finish()
	if got := out.String(); got != "\r\x1b[K" {
		t.Errorf("Finish wrote %q, want one erasure", got)
	}
	var none *Progress
	if none.Callback() != nil {
		t.Error("a nil *Progress gave a callback")
	}
	none.Finish()
}

// TestProgressConcurrent checks that concurrent updates draw whole lines
// (go test -race checks the locking).
func TestProgressConcurrent(t *testing.T) {
	var out bytes.Buffer
	b := &Progress{w: &out, cols: 80}
	cb := b.Callback()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				cb("stage", g*100+i, 400)
			}
		}()
	}
	wg.Wait()
	b.Finish()
	for _, line := range strings.Split(out.String(), "\r") {
		if line != "" && line != "\x1b[K" && (!strings.HasPrefix(line, "stage ") || !strings.HasSuffix(line, " %\x1b[K")) {
			t.Errorf("torn line %q", line)
		}
	}
}

// TestProgressLine checks that the line fits the terminal: the bar
// narrows, then goes, then the text is cut.
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		cols int
		want string
	}{
		{80, "stage 5 / 10 [====================--------------------]  50 %"},
		{40, "stage 5 / 10 [=========---------]  50 %"},
		{30, "stage 5 / 10  50 %"},
		{10, "stage 5 /"},
	} {
		got := progressLine("stage", 5, 10, c.cols)
		if got != "\r"+c.want+"\x1b[K" {
			t.Errorf("%d columns: %q, want %q", c.cols, got, c.want)
		}
		if n := len(got) - len("\r\x1b[K"); n >= c.cols {
			t.Errorf("%d columns: a line of %d", c.cols, n)
		}
	}
}
