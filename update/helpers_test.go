package update

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

const eps = 0x1p-53

// checkSym compares s with the symmetric matrix a it should decompose: relative residual
// ‖A·U − U·Λ‖_F/‖A‖_F and orthogonality max|UᵀU − I| within c·n·ε, and eigenvalues
// within c·n·ε·‖A‖₂ of a fresh batch decomposition. It returns the three measures.
func checkSym(t *testing.T, what string, s *Sym, a mat.Symmetric, c float64) (residual, orth, valueErr float64) {
	t.Helper()
	n := a.SymmetricDim()
	if s.Len() != n {
		t.Fatalf("%s: Len %d, want %d", what, s.Len(), n)
	}
	values := s.Values(nil)
	if !slices.IsSorted(values) {
		t.Errorf("%s: values not ascending", what)
	}
	var u mat.Dense
	s.VectorsTo(&u)
	residual = testmat.Residual(a, values, &u)
	orth = testmat.Orthogonality(&u)
	want, err := native.EigenSym(nil, nil, a)
	if err != nil {
		t.Fatal(err)
	}
	norm := math.Max(math.Abs(want[0]), math.Abs(want[n-1]))
	valueErr = testmat.MaxAbsDiff(values, want) / math.Max(norm, math.SmallestNonzeroFloat64)
	tol := c * float64(n) * eps
	if !(residual <= tol) {
		t.Errorf("%s: residual %.3g > %.3g", what, residual, tol)
	}
	if !(orth <= tol) {
		t.Errorf("%s: orthogonality %.3g > %.3g", what, orth, tol)
	}
	if !(valueErr <= tol) {
		t.Errorf("%s: eigenvalues differ from batch by %.3g·‖A‖ > %.3g", what, valueErr, tol)
	}
	return residual, orth, valueErr
}

// factorized returns the decomposition of a (Sym.Factorize), the start of most tests,
// failing the test if it fails.
func factorized(t testing.TB, a mat.Symmetric) *Sym {
	t.Helper()
	var s Sym
	if err := s.Factorize(a); err != nil {
		t.Fatal(err)
	}
	return &s
}

// snapshot captures the full state of s for transactional checks.
type snapshot struct {
	n       int
	values  []float64
	vectors []float64
}

func snap(s *Sym) snapshot {
	return snapshot{n: s.n, values: slices.Clone(s.values[:s.n]), vectors: slices.Clone(s.u[:s.n*s.n])}
}

func (a snapshot) equal(b snapshot) bool {
	return a.n == b.n && slices.Equal(a.values, b.values) && slices.Equal(a.vectors, b.vectors)
}

// rbf returns the RBF kernel matrix of the rows of x with bandwidth sigma.
func rbf(x mat.Matrix, sigma float64) *mat.SymDense {
	return kernel.Matrix(kernel.RBF{Sigma: sigma}, mat.DenseCopyOf(x))
}

// medianDistance is the median-distance bandwidth over the first 1000 rows of x.
func medianDistance(t testing.TB, x mat.Matrix) float64 {
	t.Helper()
	s, err := kernel.MedianDistance(mat.DenseCopyOf(x), 1000)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// column returns the first m entries of column j of a.
func column(a mat.Symmetric, j, m int) []float64 {
	x := make([]float64, m)
	for i := range m {
		x[i] = a.At(i, j)
	}
	return x
}

// vd returns x as the mat.Vector update's methods take: nil for a nil x (no vector), an
// empty *mat.VecDense for an empty one, which mat.NewVecDense cannot make.
func vd(x []float64) mat.Vector {
	switch {
	case x == nil:
		return nil
	case len(x) == 0:
		return &mat.VecDense{}
	}
	return mat.NewVecDense(len(x), x)
}

// header points h at x and returns it: a vector for update's methods that allocates
// nothing, for the allocation tests (a library caller keeps such a header in its struct).
func header(h *mat.VecDense, x []float64) *mat.VecDense {
	h.SetRawVector(blas64.Vector{N: len(x), Inc: 1, Data: x})
	return h
}
