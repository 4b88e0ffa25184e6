package kpca

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/preimagecall"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/preimage"
)

// Inverse returns scikit-learn's learned pre-image map for the top k components:
// kernel ridge regression from the training scores (Scores, m×k) to the model's points
// (Points), with the model's kernel applied to the score vectors and the ridge alpha —
// KernelPCA(n_components=k, fit_inverse_transform=True, alpha=alpha) fitted on the
// model's points, whose inverse_transform is the map's InverseTransform
// (preimage.FitKRR; docs/design.md, "Pre-images"). The map is a value of its own, not
// part of the model: the model is unchanged, its encoding too, and the map does not
// follow later Adds and Removes (call Inverse again).
//
// At rank r the training scores are those of the tracked pairs (Scores), within
// ErrorBound()/√λⱼ of the exact ones. It costs O(m²) memory and O(m³/3) flops (the
// m×m kernel matrix of the scores and its Cholesky factor): m is at most 2¹⁵.
//
// A zero Model, k outside [1, Components()] and an alpha preimage.FitKRR refuses
// (negative, NaN, infinite), more than 2¹⁵ points, or a kernel matrix of the scores
// singular to working precision (give a larger alpha) are errors wrapping ErrArgument,
// a model without components ErrEmpty, a kernel value that is not finite ErrNonFinite.
func (md *Model) Inverse(k int, alpha float64) (*preimage.KRR, error) {
	if err := md.ready(); err != nil {
		return nil, err
	}
	if err := md.needKernel("Inverse (a regression onto the points' coordinates)"); err != nil {
		return nil, err
	}
	if err := kinds.Components(k, md.Components()); err != nil {
		return nil, err
	}
	var S mat.Dense
	if err := md.Scores(&S, k); err != nil {
		return nil, err
	}
	inv, err := preimage.FitKRR(md.kern, &S, &md.view, alpha)
	if err != nil {
		return nil, kinds.Wrap(err, "the pre-image map")
	}
	return inv, nil
}

// PreImage denoises the rows of X (points of dimension Dim()) with the top k components
// and writes the results to the rows of dst: for each x, the feature vector φ(x) is
// projected onto the top k components — with the mean added back, centred —
//
//	Pφ(x) = Σᵢ γᵢ·φ(xᵢ),   γᵢ = Σⱼ βⱼ·aᵢⱼ + (1 − Σⱼ βⱼ·Σₗ aₗⱼ)/m
//
// over the model's points xᵢ, with βⱼ the scores of x (Transform) and aⱼ = uⱼ/√λⱼ the
// coefficients of component j (γᵢ = Σⱼ βⱼ·aᵢⱼ uncentred; docs/design.md, "Pre-images"),
// and its pre-image is found by the fixed-point iteration of Mika et al. (1999),
// preimage.FixedPoint, which maximises ⟨Pφ(x), φ(z)⟩: the z whose φ(z) is nearest to
// Pφ(x). The iteration starts from the rows of start (rows×Dim(); the KRR pre-images of
// Inverse, for instance), or from x itself if start is nil, and keeps the best point
// visited, so that ‖φ(z) − Pφ(x)‖ is never above the start's. It needs a Gaussian
// kernel (kernel.RBF). A point costs its scores and opts.MaxIter iterations of m
// kernel values and 2·m·d flops each.
//
// dst is resized if empty, otherwise it must be rows×Dim(). A zero Model, a kernel
// other than RBF, bad options (preimage.Options.Validate), a nil dst or X, and k
// outside [1, Components()] are errors wrapping ErrArgument; X or start without rows
// ErrEmpty; a model without components ErrEmpty; a start or a dst of another shape, or
// an X of another dimension, ErrDimension; a NaN or an infinity in X or start, or a
// kernel value that is not finite, ErrNonFinite. On error dst is unchanged, and the
// model always is.
func (md *Model) PreImage(dst *mat.Dense, X, start mat.Matrix, k int, opts preimage.Options) error {
	if err := md.ready(); err != nil {
		return err
	}
	if err := md.needKernel("PreImage"); err != nil {
		return err
	}
	rbf, start, beta, err := preimagecall.Prepare(kinds, md.kern, md.Transform, dst, X, start, md.d, k, md.Components(), opts)
	if err != nil {
		return err
	}
	rows, _ := beta.Dims()
	A := md.coefficients(k)
	m := md.m
	// sums[j] = Σₗ aₗⱼ: zero in exact arithmetic (uⱼ ⊥ 1), kept so that γ is exactly
	// the expansion of the projection whatever the vectors' rounding.
	sums := make([]float64, k)
	for j := range k {
		for _, v := range A.RawRowView(j) {
			sums[j] += v
		}
	}
	coef := func(i int, gamma []float64) {
		b := beta.RawRowView(i)
		native.Gemv(blas.Trans, 1, A.RawMatrix(), blas64.Vector{N: k, Inc: 1, Data: b}, 0, blas64.Vector{N: m, Inc: 1, Data: gamma})
		if md.Centred() {
			// Pφ(x) = μ + Σⱼ βⱼvⱼ with μ = Σᵢφ(xᵢ)/m and vⱼ = Σᵢ aᵢⱼ(φ(xᵢ) − μ):
			// docs/design.md, "Pre-images".
			c := 1.0
			for j, v := range b {
				c -= v * sums[j]
			}
			c /= float64(m)
			for l := range gamma {
				gamma[l] += c
			}
		}
	}
	if i, err := preimage.Expansions(dst, start, rows, rbf, &md.view, coef, opts); err != nil {
		return kinds.Wrap(err, "the pre-image of point %d", i)
	}
	return nil
}

// coefficients returns the k×m matrix whose row j is aⱼ = uⱼ/√λⱼ, signed as by
// VectorsTo (zero for a numerically zero eigenvalue): component j is the feature-space
// direction Σᵢ aᵢⱼ·φ̃(xᵢ), the rows Transform projects on.
func (md *Model) coefficients(k int) *mat.Dense {
	b := md.basis()
	idx := md.reported(b)[:k]
	A := mat.NewDense(k, md.m, nil)
	tol := zeroTolerance(b.values, md.m)
	for q, j := range idx {
		row := A.RawRowView(q)
		b.column(row, j)
		s := 0.0
		if b.values[j] > tol {
			s = sign.Of(row) / math.Sqrt(b.values[j])
		}
		for i := range row {
			row[i] *= s
		}
	}
	return A
}
