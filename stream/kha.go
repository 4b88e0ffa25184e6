package stream

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// KHAOptions configure the kernel Hebbian algorithm.
type KHAOptions struct {
	// Components is the number r ≥ 1 of principal components tracked.
	Components int
	// Rate is the learning rate η₀ > 0; Decay τ ≥ 0 makes it η₀/(1 + t/τ) at
	// presentation t (0: constant).
	Rate, Decay float64
	// Uncentred skips the centring in feature space (centred by default).
	Uncentred bool
	// Seed selects the random initial directions.
	Seed uint64
}

// KHA is the kernel Hebbian algorithm (Kim, Franz & Schölkopf, IEEE TPAMI 2005): the
// generalised Hebbian algorithm (Sanger's rule) in feature space. The directions are
// w_i = Σ_l α_il·φ̃(x_l); a presentation of sample s computes y = A·k̃ₛ (k̃ₛ its centred
// kernel column) and updates
//
//	A ← A + η·(y·eₛᵀ − LT(y·yᵀ)·A)
//
// with LT the lower triangle, in O(n·(d + r²)). It is the iterative baseline: its
// convergence depends on the learning rate, where KRQA's fixed point needs none. The
// initial directions are random (seeded), unit in feature space; the iteration starts
// when r+1 samples are stored. Not safe for concurrent use.
type KHA struct {
	opts KHAOptions
	iteration
	alpha [][]float64
	y     []float64
}

// KHA is an ikpca.Incremental and an ikpca.Persistent.
var _ ikpca.Incremental = (*KHA)(nil)
var _ ikpca.Persistent = (*KHA)(nil)

// NewKHA returns an empty model with kernel k for d-dimensional points. A kernel that
// kernel.Validate refuses, a d below 1 or beyond 2³⁰ and invalid options — among them
// more components than can be allocated (see NewKRQA) — are an ErrArgument.
func NewKHA(k kernel.Kernel, d int, opts KHAOptions) (*KHA, error) {
	if err := checkComponents(opts.Components); err != nil {
		return nil, err
	}
	if !(opts.Rate > 0) || math.IsInf(opts.Rate, 0) || !(opts.Decay >= 0) || math.IsInf(opts.Decay, 0) {
		return nil, fmt.Errorf("%w: learning rate %v and decay %v, want a positive rate and a non-negative decay", ErrArgument, opts.Rate, opts.Decay)
	}
	s, err := newSamples(k, d, !opts.Uncentred)
	if err != nil {
		return nil, err
	}
	return &KHA{opts: opts, iteration: iteration{s: s, r: opts.Components}, alpha: make([][]float64, opts.Components),
		y: make([]float64, opts.Components)}, nil
}

// Options returns the options the model was made with.
func (m *KHA) Options() KHAOptions { return m.opts }

// Centred reports whether the model centres in feature space (the default; see
// KHAOptions.Uncentred).
func (m *KHA) Centred() bool { return !m.opts.Uncentred }

// Add stores a new sample and presents it. A point of the wrong dimension, with a
// non-finite coordinate or a non-finite kernel value is an error and changes nothing.
func (m *KHA) Add(x []float64) error {
	if _, err := m.s.add(x); err != nil {
		return err
	}
	n := m.s.n
	if m.ready {
		// Centred, keep each direction's vector as it was (see KRQA.extend): make its
		// coefficients sum to zero, then append a zero one.
		for i, a := range m.alpha {
			if m.s.centred {
				mean := sum(a) / float64(n-1)
				for l := range a {
					a[l] -= mean
				}
			}
			m.alpha[i] = append(a, 0)
		}
	} else {
		need := m.r + 1
		if m.opts.Uncentred {
			need = m.r
		}
		if n < need || !m.start() {
			return nil
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
func (m *KHA) AddBatch(X mat.Matrix) error {
	return m.s.batch(X, m.Add, func() func() {
		at := m.s.mark()
		ready, t, alpha := m.ready, m.t, clones(m.alpha)
		return func() {
			m.s.rollback(at)
			m.ready, m.t, m.alpha = ready, t, alpha
		}
	})
}

// start draws random unit initial directions (O(n²·d) once).
func (m *KHA) start() bool {
	n := m.s.n
	rng := rand.New(rand.NewPCG(m.opts.Seed, 0x6b6861))
	for i := range m.r {
		m.alpha[i] = make([]float64, n, 2*n)
		for l := range n {
			m.alpha[i][l] = rng.NormFloat64()
		}
	}
	ka := m.s.centredProducts(m.alpha)
	for i := range m.r {
		v := vec.Dot(m.alpha[i], ka[i]) // ‖w_i‖²
		if !(v > 0) {
			return false
		}
		c := 1 / math.Sqrt(v)
		for l := range m.alpha[i] {
			m.alpha[i][l] *= c
		}
	}
	m.ready = true
	return true
}

// Pass presents every stored sample once more, in the order they were added.
func (m *KHA) Pass() error { return m.s.pass(m.ready, m.present) }

func (m *KHA) present(s int) {
	col := m.s.column(s)
	m.s.centre(col)
	for i := range m.r {
		m.y[i] = vec.Dot(m.alpha[i], col)
	}
	eta := m.opts.Rate
	if m.opts.Decay > 0 {
		eta /= 1 + float64(m.t)/m.opts.Decay
	}
	m.t++
	// Row i uses the old rows l ≤ i: update from the last row up.
	for i := m.r - 1; i >= 0; i-- {
		yi := m.y[i]
		a := m.alpha[i]
		c := 1 - eta*yi*yi
		for l := range a {
			a[l] *= c
		}
		for l := range i {
			axpy(-eta*yi*m.y[l], m.alpha[l], a)
		}
		a[s] += eta * yi
	}
}

// components returns the number of components: r once the iteration has started, none
// before.
func (m *KHA) components() int {
	if !m.ready {
		return 0
	}
	return m.r
}

// decomposition returns, from one pass over the kernel columns (O(n²·d)), the Rayleigh
// quotients of the directions in descending order and the unit, signed coefficient
// vectors in that order (unitSigned). The Hebbian rule does not keep the directions in
// order of their variance; every method of the model reports them in this order.
func (m *KHA) decomposition() ([]float64, [][]float64) {
	// Each direction's coefficients scaled by a power of two, which changes no bit of
	// the quotients or of the unit directions (every product and sum scales exactly),
	// so that coefficients grown large — a learning rate too high, or an encoding's —
	// do not overflow their squares.
	alpha := binaryScaled(m.alpha)
	ka := m.s.centredProducts(alpha)
	q := rayleigh(alpha, ka)
	order := descending(q)
	vals := make([]float64, len(order))
	for j, i := range order {
		vals[j] = q[i]
	}
	return vals, unitSigned(alpha, ka, order)
}

// Values returns the Rayleigh quotients of the current directions on the stored
// samples, comparable with the eigenvalues of K̃, descending (O(n²·d)); none before the
// iteration starts. dst follows the rule of ikpca.Model.Values.
func (m *KHA) Values(dst []float64) []float64 {
	dst = check.Room(dst, m.components())
	if m.ready {
		vals, _ := m.decomposition()
		copy(dst, vals)
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
func (m *KHA) VectorsTo(dst *mat.Dense) {
	if !m.ready {
		vectorsTo(dst, nil, m.Len())
		return
	}
	_, coef := m.decomposition()
	vectorsTo(dst, coef, m.s.n)
}

// Transform writes the projections of the rows of X onto the top k unit directions,
// w_jᵀφ̃(x) with w_j signed as by VectorsTo, to dst (rows×k, resized if empty). Errors
// are those of ikpca.Model.Transform (an ErrEmpty before the iteration starts), and
// leave dst unchanged.
func (m *KHA) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	return m.s.scores(dst, X, k, m.components(), func() [][]float64 {
		_, coef := m.decomposition()
		return coef
	})
}

// Bytes returns the memory the model holds: the stored samples and r coefficient
// vectors of length n.
func (m *KHA) Bytes() int {
	b := m.s.bytes()
	for _, a := range m.alpha {
		b += 8 * cap(a)
	}
	return b
}
