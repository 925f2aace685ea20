package cliutil

import (
	"io"
	"os"
	"sync"

	"github.com/urfave/cli/v2"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// Progress draws a bar for the current stage reported through
// spca.Options.Progress; a bar disappears when its stage ends, so stages
// that recur (as in Tune, which fits repeatedly) do not pile up. It is safe
// for concurrent use.
type Progress struct {
	mu    sync.Mutex
	p     *mpb.Progress
	bar   *mpb.Bar
	stage string
}

// NewProgress returns progress bars drawn on the app's stderr, or nil when
// --quiet was given or stderr is not a terminal.
func NewProgress(c *cli.Context) *Progress {
	if Quiet(c) {
		return nil
	}
	f, ok := c.App.ErrWriter.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &Progress{p: mpb.New(mpb.WithOutput(io.Writer(f)), mpb.WithWidth(40))}
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
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil || stage != b.stage {
		b.completeLocked()
		b.stage = stage
		// A bar created with total 0 completes only when told to, so
		// stages may change their total or end early.
		b.bar = b.p.AddBar(0,
			mpb.BarRemoveOnComplete(),
			mpb.PrependDecorators(
				decor.Name(stage, decor.WC{C: decor.DSyncSpaceR}),
				decor.CountersNoUnit("%d / %d", decor.WCSyncWidth),
			),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 5})),
		)
	}
	b.bar.SetTotal(int64(total), false)
	b.bar.SetCurrent(int64(done))
}

// completeLocked marks the current bar as done.
func (b *Progress) completeLocked() {
	if b.bar != nil {
		b.bar.SetTotal(-1, true)
		b.bar = nil
	}
}

// Finish completes the last bar and waits until the bars are drawn. It may
// be called on a nil *Progress.
func (b *Progress) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.completeLocked()
	b.mu.Unlock()
	b.p.Wait()
}
