//go:build !race

package secular

const raceEnabled = false
