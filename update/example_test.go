package update_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/update"
)

// A gonum eigendecomposition moves into a Sym, which then absorbs a rank-one change
// without being recomputed. No set-up: a build with -tags openblas runs the update on
// OpenBLAS.
func ExampleNewSymFromEigen() {
	a := mat.NewSymDense(3, []float64{4, 1, 0, 1, 3, 1, 0, 1, 2})
	var e mat.EigenSym
	e.Factorize(a, true) // a failed factorization is NewSymFromEigen's error
	s, err := update.NewSymFromEigen(&e)
	if err == nil {
		// A + 2·v·vᵀ with v = (1, 0, 1).
		err = s.RankOne(2, mat.NewVecDense(3, []float64{1, 0, 1}))
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", s.Values(nil))
	// Output:
	// [2.354249 3.000000 7.645751]
}

// A decomposition grows one row and column at a time with Border, and absorbs a
// rank-one change with RankOne; it always matches a batch decomposition.
func ExampleSym() {
	// A = [[4, 1, 0], [1, 3, 1], [0, 1, 2]], built by bordering from the empty matrix.
	var s update.Sym
	rows := [][]float64{{4}, {1, 3}, {0, 1, 2}}
	for _, r := range rows {
		n := len(r) - 1
		var a mat.Vector // nil: the first Border of the empty matrix has no column
		if n > 0 {
			a = mat.NewVecDense(n, r[:n])
		}
		if err := s.Border(a, r[n]); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("%.6f\n", s.Values(nil))

	// A + 2·v·vᵀ with v = (1, 0, 1).
	if err := s.RankOne(2, mat.NewVecDense(3, []float64{1, 0, 1})); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", s.Values(nil))
	fmt.Println(s.Len(), s.Stats().Op)
	// Output:
	// [1.267949 3.000000 4.732051]
	// [2.354249 3.000000 7.645751]
	// 3 rank-one
}

// A Thin keeps the top eigenpairs of a matrix that grows one row and column at a time
// and changes by rank one.
func ExampleThin() {
	// A = diag(0, 3, 5), from its eigenpairs (3, e₂) and (5, e₃), tracked at rank 3.
	t, err := update.NewThin([]float64{3, 5}, mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1}))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := t.SetTruncation(update.Truncation{Rank: 3}); err != nil {
		fmt.Println(err)
		return
	}

	// A ← [[A, b], [bᵀ, 2]] with b = e₁ (e = nil and f = 1: the new row is a coordinate
	// of its own). Its eigenvalues are 3, 5 and 1 ± √2; the smallest is dropped.
	if err := t.Border(mat.NewVecDense(3, []float64{1, 0, 0}), nil, 1, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f dropped %.6f\n", t.Values(nil), t.Stats().Dropped.Max)

	// A ← A + v·vᵀ, v = (0, 1, 0, 1) read from a column of a matrix: a vector of
	// increment 2, used without a copy of its own.
	x := mat.NewDense(4, 2, []float64{0, 9, 1, 9, 0, 9, 1, 9})
	if err := t.RankOne(1, x.ColView(0)); err != nil {
		fmt.Println(err)
		return
	}
	n, k := t.Dims()
	fmt.Printf("%d×%d: %.6f\n", n, k, t.Values(nil))
	// Output:
	// [2.414214 3.000000 5.000000] dropped -0.414214
	// 4×3: [2.642383 4.686173 5.000000]
}
