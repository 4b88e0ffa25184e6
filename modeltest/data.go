package modeltest

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// defaultData returns the suite's default points, Curve(0.05): smooth enough that the
// leading eigenvalues of a Gaussian kernel matrix are well separated, noisy enough that
// no two points coincide.
func defaultData() *mat.Dense { return Curve(0.05) }

// Curve returns 40 points in 3 dimensions near the curve (t, t², sin 3t), t ∈ [−1, 1],
// with Gaussian noise of standard deviation noise on every coordinate. Seeded: the same
// points every run (the same t and the same noise directions for every noise level).
func Curve(noise float64) *mat.Dense {
	const n = 40
	rng := rand.New(rand.NewPCG(12, 4))
	X := mat.NewDense(n, 3, nil)
	for i := range n {
		t := 2*rng.Float64() - 1
		X.SetRow(i, []float64{t + noise*rng.NormFloat64(), t*t + noise*rng.NormFloat64(), math.Sin(3*t) + noise*rng.NormFloat64()})
	}
	return X
}

// data returns the subject's points and the number New gets.
func (s *Subject) data() (*mat.Dense, int) {
	X := s.Data
	if X == nil {
		X = defaultData()
	}
	n, _ := X.Dims()
	start := s.Start
	if start <= 0 {
		start = n / 2
	}
	return X, min(start, n)
}

// seen returns the rows of X a model given all of them summarises: all, or the last
// Window.
func (s *Subject) seen(X *mat.Dense) *mat.Dense {
	n, d := X.Dims()
	if s.Window <= 0 || n <= s.Window {
		return X
	}
	return X.Slice(n-s.Window, n, 0, d).(*mat.Dense)
}

// size returns Len for a model given n points.
func (s *Subject) size(n int) int {
	if s.Window > 0 {
		return min(n, s.Window)
	}
	return n
}

// probe returns points the model has not seen but that lie among those it has: the
// midpoints of the first consecutive pairs of rows of X.
func probe(X *mat.Dense) *mat.Dense {
	n, d := X.Dims()
	p := max(min(7, n-1), 1)
	P := mat.NewDense(p, d, nil)
	for i := range p {
		for j := range d {
			P.Set(i, j, (X.At(i, j)+X.At(min(i+1, n-1), j))/2)
		}
	}
	return P
}
