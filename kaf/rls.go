package kaf

import (
	"fmt"
	"slices"

	"github.com/ikpca/ikpca/internal/vec"
)

// RLSOptions configure RLS and extended RLS.
type RLSOptions struct {
	// Lambda is the forgetting factor 0 < λ ≤ 1 (RLS) — 1 when zero. For ExRLS it is
	// the variance of the observation noise, the regulariser of each update (1 when
	// zero).
	Lambda float64
	// Delta sets the initial inverse correlation P₀ = I/δ, δ > 0 (1 when zero): a
	// small δ trusts the first samples more.
	Delta float64
	// Alpha and Q are ExRLS's state model w(i+1) = α·w(i) + u(i), Cov(u) = q·I (α = 1
	// when zero; q ≥ 0). Ignored by RLS.
	Alpha, Q float64
}

func (o *RLSOptions) defaults() error {
	if o.Lambda == 0 {
		o.Lambda = 1
	}
	if o.Delta == 0 {
		o.Delta = 1
	}
	if o.Alpha == 0 {
		o.Alpha = 1
	}
	for _, v := range []float64{o.Lambda, o.Delta, o.Alpha, o.Q} {
		if !finite(v) {
			return fmt.Errorf("%w: RLS option %v, want a finite number", ErrArgument, v)
		}
	}
	if o.Lambda <= 0 || o.Delta <= 0 || o.Q < 0 {
		return fmt.Errorf("%w: RLS options λ = %v, δ = %v, q = %v: want λ > 0, δ > 0, q ≥ 0", ErrArgument, o.Lambda, o.Delta, o.Q)
	}
	return nil
}

// RLS is the exponentially weighted recursive least-squares filter: it minimises
// Σᵢ λ^{n−i}·(dᵢ − wᵀφᵢ)² + δ·λⁿ·‖w‖² exactly after every sample, with the inverse
// correlation P updated by the matrix inversion lemma:
//
//	k = P·φ/(λ + φᵀP·φ),  w ← w + k·e,  P ← (P − k·φᵀP)/λ
//
// O(m²) per sample. On kernel features it is KRLS in feature space.
type RLS struct {
	opts RLSOptions
	w    []float64
	p    []float64 // m×m, symmetric, row-major
	pphi []float64 // scratch P·φ
	ex   bool      // extended (Kalman) form
}

// NewRLS returns an RLS filter for m features (weights start at zero). m outside
// 1 … 2¹⁴ (P is m×m) and impossible options are ErrArgument.
func NewRLS(m int, opts RLSOptions) (*RLS, error) {
	return newRLS(m, opts, false)
}

// NewExRLS returns an extended RLS filter (Haykin; Liu, Weng, Príncipe & Haykin's
// Ex-KRLS in feature space): the Kalman filter of the state model w(i+1) = α·w(i) + u(i),
// Cov(u) = q·I, observed as dᵢ = φᵢᵀw(i) + v(i), Var(v) = λ:
//
//	k = P·φ/(λ + φᵀP·φ),  w ← α·(w + k·e),  P ← α²·(P − k·φᵀP) + q·I
//
// It tracks a drifting target (α ≠ 1, q > 0); with α = 1, q = 0 it is RLS without
// forgetting and regulariser λ·δ. O(m²) per sample. m outside 1 … 2¹⁴ and impossible
// options are ErrArgument.
func NewExRLS(m int, opts RLSOptions) (*RLS, error) {
	return newRLS(m, opts, true)
}

func newRLS(m int, opts RLSOptions, ex bool) (*RLS, error) {
	if m < 1 {
		return nil, fmt.Errorf("%w: %d features, want ≥ 1", ErrArgument, m)
	}
	if m > 1<<14 {
		return nil, fmt.Errorf("%w: %d features need an %d² matrix; at most %d", ErrArgument, m, m, 1<<14)
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if !ex && opts.Lambda > 1 {
		return nil, fmt.Errorf("%w: forgetting factor λ = %v, want 0 < λ ≤ 1", ErrArgument, opts.Lambda)
	}
	f := &RLS{opts: opts, w: make([]float64, m), p: make([]float64, m*m), pphi: make([]float64, m), ex: ex}
	for i := range m {
		f.p[i*m+i] = 1 / opts.Delta
	}
	return f, nil
}

// Dim returns the number of features.
func (f *RLS) Dim() int { return len(f.w) }

// Predict returns wᵀφ: φ of another length than Dim is ErrDimension, a NaN or infinite
// feature, or finite ones so large that wᵀφ overflows, ErrNonFinite.
func (f *RLS) Predict(phi []float64) (float64, error) { return linearPredict("RLS", f.w, phi) }

// Update adapts w and P to (φ, d) and returns the a-priori error d − wᵀφ. φ of
// another length than Dim is ErrDimension; a NaN or infinite feature or d, and finite
// ones so large that φᵀPφ, the error or a weight overflows, ErrNonFinite; a P that
// rounding has made indefinite (φᵀPφ ≤ −λ) ErrNotConverged; in each case the filter is
// unchanged. It does not allocate.
func (f *RLS) Update(phi []float64, d float64) (float64, error) {
	if err := checkLinear("RLS", f.w, phi, d); err != nil {
		return 0, err
	}
	m := len(f.w)
	// P·φ (P symmetric), into scratch: nothing of the filter changes before every
	// check below has passed.
	for i := range m {
		f.pphi[i] = vec.Dot(f.p[i*m:(i+1)*m], phi)
	}
	den := f.opts.Lambda + vec.Dot(phi, f.pphi)
	switch {
	case !finite(den):
		return 0, fmt.Errorf("%w: λ + φᵀPφ = %v", ErrNonFinite, den)
	case !(den > 0):
		return 0, fmt.Errorf("%w: RLS lost positive definiteness (λ + φᵀPφ = %v)", ErrNotConverged, den)
	}
	e := d - vec.Dot(f.w, phi)
	// w += k·e with k = Pφ/den (then ·α, extended); P −= k·(Pφ)ᵀ, kept exactly
	// symmetric by updating the upper triangle and mirroring.
	c := e / den
	a := 1.0
	if f.ex {
		a = f.opts.Alpha
	}
	if !finiteStep(a, c, f.pphi, f.w) {
		return 0, fmt.Errorf("%w: the update overflows (a-priori error %v)", ErrNonFinite, e)
	}
	for i := range m {
		f.w[i] += c * f.pphi[i]
	}
	inv := 1 / den
	for i := range m {
		pi := f.pphi[i] * inv
		row := f.p[i*m:]
		for j := i; j < m; j++ {
			row[j] -= pi * f.pphi[j]
		}
	}
	if f.ex {
		a := f.opts.Alpha
		for i := range m {
			f.w[i] *= a
		}
		a2 := a * a
		for i := range m {
			row := f.p[i*m:]
			for j := i; j < m; j++ {
				row[j] *= a2
			}
			row[i] += f.opts.Q
		}
	} else if l := f.opts.Lambda; l != 1 {
		for i := range m {
			row := f.p[i*m:]
			for j := i; j < m; j++ {
				row[j] /= l
			}
		}
	}
	for i := range m {
		for j := i + 1; j < m; j++ {
			f.p[j*m+i] = f.p[i*m+j]
		}
	}
	return e, nil
}

// Weights copies w into dst.
func (f *RLS) Weights(dst []float64) []float64 { return copyWeights(dst, f.w) }

// SetWeights replaces w (P is kept): a w of another length than Dim is ErrDimension, a
// NaN or infinite weight ErrNonFinite.
func (f *RLS) SetWeights(w []float64) error { return setWeights(f.w, w, "RLS") }

// save returns a function that restores the filter's weights and P as they are now.
func (f *RLS) save() func() {
	w, p := slices.Clone(f.w), slices.Clone(f.p)
	return func() {
		copy(f.w, w)
		copy(f.p, p)
	}
}
