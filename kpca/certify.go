package kpca

import (
	"context"
	"fmt"
	"math"
)

// DefaultFailure is the failure probability of a certificate's upper bounds and sines
// when CertifyOptions.Failure is zero.
const DefaultFailure = 1e-9

// CertifyOptions configure CertifyContext. The zero value is the default.
type CertifyOptions struct {
	// Failure is the probability, at most, that an upper bound or a sine of the
	// certificate fails: the chance that the random test vectors miss the part of K′
	// outside the tracked span. Zero means DefaultFailure (1e-9); otherwise it must be in
	// (0, 1). Each factor of 2 costs one test vector in every pass (30 for 1e-9).
	Failure float64
	// Passes is the number of passes of the estimator of that part: 1 or more, zero
	// meaning 2. The first pass is shared with the residuals; each further one makes
	// the estimate tighter — its overestimate factor 2·√(2/π) ≈ 1.6 falls to its
	// Passes-th root, and powers of K′ favour its top eigenvalue over the rest — at the
	// cost of one more pass over the points.
	Passes int
	// Seed seeds the test vectors; the certificate holds with probability 1 − Failure
	// over their draw, for any seed chosen without looking at the data.
	Seed uint64
}

// Certificate is an a-posteriori certificate of a model's tracked eigenpairs, computed
// from the true matrix of the points K′ (centred: C·K·C) or K, not from the history of
// truncations (docs/design.md, "Certificates"). Its slices hold one entry per tracked
// pair — all Rank() of them, not only the Components reported — in the order of Values:
// the largest first.
type Certificate struct {
	// Ritz are the Ritz values θⱼ of K′ on the span of the tracked vectors: the
	// Rayleigh quotients of the tracked span's best basis, θ = eig(VᵀK′V). They are
	// what the model's values would be after a Rayleigh–Ritz step on that span alone.
	Ritz []float64
	// Lower and Upper bound the true eigenvalues: Lower[j] ≤ λⱼ(K′) ≤ Upper[j]. Lower is
	// deterministic (Cauchy interlacing: θⱼ ≤ λⱼ), Upper holds with probability at least
	// 1 − Failure.
	Lower, Upper []float64
	// Sine bounds the sine of the largest principal angle between the span of the top
	// j+1 Ritz vectors and the top j+1 eigenvectors of K′ (Davis–Kahan), with
	// probability at least 1 − Failure; +Inf where no gap certifies it.
	Sine []float64
	// Residual is ‖K′vⱼ − λⱼvⱼ‖₂ for the model's tracked pairs (λⱼ, vⱼ), those of Values
	// and VectorsTo: deterministic, to rounding.
	Residual []float64
	// Tail bounds the largest eigenvalue of K′ on the orthogonal complement of the tracked
	// span (with probability at least 1 − Failure); it bounds every eigenvalue the model
	// does not track: λ_Rank() ≤ Tail.
	Tail float64
	// Failure is the probability, at most, that Upper, Sine or Tail fail.
	Failure float64
	// Rounding is the allowance for rounding included in every bound: a worst-case bound,
	// on the scale of the kernel values rather than of K′, on what the kernel values'
	// rounding, the centring and the products with K′ may move the Ritz values and
	// residuals by (docs/design.md, "Certificates"). An interval is at least twice as
	// wide; at a bandwidth far wider than the points' spread, where the kernel values are
	// all near 1 and K′ is tiny, it is large relative to λ₁.
	Rounding float64
}

// Certify is CertifyContext with the default options and no deadline.
func (md *Model) Certify() (Certificate, error) {
	return md.CertifyContext(context.Background(), CertifyOptions{})
}

// CertifyContext returns an a-posteriori certificate of the model's tracked eigenpairs:
// for each, an interval that holds the true eigenvalue of the matrix of the points, a
// bound on the sine between the top tracked vectors and the true top eigenvectors, and
// the residual (see Certificate; the formulas and their probabilities are in
// docs/design.md, "Certificates"). It costs opts.Passes passes over the points (two by
// default, each O(m²·(d + r)) flops in kernel blocks, never forming K′), O(m·r²) flops
// of compensated products for its rounding allowance and O(m·r) memory, and it does
// not change the model. Use it to ask how good the model is now;
// ErrorBound and ValueBounds are the free running bound, deterministic and updated at
// every step at no cost, but looser, and growing over a long stream.
//
// It checks ctx between blocks of rows. A nil ctx and invalid options are ErrArgument
// errors; a model without tracked pairs is an ErrEmpty, a
// kernel value that is not finite an ErrNonFinite.
func (md *Model) CertifyContext(ctx context.Context, opts CertifyOptions) (Certificate, error) {
	if err := md.ready(); err != nil {
		return Certificate{}, err
	}
	if err := md.needKernel("Certify"); err != nil {
		return Certificate{}, err
	}
	switch {
	case ctx == nil:
		return Certificate{}, fmt.Errorf("%w: Certify: nil context", ErrArgument)
	case !(opts.Failure >= 0 && opts.Failure < 1):
		return Certificate{}, fmt.Errorf("%w: Certify: failure probability %v (want 0 < p < 1, or 0 for the default)", ErrArgument, opts.Failure)
	case opts.Passes < 0 || opts.Passes > MaxPolishPasses:
		return Certificate{}, fmt.Errorf("%w: Certify: %d passes (0 to %d)", ErrArgument, opts.Passes, MaxPolishPasses)
	}
	if opts.Failure == 0 {
		opts.Failure = DefaultFailure
	}
	if opts.Passes == 0 {
		opts.Passes = 2
	}
	if _, k := md.thin.Dims(); k == 0 || md.m < 2 {
		return Certificate{}, fmt.Errorf("%w: Certify: no eigenpair to certify", ErrEmpty)
	}

	// The steps of docs/design.md, "Certificates": the first pass over [V Ω], the
	// residuals of the model's pairs and the Rayleigh–Ritz step from its K′V, the tail
	// from the test vectors' passes, and the bounds from all three.
	s := md.certifyStart(testVectors(opts.Failure), opts.Seed)
	ps := md.passer()
	defer ps.release()
	// The values KeepKernel kept (and a Polish read), if they are of every point: every
	// pass reads them, less the offset, the values it would have computed. The passes
	// change them, so the Certify uses them up.
	md.adoptKept(ps)
	if err := s.firstPass(ctx, md, ps); err != nil {
		return Certificate{}, err
	}
	residual := s.residuals()
	rr, err := s.rayleighRitz()
	if err != nil {
		return Certificate{}, err
	}
	tail, err := s.tail(ctx, ps, opts.Passes)
	if err != nil {
		return Certificate{}, err
	}
	c := bounds(rr.theta, rr.R, tail, rounding(s.pe, s.V, s.WV, rr.R, rr.theta, s.nu, s.delta))
	// The sines are of the tracked vectors, V[:, 0…j], which the Ritz vectors U[:, 0…j]
	// are not: the triangle inequality of the gap metric adds the sine between the two,
	// ‖(I − SⱼSⱼᵀ)·Eⱼ‖₂ in the coordinates of V (Eⱼ the first j+1 columns of I).
	for j := range s.k {
		c.Sine[j] = math.Min(1, c.Sine[j]+ritzSine(rr.Sd, j+1))
	}
	c.Residual = residual
	c.Failure = math.Pow(testAlpha, -float64(s.p))
	return c, nil
}
