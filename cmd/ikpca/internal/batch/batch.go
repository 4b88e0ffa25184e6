// Package batch is the reference the studies under internal/study compare incremental
// models with: batch kernel PCA, the eigendecomposition of the centred kernel matrix of
// all the points, computed from scratch.
package batch

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// KPCA returns the eigenvalues of the centred kernel matrix K' = CKC of the rows of X
// (kernel.Centre), in descending order, and its unit eigenvectors in the columns of an
// n×n matrix, in the same order. The eigensolver is native.EigenSym (LAPACK dsyevd with
// OpenBLAS, gonum's Dsyev in pure Go). The scores of the training points on component j
// are the column j scaled by √λⱼ.
func KPCA(k kernel.Kernel, X *mat.Dense) ([]float64, *mat.Dense, error) {
	K := kernel.Centre(kernel.Matrix(k, X))
	n := K.SymmetricDim()
	var vecs mat.Dense
	asc, err := native.EigenSym(nil, &vecs, K)
	if err != nil {
		return nil, nil, err
	}
	vals := make([]float64, n)
	u := mat.NewDense(n, n, nil)
	for j := range n {
		vals[j] = asc[n-1-j]
		u.SetCol(j, mat.Col(nil, n-1-j, &vecs))
	}
	return vals, u, nil
}
