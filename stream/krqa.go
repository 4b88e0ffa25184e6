package stream

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// KRQAOptions configure the online kernel Rayleigh-quotient algorithm.
type KRQAOptions struct {
	// Components is the number r ≥ 1 of principal components tracked.
	Components int
	// Uncentred skips the centring in feature space (centred by default).
	Uncentred bool
	// Seed selects the random initial directions.
	Seed uint64
}

// KRQA is online kernel PCA by the Rayleigh-quotient fixed point. For the leading
// component, maximising R(u) = uᵀCu/uᵀu gives the fixed point u = Cu/(uᵀCu), at which
// ‖u‖ = 1 and uᵀCu = λ₁. With C replaced by the running estimate Ĉ(t), the average of
// the t samples presented so far, and Ĉ(t−1)·u(t−1) by Q(t−1)·u(t−1) (u is near the
// fixed point), the online iteration is
//
//	yₜ = u(t−1)ᵀφ̃ₜ
//	P(t) = Ĉ(t)·u(t−1) ≈ (1 − 1/t)·Q(t−1)·u(t−1) + (1/t)·yₜ·φ̃ₜ
//	Q(t) = u(t−1)ᵀP(t) = (1 − 1/t)·Q(t−1) + (1/t)·yₜ²
//	u(t) = P(t)/‖P(t)‖
//
// (the fixed point's division by uᵀCu made an explicit normalisation, so that ‖u‖ = 1
// at every step and not only in the limit — the online deflation below needs unit
// vectors). Q(t) is the eigenvalue estimate. Component j runs the same iteration on
// the deflated sample φ̃ₜ − Σ_{i<j} yᵢ·uᵢ (online deflation by the current estimates of
// the leading components). Everything lives in the span of the samples' centred
// features φ̃ = φ − mean: each u is a coefficient vector α over the n distinct samples
// stored, with K·α kept up to date, so that a presentation costs O(n·(d + r²)) time and
// the model O(n·(d + r)) memory — linear in the samples seen, nothing of size n².
// Centring uses the running mean of the samples stored so far (exact once all are in,
// as in later passes). The initial directions are random unit vectors (seeded); the
// iteration starts when r+1 samples are stored.
//
// Several passes over the stored samples are supported (Pass). Not safe for concurrent
// use.
type KRQA struct {
	opts KRQAOptions
	iteration
	alpha [][]float64 // u_i = Σ_l α_il·φ̃_l, unit
	p     [][]float64 // K·α
	sb    []float64   // 1ᵀα
	sp    []float64   // 1ᵀp
	q     []float64   // eigenvalue estimates Q (of the covariance)
	// scratch
	h      [][]float64
	y      []float64
	kd, dd []float64
}

// KRQA is an ikpca.Incremental and an ikpca.Persistent.
var _ ikpca.Incremental = (*KRQA)(nil)
var _ ikpca.Persistent = (*KRQA)(nil)

// NewKRQA returns an empty model with kernel k for d-dimensional points. A kernel that
// kernel.Validate refuses, a d below 1 or beyond 2³⁰ and invalid options are an
// ErrArgument, among them a number r of components whose coefficients at the start
// (r×(r+1): the iteration starts with r+1 samples) would hold more than 2³⁰ numbers
// (8 GiB).
func NewKRQA(k kernel.Kernel, d int, opts KRQAOptions) (*KRQA, error) {
	if err := checkComponents(opts.Components); err != nil {
		return nil, err
	}
	s, err := newSamples(k, d, !opts.Uncentred)
	if err != nil {
		return nil, err
	}
	r := opts.Components
	m := &KRQA{opts: opts, iteration: iteration{s: s, r: r}, alpha: make([][]float64, r), p: make([][]float64, r),
		h: make([][]float64, r), sb: make([]float64, r), sp: make([]float64, r), q: make([]float64, r),
		y: make([]float64, r)}
	return m, nil
}

// Options returns the options the model was made with.
func (m *KRQA) Options() KRQAOptions { return m.opts }

// Centred reports whether the model centres in feature space (the default; see
// KRQAOptions.Uncentred).
func (m *KRQA) Centred() bool { return !m.opts.Uncentred }

// Add stores a new sample and presents it. A point of the wrong dimension, with a
// non-finite coordinate or a non-finite kernel value is an error and changes nothing.
func (m *KRQA) Add(x []float64) error {
	col, err := m.s.add(x)
	if err != nil {
		return err
	}
	n := m.s.n
	for i := range m.r {
		if m.ready {
			m.extend(i, col)
		}
	}
	need := m.r + 1
	if m.opts.Uncentred {
		need = m.r
	}
	if !m.ready {
		if n < need {
			return nil
		}
		if !m.start() {
			return nil // degenerate samples so far (e.g. all equal): wait for more
		}
	}
	m.present(n - 1)
	return nil
}

// AddBatch adds the rows of X in order, as Add does one at a time (each stored and
// presented), all or nothing: every row is checked first (its dimension, and its
// coordinates finite), and if the kernel value of a row is not finite — known only
// when it is added — the rows added before it are undone, the model restored to its
// state before the call bit for bit (O(n·r) kept for it). A nil X is an ErrArgument,
// one without rows an ErrEmpty.
func (m *KRQA) AddBatch(X mat.Matrix) error {
	return m.s.batch(X, m.Add, func() func() {
		at := m.s.mark()
		ready, t := m.ready, m.t
		alpha, p := clones(m.alpha), clones(m.p)
		sb, sp, q := slices.Clone(m.sb), slices.Clone(m.sp), slices.Clone(m.q)
		return func() {
			m.s.rollback(at)
			m.ready, m.t = ready, t
			m.alpha, m.p = alpha, p
			m.sb, m.sp, m.q = sb, sp, q
		}
	})
}

// extend grows direction i by the new sample (kernel column col, length n) without
// changing the vector it represents. Centred, u = Σ α_l·φ̃_l = Σ (α_l − ᾱ)·φ_l depends
// on the mean μ that the new sample moves, unless the coefficients sum to zero: α is
// first replaced by α − ᾱ (K·α by K·α − ᾱ·r, r = K·1 of the old samples), which
// represents the same vector, and then takes a zero coefficient for the new sample.
func (m *KRQA) extend(i int, col []float64) {
	n := m.s.n
	a, p := m.alpha[i], m.p[i]
	if m.s.centred {
		mean := m.sb[i] / float64(n-1)
		for l := range n - 1 {
			a[l] -= mean
			p[l] -= mean * (m.s.rowsum[l] - col[l]) // the old row sums
		}
		m.sb[i] = 0
	}
	pn := vec.Dot(col[:n-1], a)
	m.alpha[i] = append(a, 0)
	m.p[i] = append(p, pn)
	m.sp[i] = sum(m.p[i])
}

// start draws the initial directions: random coefficients over the stored samples,
// normalised in feature space (O(n²·d) once, n = r+1). It reports false if a
// direction has zero norm.
func (m *KRQA) start() bool {
	n := m.s.n
	rng := rand.New(rand.NewPCG(m.opts.Seed, 0x6b727161))
	for i := range m.r {
		m.alpha[i] = make([]float64, n, 2*n)
		m.p[i] = make([]float64, n, 2*n)
		for l := range m.alpha[i] {
			m.alpha[i][l] = rng.NormFloat64()
		}
	}
	for l := range n {
		col := m.s.column(l)
		for i := range m.r {
			m.p[i][l] = vec.Dot(col, m.alpha[i])
		}
	}
	for i := range m.r {
		m.sb[i], m.sp[i] = sum(m.alpha[i]), sum(m.p[i])
		m.h[i] = grow(m.h[i], n)
		if !m.normalise(i) {
			return false
		}
		m.q[i] = 0
	}
	m.t = 0
	m.ready = true
	return true
}

// normalise scales α_i (and K·α_i) to unit norm in feature space, ‖u‖² = α_iᵀK̃α_i;
// it reports false, changing nothing, if the norm is zero.
func (m *KRQA) normalise(i int) bool {
	m.s.centredProduct(m.h[i], m.p[i], m.sb[i], m.sp[i])
	nrm2 := vec.Dot(m.alpha[i], m.h[i])
	if !(nrm2 > 0) || math.IsInf(nrm2, 1) {
		return false
	}
	c := 1 / math.Sqrt(nrm2)
	for l := range m.alpha[i] {
		m.alpha[i][l] *= c
		m.p[i][l] *= c
	}
	m.sb[i] *= c
	m.sp[i] *= c
	return true
}

// Pass presents every stored sample once more, in the order they were added.
func (m *KRQA) Pass() error { return m.s.pass(m.ready, m.present) }

// present runs one iteration on stored sample s.
func (m *KRQA) present(s int) {
	n := m.s.n
	col := m.s.column(s)
	m.kd = grow(m.kd, n)
	m.dd = grow(m.dd, n)
	for i := range m.r {
		m.h[i] = grow(m.h[i], n)
		m.s.centredProduct(m.h[i], m.p[i], m.sb[i], m.sp[i])
	}
	// y_i = u_iᵀ(φ̃ₛ − Σ_{l<i} y_l·u_l) = (K̃α_i)ₛ − Σ y_l·⟨u_i, u_l⟩.
	for i := range m.r {
		yi := m.h[i][s]
		for l := range i {
			yi -= m.y[l] * vec.Dot(m.alpha[i], m.h[l])
		}
		m.y[i] = yi
	}
	m.t++
	gamma := 1 / float64(m.t)
	// Update in reverse order: component i's deflated sample uses the old u_l, l < i.
	for i := m.r - 1; i >= 0; i-- {
		yi := m.y[i]
		// Deflated sample: coefficients d = eₛ − Σ_{l<i} y_l·α_l, and K·d.
		clear(m.dd)
		m.dd[s] = 1
		copy(m.kd, col)
		for l := range i {
			axpy(-m.y[l], m.alpha[l], m.dd)
			axpy(-m.y[l], m.p[l], m.kd)
		}
		// P = (1−γ)·Q·u + γ·y·(deflated sample), held in α and K·α, then normalised.
		a := (1 - gamma) * m.q[i]
		b := gamma * yi
		for l := range n {
			m.alpha[i][l] = a*m.alpha[i][l] + b*m.dd[l]
			m.p[i][l] = a*m.p[i][l] + b*m.kd[l]
		}
		m.sb[i] = a*m.sb[i] + b*sum(m.dd)
		m.sp[i] = sum(m.p[i])
		if !m.normalise(i) {
			// P = 0 (the first sample projects to zero): no direction to take; the
			// previous one, scaled to zero here, is restored from the deflated sample
			// if that is non-zero, or left for the next presentation.
			copy(m.alpha[i], m.dd)
			copy(m.p[i], m.kd)
			m.sb[i], m.sp[i] = sum(m.dd), sum(m.kd)
			m.normalise(i)
		}
		m.q[i] = (1-gamma)*m.q[i] + gamma*yi*yi
	}
}

func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

// components returns the number of components: r once the iteration has started, none
// before.
func (m *KRQA) components() int {
	if !m.ready {
		return 0
	}
	return m.r
}

// Values returns the eigenvalue estimates of the kernel matrix K̃ (n times those of the
// covariance), descending: n·Q(t), the iteration's own estimate, O(r). The iteration
// does not keep the components in order of their estimates; every method of the model
// reports them in this order. There are none before the iteration starts. dst follows
// the rule of ikpca.Model.Values.
func (m *KRQA) Values(dst []float64) []float64 {
	dst = check.Room(dst, m.components())
	if !m.ready {
		return dst
	}
	for q, i := range descending(m.q) {
		dst[q] = float64(m.s.n) * m.q[i]
	}
	return dst
}

// coefficients returns the unit, signed coefficient vectors of the directions in the
// order of Values (unitSigned), from K̃α_i, which K·α_i gives in O(n): O(n·r) in all.
func (m *KRQA) coefficients() [][]float64 {
	ka := make([][]float64, m.r)
	for i := range m.r {
		ka[i] = make([]float64, m.s.n)
		m.s.centredProduct(ka[i], m.p[i], m.sb[i], m.sp[i])
	}
	return unitSigned(m.alpha, ka, descending(m.q))
}

// RayleighQuotients returns the exact Rayleigh quotients of the current directions on
// the stored samples, comparable with the eigenvalues of K̃, in the order of Values
// (O(n²·d): every kernel column is evaluated once); none before the iteration starts.
// dst follows the rule of ikpca.Model.Values.
func (m *KRQA) RayleighQuotients(dst []float64) []float64 {
	dst = check.Room(dst, m.components())
	if !m.ready {
		return dst
	}
	q := rayleigh(m.alpha, m.s.centredProducts(m.alpha))
	for j, i := range descending(m.q) {
		dst[j] = q[i]
	}
	return dst
}

// VectorsTo writes the coefficient vectors of the unit directions, in the order of
// Values, as the columns of dst (n×r, n the samples stored): direction j is
// w_j = Σ_l c_lj·φ̃(x_l), φ̃ the features centred on the samples' mean (uncentred: φ).
// Each is signed so that the samples' scores on it, K̃c_j, have their largest-magnitude
// entry positive (package sign, docs/design.md, "Signs"). dst follows the rule for
// destinations of package ikpca: written in place if of that shape, resized if empty (and left
// empty before the iteration starts), replaced by a new matrix otherwise.
func (m *KRQA) VectorsTo(dst *mat.Dense) {
	if !m.ready {
		vectorsTo(dst, nil, m.Len())
		return
	}
	vectorsTo(dst, m.coefficients(), m.s.n)
}

// Transform writes the projections of the rows of X onto the top k unit directions,
// w_jᵀφ̃(x) with w_j signed as by VectorsTo, to dst (rows×k, resized if empty). Errors
// are those of ikpca.Model.Transform (an ErrEmpty before the iteration starts), and
// leave dst unchanged.
func (m *KRQA) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	return m.s.scores(dst, X, k, m.components(), m.coefficients)
}

// Bytes returns the memory the model holds: the stored samples and O(r) vectors of
// length n.
func (m *KRQA) Bytes() int {
	b := m.s.bytes() + 8*(cap(m.kd)+cap(m.dd)+len(m.y))
	for i := range m.r {
		b += 8 * (cap(m.alpha[i]) + cap(m.p[i]) + cap(m.h[i]))
	}
	return b
}
