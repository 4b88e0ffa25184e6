package kpca

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
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
	case !md.bordered():
		return Certificate{}, fmt.Errorf("%w: Certify: a RankOneModel's (Certify needs a Model's bordered decomposition)", ErrArgument)
	}
	if opts.Failure == 0 {
		opts.Failure = DefaultFailure
	}
	if opts.Passes == 0 {
		opts.Passes = 2
	}
	m := md.m
	_, k := md.thin.Dims()
	if k == 0 || m < 2 {
		return Certificate{}, fmt.Errorf("%w: Certify: no eigenpair to certify", ErrEmpty)
	}
	centred := !md.opts.Uncentred

	// The tracked vectors V, largest value first (orthonormal to rounding; centred,
	// orthogonal to 1, which is restored exactly), and p Gaussian test vectors projected
	// out of their span and, centred, out of 1: one pass takes both.
	lambda := md.thin.Values(nil)
	var stored mat.Dense
	md.thin.VectorsTo(&stored)
	p := testVectors(opts.Failure)
	Y := mat.NewDense(m, k+p, nil)
	V := Y.Slice(0, m, 0, k).(*mat.Dense)
	for j := range k {
		V.SetCol(j, mat.Col(nil, k-1-j, &stored))
	}
	slices.Reverse(lambda)
	if centred {
		centreColumns(V)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6365727469667921))
	Om := Y.Slice(0, m, k, k+p).(*mat.Dense)
	for i := range m {
		for j := range p {
			Om.Set(i, j, rng.NormFloat64())
		}
	}
	omegaNorm := maxColumnNorm(Om)
	project(Om, V, centred)
	ps := md.passer()
	defer ps.release()
	var W mat.Dense
	// The first pass also sums |K̂ − c| by rows: the scale of the products' rounding.
	// Centred, c is the mean kernel value: C·(K − c·11ᵀ)·C = C·K·C, and an RBF of wide
	// bandwidth, whose values are all near 1, sums values of the size of K′'s.
	if centred {
		if c := md.total / (float64(m) * float64(m)); !math.IsNaN(c) && !math.IsInf(c, 0) {
			ps.offset = c
		}
	}
	ps.abs = make([]float64, m)
	ps.own = true
	err := ps.pass(ctx, &W, Y)
	rows := slices.Max(ps.abs)
	ps.abs = nil
	if err != nil {
		return Certificate{}, err
	}
	WV := W.Slice(0, m, 0, k).(*mat.Dense)
	e, a := md.kernelError()
	pe := newPassError(m, ps.tile, rows, ps.offset, e, a, centred)
	nu := absNorm(V)
	delta := gramError(V, nu)

	// The tracked pairs' residuals ‖K′vⱼ − λⱼvⱼ‖.
	residual := make([]float64, k)
	for j := range k {
		var s float64
		for i := range m {
			r := WV.At(i, j) - lambda[j]*V.At(i, j)
			s += r * r
		}
		residual[j] = math.Sqrt(s)
	}

	// Rayleigh–Ritz on the tracked span: T = VᵀK′V = S·Θ·Sᵀ, U = V·S, K′U = (K′V)·S, and
	// the residuals R = K′U − U·Θ, which are orthogonal to the span.
	var t mat.Dense
	native.Mul(&t, V.T(), WV)
	T := mat.NewSymDense(k, nil)
	for i := range k {
		for j := i; j < k; j++ {
			T.SetSym(i, j, (t.At(i, j)+t.At(j, i))/2)
		}
	}
	var S mat.Dense
	asc, err := native.EigenSym(nil, &S, T)
	if err != nil {
		return Certificate{}, fmt.Errorf("kpca: Certify: %w", err)
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
	native.Mul(&U, V, Sd)
	native.Mul(&R, WV, Sd)
	for i := range m {
		row, u := R.RawRowView(i), U.RawRowView(i)
		for j := range k {
			row[j] -= theta[j] * u[j]
		}
	}

	// The tail: B = P·K′·P, P the projector on the complement of the span, applied to the
	// test vectors opts.Passes times; ‖B‖ ≤ (α·√(2/π)·maxᵢ‖B^q·ωᵢ‖)^(1/q) with probability
	// at least 1 − α^(−p) (Halko, Martinsson and Tropp 2011, Lemma 4.1, applied to B^q,
	// whose norm is ‖B‖^q for a symmetric B), α = testAlpha.
	// Each pass adds its rounding to B^q·ω (passError) and each projection its own, at
	// most pi of what it projects; the first pass's input is P̂ω, within pi·‖ω‖ of P·ω,
	// which B (‖B‖ ≤ N) carries on.
	pi := projectionError(delta, nu, gammaN(m), k)
	Z := mat.DenseCopyOf(W.Slice(0, m, k, k+p))
	errs := make([]float64, 0, opts.Passes)
	errs = append(errs, passColumns(pe, Om, Z, pi)+pe.n*pi*omegaNorm)
	project(Z, V, centred)
	for range opts.Passes - 1 {
		var next mat.Dense
		if err := ps.pass(ctx, &next, Z); err != nil {
			return Certificate{}, err
		}
		errs = append(errs, passColumns(pe, Z, &next, pi))
		project(&next, V, centred)
		Z = &next
	}
	tail := tailBound(testAlpha*math.Sqrt(2/math.Pi), maxColumnNorm(Z), errs)

	c := bounds(theta, &R, tail, rounding(pe, V, WV, &R, theta, nu, delta))
	// The sines are of the tracked vectors, V[:, 0…j], which the Ritz vectors U[:, 0…j]
	// are not: the triangle inequality of the gap metric adds the sine between the two,
	// ‖(I − SⱼSⱼᵀ)·Eⱼ‖₂ in the coordinates of V (Eⱼ the first j+1 columns of I).
	for j := range k {
		c.Sine[j] = math.Min(1, c.Sine[j]+ritzSine(Sd, j+1))
	}
	c.Residual = residual
	c.Failure = math.Pow(testAlpha, -float64(p))
	return c, nil
}

// testAlpha is α of the tail estimator: each test vector divides the failure
// probability by α, and the estimate overestimates ‖B^q‖ by up to α·√(2/π). Halko et
// al. take α = 10, which needs 9 vectors for a failure probability of 1e-9 but
// overestimates by up to 8; α = 2 needs 30, whose products cost little next to the
// kernel values a pass computes anyway, and overestimates by up to 1.6 (1.26 after two
// passes).
const testAlpha = 2

// testVectors is the number p of test vectors for a failure probability f: the least p
// with α^(−p) ≤ f.
func testVectors(f float64) int {
	return max(1, int(math.Ceil(-math.Log(f)/math.Log(testAlpha)-1e-9)))
}

// project removes from the columns of A their parts along the orthonormal columns of V,
// twice, and, centred, along 1.
func project(A, V *mat.Dense, centred bool) {
	for range 2 {
		if centred {
			centreColumns(A)
		}
		var c, vc mat.Dense
		native.Mul(&c, V.T(), A)
		native.Mul(&vc, V, &c)
		A.Sub(A, &vc)
	}
}

// rounding is the allowance for rounding in a certificate (docs/design.md,
// "Certificates", "Rounding"): a bound on how far the computed Ritz values θ and the
// residual norms ρ may be from those of the exact A on the tracked vectors V. With F
// the error of the first pass's K′V (‖F‖₂ ≤ pe.block(V, √(1 + δ))), ν = ‖|V|‖₂ and
// δ ≥ ‖VᵀV − I‖₂:
//
//	θ: ‖V‖·‖F‖ + γₘ·ν·‖K̂′V‖_F (the product VᵀW) + (δ/(1 − δ) + 2kε)·max|θ|
//
// — the last the eigenvalues of VᵀAV against those of A compressed to span(V)
// (Ostrowski: a congruence by (VᵀV)^½ scales them by at most 1 ± δ) and LAPACK's backward
// error — and
//
//	ρ: ‖F‖·(1 + 2kε) + γₖ·√k·(‖K̂′V‖_F + max|θ|·ν) + k·γₘ·‖R‖_F
//
// (the products by the k×k S and Θ, and the norm of R from RᵀR). The larger of the two
// widens every bound.
func rounding(pe passError, V, WV, R *mat.Dense, theta []float64, nu, delta float64) float64 {
	if !(delta < 1) {
		return math.Inf(1)
	}
	_, k := V.Dims()
	m := pe.m
	var top float64
	for _, v := range theta {
		top = math.Max(top, math.Abs(v))
	}
	f := pe.block(V, math.Sqrt(1+delta))
	wf := mat.Norm(WV, 2) // Frobenius
	kk := float64(k)
	onTheta := math.Sqrt(1+delta)*f + gammaN(m)*nu*wf + (delta/(1-delta)+2*kk*vec.Roundoff)*top
	onRho := f*(1+2*kk*vec.Roundoff) + gammaN(k)*math.Sqrt(kk)*(wf+top*nu) + kk*gammaN(m)*mat.Norm(R, 2)
	return math.Max(onTheta, onRho) * (1 + 4*vec.Roundoff)
}

// projectionError bounds ‖P̂y − P·y‖/‖y‖ for project's two rounds of removing the parts
// along V (and 1): to first order the loss of orthogonality δ, the products' γₘ·(ν² + 1)
// and the k + 4 roundings of each entry, doubled for the second round and doubled
// again as margin for the terms of second order.
func projectionError(delta, nu, gm float64, k int) float64 {
	return 4 * (delta + gm*(nu*nu+1) + float64(k+4)*vec.Roundoff)
}

// passColumns returns the largest error a pass and the projection after it add to a
// column: pe.column of the pass's input Z plus pi times the output's norm.
func passColumns(pe passError, Z, out *mat.Dense, pi float64) float64 {
	_, c := Z.Dims()
	var worst float64
	for j := range c {
		worst = math.Max(worst, pe.column(Z, j)+pi*mat.Norm(out.ColView(j), 2))
	}
	return worst
}

// bounds computes the bounds of a Certificate from the Ritz values theta
// (descending), their residuals R (m×k, orthogonal to the Ritz vectors) and the tail
// bound tail (docs/design.md, "Certificates"). For each j, with ρⱼ = ‖R[:, 0…j]‖₂ and
// H₂ the compression of K′ to the complement of the top j+1 Ritz vectors:
//
//	λmax(H₂) ≤ νⱼ = (a + c)/2 + √(((a − c)/2)² + fⱼ²),  a = θⱼ₊₁, c = tail, fⱼ = ‖R[:, j+1…]‖₂
//
// (νⱼ = tail for the last j), and if ηⱼ = θⱼ − νⱼ > 0, for every i ≤ j
//
//	θᵢ ≤ λᵢ(K′) ≤ θᵢ + 2ρⱼ²/(ηⱼ + √(ηⱼ² + 4ρⱼ²))   (Li and Li 2005; Mathias 1998)
//	sin∠(U[:, 0…j], top j+1 eigenvectors) ≤ ρⱼ/ηⱼ    (Davis and Kahan 1970)
//
// Without a gap, λᵢ(K′) ≤ max(θᵢ, tail) + ‖R‖₂ (Weyl). Every bound is widened by rnd.
func bounds(theta []float64, R *mat.Dense, tail, rnd float64) Certificate {
	k := len(theta)
	G := mat.NewSymDense(k, nil) // RᵀR: its leading and trailing blocks give ρⱼ and fⱼ
	G.SymOuterK(1, R.T())
	head := make([]float64, k) // ρⱼ
	rest := make([]float64, k) // fⱼ
	for j := range k {
		head[j] = blockNorm(G, 0, j+1)
		if j+1 < k {
			rest[j] = blockNorm(G, j+1, k)
		}
	}
	c := Certificate{
		Ritz: theta, Lower: make([]float64, k), Upper: make([]float64, k),
		Sine: make([]float64, k), Tail: tail + rnd, Rounding: rnd,
	}
	for j := range k {
		c.Lower[j] = theta[j] - rnd
		c.Upper[j] = math.Max(theta[j], tail) + head[k-1] + rnd
		c.Sine[j] = math.Inf(1)
	}
	for j := range k {
		nu := tail
		if j+1 < k {
			a := theta[j+1]
			nu = (a+tail)/2 + math.Hypot((a-tail)/2, rest[j])
		}
		eta := theta[j] - nu - 2*rnd
		if !(eta > 0) {
			continue
		}
		rho := head[j] + rnd
		c.Sine[j] = math.Min(1, rho/eta)
		q := 2 * rho * rho / (eta + math.Sqrt(eta*eta+4*rho*rho))
		for i := 0; i <= j; i++ {
			c.Upper[i] = math.Min(c.Upper[i], theta[i]+q+rnd)
		}
	}
	return c
}

// blockNorm returns the square root of the largest eigenvalue of the diagonal block
// lo…hi−1 of the positive semi-definite G: ‖R[:, lo…hi−1]‖₂ for G = RᵀR.
func blockNorm(G *mat.SymDense, lo, hi int) float64 {
	n := hi - lo
	b := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			b.SetSym(i, j, G.At(lo+i, lo+j))
		}
	}
	v, err := native.EigenSym(nil, nil, b)
	if err != nil {
		// Only a non-finite G fails, which the residuals of finite products are not.
		return math.Inf(1)
	}
	return math.Sqrt(math.Max(v[n-1], 0))
}

// ritzSine returns the sine of the largest principal angle between the spans of the
// first j columns of the identity and of the orthogonal k×k matrix S:
// ‖(I − SⱼSⱼᵀ)·Eⱼ‖₂, formed directly rather than from the cosines, which cannot
// resolve sines below 1e-8.
func ritzSine(S *mat.Dense, j int) float64 {
	k, _ := S.Dims()
	Sj := S.Slice(0, k, 0, j)
	E := mat.NewDense(k, j, nil)
	for i := range j {
		E.Set(i, i, 1)
	}
	var c, sc mat.Dense
	c.Mul(Sj.T(), E)
	sc.Mul(Sj, &c)
	E.Sub(E, &sc)
	return spectralNorm(E)
}

// spectralNorm returns ‖A‖₂, the largest singular value, as the square root of the
// largest eigenvalue of AᵀA (for the small matrices of a certificate; mat.Norm(A, 2) is
// the Frobenius norm).
func spectralNorm(A *mat.Dense) float64 {
	_, c := A.Dims()
	g := mat.NewSymDense(c, nil)
	g.SymOuterK(1, A.T())
	return blockNorm(g, 0, c)
}
