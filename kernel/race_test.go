//go:build race

package kernel

// raceEnabled shortens the slowest tests under the race detector, which makes them ten
// times slower; CI runs them whole without it as well.
const raceEnabled = true
