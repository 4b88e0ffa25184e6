package pca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/native"
)

// stored returns the eigenvalues the decomposition holds (ascending) and a view of its
// eigenvectors (d rows, a column each), shared with it.
func (md *Model) stored() ([]float64, blas64.General) {
	var v mat.Matrix
	var values []float64
	if md.opts.Rank > 0 {
		values = md.thin.Values(nil)
		v = md.thin.Vectors()
	} else {
		values = md.exact.Values(nil)
		v = md.exact.Vectors()
	}
	var g blas64.General
	if dv, ok := v.(*mat.Dense); ok && !dv.IsEmpty() {
		g = dv.RawMatrix()
	}
	return values, g
}

// Components returns the number of components Values reports: Options.Components (d
// with All), or fewer at rank r while the model tracks fewer pairs of positive
// eigenvalue. A model without points has none at rank r, and its d zero components
// otherwise.
func (md *Model) Components() int {
	k := md.opts.components(md.d)
	if md.opts.Rank > 0 {
		_, have := md.thin.Dims()
		k = min(k, have)
	}
	return k
}

// Values returns the top Components() eigenvalues of the scatter matrix
// S = Σwᵢ(xᵢ − μ)(xᵢ − μ)ᵀ in descending order: those of the centred linear kernel
// matrix, as every ikpca.Model reports them, not divided by the number of points (VarsTo
// divides). Eigenvalues that rounding made slightly negative are reported as zero (see
// Remove). If len(dst) ≥ Components() they are written to dst[:Components()], which is
// returned; otherwise a new slice is allocated (the rule of ikpca.Model.Values).
func (md *Model) Values(dst []float64) []float64 {
	k := md.Components()
	dst = check.Room(dst, k)
	if k == 0 {
		return dst
	}
	values, _ := md.stored()
	top := len(values) - 1
	for q := range k {
		dst[q] = math.Max(values[top-q], 0)
	}
	return dst
}

// VarsTo returns the variances along the top Components() components, the eigenvalues
// of the covariance S/(W − 1): gonum's stat.PC VarsTo, with or without weights (W is
// the total weight, Len() without weights), and scikit-learn's PCA explained_variance_.
// With W ≤ 1 (at most one unweighted point) the sample variance is not defined and
// VarsTo writes zeros. dst follows the rule of Values.
func (md *Model) VarsTo(dst []float64) []float64 {
	dst = md.Values(dst)
	f := 0.0
	if md.w > 1 {
		f = 1 / (md.w - 1)
	}
	for i, v := range dst {
		dst[i] = v * f
	}
	return dst
}

// total returns the trace of S, the total the shares of ExplainedVariance divide: the
// sum of every eigenvalue of the exact model (negative ones from rounding counted as
// zero), and at rank r the running trace, exact whatever the truncations dropped.
func (md *Model) total() float64 {
	if md.opts.Rank > 0 {
		return md.trace
	}
	var sum float64
	for _, v := range md.exact.Values(md.values) {
		sum += math.Max(v, 0)
	}
	return sum
}

// ExplainedVariance returns each component's share λⱼ/trace S of the total variance, in
// the order of Values: scikit-learn's explained_variance_ratio_. At rank r the total is
// the trace of the true S, kept exactly by the updates, so that the shares sum to the
// fraction of the variance the tracked components capture. dst follows the rule of
// Values.
func (md *Model) ExplainedVariance(dst []float64) []float64 {
	sum := md.total()
	dst = md.Values(dst)
	for i, v := range dst {
		if sum > 0 {
			dst[i] = v / sum
		} else {
			dst[i] = 0
		}
	}
	return dst
}

// VectorsTo stores the top Components() unit eigenvectors of the scatter matrix, the
// principal directions, as the columns of dst (Dim()×Components(), in the order of
// Values): stat.PC's VectorsTo, scikit-learn's components_ transposed. dst follows the
// rule for destinations of package ikpca: written in place if of that shape, resized if empty,
// replaced by a new matrix otherwise, never a panic (a model without components, and a
// nil dst, leave dst empty or as it is). Each column's sign is fixed by its
// own entries: the first entry within a relative 1e-6 of the largest magnitude is
// positive (package sign; docs/design.md, "Linear PCA" on why the directions and not
// the scores).
func (md *Model) VectorsTo(dst *mat.Dense) {
	k := md.Components()
	if !check.Vectors(dst, md.d, k) {
		return
	}
	_, g := md.stored()
	top := g.Cols - 1
	col := make([]float64, md.d)
	for q := range k {
		for i := range col {
			col[i] = g.Data[i*g.Stride+top-q]
		}
		s := sign.Of(col)
		for i, v := range col {
			dst.Set(i, q, s*v)
		}
	}
}

// Transform writes the scores of the rows of X on the top k components to dst (rows×k):
// (x − μ)ᵀvⱼ, with vⱼ signed as by VectorsTo — scikit-learn's PCA.transform (without
// whitening). k must be in [1, Components()]; dst is resized if empty, otherwise it must
// be rows×k. Errors are those of ikpca.Model.Transform — scores that overflow from
// finite coordinates are an ErrNonFinite too — and leave dst unchanged.
func (md *Model) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if err := md.ready(); err != nil {
		return err
	}
	if md.n == 0 {
		return fmt.Errorf("%w: the model has no points", ErrEmpty)
	}
	X, rows, err := kinds.Transform(dst, X, md.d, k, md.Components())
	if err != nil {
		return err
	}
	var v mat.Dense
	md.VectorsTo(&v)
	vk := v.Slice(0, md.d, 0, k).(*mat.Dense)
	// The points are centred before the product: subtracting μᵀvⱼ afterwards would
	// cancel ⟨x, vⱼ⟩ against ⟨μ, vⱼ⟩, losing ‖x‖/‖x − μ‖ digits when the mean is far
	// from the origin.
	xc := mat.NewDense(rows, md.d, nil)
	for i := range rows {
		row := xc.RawRowView(i)
		mat.Row(row, i, X)
		for j := range row {
			row[j] -= md.mean[j]
		}
	}
	out := mat.NewDense(rows, k, nil)
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, xc.RawMatrix(), vk.RawMatrix(), 0, out.RawMatrix())
	if err := finiteRows(out, "the scores of point"); err != nil {
		return err
	}
	check.Reuse(dst, rows, k)
	dst.Copy(out)
	return nil
}

// finiteRows reports the first row of a result with a NaN or infinite entry, from finite
// inputs that overflowed (ErrNonFinite).
func finiteRows(a *mat.Dense, what string) error {
	r, _ := a.Dims()
	for i := range r {
		for _, v := range a.RawRowView(i) {
			if !isFinite(v) {
				return fmt.Errorf("%w: %s %d overflow (%g)", ErrNonFinite, what, i, v)
			}
		}
	}
	return nil
}

// InverseTransform writes the points whose scores on the top k components are the rows
// of Y (rows×k, k = Y's columns) back in the input space to dst (rows×Dim()):
// μ + Σⱼ yⱼ·vⱼ, scikit-learn's PCA.inverse_transform — the projection of a point onto the
// affine span of the top k components, for scores Transform gave. A nil Y or dst is an
// error wrapping ErrArgument; a Y without rows, or a model without points, ErrEmpty; a Y
// with no columns or more than Components(), or a non-empty dst of another shape,
// ErrDimension; a NaN or infinite score, or a result that overflows, ErrNonFinite. On
// error dst is unchanged.
func (md *Model) InverseTransform(dst *mat.Dense, Y mat.Matrix) error {
	if err := md.ready(); err != nil {
		return err
	}
	Y, rows, k, err := kinds.Matrix(Y)
	if err != nil {
		return err
	}
	if md.n == 0 {
		return fmt.Errorf("%w: the model has no points", ErrEmpty)
	}
	if rows == 0 {
		return fmt.Errorf("%w: no scores", ErrEmpty)
	}
	if have := md.Components(); k < 1 || k > have {
		return fmt.Errorf("%w: scores of %d components, the model has %d", ErrDimension, k, have)
	}
	if _, _, err := kinds.Points(Y, k); err != nil {
		return err
	}
	if err := kinds.Dst(dst, rows, md.d); err != nil {
		return err
	}
	var v mat.Dense
	md.VectorsTo(&v)
	vk := v.Slice(0, md.d, 0, k).(*mat.Dense)
	y := mat.DenseCopyOf(Y)
	out := mat.NewDense(rows, md.d, nil)
	for i := range rows {
		copy(out.RawRowView(i), md.mean)
	}
	native.Gemm(blas.NoTrans, blas.Trans, 1, y.RawMatrix(), vk.RawMatrix(), 1, out.RawMatrix())
	if err := finiteRows(out, "the point of scores"); err != nil {
		return err
	}
	check.Reuse(dst, rows, md.d)
	dst.Copy(out)
	return nil
}
