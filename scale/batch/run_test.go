package batch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
)

// Every prism job used to leave an empty beamloopbackworker-* file in
// the temporary directory (130 of them here after a day of tests and
// runs). Run removes the one its job created and keeps the others.
func TestRunLeavesNoPlaceholder(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	if os.TempDir() != dir {
		t.Skipf("os.TempDir() does not follow TMPDIR on this system (%s)", os.TempDir())
	}
	other := filepath.Join(dir, "beamloopbackworker-123")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	passert.Equals(s, beam.Create(s, "a", "b"), "b", "a")
	if _, err := Run(context.Background(), "prism", p); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, loopbackPlaceholder))
	if len(left) != 1 || left[0] != other {
		t.Errorf("after Run the temporary directory holds %q, want only the earlier %q", left, other)
	}
}
