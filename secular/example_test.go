package secular_test

import (
	"fmt"

	"github.com/ikpca/ikpca/secular"
)

// The eigenvalues of diag(1, 2, 3) + 0.5·z·zᵀ, with z = (1, 1, 1).
func ExampleSolver_RankOne() {
	var s secular.Solver
	res, err := s.RankOne([]float64{1, 2, 3}, []float64{1, 1, 1}, 0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", res.Values)
	fmt.Println("deflated:", res.Stats.Deflated)
	// Output:
	// [1.255356 2.355416 3.889229]
	// deflated: 0
}

// The eigenvalues of the arrowhead [[1, 0, 1], [0, 2, 1], [1, 1, 0]].
func ExampleSolver_Arrow() {
	var s secular.Solver
	res, err := s.Arrow([]float64{1, 2}, []float64{1, 1}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", res.Values)
	// Output:
	// [-0.879385 1.347296 2.532089]
}

// A single root and its differences δⱼ = dⱼ − λ, as LAPACK's dlaed4 computes them.
func ExampleRankOneRoot() {
	d := []float64{1, 2, 3}
	delta := make([]float64, 3)
	lambda, _, err := secular.RankOneRoot(0, d, []float64{1, 1, 1}, 0.5, delta)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f %.6f\n", lambda, delta)
	// Output:
	// 1.255356 [-0.255356 0.744644 1.744644]
}

// Deleting the last row and column of A = U·diag(1, 2, 4)·Uᵀ: the eigenvalues of what
// remains are those of diag(1, 2, 4) restricted to the hyperplane orthogonal to the
// deleted row of U. Here U is the identity with its last two columns rotated by 45°, so
// the deleted row is z = (0, −1/√2, 1/√2): the pole 1 stays, and 2 and 4 merge into
// their mean.
func ExampleSolver_Restrict() {
	var s secular.Solver
	res, err := s.Restrict([]float64{1, 2, 4}, []float64{0, -1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", res.Values)
	fmt.Println("deflated:", res.Stats.Deflated)
	// Output:
	// [1.000000 3.000000]
	// deflated: 1
}
