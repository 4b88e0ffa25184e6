package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRunCovers checks that every item is visited exactly once, for any number of
// workers, chunk sizes and items, serially and from concurrent Teams.
func TestRunCovers(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 8} {
		for _, items := range []int{0, 1, 2, 15, 16, 17, 1000} {
			for _, chunk := range []int{0, 1, 7, 64} {
				var team Team
				seen := make([]int32, items)
				team.Run(workers, items, chunk, func(lo, hi int) {
					serial := workers <= 1 || items <= max(chunk, 1) // one call for everything
					if lo >= hi || hi > items || !serial && hi-lo > max(chunk, 1) {
						t.Errorf("chunk [%d, %d) of %d items, size %d", lo, hi, items, chunk)
					}
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&seen[i], 1)
					}
				})
				for i, s := range seen {
					if s != 1 {
						t.Fatalf("workers %d, items %d, chunk %d: item %d visited %d times", workers, items, chunk, i, s)
					}
				}
			}
		}
	}
}

// TestConcurrentTeams runs many Teams at once, more than the queue holds, and nested
// Runs: nothing deadlocks and every item is visited once.
func TestConcurrentTeams(t *testing.T) {
	const teams, items = 64, 5000
	var wg sync.WaitGroup
	var total atomic.Int64
	for range teams {
		wg.Go(func() {
			var outer Team
			outer.Run(4, 8, 1, func(lo, hi int) {
				for range hi - lo {
					var sum atomic.Int64
					var nested Team // each chunk runs its own nested Team
					nested.Run(3, items/8, 10, func(lo, hi int) { sum.Add(int64(hi - lo)) })
					total.Add(sum.Load())
				}
			})
		})
	}
	wg.Wait()
	if got := total.Load(); got != teams*items {
		t.Fatalf("visited %d items, want %d", got, teams*items)
	}
}

// TestRunAllocates checks that a Run allocates nothing once the workers exist.
func TestRunAllocates(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Log("one CPU: the workers still run, interleaved")
	}
	var team Team
	sum := make([]float64, 1000)
	work := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sum[i]++
		}
	}
	team.Run(4, len(sum), 10, work) // starts the workers
	if a := testing.AllocsPerRun(200, func() { team.Run(4, len(sum), 10, work) }); a != 0 {
		t.Fatalf("%v allocations per Run", a)
	}
	if Workers() < 3 {
		t.Fatalf("%d workers started, want at least 3", Workers())
	}
}
