package kpca

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/native"
)

// A centred block step in Helmert coordinates (docs/design.md, "Helmert coordinates",
// "Rank-r tracking in blocks"): the directions F and α of the b new points, the border
// B = A·F + (K1)·αᵀ a row at a time and the new block Γ.

// helmertDirections returns the Helmert directions of points m+1…m+b (docs/design.md,
// "Helmert coordinates"): F (b×b), with αⱼ = helmertAlphaOf(m+j) above the diagonal of
// column j and Fⱼⱼ = −(m+j)·αⱼ on it, and α and the diagonal; uncentred F = I and α and
// the diagonal nil.
func (md *Model) helmertDirections(sc *blockScratch, m, b int) (F *mat.Dense, alpha, diag []float64) {
	F = denseOf(&sc.F, b, b)
	if md.opts.Uncentred {
		for i := range b {
			F.Set(i, i, 1)
		}
		return F, nil, nil
	}
	sc.alpha, sc.diag = hugepage.Grow(sc.alpha, b), hugepage.Grow(sc.diag, b)
	alpha, diag = sc.alpha, sc.diag
	for j := range b {
		alpha[j] = helmertAlphaOf(m + j)
		for i := range j {
			F.Set(i, j, alpha[j])
		}
		diag[j] = -float64(m+j) * alpha[j]
		F.Set(j, j, diag[j])
	}
	return F, alpha, diag
}

// helmertBorder completes a centred block step in the Helmert directions (addBlock),
// whose border B = A·F + (K1)·αᵀ the pass over A wrote (blockRows): it returns the new
// block Γ = (1ᵀK1)·ααᵀ + α·sᵀF + Fᵀs·αᵀ + FᵀCF and the directions e = 1/√m (m) and
// g = √m·α (b) of the old rows' part; uncentred Γ = C, and e and g nil. sc.s holds
// s = Aᵀ1.
func (md *Model) helmertBorder(sc *blockScratch, F *mat.Dense, C *mat.SymDense, alpha []float64) (gamma *mat.SymDense, e, g []float64) {
	if alpha == nil {
		return C, nil, nil
	}
	m := md.m
	b := len(alpha)
	sc.sf = hugepage.Grow(sc.sf, b) // Fᵀs
	sf, s := sc.sf, sc.s
	clear(sf)
	for j := range b {
		for i := range j + 1 {
			sf[j] += F.At(i, j) * s[i]
		}
	}
	// FᵀCF: C in full (the product reads both triangles), then two dgemms.
	cf := denseOf(&sc.cfull, b, b)
	for i := range b {
		for j := range b {
			cf.Set(i, j, C.At(i, j))
		}
	}
	fc, fcf := denseOf(&sc.fc, b, b), denseOf(&sc.fc2, b, b)
	native.Gemm(blas.Trans, blas.NoTrans, 1, F.RawMatrix(), cf.RawMatrix(), 0, fc.RawMatrix())
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, fc.RawMatrix(), F.RawMatrix(), 0, fcf.RawMatrix())
	gamma = symOf(&sc.gamma, b)
	for i := range b {
		for j := i; j < b; j++ {
			gamma.SetSym(i, j, md.total*alpha[i]*alpha[j]+alpha[i]*sf[j]+sf[i]*alpha[j]+(fcf.At(i, j)+fcf.At(j, i))/2)
		}
	}
	sc.e, sc.g = hugepage.Grow(sc.e, m), hugepage.Grow(sc.g, b)
	e, g = sc.e, sc.g
	for i := range e {
		e[i] = 1 / math.Sqrt(float64(m))
	}
	for j := range g {
		g[j] = alpha[j] * math.Sqrt(float64(m))
	}
	return gamma, e, g
}

// helmertRow sets a row of the border B = A·F + (K1)·αᵀ of a block step (addBlock,
// blockRows) from the row a of A and the row's sum k1 of the model's kernel matrix, for
// the Helmert directions F of the step: column j of F is αⱼ above the diagonal and
// Fⱼⱼ = diag[j] = −(m+j)·αⱼ on it, so that (A·F)ᵣⱼ = αⱼ·Σ_{i<j} Aᵣᵢ + Fⱼⱼ·Aᵣⱼ, a running
// sum along the row: O(m·b) for the block where the dgemm it replaces took O(m·b²), 2.5%
// of a tracked fit at d = 784. It returns the sum of the squares of the row it wrote.
// Each value carries at most j + 4 ≤ b + 3 roundings of terms no larger than those of
// the product and the rank-one term (γ_{b+3} of Σᵢ|Aᵣᵢ·Fᵢⱼ| + |(K1)ᵣ·αⱼ|).
func helmertRow(row, a, alpha, diag []float64, k1 float64) (squares float64) {
	alpha, diag, row = alpha[:len(a)], diag[:len(a)], row[:len(a)]
	var p float64
	for j, v := range a {
		x := alpha[j]*p + diag[j]*v
		x += k1 * alpha[j]
		row[j] = x
		squares += x * x
		p += v
	}
	return squares
}
