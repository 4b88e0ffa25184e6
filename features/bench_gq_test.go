package features

import (
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/kernel"
	"gonum.org/v1/gonum/mat"
)

// benchPoints returns 1024 7-dimensional standard normal points for the Map benchmarks
// to cycle through. One point mapped over and over would flatter the trigonometric maps:
// math.Sincos's branches on the quadrant of each argument are then perfectly predicted,
// and measured that way GQ and RFF map about twice as many points per second as on
// varying points.
func benchPoints() [][]float64 {
	rng := rand.New(rand.NewPCG(1, 1))
	X := randomPoints(rng, 1024, 7, 1)
	xs := make([][]float64, 1024)
	for i := range xs {
		xs[i] = X.RawRowView(i)
	}
	return xs
}

// BenchmarkTaylorMap maps one 7-dimensional point to the C(11, 4) = 330 Taylor features
// of degree 4: one exponential and D multiplications. points/s is reported.
func BenchmarkTaylorMap(b *testing.B) {
	t, err := NewTaylor(kernel.RBF{Sigma: 2.6}, 7, TaylorOptions{Degree: 4})
	if err != nil {
		b.Fatal(err)
	}
	benchMap(b, t)
}

// BenchmarkQuadratureMap maps one 7-dimensional point to D = 330 Gaussian-quadrature
// features (165 subsampled nodes of the 5-point tensor rule): a gemv and D/2 sincos, as
// for random Fourier features. points/s is reported.
func BenchmarkQuadratureMap(b *testing.B) {
	q, err := NewQuadrature(kernel.RBF{Sigma: 2.6}, 7, QuadratureOptions{Dim: 330, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	benchMap(b, q)
}

// BenchmarkRFFMap7 is BenchmarkQuadratureMap for random Fourier features of the same
// shape, for comparison (BenchmarkMap has D = 1000 and d = 21).
func BenchmarkRFFMap7(b *testing.B) {
	r, err := NewRFF(kernel.RBF{Sigma: 2.6}, 7, RFFOptions{Dim: 330, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	benchMap(b, r)
}

// BenchmarkTaylorTransform and BenchmarkQuadratureTransform map 1000 points at once;
// points/s for comparison with Map.
func BenchmarkTaylorTransform(b *testing.B) {
	t, _ := NewTaylor(kernel.RBF{Sigma: 2.6}, 7, TaylorOptions{Degree: 4})
	benchTransform(b, t.Transform)
}

func BenchmarkQuadratureTransform(b *testing.B) {
	q, _ := NewQuadrature(kernel.RBF{Sigma: 2.6}, 7, QuadratureOptions{Dim: 330, Seed: 1})
	benchTransform(b, q.Transform)
}

func benchTransform(b *testing.B, transform func(*mat.Dense, mat.Matrix) error) {
	rng := rand.New(rand.NewPCG(1, 1))
	X := randomPoints(rng, 1000, 7, 1)
	var Z mat.Dense
	for b.Loop() {
		Z.Reset()
		_ = transform(&Z, X)
	}
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// benchMap maps 1024 points in turn (a fixed point would make math.Sincos's branches
// perfectly predictable) and reports points/s.
func benchMap(b *testing.B, m interface {
	Map(dst, x []float64) error
	OutDim() int
}) {
	xs, z := benchPoints(), make([]float64, m.OutDim())
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = m.Map(z, xs[i&1023])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
