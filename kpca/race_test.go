//go:build race

package kpca

// raceEnabled shortens the longest tests under the race detector, and skips those whose
// subject is serial (allocation counts, the forgery loops): CI runs them all without it.
const raceEnabled = true
