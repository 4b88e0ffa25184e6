//go:build !(cgo && openblas)

package native

// ownCores gives the cores to Go for a loop of workers goroutines (see the OpenBLAS
// build). gonum's BLAS runs on goroutines, which the Go scheduler shares out within
// GOMAXPROCS: there is nothing to hand over.
func ownCores(int) (release func()) { return releaseNothing }
