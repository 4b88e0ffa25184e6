package stream

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

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
	opts  KHAOptions
	s     *samples
	r     int
	ready bool
	t     int
	alpha [][]float64
	y     []float64
}

// NewKHA returns an empty model with kernel k for d-dimensional points.
func NewKHA(k kernel.Kernel, d int, opts KHAOptions) (*KHA, error) {
	if opts.Components < 1 {
		return nil, fmt.Errorf("stream: %d components, want ≥ 1", opts.Components)
	}
	if !(opts.Rate > 0) || math.IsInf(opts.Rate, 0) || !(opts.Decay >= 0) || math.IsInf(opts.Decay, 0) {
		return nil, fmt.Errorf("stream: learning rate %v and decay %v, want a positive rate and a non-negative decay", opts.Rate, opts.Decay)
	}
	s, err := newSamples(k, d, !opts.Uncentred)
	if err != nil {
		return nil, err
	}
	return &KHA{opts: opts, s: s, r: opts.Components, alpha: make([][]float64, opts.Components),
		y: make([]float64, opts.Components)}, nil
}

// Len returns the number of distinct samples stored.
func (m *KHA) Len() int { return m.s.n }

// Presentations returns the number of sample presentations made.
func (m *KHA) Presentations() int { return m.t }

// Add stores a new sample and presents it. A point of the wrong dimension, with a
// non-finite coordinate or a non-finite kernel value is an error and changes nothing.
func (m *KHA) Add(x []float64) error {
	if err := checkPoint(x, m.s.d); err != nil {
		return err
	}
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
	q := m.s.rayleighNorms(m.alpha)
	for i, v := range q {
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

// Values returns the Rayleigh quotients of the current directions on the stored
// samples, comparable with the eigenvalues of K̃, in component order (O(n²·d)).
func (m *KHA) Values(dst []float64) ([]float64, error) {
	if !m.ready {
		return nil, errors.New("stream: too few samples to start")
	}
	return m.s.rayleigh(dst, m.alpha), nil
}

// Transform writes the projections of the rows of X onto the top k unit directions to
// dst (rows×k, resized if empty).
func (m *KHA) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if !m.ready {
		return errors.New("stream: too few samples to start")
	}
	return m.s.scores(dst, X, m.alpha, m.s.rayleighNorms(m.alpha), k)
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
