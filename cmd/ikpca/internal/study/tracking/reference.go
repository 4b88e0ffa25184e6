package tracking

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// reference holds the exact top pairs of the kernel matrix of n points, centred
// (K′ = CKC) and uncentred (K): the yardstick every model of the comparison is measured
// against.
type reference struct {
	// values are the top eigenvalues of K′, descending, and vectors (n×len(values))
	// their unit eigenvectors; uvalues and uvectors those of K (nil if not asked for).
	values, uvalues   []float64
	vectors, uvectors *mat.Dense
	// residual is the largest ‖K′u − λu‖/λ₁ (and ‖Ku − λu‖/λ₁) of the pairs, measured
	// by one more product each after the Lanczos iteration.
	residual float64
}

// referenceTol is the residual, relative to λ₁, to which the Lanczos iteration takes the
// reference pairs: each eigenvalue is then within 1e-12·λ₁ (within its square over the
// gap, in fact) and each eigenvector within 1e-12·λ₁/gap, far below the errors measured
// (1e-9 and more for eigenvalues, 1e-6 and more for subspaces).
const referenceTol = 1e-12

// kernelMatrix is the points' kernel matrix with the measurements of the comparison.
type kernelMatrix struct{ *study.KernelMatrix }

func newKernelMatrix(k kernel.Kernel, X *mat.Dense) *kernelMatrix {
	return &kernelMatrix{study.NewKernelMatrix(k, X)}
}

// references computes the top k pairs of K′ and, if uncentredToo, of K.
func (m *kernelMatrix) references(ctx context.Context, k int, uncentredToo bool, seed uint64) (*reference, error) {
	ref := &reference{}
	var err error
	if ref.values, ref.vectors, err = lanczos.Top(ctx, m.N, k, m.Centred, referenceTol, m.N, seed); err != nil {
		return nil, err
	}
	ref.residual = m.residual(m.Centred, ref.values, ref.vectors)
	if uncentredToo {
		if ref.uvalues, ref.uvectors, err = lanczos.Top(ctx, m.N, k, m.Uncentred, referenceTol, m.N, seed+1); err != nil {
			return nil, err
		}
		ref.residual = math.Max(ref.residual, m.residual(m.Uncentred, ref.uvalues, ref.uvectors))
	}
	return ref, nil
}

// residual returns max over the pairs of ‖A·u − λu‖/λ₁.
func (m *kernelMatrix) residual(apply func(dst, x []float64), vals []float64, V *mat.Dense) float64 {
	u := make([]float64, m.N)
	au := make([]float64, m.N)
	var worst float64
	for j, l := range vals {
		for i := range u {
			u[i] = V.At(i, j)
		}
		apply(au, u)
		var s float64
		for i := range au {
			d := au[i] - l*u[i]
			s += d * d
		}
		worst = math.Max(worst, math.Sqrt(s)/vals[0])
	}
	return worst
}

// truncationNorm returns ‖K′ − V·diag(λ)·Vᵀ‖₂ (centred) or ‖K − V·diag(λ)·Vᵀ‖₂, the
// true error of a rank-r model's matrix, by the Lanczos method of internal/lanczos
// (residual 1e-14 of the norm).
func (m *kernelMatrix) truncationNorm(centred bool, vals []float64, V *mat.Dense) float64 {
	apply := m.Uncentred
	if centred {
		apply = m.Centred
	}
	r := len(vals)
	c := make([]float64, r)
	vr := V.RawMatrix()
	return lanczos.Norm(m.N, func(dst, x []float64) {
		apply(dst, x)
		native.Gemv(blas.Trans, 1, vr, blas64.Vector{N: m.N, Inc: 1, Data: x}, 0, blas64.Vector{N: r, Inc: 1, Data: c})
		for j := range c {
			c[j] *= vals[j]
		}
		native.Gemv(blas.NoTrans, -1, vr, blas64.Vector{N: r, Inc: 1, Data: c}, 1, blas64.Vector{N: m.N, Inc: 1, Data: dst})
	})
}
