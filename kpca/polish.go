package kpca

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

// MaxPolishPasses bounds the passes of one Polish: the block Krylov basis holds
// passes·Rank() vectors of m entries, twice (the basis and its product with K′).
const MaxPolishPasses = 20

// Polish is PolishContext without a deadline or cancellation.
func (md *Model) Polish(passes int) error { return md.PolishContext(context.Background(), passes) }

// PolishContext brings the tracked eigenpairs of a rank-r model to batch accuracy: it
// replaces them by the Ritz pairs of the true matrix of the points, K′ (centred: C·K·C)
// or K, on the block Krylov space span{V, K′V, …, K′^(passes−1)·V} of the tracked
// vectors V (docs/design.md, "Polishing"). Each pass is one product of K′ with a block
// of at most Rank() vectors, computed from the stored points in kernel blocks and never
// formed (O(m²·(d + r)) flops at the speed of a dgemm); the basis is orthonormalised
// with full reorthogonalisation, and the Rayleigh–Ritz step keeps its top Rank() pairs.
// Tracking is the warm start that makes a few passes enough: from a basis whose top-10
// sine is 1e-3, two passes give the top 10 eigenvalues to about 1e-11·λ₁ and three to
// rounding. Tracking then continues from the polished pairs.
//
// It allocates O(m·r·passes) and nothing of order m². It checks ctx between blocks of
// rows (a pass over 70,000 points takes minutes) and is transactional: on any error —
// ctx's, a kernel value that is not finite, an eigensolver that fails — the model is
// unchanged.
//
// ErrorBound and ValueBounds stay valid, and for the package's positive semi-definite
// kernels restart from what the polish itself certifies: the residual of the Ritz pairs,
// which the block Krylov relation gives without another pass, and a bound on the rest of
// the spectrum from the trace, less the other Ritz values of the Krylov space (Cauchy
// interlacing) — or, if that is looser, the old bound with the change from V·Λ·Vᵀ to the
// polished matrix added (docs/design.md, "Polishing"). Certify says more precisely how
// good the polished model is. The exact model (Rank() = 0) is batch accurate already,
// and Polish does nothing to it. passes outside 1…MaxPolishPasses and
// a nil ctx are ErrArgument errors; a model without points
// or pairs is an ErrEmpty.
func (md *Model) PolishContext(ctx context.Context, passes int) error {
	if err := md.ready(); err != nil {
		return err
	}
	if err := md.needKernel("Polish"); err != nil {
		return err
	}
	switch {
	case ctx == nil:
		return fmt.Errorf("%w: Polish: nil context", ErrArgument)
	case passes < 1 || passes > MaxPolishPasses:
		return fmt.Errorf("%w: Polish: %d passes (1 to %d)", ErrArgument, passes, MaxPolishPasses)
	case !md.bordered():
		return fmt.Errorf("%w: Polish: a RankOneModel's (Polish needs a Model's bordered decomposition)", ErrArgument)
	case md.rank == 0:
		return nil
	}
	if _, k := md.thin.Dims(); k == 0 || md.m < 2 {
		return fmt.Errorf("%w: Polish: no eigenpair to polish", ErrEmpty)
	}
	return md.transact(scopeStep, func() error { return md.polish(ctx, passes) })
}

// polish is PolishContext of a validated call on a tracked model with pairs. It keeps the
// free-running certificate valid whichever way is tighter (docs/design.md, "Polishing"):
// the old one with the change of the tracked matrix added, or the one restarted from
// what the polish itself certifies (polished.restart), and starts the count of a
// window's steps to its next self-polish again.
func (md *Model) polish(ctx context.Context, passes int) error {
	p, err := md.krylovRitz(ctx, passes)
	if err != nil {
		return err
	}
	if err := md.thin.SetEigen(p.values, p.vectors); err != nil {
		return fmt.Errorf("kpca: Polish: %w", err)
	}
	md.cert.Drop(p.change)
	md.cert.Slack += p.slack
	if p.restart != nil {
		kept, keptAbove := md.errorRange()
		old := md.cert
		md.cert = *p.restart
		if below, above := md.errorRange(); math.Max(below, above) > math.Max(kept, keptAbove) {
			md.cert = old
		}
	}
	md.sincePolish = 0
	return nil
}

// maybePolish counts the added points of a window tracked at a rank and polishes it
// when Options.WindowPolish says (see WindowPolish): the model stores the window's
// points, so that a polish from them restarts its certificate, which would otherwise
// grow with every step (docs/design.md, "Windows at rank r"). A polish that fails leaves
// the model as it was (polish is transactional) and is recorded in Stats.PolishErr; it
// is tried again after as many points.
func (md *Model) maybePolish(added int) {
	if md.rank == 0 || md.opts.Window == 0 || !md.bordered() || md.precomputed() {
		return
	}
	every := md.opts.WindowPolish.every(md.opts.Window)
	if every == 0 {
		return
	}
	md.sincePolish += added
	if md.sincePolish < every {
		return
	}
	md.sincePolish = 0
	if _, k := md.thin.Dims(); k == 0 || md.m < 2 {
		return // nothing to polish: no pair, so no truncation for the bound to count
	}
	err := md.polish(context.Background(), md.opts.WindowPolish.passes())
	md.stats.PolishErr = err
	if err == nil {
		md.stats.Polishes++
	}
}

// polished is the result of a Rayleigh–Ritz step: the Ritz pairs kept, and what
// replacing the tracked matrix by theirs changes (for the certificate).
type polished struct {
	values  []float64
	vectors *mat.Dense // m×k, orthonormal
	// change summarises the eigenvalues of V·Λ·Vᵀ − U·Θ·Uᵀ, the tracked matrix minus the
	// polished one, which the error E = K′ − K̃ gains (certificate).
	change update.Dropped
	slack  float64 // the rounding of change
	// restart is the certificate of the polished matrix from the polish alone (nil for
	// a kernel not known to be positive semi-definite): see restartCertificate.
	restart *certificate
}

// krylovRitz runs the passes of a Polish on fresh arrays, leaving the model as it is.
func (md *Model) krylovRitz(ctx context.Context, passes int) (polished, error) {
	m := md.m
	_, k := md.thin.Dims()
	centred := !md.opts.Uncentred
	V := mat.NewDense(m, k, nil)
	md.thin.VectorsTo(V)
	lambda := md.thin.Values(nil)

	ps := md.passer()
	defer ps.release()
	if kk := md.kept; kk != nil {
		// The values KeepKernel kept, if they are of every point: the first pass reads
		// them as the later ones read what it keeps.
		if kk.n == m {
			ps.adopt(kk)
		}
		md.dropKept()
	}
	// The basis Q = [Q₀ Q₁ …] grows one block a pass in an array of its final size; of
	// K′Q only the current block Wᵢ = K′Qᵢ is kept: the Rayleigh–Ritz matrix T = QᵀK′Q is
	// filled a block column at a time, T[0…i, i] = [Q₀ … Qᵢ]ᵀWᵢ, and its lower blocks
	// are the upper ones' transposes (K′ is symmetric). Memory: Q and one block.
	Q := mat.NewDense(m, passes*k, nil)
	W := mat.NewDense(m, k, nil)
	t := mat.NewDense(passes*k, passes*k, nil)
	blockOf := make([]int, 0, passes*k) // the pass each column of Q came from
	q0 := orthonormalise(mat.DenseCopyOf(V), nil, centred, 0)
	if q0 == nil {
		return polished{}, fmt.Errorf("%w: Polish: the tracked vectors are not finite", ErrNonFinite)
	}
	_, c := q0.Dims()
	Q.Slice(0, m, 0, c).(*mat.Dense).Copy(q0)
	used, block := 0, c // columns of Q in use before the block, and the block's width
	var dropped float64 // Σ of the tolerances below which directions of K′Qᵢ were dropped
	for i := range passes {
		qi := Q.Slice(0, m, used, used+block).(*mat.Dense)
		wi := W.Slice(0, m, 0, block).(*mat.Dense)
		if err := ps.pass(ctx, wi, qi); err != nil {
			return polished{}, err
		}
		native.Mul(t.Slice(0, used+block, used, used+block).(*mat.Dense), Q.Slice(0, m, 0, used+block).T(), wi)
		for range block {
			blockOf = append(blockOf, i)
		}
		used += block
		if i == passes-1 {
			break
		}
		// The next block: what K′ adds to the span, orthogonal to all of it. Directions
		// below rounding of ‖K′Qᵢ‖ mean the space is invariant (to rounding): stop.
		tol := 64 * vec.Roundoff * float64(m) * maxColumnNorm(wi)
		dropped += tol
		next := orthonormalise(mat.DenseCopyOf(wi), Q.Slice(0, m, 0, used).(*mat.Dense), centred, tol)
		if next == nil {
			break
		}
		_, block = next.Dims()
		Q.Slice(0, m, used, used+block).(*mat.Dense).Copy(next)
	}
	Qu := Q.Slice(0, m, 0, used).(*mat.Dense)

	// Rayleigh–Ritz: T = QᵀK′Q, T = S·Θ·Sᵀ, the top k pairs kept. Within a block both
	// triangles were computed, and are averaged (the computed product differs from
	// symmetric by rounding); across blocks the upper one is the only one.
	T := mat.NewSymDense(used, nil)
	for i := range used {
		for j := i; j < used; j++ {
			v := t.At(i, j)
			if blockOf[i] == blockOf[j] {
				v = (v + t.At(j, i)) / 2
			}
			T.SetSym(i, j, v)
		}
	}
	var S mat.Dense
	theta, err := native.EigenSym(nil, &S, T)
	if err != nil {
		return polished{}, fmt.Errorf("kpca: Polish: %w", err)
	}
	keep := min(k, used)
	St := S.Slice(0, used, used-keep, used).(*mat.Dense) // ascending: the top keep
	values := append([]float64(nil), theta[used-keep:]...)
	U := mat.NewDense(m, keep, nil)
	native.Mul(U, Qu, St)

	// The change of the tracked matrix, in the coordinates of Q (V and U lie in its span):
	// D = (QᵀV)·Λ·(QᵀV)ᵀ − S·Θ·Sᵀ, used×used.
	var vq mat.Dense
	native.Mul(&vq, Qu.T(), V)
	D := mat.NewSymDense(used, nil)
	for i := range used {
		for j := i; j < used; j++ {
			var s float64
			for l := range k {
				s += vq.At(i, l) * lambda[l] * vq.At(j, l)
			}
			for l := range keep {
				s -= St.At(i, l) * values[l] * St.At(j, l)
			}
			D.SetSym(i, j, s)
		}
	}
	dv, err := native.EigenSym(nil, nil, D)
	if err != nil {
		return polished{}, fmt.Errorf("kpca: Polish: %w", err)
	}
	change := update.DroppedOf(dv)
	scale := 0.0
	for _, v := range lambda {
		scale = math.Max(scale, math.Abs(v))
	}
	for _, v := range values {
		scale = math.Max(scale, math.Abs(v))
	}
	slack := 64 * vec.Roundoff * float64(used+2) * scale
	p := polished{values: values, vectors: U, change: change, slack: slack}
	if psd(md.kern) {
		last := W.Slice(0, m, 0, block).(*mat.Dense) // K′ times the last block of Q
		tq := t.Slice(0, used, used-block, used)     // and Qᵀ times that
		p.restart = md.restartCertificate(Qu, last, tq, St.Slice(used-block, used, 0, keep), theta[:used-keep], values, slack+dropped)
	}
	return p, nil
}

// restartCertificate returns the certificate of E = K′ − U·Θ·Uᵀ for the Ritz pairs
// (values Θ, vectors U = Q·S) a polish keeps, from the polish alone, for a positive
// semi-definite K′ (docs/design.md, "Polishing"). In the basis [U, U⊥],
//
//	E = [[UᵀK′U − Θ, Rᵀ], [R, B]],   R = K′U − U·Θ,   B = U⊥ᵀK′U⊥ ⪰ 0,
//
// and the block Krylov relation gives R without another pass: K′Q = Q·T + F with F zero
// but in the last block, F_last = (I − QQᵀ)·K′Q_last, so R = F_last·S_last (S_last the
// rows of S of the last block) but for the directions orthonormalise dropped, each below
// its tolerance (rnd includes their sum). B's trace is tr K′ − Σθ, from the running
// sums, and the other Ritz values φ₁ ≥ … ≥ φₛ of the Krylov space interlace B's top
// eigenvalues (Cauchy: φⱼ ≤ λⱼ(B)), so that, B being positive semi-definite,
//
//	λmax(B) ≤ b = tr B − Σⱼ₌₂…ₛ φⱼ⁺.
//
// With σ ≥ ‖R‖₂ and g ≥ ‖UᵀK′U − Θ‖₂ (rounding), λmax(E) ≤ g + (b + √(b² + 4σ²))/2 and
// −λmin(E) ≤ g + σ; and E = P − N with P = G⁺ + S⁺ + B, N = G⁻ + S⁻ (S = [[0, Rᵀ], [R, 0]],
// whose eigenvalues are ±σᵢ(R)), both positive semi-definite, of traces at most
// k·g + Σσᵢ + tr B and k·g + Σσᵢ: the certificate's invariants (certificate). Every
// quantity computed from K′ is off by at most η = (τ + 2mε)·m·max k(xᵢ, xᵢ), τ the
// kernel values' accuracy (kernelAccuracy) — the norm of the error of the kernel values
// and of the products' sums, the entries of a positive semi-definite K bounded by its
// diagonal — which every term includes, with rnd, the rounding of the Rayleigh–Ritz step.
func (md *Model) restartCertificate(Q, last *mat.Dense, tq, sLast mat.Matrix, rest, values []float64, rnd float64) *certificate {
	m := md.m
	var kmax float64
	for i := range m {
		x := md.point(i)
		kmax = math.Max(kmax, math.Abs(md.kern.Eval(x, x)))
	}
	eta := (kernelAccuracy + 2*float64(m)*vec.Roundoff) * float64(m) * kmax
	rnd += eta

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
	var sigma, nuclear float64
	for _, v := range sv {
		s := math.Sqrt(math.Max(v, 0))
		sigma = math.Max(sigma, s)
		nuclear += s
	}
	sigma += rnd
	nuclear += float64(k) * rnd
	gap := rnd // g: ‖UᵀK′U − Θ‖₂

	// tr B = tr K′ − Σ uⱼᵀK′uⱼ, and the interlacing of the other Ritz values (ascending in
	// rest: the largest is the last, which is not subtracted).
	var sum, abs float64
	for _, v := range values {
		sum += v
		abs += math.Abs(v)
	}
	trB := math.Max(md.traceK()+md.traceTol(len(values), abs)-sum+float64(k)*gap, 0)
	b := trB
	for i := 0; i+1 < len(rest); i++ {
		b -= math.Max(rest[i]-rnd, 0)
	}
	b = math.Max(b, 0)
	c := md.cert
	c.PosNorm = gap + (b+math.Sqrt(b*b+4*sigma*sigma))/2
	c.NegNorm = gap + sigma
	c.PosTrace = float64(k)*gap + nuclear + trB
	c.NegTrace = float64(k)*gap + nuclear
	c.Slack = 0
	return &c
}
