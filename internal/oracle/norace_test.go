//go:build !race

package oracle

// raceEnabled reports whether the race detector is on; it slows big.Float
// arithmetic several times, so timing limits are relaxed under it.
const raceEnabled = false
