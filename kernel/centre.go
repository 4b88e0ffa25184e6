package kernel

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
)

// Centre returns the kernel matrix of the points centred in feature space, K' = CKC
// with C = I − 11ᵀ/n: K'ᵢⱼ = Kᵢⱼ − rᵢ/n − rⱼ/n + T/n², where r = K1 and T = 1ᵀK1. This
// is the matrix a batch kernel PCA decomposes. K is not modified; an empty or nil K
// (an untyped nil or a nil pointer) gives an empty result.
func Centre(K mat.Symmetric) *mat.SymDense {
	if check.IsNil(K) {
		return &mat.SymDense{}
	}
	n := K.SymmetricDim()
	if n == 0 {
		return &mat.SymDense{}
	}
	r := make([]float64, n)
	var total float64
	for i := range n {
		for j := range n {
			r[i] += K.At(i, j)
		}
		total += r[i]
	}
	fn := float64(n)
	c := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			c.SetSym(i, j, K.At(i, j)-r[i]/fn-r[j]/fn+total/(fn*fn))
		}
	}
	return c
}
