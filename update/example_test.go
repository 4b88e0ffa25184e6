package update_test

import (
	"fmt"

	"github.com/ikpca/ikpca/update"
)

// A decomposition grows one row and column at a time with Border, and absorbs a
// rank-one change with RankOne; it always matches a batch decomposition.
func ExampleSym() {
	// No set-up: a build with -tags openblas runs the updates on OpenBLAS.
	// A = [[4, 1, 0], [1, 3, 1], [0, 1, 2]], built by bordering from the empty matrix.
	var s update.Sym
	rows := [][]float64{{4}, {1, 3}, {0, 1, 2}}
	for _, r := range rows {
		if err := s.Border(r[:len(r)-1], r[len(r)-1]); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("%.6f\n", s.Values(nil))

	// A + 2·v·vᵀ with v = (1, 0, 1).
	if err := s.RankOne(2, []float64{1, 0, 1}); err != nil {
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
