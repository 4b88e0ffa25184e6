package kpca

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
)

// basis describes the decomposition as the rest of the package reads it: the stored
// eigenvalues (ascending), the stored eigenvectors in point coordinates (m rows), and
// the column left out of the reported spectrum.
//
// Model: the eigenvectors of K' (centred, orthogonal to 1) or K, all of them
// or the top rank (update.Thin). RankOneModel: those of K, or of K' including the
// trivial one along 1, which is left out.
type basis struct {
	values []float64      // all stored eigenvalues, ascending
	vecs   blas64.General // m × len(values), shared with the decomposition
	skip   int            // stored column left out (the trivial one), or −1
}

func (md *Model) basis() basis {
	b := basis{skip: -1, values: md.thin.Values(nil)}
	if d, ok := md.thin.Vectors().(*mat.Dense); ok && !d.IsEmpty() {
		b.vecs = d.RawMatrix()
	}
	return b
}

// pairs is the number of pairs b reports (the trivial one left out).
func (b basis) pairs() int {
	if b.skip >= 0 {
		return len(b.values) - 1
	}
	return len(b.values)
}

// order returns the stored columns of the spectrum in descending order of eigenvalue,
// every pair tracked (the trivial one left out).
func (b basis) order() []int {
	idx := make([]int, 0, len(b.values))
	for j := len(b.values) - 1; j >= 0; j-- {
		if j != b.skip {
			idx = append(idx, j)
		}
	}
	return idx
}

// reported returns the stored columns of the reported spectrum — the top Components of
// order — in descending order of eigenvalue.
func (md *Model) reported(b basis) []int {
	idx := b.order()
	if k := md.opts.Components; k != All && k < len(idx) {
		idx = idx[:k]
	}
	return idx
}

// Values returns the eigenvalues of the reported spectrum in descending order: the top
// Options.Components of those the model tracks — of the m of K (uncentred), or the m−1
// of K' other than its trivial zero along 1 (centred), or of the top Rank() — or all of
// them with Components All. If len(dst) ≥ Components() they are written to
// dst[:Components()], which is returned; otherwise a new slice is allocated (the rule of
// ikpca.Model.Values).
//
// A matrix that is not positive semi-definite — a sigmoid kernel's, or a Precomputed
// one the caller built from a similarity that is not a kernel — has negative
// eigenvalues, and Values reports them as they are, at the end of the order: they are
// how such a matrix shows itself. (scikit-learn refuses such a matrix; this package
// decomposes it exactly, since the sigmoid kernel is indefinite by nature.) A value
// below about −m·ε·λ₁ (the size of the kernel values' own rounding) is beyond rounding:
// the matrix is indefinite, and that value's component, which has no feature-space
// meaning, scores zero in Transform.
func (md *Model) Values(dst []float64) []float64 { return md.valuesOf(md.basis(), dst) }

// valuesOf is Values of the decomposition b.
func (md *Model) valuesOf(b basis, dst []float64) []float64 {
	idx := md.reported(b)
	dst = check.Room(dst, len(idx))
	for q, j := range idx {
		dst[q] = b.values[j]
	}
	return dst
}

// Components returns the number of eigenvalues Values reports: Options.Components, or
// fewer while the model has fewer pairs — m uncentred and m−1 centred at most, and at
// rank r only those of positive eigenvalue; with Components All, every pair.
func (md *Model) Components() int {
	_, n := md.thin.Dims()
	return md.componentsOf(n)
}

// componentsOf is Components of a decomposition of n pairs.
func (md *Model) componentsOf(n int) int {
	if k := md.opts.Components; k != All && k < n {
		return k
	}
	return n
}

// ExplainedVariance returns each component's share λⱼ/Σλ of the total variance (the
// trace of K or K'), in the order of Values. Eigenvalues that rounding made slightly
// negative count as zero. A model that tracks every pair sums them (all of them, not
// only the Components reported); at rank r the total is the trace itself, Σk(xᵢ, xᵢ)
// (minus 1ᵀK1/m centred), known exactly from the running sums, so that the shares sum
// to the fraction of the variance the components capture. dst follows the rules of
// Values.
func (md *Model) ExplainedVariance(dst []float64) []float64 {
	return md.explainedOf(md.basis(), dst)
}

// explainedOf is ExplainedVariance of the decomposition b.
func (md *Model) explainedOf(b basis, dst []float64) []float64 {
	var sum float64
	if md.rank > 0 {
		sum = md.traceK()
	} else {
		for _, j := range b.order() {
			sum += math.Max(b.values[j], 0)
		}
	}
	dst = md.valuesOf(b, dst)
	for i, v := range dst {
		if sum > 0 {
			dst[i] = math.Max(v, 0) / sum
		} else {
			dst[i] = 0
		}
	}
	return dst
}

// VectorsTo stores the unit eigenvectors of K (uncentred) or K' (centred) as the columns
// of dst, in the order of Values: an m×Components() dst is written in place, an empty
// one resized, and one of another shape replaced by a new matrix, as Values allocates a
// new slice for a dst without room (nothing panics; a model without components, and a
// nil dst, leave dst empty or as it is). These are coefficient
// vectors in point coordinates: component j is the feature-space direction
// Σᵢ uᵢⱼ·φ̃(xᵢ)/√λⱼ, and column j times √λⱼ holds the points' training scores
// (Scores). Each column's sign is fixed by its largest-magnitude entry, which is
// positive (package sign, docs/design.md, "Signs"); Scores and Transform follow.
func (md *Model) VectorsTo(dst *mat.Dense) { md.vectorsOf(md.basis(), dst) }

// vectorsOf is VectorsTo of the decomposition b.
func (md *Model) vectorsOf(b basis, dst *mat.Dense) {
	idx := md.reported(b)
	m := md.m
	if !check.Vectors(dst, m, len(idx)) {
		return
	}
	out := make([]float64, m)
	for q, j := range idx {
		b.column(out, j)
		if sign.Of(out) < 0 {
			for i := range out {
				out[i] = -out[i]
			}
		}
		for i, v := range out { // not SetCol: package native is the only route to BLAS
			dst.Set(i, q, v)
		}
	}
}

// column writes stored eigenvector j, in point coordinates, to out (length m). It
// reads the rows directly: not mat.Col, which copies through the blas64 registry.
func (b basis) column(out []float64, j int) {
	for i := range out {
		out[i] = b.vecs.Data[i*b.vecs.Stride+j]
	}
}

// zeroTolerance is the eigenvalue below which a component is treated as zero in
// projections: m·ε times the largest eigenvalue magnitude.
func zeroTolerance(values []float64, m int) float64 {
	var big float64
	for _, v := range values {
		big = math.Max(big, math.Abs(v))
	}
	return float64(max(m, 1)) * 0x1p-52 * big
}
