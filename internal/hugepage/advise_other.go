//go:build !linux

package hugepage

// Advise does nothing outside Linux, whose madvise(MADV_HUGEPAGE) it stands for.
func Advise([]float64) {}

// mapFloats maps nothing outside Linux: Map falls back to make.
func mapFloats(int) ([]float64, func()) { return nil, nil }
