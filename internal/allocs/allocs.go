// Package allocs counts the heap allocations of code under test with several threads,
// for the library's "no allocation per step" tests. It imports nothing of the library,
// so that every package's tests can use it.
package allocs

import "runtime"

// Trials is the most times Count measures runs calls: f runs at most warm + Trials·runs
// times in all (tests that feed f new data size it by this).
const Trials = 8

// Count returns the number of heap allocations made, by every goroutine, while f ran
// runs times with GOMAXPROCS set to procs, after warm uncounted runs at that setting
// (which start shared workers and fill the runtime's per-thread caches). Unlike
// testing.AllocsPerRun, which sets GOMAXPROCS to 1 and rounds the average down, it sees
// the allocations of parallel code, and every one of them: the measure of "no
// allocation per step" with several threads. Tests that use it must not run in
// parallel with others.
//
// It measures runs calls until a measure counts none, at most Trials times, and returns
// the smallest count: code that allocates in its steps allocates in every measure,
// while the runtime allocates for parallel code now and then, and less as the program
// runs. Two such allocations were seen (a memory profile of TestSplitAllocations, about
// one run in twenty failing when Count measured three times):
//   - A goroutine that parks takes a waiter record (a sudog) from its processor's cache,
//     and a worker woken on another processor returns it there; a processor whose cache
//     runs dry refills it from a central cache that every garbage collection empties,
//     and allocates when that is empty too.
//   - A goroutine in a long cgo call (an OpenBLAS call) has its processor handed to
//     another thread (sysmon's retake), and one that yields (runtime.Gosched, a Team's
//     wait) wakes an idle processor; when no idle thread is there to take it, the
//     runtime starts one (runtime.newm), allocating its descriptors. Threads are never
//     ended, so this stops once the program has had as many at once as it needs.
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
		if least == 0 {
			break
		}
	}
	return least
}
