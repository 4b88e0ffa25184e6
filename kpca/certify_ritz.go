package kpca

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
)

// certification is what the steps of a CertifyContext share (docs/design.md,
// "Certificates"): the block Y = [V Ω] of the tracked vectors and the test vectors, and
// what the first pass computes from it.
type certification struct {
	m, k, p   int // points, tracked pairs, test vectors
	centred   bool
	lambda    []float64  // the model's values, largest first: those of V's columns
	Y         *mat.Dense // [V Ω], m×(k+p)
	V, Om     *mat.Dense // Y's columns: the tracked vectors V and the test vectors Ω
	omegaNorm float64    // maxᵢ‖ωᵢ‖, before Ω is projected
	W         mat.Dense  // the first pass: K′Y
	WV        *mat.Dense // its first k columns: K′V
	pe        passError  // what a pass adds to A·Q ("Rounding")
	nu, delta float64    // ν = ‖|V|‖₂ and δ ≥ ‖VᵀV − I‖₂
}

// certifyStart returns the block the first pass of a Certify takes (docs/design.md,
// "Certificates", "The first pass"): the tracked vectors V, largest value first
// (orthonormal to rounding; centred, orthogonal to 1, which is restored exactly), and
// p Gaussian test vectors Ω drawn from seed and projected out of their span and,
// centred, out of 1 — so that one pass takes both.
func (md *Model) certifyStart(p int, seed uint64) *certification {
	m := md.m
	_, k := md.thin.Dims()
	s := &certification{m: m, k: k, p: p, centred: !md.opts.Uncentred}
	s.lambda = md.thin.Values(nil)
	var stored mat.Dense
	md.thin.VectorsTo(&stored)
	s.Y = newDense(m, k+p)
	s.V = s.Y.Slice(0, m, 0, k).(*mat.Dense)
	for j := range k {
		s.V.SetCol(j, mat.Col(nil, k-1-j, &stored))
	}
	slices.Reverse(s.lambda)
	if s.centred {
		centreColumns(s.V)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6365727469667921))
	s.Om = s.Y.Slice(0, m, k, k+p).(*mat.Dense)
	for i := range m {
		for j := range p {
			s.Om.Set(i, j, rng.NormFloat64())
		}
	}
	s.omegaNorm = maxColumnNorm(s.Om)
	project(s.Om, s.V, s.centred)
	return s
}

// firstPass computes W = K′Y, the first pass of a Certify, with ps, and the scales of
// its rounding (docs/design.md, "Certificates", "Rounding"): the pass also sums |K̂ − c|
// by rows, the scale of the products' rounding, and its products are summed to a depth
// the allowance can count on (passer.own). Centred, c is the mean kernel value:
// C·(K − c·11ᵀ)·C = C·K·C, and an RBF of wide bandwidth, whose values are all near 1,
// sums values of the size of K′'s. From the pass, the pass error pe, and of V, ν and δ.
func (s *certification) firstPass(ctx context.Context, md *Model, ps *passer) error {
	m := s.m
	if s.centred {
		if c := md.total / (float64(m) * float64(m)); !math.IsNaN(c) && !math.IsInf(c, 0) {
			ps.offset = c
		}
	}
	ps.abs = make([]float64, m)
	ps.own = true
	err := ps.pass(ctx, &s.W, s.Y)
	rows := slices.Max(ps.abs)
	ps.abs = nil
	if err != nil {
		return err
	}
	s.WV = s.W.Slice(0, m, 0, s.k).(*mat.Dense)
	e, a := md.kernelError()
	s.pe = newPassError(m, ps.tile, rows, ps.offset, e, a, s.centred)
	s.nu = absNorm(s.V)
	s.delta = gramError(s.V, s.nu)
	return nil
}

// residuals returns the tracked pairs' residuals ‖K′vⱼ − λⱼvⱼ‖ from the first pass
// (docs/design.md, "Certificates", "The first pass").
func (s *certification) residuals() []float64 {
	residual := make([]float64, s.k)
	for j := range s.k {
		var sum float64
		for i := range s.m {
			r := s.WV.At(i, j) - s.lambda[j]*s.V.At(i, j)
			sum += r * r
		}
		residual[j] = math.Sqrt(sum)
	}
	return residual
}

// ritz is the Rayleigh–Ritz step of a Certify on the tracked span.
type ritz struct {
	theta []float64  // the Ritz values Θ, largest first
	Sd    *mat.Dense // S, k×k, its columns in the order of theta
	R     *mat.Dense // the residuals K′U − U·Θ, m×k
}

// rayleighRitz is the Rayleigh–Ritz step on the tracked span (docs/design.md,
// "Certificates", "The first pass"): T = VᵀK′V = S·Θ·Sᵀ, U = V·S, K′U = (K′V)·S, and
// the residuals R = K′U − U·Θ, which are orthogonal to the span.
func (s *certification) rayleighRitz() (ritz, error) {
	m, k := s.m, s.k
	var t mat.Dense
	native.Mul(&t, s.V.T(), s.WV)
	T := mat.NewSymDense(k, nil)
	for i := range k {
		for j := i; j < k; j++ {
			T.SetSym(i, j, (t.At(i, j)+t.At(j, i))/2)
		}
	}
	var S mat.Dense
	asc, err := native.EigenSym(nil, &S, T)
	if err != nil {
		return ritz{}, fmt.Errorf("kpca: Certify: %w", err)
	}
	theta := make([]float64, k)
	Sd := mat.NewDense(k, k, nil) // S's columns in descending order of θ
	for j := range k {
		theta[j] = asc[k-1-j]
		for i := range k {
			Sd.Set(i, j, S.At(i, k-1-j))
		}
	}
	var U, R mat.Dense
	native.Mul(&U, s.V, Sd)
	native.Mul(&R, s.WV, Sd)
	for i := range m {
		row, u := R.RawRowView(i), U.RawRowView(i)
		for j := range k {
			row[j] -= theta[j] * u[j]
		}
	}
	return ritz{theta: theta, Sd: Sd, R: &R}, nil
}
