//go:build race

package update

// raceEnabled shortens the slowest tests: the race detector makes them ten times slower
// and CI runs them without it as well.
const raceEnabled = true
