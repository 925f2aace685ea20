package cliutil

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// Progress draws one line on a terminal for the current stage reported
// through spca.Options.Progress: the stage, its counts, a bar and the
// percentage, redrawn in place, and erased by Finish, so that stages that
// recur (as in Tune, which fits repeatedly) do not pile up. It is safe
// for concurrent use.
//
// It is drawn here rather than by a progress-bar library: every spca
// process initialises every package linked into it, and mpb's (with
// stripansi's regular expression and go-runewidth's tables) cost each
// one-image encode or decode ~0.25 ms for a bar it never draws (--quiet,
// or no terminal).
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	cols  int // the terminal's width
	stage string
	last  time.Time // of the last drawing
	drawn bool      // a line is on the terminal
}

// progressWidth is the width of the bar in characters.
const progressWidth = 40

// progressRefresh is the least time between two drawings of a stage's
// progress; a new stage and its end are drawn at once.
const progressRefresh = 100 * time.Millisecond

// NewProgress returns a progress line drawn on the app's stderr, or nil
// when --quiet was given or stderr is not a terminal.
func NewProgress(c *cli.Context) *Progress {
	if Quiet(c) {
		return nil
	}
	f, ok := c.App.ErrWriter.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 {
		cols = 80
	}
	return &Progress{w: f, cols: cols}
}

// Callback returns the function for spca.Options.Progress: nil when b is
// nil, so that the library skips progress reporting altogether.
func (b *Progress) Callback() func(stage string, done, total int) {
	if b == nil {
		return nil
	}
	return b.update
}

func (b *Progress) update(stage string, done, total int) {
	if total <= 0 {
		return
	}
	done = min(max(done, 0), total)
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if stage == b.stage && done < total && now.Sub(b.last) < progressRefresh {
		return
	}
	b.stage, b.last, b.drawn = stage, now, true
	b.w.Write([]byte(progressLine(stage, done, total, b.cols)))
}

// progressLine is the drawing of a stage's progress on a terminal cols
// wide: \r back to the line's start, the line, shorter than cols (a
// wrapped line would not be redrawn in place), and \x1b[K to erase the
// rest of a longer line drawn before.
func progressLine(stage string, done, total, cols int) string {
	text := fmt.Sprintf("%s %d / %d", stage, done, total)
	pct := fmt.Sprintf(" %3d %%", 100*done/total)
	width := min(progressWidth, cols-1-len(text)-len(pct)-3) // 3: " [" and "]"
	bar := ""
	if width >= 10 {
		fill := width * done / total
		bar = " [" + strings.Repeat("=", fill) + strings.Repeat("-", width-fill) + "]"
	}
	line := text + bar + pct
	if len(line) > cols-1 {
		line = line[:max(cols-1, 0)]
	}
	return "\r" + line + "\x1b[K"
}

// Finish erases the progress line. It may be called on a nil *Progress,
// and more than once.
func (b *Progress) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.drawn = false
	}
	b.stage = ""
}
