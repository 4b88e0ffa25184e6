//go:build race

package kpca

// raceEnabled shortens the longest test under the race detector.
const raceEnabled = true
