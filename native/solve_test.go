package native_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
)

// TestSolve checks Posv and Gesv against the definition: the residual ‖A·X − B‖ of a
// backward-stable solve is at most a small multiple of n·ε·‖A‖·‖X‖ (here 8·n·ε, with
// the max-norm on each side), and the reciprocal condition estimate is within the
// factor of 10 LAPACK's estimators promise in practice of 1/(‖A‖₁·‖A⁻¹‖₁). A matrix
// that is not positive definite makes Posv report false, and a singular one Gesv, each
// leaving B unchanged.
func TestSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, nrhs = 40, 3
	G := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	var spd mat.Dense
	spd.Mul(G.T(), G)
	for i := range n {
		spd.Set(i, i, spd.At(i, i)+1)
	}
	B := mat.NewDense(n, nrhs, nil)
	for i := range n {
		for j := range nrhs {
			B.Set(i, j, rng.NormFloat64())
		}
	}
	check := func(name string, A *mat.Dense, solve func(a, b *mat.Dense) (float64, bool)) {
		a, X := mat.DenseCopyOf(A), mat.DenseCopyOf(B)
		rcond, ok := solve(a, X)
		if !ok {
			t.Fatalf("%s: failed", name)
		}
		var R mat.Dense
		R.Mul(A, X)
		R.Sub(&R, B)
		res := mat.Norm(&R, math.Inf(1)) / (mat.Norm(A, math.Inf(1)) * mat.Norm(X, math.Inf(1)))
		var inv mat.Dense
		if err := inv.Inverse(A); err != nil {
			t.Fatal(err)
		}
		exact := 1 / (mat.Norm(A, 1) * mat.Norm(&inv, 1))
		t.Logf("%s: residual %.3g, rcond %.3g (exact %.3g)", name, res, rcond, exact)
		if res > 8*n*0x1p-53 {
			t.Errorf("%s: relative residual %.3g", name, res)
		}
		if rcond < exact/10 || rcond > 10*exact {
			t.Errorf("%s: rcond %.3g, exact %.3g", name, rcond, exact)
		}
	}
	posv := func(a, b *mat.Dense) (float64, bool) {
		raw := a.RawMatrix()
		return native.Posv(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: raw.Stride, Data: raw.Data}, b.RawMatrix())
	}
	gesv := func(a, b *mat.Dense) (float64, bool) { return native.Gesv(a.RawMatrix(), b.RawMatrix()) }
	check("Posv", &spd, posv)
	check("Gesv", &spd, gesv)
	check("Gesv, general", G, gesv)

	indefinite := mat.DenseCopyOf(&spd)
	indefinite.Set(5, 5, -1)
	X := mat.DenseCopyOf(B)
	if _, ok := posv(indefinite, X); ok || !mat.Equal(X, B) {
		t.Errorf("Posv of an indefinite matrix: ok %v, B changed %v", ok, !mat.Equal(X, B))
	}
	singular := mat.DenseCopyOf(G)
	for j := range n {
		singular.Set(7, j, 0)
	}
	if _, ok := gesv(singular, X); ok || !mat.Equal(X, B) {
		t.Errorf("Gesv of a singular matrix: ok %v, B changed %v", ok, !mat.Equal(X, B))
	}
	if rcond, ok := native.Gesv(blas64.General{}, blas64.General{}); !ok || rcond != 1 {
		t.Errorf("Gesv of 0×0: %g, %v", rcond, ok)
	}
}
