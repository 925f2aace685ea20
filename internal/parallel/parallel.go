// Package parallel runs independent loop iterations on all processors.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For runs fn(i) for every i in [0, n) on GOMAXPROCS goroutines, handing
// out indices one at a time so that uneven iterations balance, and
// returns when all are done. Iterations must not depend on each other.
func For(n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	task := func() {
		defer wg.Done()
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			fn(i)
		}
	}
	for range workers {
		Go(task)
	}
	wg.Wait()
}

// Go runs task on a goroutine of its own: one that has finished an
// earlier task and waits for the next, or a new one. A new goroutine's
// stack starts at 8 KB and is copied to twice its size each time it
// runs out; the coders' loops ran out two or three times in every
// goroutine of For, ~240 copies in a colour batch encode of 12 images
// (with the fresh memory of each larger stack and the frame adjustments:
// ~3 % of its CPU). A goroutine kept waiting keeps its grown stack (the
// collector shrinks a stack that mostly goes unused), and the goroutines
// kept are as many as ever ran tasks at once. A task does not run with
// its caller's goroutine state (pprof labels: none are set here).
func Go(task func()) {
	select {
	case idle <- task:
	default:
		started.Add(1)
		go helper(task)
	}
}

// started counts the goroutines Go started (tests read it).
var started atomic.Int64

// idle hands a task to a helper waiting for one: unbuffered, so that a
// send succeeds only while one waits.
var idle = make(chan func())

// helper runs task, then the tasks Go hands it, for ever.
func helper(task func()) {
	for {
		task()
		task = <-idle
	}
}
