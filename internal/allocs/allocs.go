// Package allocs counts the heap allocations of code under test with several threads,
// for the library's "no allocation per step" tests. It imports nothing of the library,
// so that every package's tests can use it.
package allocs

import "runtime"

// Count returns the number of heap allocations made, by every goroutine, while f ran
// runs times with GOMAXPROCS set to procs, after warm uncounted runs at that setting
// (which start shared workers and fill the runtime's per-thread caches). Unlike
// testing.AllocsPerRun, which sets GOMAXPROCS to 1 and rounds the average down, it sees
// the allocations of parallel code, and every one of them: the measure of "no
// allocation per step" with several threads. Tests that use it must not run in
// parallel with others.
func Count(procs, warm, runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	for range warm {
		f()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}
