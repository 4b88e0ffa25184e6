// Package testmat is test support: the oracles of the numerical tests of symmetric
// eigendecompositions and their updates — the reference decomposition (Eigen), residual
// and orthogonality measures — and of the kernel models: centred kernel columns and
// scores (Centring), the kernels every constructor must refuse (BadKernels), which the
// error tests share, the data sets, kernels and rounding scale of the kernel-block tests
// (BlockSets, BlockKernels, NearPoints, KernelValueSize), the scikit-learn fixtures'
// reader (ReadCSVGz, MaxRel) and the pre-image references and circle that the tests of
// preimage, kpca and nystrom share (PreimageCases, Circle, OffCircle); AddRows, which
// feeds a model one row at a time; and the points of fuzz targets as bytes (FuzzBytes,
// FuzzFloats). Only tests import it (TestTestSupport, docs/design.md, "Layout"); the
// random matrices and data sets that programs draw too are in internal/synth. (Kernel
// matrices come from package kernel.)
//
// The helpers are meant for tests: invalid arguments cause a panic rather than an
// error.
package testmat

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// tiny guards the denominator of relative measures against division by zero:
// the smallest positive normal float64.
const tiny = 0x1p-1022

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
	for i := range n {
		for j, v := range values {
			// float64(…) rounds the product first, as a separate U·diag(values) would:
			// no fused multiply-add.
			au.Set(i, j, au.At(i, j)-float64(v*u.At(i, j)))
		}
	}
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
