package main

import (
	"os/exec"
	"runtime/metrics"
	"strings"
	"testing"
	"unsafe"
)

// TestStartupImports checks that the spca command does not link packages
// whose initialisation or size every process pays for nothing: each
// process of a one-image encode or decode runs every linked package's
// initialisation. runtime/metrics ran ~0.4 ms of it for one number (see
// heapAllocated); the figures and plots are spca-figures' (spca figures
// runs that program); net and os/user would bring resolvers and cgo.
// (net/netip and net/url come with urfave/cli's text/template.)
func TestStartupImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), deps)
	}
	for _, d := range deps {
		switch {
		case d == "runtime/metrics", d == "runtime/pprof", d == "net", d == "os/user",
			d == "github.com/spcalab/spca/figures", strings.HasPrefix(d, "gonum.org/v1/plot"):
			t.Errorf("the spca command links %s", d)
		}
	}
}

// TestHeapAllocated checks heapAllocated against runtime/metrics: the
// runtime fills metricSample as it fills a metrics.Sample.
func TestHeapAllocated(t *testing.T) {
	if unsafe.Sizeof(metricSample{}) != unsafe.Sizeof(metrics.Sample{}) ||
		unsafe.Offsetof(metricSample{}.kind) != unsafe.Offsetof(metrics.Sample{}.Value) {
		t.Fatalf("metricSample (%d bytes) is not laid out as metrics.Sample (%d bytes)",
			unsafe.Sizeof(metricSample{}), unsafe.Sizeof(metrics.Sample{}))
	}
	if metricKindUint64 != int(metrics.KindUint64) {
		t.Fatalf("metricKindUint64 = %d, metrics.KindUint64 = %d", metricKindUint64, metrics.KindUint64)
	}
	read := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	before := read()
	got := heapAllocated()
	after := read()
	if got < before || got > after || got == 0 {
		t.Errorf("heapAllocated() = %d, runtime/metrics read %d before and %d after", got, before, after)
	}
	const n = 1 << 20
	sink = make([]byte, n)
	if d := heapAllocated() - got; d < n {
		t.Errorf("heapAllocated grew by %d bytes over an allocation of %d", d, n)
	}
}

var sink []byte
