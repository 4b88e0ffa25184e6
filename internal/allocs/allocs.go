// Package allocs counts the heap allocations of code under test with several threads,
// for the library's "no allocation per step" tests. It imports nothing of the library,
// so that every package's tests can use it.
package allocs

import "runtime"

// Trials is the number of times Count measures runs calls: f runs warm + Trials·runs
// times in all (tests that feed f new data size it by this).
const Trials = 3

// Count returns the number of heap allocations made, by every goroutine, while f ran
// runs times with GOMAXPROCS set to procs, after warm uncounted runs at that setting
// (which start shared workers and fill the runtime's per-thread caches). Unlike
// testing.AllocsPerRun, which sets GOMAXPROCS to 1 and rounds the average down, it sees
// the allocations of parallel code, and every one of them: the measure of "no
// allocation per step" with several threads. Tests that use it must not run in
// parallel with others.
//
// It measures runs calls three times and returns the smallest count. A goroutine that
// parks takes a waiter record (a sudog) from its processor's cache, and a worker woken
// on another processor returns it there; a processor whose cache runs dry refills it
// from a central cache that every garbage collection empties, and allocates when that
// is empty too. So parallel code that allocates nothing of its own still shows an
// allocation now and then after a collection started by something else (seen once in a
// CI run: 1 in 20 blocks). That is not an allocation per step: code that allocates in
// its steps allocates in every trial, and the smallest count shows it.
func Count(procs, warm, runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	for range warm {
		f()
	}
	var least uint64
	for i := range Trials {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		if n := after.Mallocs - before.Mallocs; i == 0 || n < least {
			least = n
		}
	}
	return least
}
