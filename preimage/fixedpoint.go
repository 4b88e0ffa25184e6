package preimage

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// Options configure the fixed-point iteration (FixedPoint, and the models' PreImage).
type Options struct {
	// MaxIter caps the iterations of one pre-image; zero means 100.
	MaxIter int
	// Tol stops the iteration when a step moves z by at most Tol·σ, σ the kernel's
	// bandwidth (1/√(2γ) for a kernel given by γ); zero means 1e-9.
	Tol float64
	// Magnitude makes the iteration maximise |f(z)| rather than f(z), f(z) =
	// Σᵢ cᵢ·k(z, pᵢ): the pre-image of the line through the expansion, whose coefficient
	// is free, as a reduced set wants (package chinsuter). A pre-image proper — the z
	// nearest to the expansion itself — maximises f.
	Magnitude bool
}

// validate checks the options and returns them with the defaults filled in.
func (o Options) validate() (Options, error) {
	if o.MaxIter < 0 || !(o.Tol >= 0) || math.IsInf(o.Tol, 0) {
		return o, fmt.Errorf("%w: options %+v (want MaxIter ≥ 0, a finite Tol ≥ 0)", ErrArgument, o)
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.Tol == 0 {
		o.Tol = 1e-9
	}
	return o, nil
}

// Validate reports options FixedPoint refuses — a negative MaxIter, a negative, NaN or
// infinite Tol — as an error wrapping ErrArgument, so that a caller can check them
// before any work.
func (o Options) Validate() error {
	_, err := o.validate()
	return err
}

// Result describes one run of FixedPoint.
type Result struct {
	// Value is f(z) = Σᵢ cᵢ·k(z, pᵢ) at the point returned, ⟨Ψ, φ(z)⟩ for the
	// expansion Ψ = Σᵢ cᵢ·φ(pᵢ): for a Gaussian kernel, ‖φ(z) − Ψ‖² = 1 − 2·Value + ‖Ψ‖².
	Value float64
	// Iterations is the number of iterations run.
	Iterations int
	// Converged reports that the last step moved z by at most Tol·σ; otherwise the
	// iteration reached MaxIter, or stopped at a vanishing denominator or a step that
	// was not finite, and z is the best point visited.
	Converged bool
}

// Scale returns the bandwidth σ of an RBF kernel, given by σ or by γ = 1/(2σ²).
func Scale(k kernel.RBF) float64 {
	if k.Gamma != 0 {
		return 1 / math.Sqrt(2*k.Gamma)
	}
	return k.Sigma
}

// FixedPoint finds, for the expansion Ψ = Σᵢ cᵢ·φ(pᵢ) over the rows pᵢ of P (n×d) and the
// Gaussian kernel k, a point z that (locally) maximises f(z) = ⟨Ψ, φ(z)⟩ — the point
// nearest to Ψ in feature space, since k(z, z) = 1 — or |f(z)| with Options.Magnitude.
// z holds the start on entry and the pre-image on return. Setting the gradient of f to
// zero gives the iteration of Mika et al. (1999) and Schölkopf et al. (1999),
//
//	z ← Σᵢ cᵢ·k(z, pᵢ)·pᵢ / Σᵢ cᵢ·k(z, pᵢ)
//
// (docs/design.md, "Pre-images"), whose denominator is f(z) itself. Its safeguards are
// those of Chin and Suter's reduced sets: the iteration stops when a step moves z by at
// most Tol·σ (converged), when the denominator is not above 1e-14·Σᵢ|cᵢ·k(z, pᵢ)| in
// magnitude (or, maximising f, not positive: the iteration then heads for a minimum),
// when a step is not finite, or after MaxIter steps; and the best point visited is
// returned, so that the result is never worse than the start. The iteration is known to
// oscillate or diverge for expansions of mixed signs; keeping the best point makes it
// safe. Each iteration costs n kernel values and 2·n·d flops.
//
// A kernel that kernel.Validate refuses, bad options (Options.Validate) and a nil P are
// errors wrapping ErrArgument; a P without rows ErrEmpty; a z of other than d
// coordinates or c of other than n entries ErrDimension; a NaN or an infinity in z, P
// or c ErrNonFinite. On error z is unchanged.
func FixedPoint(z []float64, k kernel.RBF, P *mat.Dense, c []float64, opts Options) (Result, error) {
	if err := kinds.Kernel(kernel.Validate(k)); err != nil {
		return Result{}, err
	}
	opts, err := opts.validate()
	if err != nil {
		return Result{}, err
	}
	if P == nil {
		return Result{}, fmt.Errorf("%w: nil points", ErrArgument)
	}
	_, n, d, err := kinds.Data(P) // a *mat.Dense, gonum's: returned as it is
	if err != nil {
		return Result{}, err
	}
	if err := kinds.Point(z, d); err != nil {
		return Result{}, err
	}
	if len(c) != n {
		return Result{}, fmt.Errorf("%w: %d coefficients for %d points", ErrDimension, len(c), n)
	}
	for i, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Result{}, fmt.Errorf("%w: coefficient %d is %g", ErrNonFinite, i, v)
		}
	}
	return iterate(z, k, P, c, opts), nil
}

// better reports whether f is an improvement on best, by value or by magnitude.
func better(f, best float64, magnitude bool) bool {
	if magnitude {
		return math.Abs(f) > math.Abs(best)
	}
	return f > best
}

// iterate runs the iteration on checked arguments (FixedPoint).
func iterate(z []float64, k kernel.RBF, P *mat.Dense, c []float64, opts Options) Result {
	n, d := P.Dims()
	raw := P.RawMatrix()
	row := func(i int) []float64 { return raw.Data[i*raw.Stride : i*raw.Stride+d] }
	sigma := Scale(k)
	cur := append([]float64(nil), z...)
	next := make([]float64, d)
	res := Result{Value: math.Inf(-1)}
	if opts.Magnitude {
		res.Value = 0
	}
	first := true
	for range opts.MaxIter {
		res.Iterations++
		clear(next)
		var den, mag float64
		for i := range n {
			pt := row(i)
			w := c[i] * k.Eval(pt, cur)
			den += w
			mag += math.Abs(w)
			for j, v := range pt {
				next[j] += w * v
			}
		}
		// den = f(cur): keep the best point visited.
		if first || better(den, res.Value, opts.Magnitude) {
			res.Value = den
			copy(z, cur)
			first = false
		}
		if opts.Magnitude && !(math.Abs(den) > 1e-14*mag) || !opts.Magnitude && !(den > 1e-14*mag) {
			break
		}
		var step float64
		for j := range next {
			next[j] /= den
			step += (next[j] - cur[j]) * (next[j] - cur[j])
		}
		if !finite(next) {
			break
		}
		copy(cur, next)
		if math.Sqrt(step) <= opts.Tol*sigma {
			// Evaluate the converged point.
			var v float64
			for i := range n {
				v += c[i] * k.Eval(row(i), cur)
			}
			if better(v, res.Value, opts.Magnitude) {
				res.Value = v
				copy(z, cur)
			}
			res.Converged = true
			break
		}
	}
	return res
}

// finite reports whether every entry of x is finite.
func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
