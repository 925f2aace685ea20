package batch

import (
	"context"
	"os"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// loopbackPlaceholder is the pattern of the empty file Beam's universal
// runner creates in os.TempDir for every job in loopback mode (prism
// in-process), as the name of a worker binary it never runs, and never
// removes (Beam v2.77.0, runnerlib.Execute; apache/beam#27569).
const loopbackPlaceholder = "beamloopbackworker-*"

// Run runs p on the named runner as beam.Run does, and then removes the
// empty worker placeholder the runner left in the temporary directory,
// so that a run of spca-batch leaves no file behind. Only files that
// appeared during the run and are still empty are removed: the
// placeholder is never executed in loopback mode, so removing another
// job's placeholder would do it no harm either.
func Run(ctx context.Context, runner string, p *beam.Pipeline) (beam.PipelineResult, error) {
	before := placeholders()
	res, err := beam.Run(ctx, runner, p)
	for name := range placeholders() {
		if before[name] {
			continue
		}
		if fi, serr := os.Lstat(name); serr == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			os.Remove(name)
		}
	}
	return res, err
}

// placeholders returns the loopback placeholders now in os.TempDir.
func placeholders() map[string]bool {
	names, _ := filepath.Glob(filepath.Join(os.TempDir(), loopbackPlaceholder))
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}
