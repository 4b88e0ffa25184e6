//go:build !race

package update

const raceEnabled = false
