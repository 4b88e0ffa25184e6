// Package parallel runs the library's data-parallel loops — the secular solver's
// phases, kernel columns and blocks — on worker goroutines started once per process and
// reused, so that a parallel step allocates nothing once the workers exist. A `go`
// statement per phase allocates a goroutine descriptor whenever the runtime has no
// free one: 0.1–1.2 allocations a step were measured with two threads before this
// package (docs/design.md, "Backend routing").
//
// The workers are shared by every Team in the process and live until it exits: at most
// as many as the largest number of helpers any Run has asked for (GOMAXPROCS − 1 in
// practice), each parked on a channel while idle.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// queueLen is the capacity of the work queue. A Run that finds it full does the work
// with fewer helpers instead of waiting for a worker.
const queueLen = 256

// A ticket invites a worker to help with run gen of a Team.
type ticket struct {
	t   *Team
	gen uint32
}

var (
	queue   = make(chan ticket, queueLen)
	mu      sync.Mutex
	started atomic.Int64 // workers started
)

// ensure starts workers until there are at least n.
func ensure(n int) {
	if started.Load() >= int64(n) {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	for started.Load() < int64(n) {
		go worker()
		started.Add(1)
	}
}

// worker helps with the runs it is invited to, forever. An invitation to a run that
// has ended is ignored (see Team.join).
func worker() {
	for tk := range queue {
		if tk.t.join(tk.gen) {
			tk.t.take()
			tk.t.state.Add(^uint64(0)) // leave: one worker fewer
		}
	}
}

// Workers returns the number of worker goroutines started so far.
func Workers() int { return int(started.Load()) }

// A Team runs one loop at a time over [0, items) in chunks handed out through an
// atomic counter, on the calling goroutine and up to workers − 1 shared workers, so
// that uneven chunks balance themselves. Its zero value is ready to use. A Team must
// not be copied after first use, nor used by two Runs at once; distinct Teams may run
// concurrently, and a loop may itself Run another Team.
//
// The caller never waits for a worker to become free: it takes chunks itself from the
// start, and when none is left it closes the run to the invitations no worker has
// taken up yet, then waits only for the workers that joined, which are busy with their
// last chunk. So Runs nested in a loop, or more Runs at once than there are workers,
// cannot deadlock, and an idle Team is never held up by another Team's work. That
// wait yields the processor (runtime.Gosched) rather than blocking: a goroutine that
// blocks may allocate the runtime's record of a waiter (a sudog) when the thread's
// cache of them is empty, which happened a few times in ten steps.
type Team struct {
	next  atomic.Int64
	state atomic.Uint64 // run generation (high 32 bits), closed flag (bit 31), workers in the run
	items int
	chunk int
	work  func(lo, hi int) // the current loop; set before dispatch, read-only while running
}

const closed = 1 << 31

// join admits a worker to run gen, unless it has ended or closed.
func (t *Team) join(gen uint32) bool {
	for {
		s := t.state.Load()
		if uint32(s>>32) != gen || s&closed != 0 {
			return false
		}
		if t.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// Run calls work(lo, hi) over consecutive chunks of at most chunk items covering
// [0, items), on up to workers goroutines (the caller's included), and returns when all
// are done. work must be safe to call concurrently on disjoint chunks. With one worker,
// or one chunk, it is one call work(0, items) on the caller. Run allocates nothing once the shared
// workers have been started; pass a func value built once (a method value kept in a
// struct, say), not a new closure, to keep it so.
func (t *Team) Run(workers, items, chunk int, work func(lo, hi int)) {
	chunk = max(chunk, 1)
	if most := (items + chunk - 1) / chunk; workers > most {
		workers = most
	}
	if workers <= 1 {
		if items > 0 {
			work(0, items)
		}
		return
	}
	ensure(workers - 1)
	t.items, t.chunk, t.work = items, chunk, work
	t.next.Store(0)
	gen := uint32(t.state.Load()>>32) + 1
	t.state.Store(uint64(gen) << 32)
	for range workers - 1 {
		select {
		case queue <- ticket{t, gen}:
		default: // the queue is full: fewer helpers
		}
	}
	t.take()
	// Close the run, so that invitations not yet taken up are void, and wait for the
	// workers in it to leave.
	for {
		s := t.state.Load()
		if t.state.CompareAndSwap(s, s|closed) {
			break
		}
	}
	for t.state.Load()&(closed-1) != 0 {
		runtime.Gosched()
	}
	t.work = nil
}

// take runs chunks until none is left.
func (t *Team) take() {
	for {
		lo := int(t.next.Add(int64(t.chunk))) - t.chunk
		if lo >= t.items {
			return
		}
		t.work(lo, min(lo+t.chunk, t.items))
	}
}
