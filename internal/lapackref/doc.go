// Package lapackref is a test-only oracle: thin cgo wrappers around
// reference LAPACK routines from OpenBLAS, for the tests of other packages
// (Go does not allow cgo in _test.go files).
//
// Its functions exist only in the openblas build (-tags openblas with cgo);
// in every other build the package is empty, so tests that use it must carry
// the same build constraint, //go:build cgo && openblas. Do not import it
// from non-test code.
package lapackref
