package ikpcabeam

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/stream"
)

// curve returns n points in d dimensions near a noisy curve, whose kernel matrices
// have well-separated leading eigenvalues at σ ≈ 1.
func curve(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, d, nil)
	for i := range n {
		t := 4 * rng.Float64()
		for j := range d {
			X.Set(i, j, math.Sin(t*float64(j+1)/2)+0.1*rng.NormFloat64())
		}
	}
	return X
}

// testKernel and testOptions are the SKPCA of the tests: a Gaussian kernel of σ = 1,
// D = 64 features, ℓ = 8, centred.
var (
	testKernel  = kernel.RBF{Sigma: 1}
	testOptions = stream.SKPCAOptions{Features: 64, Sketch: 8, Seed: 3}
)

// rawOf returns a dense matrix's entries, row by row.
func rawOf(a *mat.Dense) []float64 {
	r, c := a.Dims()
	out := make([]float64, 0, r*c)
	for i := range r {
		out = append(out, a.RawRowView(i)...)
	}
	return out
}

// certify checks the Frequent Directions certificate of a fitted SKPCA m against the
// features Z of the points it saw, with C = ZᵀZ uncentred and C = ZᵀZ − n·z̄z̄ᵀ centred
// (z̄ the mean of Z's rows; stream.SKPCA): ‖C − C̃‖₂ ≤ Δ (C̃ = W·diag(λ)·Wᵀ from the
// model's components — centred, the positive part of BᵀB − n·z̄z̄ᵀ, whose negative part
// is at least −Δ, so the bound holds for it as well), each eigenvalue in [λᵢ(C) − Δ,
// λᵢ(C)], Δ ≤ ‖Z‖_F²/(ℓ+1), and ‖Z‖_F² and the number of points right. Rounding: the entries of ZᵀZ and BᵀB are
// sums of n·D products of features of size ≤ √(2/D), so each errs by about n·ε·(2/D)
// and the spectral norm by D times that, n·ε·2 ≈ 2e-13 for n = 1000; tol = 1e-10·‖Z‖_F²
// (= n·1e-10) is far above it and far below any real defect (an eigenvalue or a
// direction wrong by a fraction of Δ ≈ n/ℓ).
func certify(t *testing.T, m *SKPCA, X *mat.Dense) {
	t.Helper()
	n, _ := X.Dims()
	if m.Len() != n {
		t.Errorf("Len = %d, want %d", m.Len(), n)
	}
	var Z mat.Dense
	if err := m.Map().Transform(&Z, X); err != nil {
		t.Fatal(err)
	}
	frob2 := mat.Norm(&Z, 2)
	frob2 *= frob2
	tol := 1e-10 * frob2
	if math.Abs(m.Sketch().Frobenius2()-frob2) > tol {
		t.Errorf("‖Z‖_F² = %v, want %v", m.Sketch().Frobenius2(), frob2)
	}
	vals := m.Values(nil)
	delta := m.ErrorBound()
	ell := m.Options().Sketch
	if delta > frob2/float64(ell+1)+tol {
		t.Errorf("Δ = %v above ‖Z‖_F²/(ℓ+1) = %v", delta, frob2/float64(ell+1))
	}
	var W mat.Dense
	m.VectorsTo(&W)
	D := m.Options().Features
	diff := mat.NewSymDense(D, nil)
	diff.SymOuterK(1, Z.T())
	if m.Centred() {
		mean := mat.NewVecDense(D, nil)
		for j := range D {
			mean.SetVec(j, mat.Sum(Z.ColView(j))/float64(n))
		}
		diff.SymRankOne(diff, -float64(n), mean)
	}
	exact := make([]float64, D)
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(D, append([]float64(nil), diff.RawSymmetric().Data...)), false) {
		t.Fatal("EigenSym")
	}
	eig.Values(exact)
	for i, v := range vals {
		diff.SymRankOne(diff, -v, W.ColView(i))
		want := exact[D-1-i] // ascending
		if v > want+tol || v < want-delta-tol {
			t.Errorf("λ%d = %v outside [λ(C) − Δ, λ(C)] = [%v, %v]", i, v, want-delta, want)
		}
	}
	if !eig.Factorize(diff, false) {
		t.Fatal("EigenSym")
	}
	ev := eig.Values(nil)
	if norm := math.Max(-ev[0], ev[D-1]); norm > delta+tol {
		t.Errorf("‖C − C̃‖₂ = %v above the certified Δ = %v", norm, delta)
	}
}

// readPoints reads the points of dimension d in the CSV files glob into s (ReadCSV,
// its dead letters dropped), failing the test if the transform cannot be built.
func readPoints(t testing.TB, s beam.Scope, glob string, d int) beam.PCollection {
	t.Helper()
	points, _, err := ReadCSV(s, glob, CSVOptions{Dim: d})
	if err != nil {
		t.Fatal(err)
	}
	return points
}

// fitNystrom fits a Nyström model to the points that read returns, each call a new
// reading of the same input: by FitNystrom of one reading or, twice, by
// FitNystromSampled of two, its landmarks sampled from the first — the two paths that
// the fit tests run alike. It fails the test if the transforms cannot be built.
func fitNystrom(t testing.TB, s beam.Scope, read func() beam.PCollection, twice bool, opts NystromOptions, fit FitOptions) (model, dead beam.PCollection) {
	t.Helper()
	var err error
	if twice {
		model, dead, err = FitNystromSampled(s, read(), read(), opts, fit)
	} else {
		model, dead, err = FitNystrom(s, read(), opts, fit)
	}
	if err != nil {
		t.Fatal(err)
	}
	return model, dead
}
