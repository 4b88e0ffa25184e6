//go:build !(cgo && openblas)

package native

// coreReport is the zero report: the pure-Go build runs no OpenBLAS kernels.
func coreReport() CoreReport { return CoreReport{} }
