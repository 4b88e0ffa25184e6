package study

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// KernelMatrix is the n×n kernel matrix of a set of points, formed once (19,020² doubles
// are 2.9 GB), applied as the operators whose top eigenpairs are the exact references of
// the studies (lanczos.Top): K and the centred K′ = CKC, C = I − 11ᵀ/n.
type KernelMatrix struct {
	N   int // the number of points
	raw blas64.Symmetric
	tmp []float64
}

// NewKernelMatrix forms the kernel matrix of the rows of X.
func NewKernelMatrix(k kernel.Kernel, X *mat.Dense) *KernelMatrix {
	K := kernel.Matrix(k, X)
	n := K.SymmetricDim()
	return &KernelMatrix{N: n, raw: K.RawSymmetric(), tmp: make([]float64, n)}
}

// Uncentred sets dst = K·x.
func (m *KernelMatrix) Uncentred(dst, x []float64) {
	native.Symv(1, m.raw, blas64.Vector{N: m.N, Inc: 1, Data: x}, 0, blas64.Vector{N: m.N, Inc: 1, Data: dst})
}

// Centred sets dst = CKC·x.
func (m *KernelMatrix) Centred(dst, x []float64) {
	copy(m.tmp, x)
	vec.SubtractMean(m.tmp)
	m.Uncentred(dst, m.tmp)
	vec.SubtractMean(dst)
}
