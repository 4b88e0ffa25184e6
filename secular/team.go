package secular

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// team runs the O(k²) phases of a solve on several goroutines. Items (roots, columns or
// rows) are handed out in chunks through an atomic counter, so uneven costs (some roots
// need more iterations) balance themselves. The worker closures are built once and
// reused, so starting a phase allocates nothing.
type team struct {
	fns   []func()
	wg    sync.WaitGroup
	next  atomic.Int64
	items int
	chunk int
	work  func(lo, hi int) // the current phase; set before start, read-only while running
}

// run calls work(lo, hi) over consecutive chunks covering [0, items), on up to workers
// goroutines (including the caller's). work must be safe to call concurrently on
// disjoint chunks.
func (t *team) run(workers, items, chunk int, work func(lo, hi int)) {
	if chunk < 1 {
		chunk = 1
	}
	if most := (items + chunk - 1) / chunk; workers > most {
		workers = most
	}
	if workers <= 1 {
		if items > 0 {
			work(0, items)
		}
		return
	}
	for len(t.fns) < workers-1 {
		t.fns = append(t.fns, t.loop)
	}
	t.items, t.chunk, t.work = items, chunk, work
	t.next.Store(0)
	t.wg.Add(workers - 1)
	for w := range workers - 1 {
		go t.fns[w]()
	}
	t.take()
	t.wg.Wait()
	t.work = nil
}

func (t *team) loop() {
	defer t.wg.Done()
	t.take()
}

func (t *team) take() {
	for {
		lo := int(t.next.Add(int64(t.chunk))) - t.chunk
		if lo >= t.items {
			return
		}
		t.work(lo, min(lo+t.chunk, t.items))
	}
}

// workers returns the number of goroutines to use for a problem of size k.
func (s *Solver) workers(k int) int {
	threshold := s.Serial
	if threshold <= 0 {
		threshold = defaultSerial
	}
	if k < threshold {
		return 1
	}
	w := s.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return w
}
