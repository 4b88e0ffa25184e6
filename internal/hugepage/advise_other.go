//go:build !linux

package hugepage

// Advise does nothing outside Linux, whose madvise(MADV_HUGEPAGE) it stands for.
func Advise([]float64) {}
