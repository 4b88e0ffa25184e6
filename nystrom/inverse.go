package nystrom

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/preimagecall"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/preimage"
)

// Inverse returns scikit-learn's learned pre-image map for the top k components,
// fitted on the training points X, which the model does not keep: kernel ridge
// regression from their scores (Transform, n×k) to the points, with the model's kernel
// applied to the score vectors and the ridge alpha (preimage.FitKRR; docs/design.md,
// "Pre-images"). X may be the points the model was fitted on or any other sample of the
// data (a subset, when n is beyond 2¹⁵). With every training point a landmark, the map
// is KernelPCA(n_components=k, fit_inverse_transform=True, alpha=alpha)'s to rounding.
// The map is a value of its own: the model is unchanged, its encoding too.
//
// It costs the scores of X and O(n²) memory and O(n³/3) flops (the n×n kernel matrix of
// the scores and its Cholesky factor): n is at most 2¹⁵. The first read after a change
// computes the decomposition, as Transform does.
//
// A zero Model, a nil X, k outside [1, Components] and an alpha preimage.FitKRR refuses
// (negative, NaN, infinite), more than 2¹⁵ points, or a kernel matrix of the scores
// singular to working precision (give a larger alpha) are errors wrapping ErrArgument,
// a model without components or an X without rows ErrEmpty, X of another dimension
// ErrDimension, a NaN or an infinity in X or a kernel value ErrNonFinite.
func (md *Model) Inverse(X mat.Matrix, k int, alpha float64) (*preimage.KRR, error) {
	if md.r == 0 {
		return nil, errZero
	}
	var S mat.Dense
	if err := md.Transform(&S, X, k); err != nil {
		return nil, err
	}
	inv, err := preimage.FitKRR(md.kern, &S, X, alpha)
	if err != nil {
		return nil, kinds.Wrap(err, "the pre-image map")
	}
	return inv, nil
}

// PreImage denoises the rows of X (points of dimension Dim()) with the top k components
// and writes the results to the rows of dst, as kpca.Model.PreImage does: the feature
// vector of each x is projected onto the top k components, the mean added back (the
// model centres by default),
//
//	Pφ(x) = φ̄ + Σⱼ βⱼ·vⱼ ∈ Rʳ',   in the kernel's feature space Σₗ γₗ·φ(lₗ),  γ = F·Pφ(x),
//
// over the landmarks lₗ, with βⱼ the scores of x (Transform), vⱼ the unit directions and
// F = W·Σ^−½ the feature map (docs/design.md, "Pre-images"); its pre-image is found by
// preimage.FixedPoint from the rows of start, or from x itself if start is nil. It needs
// a Gaussian kernel (kernel.RBF). A point costs its scores and opts.MaxIter iterations
// of r kernel values and 2·r·d flops each.
//
// dst is resized if empty, otherwise it must be rows×Dim(). A zero Model, a kernel
// other than RBF, bad options (preimage.Options.Validate), a nil dst or X, and k
// outside [1, Components] are errors wrapping ErrArgument; X or start without rows, or
// a model without components, ErrEmpty; a start or a dst of another shape, or an X of
// another dimension, ErrDimension; a NaN or an infinity in X or start, or a kernel
// value that is not finite, ErrNonFinite. On error dst is unchanged, and the model
// always is. The first read after a change computes the decomposition, as Transform
// does.
func (md *Model) PreImage(dst *mat.Dense, X, start mat.Matrix, k int, opts preimage.Options) error {
	if md.r == 0 {
		return errZero
	}
	rbf, start, beta, err := preimagecall.Prepare(kinds, md.kern, md.Transform, dst, X, start, md.d, k, md.components(), opts)
	if err != nil {
		return err
	}
	rows, _ := beta.Dims()
	r, p := md.r, md.p
	// γ = F·(c + s/n) + (F·V)_k·β: the mean's coefficients once, G = F·V (md.fold) per
	// point. Uncentred, the mean is not added back (c = 0, and the scores are φᵀvⱼ).
	g0 := make([]float64, r)
	if !md.opts.Uncentred {
		y0 := make([]float64, p)
		for j := range p {
			y0[j] = md.shift[j] + md.mean[j]
		}
		native.Gemv(blas.NoTrans, 1, general(r, p, md.f), blas64.Vector{N: p, Inc: 1, Data: y0}, 0, blas64.Vector{N: r, Inc: 1, Data: g0})
	}
	G := blas64.General{Rows: r, Cols: k, Stride: p, Data: md.fold}
	coef := func(i int, gamma []float64) {
		copy(gamma, g0)
		native.Gemv(blas.NoTrans, 1, G, blas64.Vector{N: k, Inc: 1, Data: beta.RawRowView(i)}, 1, blas64.Vector{N: r, Inc: 1, Data: gamma})
	}
	if i, err := preimage.Expansions(dst, start, rows, rbf, md.land, coef, opts); err != nil {
		return kinds.Wrap(err, "the pre-image of point %d", i)
	}
	return nil
}
