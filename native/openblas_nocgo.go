//go:build openblas && !cgo

package native

// The openblas build tag selects the OpenBLAS backend, which needs cgo. With
// CGO_ENABLED=0 the build would otherwise silently fall back to pure Go, so
// this file makes it fail instead. Fix: build with CGO_ENABLED=1 (and a C
// compiler plus libopenblas-dev and liblapacke-dev), or drop -tags openblas.
var _ = openblasTagRequiresCgo_SetCGO_ENABLED1
