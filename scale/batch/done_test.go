package batch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDoneNeedsStampedSize checks the resume rule: an output counts as
// done for a job key only if its stamp names that key and its size, so
// that an output cut short (a worker killed mid-write on a store without
// atomic renames) or replaced is coded again. TestRerunWritesNothing
// checks the skip and another key; a done that ignored the size passed
// it and every other test.
func TestDoneNeedsStampedSize(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	out, stamp := filepath.Join(dir, "a.spc"), filepath.Join(dir, "a.spc.stamp")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(out, "0123456789")
	write(stamp, fmt.Sprintf("%s\n%d\n", "key1", 10))
	if n, ok := done(ctx, out, stamp, "key1"); !ok || n != 10 {
		t.Errorf("complete output: done = %d, %v; want 10, true", n, ok)
	}
	if _, ok := done(ctx, out, stamp, "key2"); ok {
		t.Error("output of another job key counted as done")
	}
	write(out, "01234")
	if _, ok := done(ctx, out, stamp, "key1"); ok {
		t.Error("output shorter than its stamp says counted as done")
	}
	os.Remove(out)
	if _, ok := done(ctx, out, stamp, "key1"); ok {
		t.Error("missing output counted as done")
	}
}
