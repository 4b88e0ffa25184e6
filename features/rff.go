package features

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// Form selects the random Fourier feature map for the Gaussian kernel.
type Form int

const (
	// CosSin pairs a cosine and a sine per frequency ω:
	//
	//	z(x) = √(2/D)·[cos(ω₁ᵀx), …, cos(ω_{D/2}ᵀx), sin(ω₁ᵀx), …, sin(ω_{D/2}ᵀx)]
	//
	// so that z(x)ᵀz(y) = (2/D)·Σ cos(ωᵢᵀ(x−y)) and ‖z(x)‖ = 1 exactly. D must be even.
	// It is the lower-variance form (Sutherland & Schneider 2015) and the default.
	CosSin Form = iota
	// RandomPhase uses one cosine per frequency with a uniform random phase b:
	//
	//	z(x) = √(2/D)·[cos(ω₁ᵀx + b₁), …, cos(ω_Dᵀx + b_D)],  b ~ U[0, 2π)
	//
	// the form of Rahimi & Recht's paper; ‖z(x)‖ is only about 1.
	RandomPhase
)

// String returns "cos-sin" or "random-phase".
func (f Form) String() string {
	switch f {
	case CosSin:
		return "cos-sin"
	case RandomPhase:
		return "random-phase"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// RFFOptions configure a random Fourier feature map. The kernel, and with it the
// bandwidth, is NewRFF's first argument.
type RFFOptions struct {
	// Dim is the feature dimension D ≥ 1 (even for CosSin).
	Dim int
	// Form is CosSin (default) or RandomPhase.
	Form Form
	// Seed selects the random frequencies; equal options give equal maps.
	Seed uint64
}

// RFF is a random Fourier feature map for the Gaussian kernel: z(x)ᵀz(y) is an unbiased
// estimate of k(x, y) = exp(−‖x−y‖²/(2σ²)) = exp(−γ·‖x−y‖²) whose error shrinks as
// O(1/√D). An RFF is immutable after construction and safe for concurrent use.
type RFF struct {
	shape
	opts RFFOptions
	// omega holds the frequencies as a d×f matrix (f = D/2 for CosSin, D for
	// RandomPhase), so that a batch of points X (n×d) maps through one product X·omega.
	omega *mat.Dense
	phase []float64 // RandomPhase: b, length D
	scale float64   // √(2/D)
}

// NewRFF returns the random Fourier feature map of d-dimensional points for the
// Gaussian kernel k, given by its bandwidth σ or by γ (kernel.RBF), whose spectral
// density is N(0, σ⁻²·I) = N(0, 2γ·I): the frequencies are ω = g/σ, or g·√(2γ), with g ~
// N(0, I) drawn from the seed. It fails with an ErrArgument if k is not a valid kernel
// (kernel.Validate), d < 1, the dimension is not positive (or odd for CosSin), the form
// is unknown, or the frequencies (d×D/2, or d×D) or a feature vector would hold more
// than 2³⁰ numbers (8 GiB).
func NewRFF(k kernel.RBF, d int, opts RFFOptions) (*RFF, error) {
	scale, err := spectralScale(k, d)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.Dim < 1:
		return nil, fmt.Errorf("%w: feature dimension %d, want ≥ 1", kinds.Argument, opts.Dim)
	case opts.Form == CosSin && opts.Dim%2 != 0:
		return nil, fmt.Errorf("%w: feature dimension %d must be even for the cos-sin form", kinds.Argument, opts.Dim)
	case opts.Form != CosSin && opts.Form != RandomPhase:
		return nil, fmt.Errorf("%w: unknown form %v", kinds.Argument, opts.Form)
	}
	f := opts.Dim
	if opts.Form == CosSin {
		f /= 2
	}
	if err := bound(d, f, opts.Dim); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x52ff5eed))
	omega := mat.NewDense(d, f, nil)
	raw := omega.RawMatrix()
	// Frequencies column by column (one ω per column), so that a map of dimension D
	// begins with the frequencies of a smaller one drawn with the same seed: convergence
	// in D can be measured on nested maps.
	// The frequencies as the kernel's parameter defines them, g/σ or g·√(2γ): a kernel
	// given by σ keeps the frequencies it has always had, bit for bit. kernel.Validate
	// bounds σ below by 1.05e-154 and γ above by 2¹⁰²², so that 1/σ and √(2γ) are at
	// most about 1e154 and no frequency overflows (a bandwidth of 1e-310 once made every
	// feature NaN; found by FuzzLoadSKPCA).
	for j := range f {
		for i := range d {
			if k.Gamma != 0 {
				raw.Data[i*raw.Stride+j] = rng.NormFloat64() * scale
			} else {
				raw.Data[i*raw.Stride+j] = rng.NormFloat64() / k.Sigma
			}
		}
	}
	r := &RFF{shape: shape{d: d, dim: opts.Dim, kern: k}, opts: opts, omega: omega, scale: math.Sqrt(2 / float64(opts.Dim))}
	if opts.Form == RandomPhase {
		r.phase = make([]float64, opts.Dim)
		for i := range r.phase {
			r.phase[i] = 2 * math.Pi * rng.Float64()
		}
	}
	return r, nil
}

// Options returns the options the map was made with.
func (r *RFF) Options() RFFOptions { return r.opts }

// Map writes z(x) to dst. dst must have length D and x length d with finite entries.
// Map does not allocate.
func (r *RFF) Map(dst, x []float64) error {
	if err := r.checkArgs(dst, x); err != nil {
		return err
	}
	f := r.omega.RawMatrix().Cols
	// dst[:f] = omegaᵀx by one gemv; then the trigonometric functions.
	native.Gemv(blas.Trans, 1, r.omega.RawMatrix(), blas64.Vector{N: r.d, Inc: 1, Data: x},
		0, blas64.Vector{N: f, Inc: 1, Data: dst[:f]})
	r.finish(dst)
	return nil
}

// finish turns the projections ωᵢᵀx held in dst[:f] into the features, in place.
func (r *RFF) finish(dst []float64) {
	if r.opts.Form == RandomPhase {
		for i, p := range dst {
			dst[i] = r.scale * math.Cos(p+r.phase[i])
		}
		return
	}
	f := r.dim / 2
	for i := f - 1; i >= 0; i-- {
		s, c := math.Sincos(dst[i])
		dst[i], dst[f+i] = r.scale*c, r.scale*s
	}
}

// Transform maps the rows of X (n×d) to the rows of dst (n×D), reallocating dst if it
// is empty; the projections go through one matrix product. A non-finite entry or a
// dimension mismatch is an error, and dst is then unchanged.
func (r *RFF) Transform(dst *mat.Dense, X mat.Matrix) error {
	X, n, err := r.checkBatch(dst, X)
	if err != nil {
		return err
	}
	f := r.omega.RawMatrix().Cols
	proj := dst.Slice(0, n, 0, f).(*mat.Dense)
	native.Mul(proj, X, r.omega)
	raw := dst.RawMatrix()
	finish := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r.finish(raw.Data[i*raw.Stride : i*raw.Stride+r.dim])
		}
	}
	// The sines and cosines cost far more than the product (about 15 ns each against
	// d multiply-adds at dgemm speed): on all cores once there are parallelFeatures of
	// them, each row's the same whatever the split.
	nw := min(runtime.GOMAXPROCS(0), n, n*r.dim/parallelFeatures)
	if nw <= 1 {
		finish(0, n)
		return nil
	}
	var wg sync.WaitGroup
	for w := range nw {
		wg.Go(func() { finish(w*n/nw, (w+1)*n/nw) })
	}
	wg.Wait()
	return nil
}

// parallelFeatures is the number of features (about 60 µs of sines and cosines, next to
// a microsecond to start a goroutine) from which Transform computes them on several
// goroutines, each taking at least as many; a variable so that tests can force the
// parallel path.
var parallelFeatures = 1 << 13
