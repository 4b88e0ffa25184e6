//go:build race

package secular

// raceEnabled skips the oracle sweeps under the race detector: their problems (n ≤ 50)
// are solved on one goroutine (below defaultSerial), so the detector has nothing to
// watch, and CI runs them without it in three other builds. The large problems shrink to
// a few of order 300 (solveLarge), which still share their roots among the workers.
const raceEnabled = true
