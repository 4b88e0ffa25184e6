package kaf

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
)

// maxMackeyGlassSteps bounds the work of one MackeyGlass call, the number of
// RK4 steps (and so also the length of the output). 1e8 steps take about 7 s
// at 65 ns a step; anything beyond is almost certainly a unit mistake (a step
// of 1e-6 where 1e-1 was meant) rather than a wish.
const maxMackeyGlassSteps = 1e8

// maxMackeyGlassDelay bounds τ/Step, the length of the delay line: three
// float64 ring buffers of 1e7 entries are 240 MB.
const maxMackeyGlassDelay = 1e7

// MackeyGlassOptions configure MackeyGlass. A zero field takes its default; a
// negative or non-finite field is an error.
type MackeyGlassOptions struct {
	// Beta is the production rate β of the delayed feedback; default 0.2.
	Beta float64
	// Gamma is the decay rate γ; default 0.1.
	Gamma float64
	// Tau is the delay τ in time units; default 30, the strongly chaotic
	// setting of the KAFBOX mg30 series (τ = 17 is the other classic choice).
	Tau float64
	// N is the exponent n of the nonlinearity x/(1 + xⁿ); default 10.
	N float64
	// Step is the RK4 integration step h; default 0.1. It must divide both
	// Sample and Tau (to within rounding), so that the sampling instants and
	// the delayed instants fall on the integration grid. 0.1 divides the
	// usual τ = 17 and τ = 30 and sampling intervals 1 and 6. The method has
	// order 4 (see MackeyGlass), and at h = 0.1 the error up to t = 300 is
	// about 6e-10 (6e-6 at h = 1), far below the 1e-6 to which such series
	// are usually stored, at a cost of 60 steps per sample of 6 time units.
	Step float64
	// Sample is the sampling interval in time units; default 6, as in mg30.
	Sample float64
	// X0 is the constant history x(t) = X0 for t ≤ 0; default 0.9. It must be
	// positive: the solution then stays positive, and xⁿ is defined for any
	// real n.
	X0 float64
	// Discard is the number of initial samples to drop, to skip the
	// transient from the constant history; default 0.
	Discard int
}

// mackeyGlassParams are validated options with the defaults filled in.
type mackeyGlassParams struct {
	beta, gamma, n, x0 float64
	h                  float64 // integration step
	delay              int     // τ/h, steps per delay
	perSample          int     // Sample/h, steps per sample
}

// multiple returns the integer k ≥ 1 with a ≈ k·b to within rounding, or false.
// The tolerance is relative: τ = 30 and h = 0.1 give 30/0.1 = 299.99999999999994
// in floating point, which must count as 300. k is returned as a float64 so
// that the caller can bound it before converting.
func multiple(a, b float64) (float64, bool) {
	r := a / b
	k := math.Round(r)
	if k < 1 || math.Abs(r-k) > 1e-9*k {
		return 0, false
	}
	return k, true
}

func (o MackeyGlassOptions) params(n int) (mackeyGlassParams, error) {
	def := func(v, d float64) float64 {
		if v == 0 {
			return d
		}
		return v
	}
	beta := def(o.Beta, 0.2)
	gamma := def(o.Gamma, 0.1)
	tau := def(o.Tau, 30)
	expo := def(o.N, 10)
	step := def(o.Step, 0.1)
	sample := def(o.Sample, 6)
	x0 := def(o.X0, 0.9)
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"Beta", beta}, {"Gamma", gamma}, {"Tau", tau}, {"N", expo},
		{"Step", step}, {"Sample", sample}, {"X0", x0},
	} {
		if !(f.v > 0) || math.IsInf(f.v, 1) {
			return mackeyGlassParams{}, fmt.Errorf("%w: Mackey–Glass %s = %v, want a positive finite number", ErrArgument, f.name, f.v)
		}
	}
	if n < 1 {
		return mackeyGlassParams{}, fmt.Errorf("%w: Mackey–Glass length %d, want ≥ 1", ErrArgument, n)
	}
	if o.Discard < 0 {
		return mackeyGlassParams{}, fmt.Errorf("%w: Mackey–Glass Discard = %d, want ≥ 0", ErrArgument, o.Discard)
	}
	// Bound the ratios before testing divisibility: for a ratio beyond 1e9
	// every float64 passes the relative test, and the error would mislead.
	for _, r := range []struct {
		name       string
		v, maximum float64
	}{{"Sample", sample, maxMackeyGlassSteps}, {"Tau", tau, maxMackeyGlassDelay}} {
		if r.v/step > r.maximum {
			return mackeyGlassParams{}, fmt.Errorf("%w: Mackey–Glass %s/Step = %.3g, more than the limit %g steps", ErrArgument, r.name, r.v/step, r.maximum)
		}
	}
	perSample, ok := multiple(sample, step)
	if !ok {
		return mackeyGlassParams{}, fmt.Errorf("%w: Mackey–Glass Step = %v does not divide Sample = %v", ErrArgument, step, sample)
	}
	// h is recomputed from Sample so that the sampling instants are exact
	// multiples of it; τ is then a multiple of h to within the tolerance of
	// multiple, far below the integration error.
	h := sample / perSample
	delay, ok := multiple(tau, h)
	if !ok {
		return mackeyGlassParams{}, fmt.Errorf("%w: Mackey–Glass Step = %v does not divide Tau = %v", ErrArgument, step, tau)
	}
	// RK4 applied to the decay x' = −γx multiplies x by the quartic
	// R(−γh) each step, and |R(z)| < 1 on the negative axis only for
	// z > −2.785; beyond that the computed solution grows without bound.
	if gamma*h >= 2.78 {
		return mackeyGlassParams{}, fmt.Errorf("%w: Mackey–Glass Gamma·Step = %v, beyond the RK4 stability limit 2.78; reduce Step", ErrArgument, gamma*h)
	}
	// The work is one RK4 step per grid point up to the last sample.
	if steps := (float64(n) - 1 + float64(o.Discard)) * perSample; steps > maxMackeyGlassSteps {
		return mackeyGlassParams{}, fmt.Errorf("%w: Mackey–Glass needs %.3g integration steps for %d samples (Discard %d), more than the limit %g", ErrArgument,
			steps, n, o.Discard, float64(maxMackeyGlassSteps))
	}
	return mackeyGlassParams{beta: beta, gamma: gamma, n: expo, x0: x0, h: h, delay: int(delay), perSample: int(perSample)}, nil
}

// MackeyGlass returns n samples of the Mackey–Glass delay differential equation
//
//	dx/dt = β·x(t−τ)/(1 + x(t−τ)ⁿ) − γ·x(t),  x(t) = X0 for t ≤ 0,
//
// namely x(d·S), x((d+1)·S), …, x((d+n−1)·S) with S = opts.Sample and
// d = opts.Discard; with no discard the first sample is x(0) = X0. The equation
// is integrated by the classical fourth-order Runge–Kutta method with step
// opts.Step.
//
// Equal options give equal series. Every product in the integration is
// rounded explicitly, so no platform may fuse it into a multiply–add; with an
// integer exponent N (the default), for which the pure-Go math.Pow only
// multiplies, the series is then bit-identical on amd64, arm64 and every
// other architecture without an assembly math.Pow (s390x has one). This
// matters because the equation is chaotic: with the default options, X0 one
// ulp above 0.9 gives a series more than 0.1 away from the default one by
// sample 553.
//
// Every error is ErrArgument: invalid options (see MackeyGlassOptions), n < 1,
// more than 1e8 integration steps, Gamma·Step beyond the stability limit 2.78
// of RK4, and an integration that leaves the positive finite numbers (it
// overflows for absurd rates such as Beta = 1e308). The last is an argument
// error rather than ErrNotConverged: nothing iterates towards a limit that more
// iterations could reach; the same options fail every time, and only other
// options (smaller rates, a smaller Step) give a series.
//
// The delay line keeps τ/Step grid values, not the whole trajectory, so the
// memory is O(n + τ/Step); τ/Step is limited to 1e7.
func MackeyGlass(n int, opts MackeyGlassOptions) ([]float64, error) {
	p, err := opts.params(n)
	if err != nil {
		return nil, err
	}

	line := newDelayLine(p)
	out := make([]float64, n)
	total := (opts.Discard + n - 1) * p.perSample
	if opts.Discard == 0 {
		out[0] = p.x0
	}
	x := p.x0
	for k := 0; k < total; k++ {
		g0, gMid, g1 := line.feedback(k)
		x = p.rk4(x, g0, gMid, g1)
		if !(x > 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("%w: Mackey–Glass integration left the positive finite numbers at t = %v (x = %v); check the rates and Step", ErrArgument, float64(k+1)*p.h, x)
		}
		line.store(k+1, x, g1)
		if s := k + 1; s%p.perSample == 0 {
			if idx := s/p.perSample - opts.Discard; idx >= 0 {
				out[idx] = x
			}
		}
	}
	return out, nil
}

// Embed builds the time-delay embedding of series for prediction: row i of X
// is the window [s[i], s[i+1], …, s[i+order−1]] and y[i] = s[i+order−1+horizon]
// is the value horizon steps after the window's last element. X has
// len(series) − order − horizon + 1 rows and order columns; horizon = 1 is
// one-step-ahead prediction (order 7 and horizon 1 are the usual Mackey–Glass
// setting in kernel adaptive filtering). X and y do not share memory with
// series.
//
// An order or horizon below 1, and an X of more than 2³⁰ values (docs/design.md,
// "Sizes"), are ErrArgument; a series too short for a single row (fewer than
// order + horizon values) ErrEmpty; a NaN or infinite value ErrNonFinite.
func Embed(series []float64, order int, horizon int) (X *mat.Dense, y []float64, err error) {
	if order < 1 {
		return nil, nil, fmt.Errorf("%w: embedding order %d, want ≥ 1", ErrArgument, order)
	}
	if horizon < 1 {
		return nil, nil, fmt.Errorf("%w: prediction horizon %d, want ≥ 1", ErrArgument, horizon)
	}
	// Compare without forming order+horizon, which could overflow.
	if len(series) < order || len(series)-order < horizon {
		return nil, nil, fmt.Errorf("%w: series of length %d too short for order %d and horizon %d (need order + horizon values)",
			ErrEmpty, len(series), order, horizon)
	}
	rows := len(series) - order - horizon + 1
	if _, err := kinds.Floats("the embedding", rows, order); err != nil {
		return nil, nil, err
	}
	if !vec.Finite(series) {
		for i, v := range series {
			if !finite(v) {
				return nil, nil, fmt.Errorf("%w: series value %d is %v", ErrNonFinite, i, v)
			}
		}
	}
	data := make([]float64, rows*order)
	y = make([]float64, rows)
	for i := range rows {
		copy(data[i*order:(i+1)*order], series[i:i+order])
		y[i] = series[i+order-1+horizon]
	}
	return mat.NewDense(rows, order, data), y, nil
}

// Standardise returns a new slice with series scaled linearly onto [lo, hi]:
// the minimum maps to lo and the maximum to hi exactly. A constant series maps
// to the midpoint (lo+hi)/2, since there is no scale to preserve.
//
// A target range that is not finite with lo < hi is ErrArgument, an empty series
// ErrEmpty, a NaN or infinite value in it ErrNonFinite.
func Standardise(series []float64, lo, hi float64) ([]float64, error) {
	if !finite(lo) || !finite(hi) || !(lo < hi) {
		return nil, fmt.Errorf("%w: target range [%v, %v], want finite lo < hi", ErrArgument, lo, hi)
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: empty series", ErrEmpty)
	}
	mn, mx := math.Inf(1), math.Inf(-1)
	for i, v := range series {
		if !finite(v) {
			return nil, fmt.Errorf("%w: series value %d is %v", ErrNonFinite, i, v)
		}
		mn = math.Min(mn, v)
		mx = math.Max(mx, v)
	}
	out := make([]float64, len(series))
	if mn == mx {
		mid := lo/2 + hi/2 // halves: lo+hi may overflow
		for i := range out {
			out[i] = mid
		}
		return out, nil
	}
	// Work with halves so that mx − mn cannot overflow; halving is exact
	// except for subnormals.
	span := mx/2 - mn/2
	for i, v := range series {
		// t is exactly 0 at the minimum and exactly 1 at the maximum (span/span),
		// and lo·(1−t) + hi·t then gives lo and hi exactly, which lo + t·(hi−lo)
		// need not. The clamp guards against a rounding excursion of one ulp;
		// float64(…) keeps the result the same on platforms that fuse
		// multiply–adds.
		t := (v/2 - mn/2) / span
		out[i] = math.Min(hi, math.Max(lo, float64(lo*(1-t))+float64(hi*t)))
	}
	return out, nil
}

// delayLine is what a step of MackeyGlass reads of the past.
//
// RK4 on the grid tₖ = k·h with τ = m·h needs the delayed state at
// tₖ − τ (grid point k−m), at tₖ − τ + h (grid point k−m+1) and, for the
// two middle stages, at the half step tₖ − τ + h/2, which is not on the
// grid. Linear interpolation there errs by h²/8·x” and would cut the
// method to order 2. The cubic Hermite interpolant through the two grid
// values and their derivatives errs by O(h⁴) instead and keeps order 4;
// at the midpoint it is just
//
//	x(t + h/2) ≈ (xₖ + xₖ₊₁)/2 + h·(x'ₖ − x'ₖ₊₁)/8,
//
// and the derivatives x'ₖ come free from the equation itself. This is
// cheaper than storing half-step values (which RK4 does not produce) and
// needs no condition on τ beyond being a multiple of h.
//
// The solution is only piecewise smooth: x' jumps at t = 0 (the history is
// constant), x” at τ, x”' at 2τ, …. Because τ is a multiple of h those
// breakpoints are grid points, so no step and no interpolation interval
// straddles one; the interval ending at t = 0 is history and is taken as
// the constant X0, not interpolated with the right derivative at 0.
type delayLine struct {
	p mackeyGlassParams
	// xs, ds and gs are ring buffers of the last m+1 grid values: x, x' (right
	// derivative) and the feedback term g(x), so that each delayed value is
	// evaluated once.
	xs, ds, gs []float64
	gx0        float64 // g(X0), the feedback of the whole history
}

// newDelayLine returns the delay line of p at t = 0: grid point 0 holds X0.
func newDelayLine(p mackeyGlassParams) *delayLine {
	ring := p.delay + 1
	l := &delayLine{p: p, xs: make([]float64, ring), ds: make([]float64, ring), gs: make([]float64, ring)}
	l.gx0 = p.g(p.x0)
	l.xs[0] = p.x0
	l.ds[0] = l.gx0 - float64(p.gamma*p.x0)
	l.gs[0] = l.gx0
	return l
}

// feedback returns g at the three delayed instants of step k: tₖ − τ, the Hermite
// midpoint tₖ − τ + h/2, and tₖ − τ + h.
func (l *delayLine) feedback(k int) (g0, gMid, g1 float64) {
	j := k - l.p.delay
	if j+1 <= 0 {
		// The whole delayed interval lies in the history.
		return l.gx0, l.gx0, l.gx0
	}
	ring := len(l.xs)
	a, b := j%ring, (j+1)%ring
	mid := float64((l.xs[a]+l.xs[b])/2) + float64(l.p.h*(l.ds[a]-l.ds[b])/8)
	return l.gs[a], l.p.g(mid), l.gs[b]
}

// store records grid point i = k+1, with value x. It overwrites i−m−1, which no
// later step needs; its own delayed instant is i−m, whose feedback g1 the step
// already knew.
func (l *delayLine) store(i int, x, g1 float64) {
	r := i % len(l.xs)
	l.xs[r] = x
	l.gs[r] = l.p.g(x)
	l.ds[r] = g1 - float64(l.p.gamma*x)
}

// g is the feedback term β·x/(1 + xⁿ) of the delayed state x.
func (p mackeyGlassParams) g(xd float64) float64 { return p.beta * xd / (1 + math.Pow(xd, p.n)) }

// rk4 takes one classical Runge–Kutta step of length h from x, with the feedback g0,
// gMid and g1 at the step's start, middle and end. float64(…) rounds each product
// before it is added (the Go spec lets a compiler fuse x*y + z otherwise, and arm64
// does); 2·k is exact, so it needs none.
func (p mackeyGlassParams) rk4(x, g0, gMid, g1 float64) float64 {
	h := p.h
	k1 := g0 - float64(p.gamma*x)
	k2 := gMid - float64(p.gamma*(x+float64(h/2*k1)))
	k3 := gMid - float64(p.gamma*(x+float64(h/2*k2)))
	k4 := g1 - float64(p.gamma*(x+float64(h*k3)))
	return x + float64(h/6*(k1+2*k2+2*k3+k4))
}
