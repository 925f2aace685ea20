package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestForVisitsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		seen := make([]atomic.Int32, n)
		For(n, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}

// TestGoKeepsGoroutines checks that For's goroutines wait for the next
// tasks instead of ending (their stacks stay grown), and that the
// goroutines kept stay as many as run at once: thousands of calls of
// For, nested ones included, start and leave a few more than one call.
func TestGoKeepsGoroutines(t *testing.T) {
	var sum atomic.Int64
	nested := func() {
		For(4, func(i int) {
			For(3, func(j int) { sum.Add(int64(i*3 + j)) })
		})
	}
	nested()
	before, started0 := runtime.NumGoroutine(), started.Load()
	for range 3000 {
		nested()
	}
	if got, want := sum.Load(), int64(3001*66); got != want {
		t.Fatalf("sum of the indices %d, want %d", got, want)
	}
	after, more := runtime.NumGoroutine(), started.Load()-started0
	if bound := 4 * runtime.GOMAXPROCS(0); after > before+bound || more > int64(bound) {
		t.Fatalf("%d goroutines after 3000 calls (%d started), %d after the first", after, more, before)
	}
}

// TestGoRuns checks that Go runs each task once, on another goroutine.
func TestGoRuns(t *testing.T) {
	var wg sync.WaitGroup
	var ran atomic.Int32
	for range 100 {
		wg.Add(1)
		Go(func() {
			defer wg.Done()
			ran.Add(1)
		})
	}
	wg.Wait()
	if n := ran.Load(); n != 100 {
		t.Fatalf("%d tasks ran, want 100", n)
	}
}
