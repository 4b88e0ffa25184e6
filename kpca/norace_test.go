//go:build !race

package kpca

const raceEnabled = false
