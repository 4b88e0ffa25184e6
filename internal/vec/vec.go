// Package vec holds the one dot product the module's packages share (kernel, kaf,
// stream, chinsuter, internal/lanczos), on plain slices, for the loops too short or too
// frequent to go through BLAS.
package vec

// Dot returns xᵀy over the first len(x) entries of y (y must be at least as long). It
// sums with four interleaved accumulators: they break the chain of dependent additions,
// so that several multiply-adds run at once, and their pairwise combination is a little
// more accurate than one running sum.
func Dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}
