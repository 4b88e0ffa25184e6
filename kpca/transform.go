package kpca

import (
	"math"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Scores writes the training scores of the top k components, U_k·Λ_k^½ (m×k), to dst:
// the coordinates of the points in the kernel PCA basis, with the signs of VectorsTo —
// what scikit-learn's fit_transform returns, so that Fit then Scores is
// KernelPCA(n_components=k).fit_transform(X). Components whose eigenvalue is zero or
// numerically zero (at most m·ε·λmax, or negative) score zero. dst is resized if empty,
// otherwise it must be m×k. k outside [1, Components()] and a nil dst are errors
// wrapping ErrArgument, a model without components ErrEmpty, a non-empty dst of another
// shape ErrDimension; on error dst is unchanged.
func (md *Model) Scores(dst *mat.Dense, k int) error {
	if err := md.ready(); err != nil {
		return err
	}
	return md.scoresOf(md.basis(), dst, k)
}

// scoresOf is Scores of the decomposition b.
func (md *Model) scoresOf(b basis, dst *mat.Dense, k int) error {
	if err := kinds.Components(k, md.componentsOf(b.pairs())); err != nil {
		return err
	}
	if err := kinds.Dst(dst, md.m, k); err != nil {
		return err
	}
	check.Reuse(dst, md.m, k)
	var u mat.Dense
	md.vectorsOf(b, &u)
	values := md.valuesOf(b, nil)
	tol := zeroTolerance(values, md.m)
	for j := range k {
		f := 0.0
		if values[j] > tol {
			f = math.Sqrt(values[j])
		}
		for i := range md.m {
			dst.Set(i, j, u.At(i, j)*f)
		}
	}
	return nil
}

// Transform projects the rows of X (new points of dimension Dim()) onto the top k
// components, k ≤ Components(): score_j(x) = uⱼᵀk'ₓ/√λⱼ with k'ₓ the kernel column of x
// against the points, centred like K' (docs/design.md, "Projection of new points"; since
// uⱼ ⊥ 1 it is uⱼᵀ(kₓ − K1/m)), or kₓ itself uncentred, and uⱼ signed as by VectorsTo.
// For a training point of the exact model this is its training score (Scores), so
// incremental and batch kernel PCA agree, sign included; at rank r the two differ by
// uⱼᵀ(K′ − K̃)eᵢ/√λⱼ, at most ErrorBound()/√λⱼ. Components with a zero or numerically
// zero eigenvalue score zero (no division), and so do those of a negative eigenvalue
// (see Values). dst is resized if empty, otherwise it must be rows×k. Errors are those
// of ikpca.Model.Transform, and leave dst unchanged.
//
// For a model of kernel.Precomputed (Dim() is 0) a row of X is not a point but its
// kernel values against the model's Len() points, in the order of Points (oldest
// first): X is rows×Len(), and no self-kernel is needed.
func (md *Model) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if err := md.ready(); err != nil {
		return err
	}
	return md.transformOf(md.basis(), dst, X, k)
}

// transformOf is Transform onto the decomposition b.
func (md *Model) transformOf(b basis, dst *mat.Dense, X mat.Matrix, k int) error {
	n := md.componentsOf(b.pairs())
	if md.precomputed() {
		X, rows, err := kinds.Transform(dst, X, md.m, k, n)
		if err != nil {
			return err
		}
		return md.transformKernelRows(b, dst, X, rows, k)
	}
	X, _, err := kinds.Transform(dst, X, md.d, k, n)
	if err != nil {
		return err
	}
	top, scale, shift := md.projector(b, k)
	// The kernel block K(X, points) times the vectors, a block of rows at a time
	// (kernel.Cross.ProjectTo: a dgemm for the distances or products of RBF,
	// polynomial and linear kernels, and for RBF each row projected as soon as it is
	// computed; docs/design.md, "Kernel blocks"). A kernel value that is not finite
	// (an overflowing polynomial kernel) is an error, and so are products that
	// overflow; either leaves dst as it was.
	cross := md.transformCross()
	return blocks.KernelProjections(dst, cross, X, top, func(lo, hi, bad int, out *mat.Dense) error {
		if bad >= 0 {
			return blocks.NonFinite(ErrNonFinite, cross, X, lo+bad, "point")
		}
		for i := range hi - lo {
			row := out.RawRowView(i)
			for q, p := range row {
				if math.IsNaN(p) || math.IsInf(p, 0) {
					return blocks.NonFinite(ErrNonFinite, cross, X, lo+i, "point")
				}
				row[q] = (p - shift[q]) * scale[q]
			}
		}
		return nil
	})
}

// transformCopyBytes is the largest shifted copy of the points a Transform makes for an
// RBF kernel (kernel.NewCross): with it, kernel.Cross.ProjectTo projects each row of a
// block while the row is in cache, in the same pass as its exponentials (up to a fifth
// of a block's time at d = 123: docs/design.md, "Kernel blocks"); without it
// (kernel.NewCrossNoCopy) each block shifts the points a panel at a time and is then
// projected by one dgemm. Beyond 64 MiB of points the copy would double the memory of
// the model's points for a saving the distances' dgemm dwarfs (at d = 784); a variable,
// so that tests can take either route.
var transformCopyBytes = 64 << 20

// transformCross returns the model's points prepared for a Transform's kernel blocks,
// with an RBF's shifted copy of them unless it would exceed transformCopyBytes.
func (md *Model) transformCross() *kernel.Cross {
	if 8*md.m*md.d > transformCopyBytes {
		return kernel.NewCrossNoCopy(md.kern, &md.view)
	}
	return kernel.NewCross(md.kern, &md.view)
}

// projector returns what scores kernel columns on the top k components: the vectors as
// the rows of a k×m matrix, their scales ±1/√λ (0 for a numerically zero λ) and, centred,
// their shifts (K1/m)ᵀuⱼ, so that a column kₓ scores (uⱼᵀkₓ − shiftⱼ)·scaleⱼ.
func (md *Model) projector(b basis, k int) (top *mat.Dense, scale, shift []float64) {
	idx := md.reported(b)[:k]
	m := md.m
	// The top k vectors, as the rows of a k×m matrix, and their scales ±1/√λ, the sign
	// read from the vector (VectorsTo): O(m·k).
	top = mat.NewDense(k, m, nil)
	tol := zeroTolerance(b.values, m)
	scale = make([]float64, k)
	for q, j := range idx {
		pv := top.RawRowView(q)
		b.column(pv, j)
		if b.values[j] > tol {
			scale[q] = sign.Of(pv) / math.Sqrt(b.values[j])
		}
	}
	// Centring kₓ − K1/m is applied after the product of the kernel block with the
	// vectors, as the k shifts (K1/m)ᵀuⱼ computed once: a pass over the b×m block,
	// serial and a division an entry, took two fifths of a block's time at d = 123. The
	// rounding is of the same order either way — uⱼ ⊥ 1 cancels kₓ's constant part
	// inside the product itself — and the shifts add ε·|(K1/m)ᵀuⱼ| ≤ ε·‖K1/m‖
	// (docs/design.md, "Projection of new points").
	shift = make([]float64, k)
	if !md.opts.Uncentred {
		mean := make([]float64, m)
		for j := range mean {
			mean[j] = md.rowSum[j] / float64(m)
		}
		native.Gemv(blas.NoTrans, 1, top.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: mean}, 0, blas64.Vector{N: k, Inc: 1, Data: shift})
	}
	return top, scale, shift
}
