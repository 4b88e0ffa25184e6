package kpca

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/truncation"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// restartCertificate returns the certificate of E = K′ − U·Θ·Uᵀ for the Ritz pairs
// (values Θ, vectors U = Q·S) a polish keeps, from the polish alone, for a positive
// semi-definite K′ (docs/design.md, "Polishing"): truncation.Restart's bounds, from the
// residual R = K′U − U·Θ, the trace and the other Ritz values. The block Krylov relation
// gives R without another pass: K′Q = Q·T + F with F zero but in the last block,
// F_last = (I − QQᵀ)·K′Q_last, so R = F_last·S_last (S_last the rows of S of the last
// block) but for the directions orthonormalise dropped, each below its tolerance (rnd
// includes their sum). Every quantity computed from K′ is off by at most
// η = truncation.KernelRounding — the norm of the error of the kernel values and of the
// products' sums, the entries of a positive semi-definite K bounded by its diagonal —
// which every term includes, with rnd, the rounding of the Rayleigh–Ritz step.
func (md *Model) restartCertificate(Q, last *mat.Dense, tq, sLast mat.Matrix, rest, values []float64, rnd float64) *certificate {
	m := md.m
	var kmax float64
	for i := range m {
		x := md.point(i)
		kmax = math.Max(kmax, math.Abs(md.kern.Eval(x, x)))
	}
	rnd += truncation.KernelRounding(m, kmax)

	// R = (K′Q_last − Q·(QᵀK′Q_last))·S_last and its singular values, from RᵀR.
	var f, r mat.Dense
	native.Mul(&f, Q, tq)
	f.Sub(last, &f)
	native.Mul(&r, &f, sLast)
	_, k := r.Dims()
	g := mat.NewSymDense(k, nil)
	native.Syrk(blas.Trans, 1, r.RawMatrix(), 0, g.RawSymmetric())
	sv, err := native.EigenSym(nil, nil, g)
	if err != nil {
		return nil // a non-finite R: keep the old certificate
	}
	_, abs := vec.Sums(values)
	c, _ := truncation.Restart(md.cert, sv, values, rest, md.traceK(), md.traceTol(len(values), abs), rnd)
	return &c
}
