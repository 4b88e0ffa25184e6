//go:build race

package kpca

// raceEnabled shortens the longest tests under the race detector.
const raceEnabled = true
