// Package testmat provides helpers for numerical tests of symmetric eigen-
// decompositions and their updates: random orthogonal and symmetric test matrices,
// their reference decomposition (Eigen), residual and orthogonality measures, and the
// seed paper's 2-D toy data; the kernels every constructor must refuse (BadKernels),
// which the error tests share; and the data sets, kernels and rounding scale of the
// kernel-block tests (BlockSets, BlockKernels, NearPoints, KernelValueSize). (Kernel
// matrices come from package kernel; Centring centres kernel columns.)
//
// All random helpers are deterministic given the *rand.Rand they receive
// (math/rand/v2, e.g. rand.New(rand.NewPCG(seed1, seed2))). The helpers are
// meant for tests: invalid arguments cause a panic rather than an error.
package testmat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// tiny guards the denominator of relative measures against division by zero:
// the smallest positive normal float64.
const tiny = 0x1p-1022

// Normal returns an r×c matrix of independent N(0,1) entries, drawn row by row. It
// panics if r or c is less than 1.
func Normal(r, c int, rng *rand.Rand) *mat.Dense {
	g := make([]float64, r*c)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	return mat.NewDense(r, c, g)
}

// RandomOrthogonal returns an n×n orthogonal matrix drawn from the Haar
// (uniform) distribution on O(n): it takes the QR factorisation of a matrix
// of independent N(0,1) entries and absorbs the signs of R's diagonal into
// the columns of Q, so that the result does not depend on the sign
// convention of the QR routine. It panics if n < 1.
func RandomOrthogonal(n int, rng *rand.Rand) *mat.Dense {
	if n < 1 {
		panic(fmt.Sprintf("testmat: RandomOrthogonal: n = %d < 1", n))
	}
	var qr mat.QR
	qr.Factorize(Normal(n, n, rng))
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	for j := range n {
		if r.At(j, j) < 0 {
			for i := range n {
				q.Set(i, j, -q.At(i, j))
			}
		}
	}
	return &q
}

// SymWithSpectrum returns A = Q·diag(values)·Qᵀ for a Haar-random orthogonal
// Q (see RandomOrthogonal), together with Q. Column j of Q is an eigenvector
// of A for values[j] up to rounding. A is exactly symmetric by construction
// (it is stored as a SymDense, from the average of the two computed
// triangles). It panics if values is empty.
func SymWithSpectrum(values []float64, rng *rand.Rand) (*mat.SymDense, *mat.Dense) {
	q := RandomOrthogonal(len(values), rng)
	return Reconstruct(values, q), q
}

// RandomSym returns an n×n symmetric matrix whose entries on and above the
// diagonal are independent N(0,1) draws (the lower triangle mirrors the
// upper). It panics if n < 1.
func RandomSym(n int, rng *rand.Rand) *mat.SymDense {
	if n < 1 {
		panic(fmt.Sprintf("testmat: RandomSym: n = %d < 1", n))
	}
	s := mat.NewSymDense(n, nil)
	raw := s.RawSymmetric()
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			row[j] = rng.NormFloat64()
		}
	}
	return s
}

// Residual returns the relative eigen-residual
//
//	‖A·U − U·diag(values)‖_F / max(‖A‖_F, tiny)
//
// where U is n×k, values has length k and tiny is the smallest positive
// normal float64. For an accurate decomposition it is of the order of the
// machine epsilon. It panics if the dimensions do not match.
func Residual(a mat.Symmetric, values []float64, u mat.Matrix) float64 {
	n := a.SymmetricDim()
	r, k := u.Dims()
	if r != n || k != len(values) {
		panic(fmt.Sprintf("testmat: Residual: A is %d×%d, U is %d×%d, %d values", n, n, r, k, len(values)))
	}
	var au mat.Dense
	au.Mul(a, u)
	ud := scaleColumns(u, values)
	au.Sub(&au, ud)
	return mat.Norm(&au, 2) / math.Max(mat.Norm(a, 2), tiny)
}

// Eigen returns the eigenvalues of a in descending order and its unit eigenvectors, as
// the columns of an n×n matrix in that order, by gonum's mat.EigenSym: the reference
// of the tests, independent of package native's LAPACK route. A decomposition that
// fails fails the test (tb.Fatal).
func Eigen(tb testing.TB, a mat.Symmetric) ([]float64, *mat.Dense) {
	tb.Helper()
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		tb.Fatal("testmat: Eigen: mat.EigenSym did not factorize")
	}
	asc := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	n := len(asc)
	values, vecs := make([]float64, n), mat.NewDense(n, n, nil)
	for j := range n {
		values[j] = asc[n-1-j]
		for i := range n {
			vecs.Set(i, j, u.At(i, n-1-j))
		}
	}
	return values, vecs
}

// Orthogonality returns max_ij |(UᵀU − I)_ij| for an n×k matrix U, i.e. how
// far the columns of U are from orthonormal. A NaN anywhere in UᵀU gives NaN.
func Orthogonality(u mat.Matrix) float64 {
	var g mat.SymDense
	g.SymOuterK(1, u.T())
	k := g.SymmetricDim()
	worst := 0.0
	for i := range k {
		for j := i; j < k; j++ {
			v := g.At(i, j)
			if i == j {
				v--
			}
			v = math.Abs(v)
			if math.IsNaN(v) {
				return math.NaN()
			}
			worst = math.Max(worst, v)
		}
	}
	return worst
}

// Reconstruct returns U·diag(values)·Uᵀ for an n×k matrix U and k values, as
// an exactly symmetric SymDense (the average of the two computed triangles).
// It panics if len(values) differs from the number of columns of U.
func Reconstruct(values []float64, u mat.Matrix) *mat.SymDense {
	n, k := u.Dims()
	if k != len(values) {
		panic(fmt.Sprintf("testmat: Reconstruct: U is %d×%d, %d values", n, k, len(values)))
	}
	var b mat.Dense
	b.Mul(scaleColumns(u, values), u.T())
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(b.At(i, j)+b.At(j, i)))
		}
	}
	return s
}

// scaleColumns returns a new matrix equal to U·diag(values).
func scaleColumns(u mat.Matrix, values []float64) *mat.Dense {
	d := mat.DenseCopyOf(u)
	raw := d.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j, v := range values {
			row[j] *= v
		}
	}
	return d
}

// rows returns the first m rows of x as one contiguous row-major slice.
func rows(x mat.Matrix, m int) []float64 {
	_, d := x.Dims()
	out := make([]float64, m*d)
	for i := range m {
		for j := range d {
			out[i*d+j] = x.At(i, j)
		}
	}
	return out
}

// Leading returns a copy of the leading m×m principal submatrix of a (rows
// and columns 0 … m−1); the result shares no storage with a. It panics
// unless 1 ≤ m ≤ n.
func Leading(a mat.Symmetric, m int) *mat.SymDense {
	n := a.SymmetricDim()
	if m < 1 || m > n {
		panic(fmt.Sprintf("testmat: Leading: m = %d, want 1 ≤ m ≤ %d", m, n))
	}
	s := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			s.SetSym(i, j, a.At(i, j))
		}
	}
	return s
}

// MaxAbsDiff returns max_i |a_i − b_i|, or 0 for empty slices. If any
// difference is NaN (a NaN in either slice, or the same infinity at the same
// index of both) the result is NaN, so that a check "MaxAbsDiff(a, b) <= tol"
// fails. It panics if the lengths differ.
func MaxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("testmat: MaxAbsDiff: lengths %d and %d differ", len(a), len(b)))
	}
	worst := 0.0
	for i, v := range a {
		d := math.Abs(v - b[i])
		if math.IsNaN(d) {
			return math.NaN()
		}
		worst = math.Max(worst, d)
	}
	return worst
}
