package kaf

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/kernel"
)

// KLMS is the kernel least-mean-squares filter (Liu, Pokharel & Príncipe 2008) with a
// growing dictionary: every sample becomes a centre cᵢ with coefficient η·eᵢ, and the
// prediction is f(x) = Σᵢ aᵢ·k(cᵢ, x) — O(n·d) per sample and memory growing with n.
// With a quantisation size ε > 0 it is QKLMS (Chen, Zhao, Zhu & Príncipe 2012): a sample
// within distance ε of its nearest centre updates that centre's coefficient instead of
// joining, which bounds the dictionary.
type KLMS struct {
	kern    kernel.Kernel
	d       int
	eta     float64
	epsilon float64
	centres []float64 // n×d
	coef    []float64
	col     []float64
}

// NewKLMS returns a KLMS filter for d-dimensional inputs with kernel k and step size η;
// epsilon > 0 makes it QKLMS with that quantisation size (0: plain KLMS). A kernel that
// kernel.Validate refuses, d outside 1 … 2³⁰ (docs/design.md, "Sizes"), η not positive
// and finite and ε not finite and ≥ 0 are ErrArgument.
func NewKLMS(k kernel.Kernel, d int, eta, epsilon float64) (*KLMS, error) {
	if err := kinds.Kernel(kernel.Validate(k)); err != nil {
		return nil, err
	}
	if err := kinds.Dim(d); err != nil {
		return nil, err
	}
	if !(eta > 0) || math.IsInf(eta, 0) || !(epsilon >= 0) || math.IsInf(epsilon, 0) {
		return nil, fmt.Errorf("%w: step size %v and quantisation %v: want η > 0 and ε ≥ 0, finite", ErrArgument, eta, epsilon)
	}
	return &KLMS{kern: k, d: d, eta: eta, epsilon: epsilon}, nil
}

// Len returns the number of centres in the dictionary.
func (f *KLMS) Len() int { return len(f.coef) }

// Predict returns Σᵢ aᵢ·k(cᵢ, x): x of another dimension is ErrDimension, a NaN or
// infinite coordinate, or a prediction that overflows, ErrNonFinite.
func (f *KLMS) Predict(x []float64) (float64, error) {
	if f.kern == nil {
		return 0, zeroFilter("KLMS")
	}
	if err := checkSample(x, f.d, 0); err != nil {
		return 0, err
	}
	return prediction(f.predict(x))
}

func (f *KLMS) predict(x []float64) float64 {
	var y float64
	for i, a := range f.coef {
		y += a * f.kern.Eval(f.centres[i*f.d:(i+1)*f.d], x)
	}
	return y
}

// Update adapts to (x, d) and returns the a-priori error d − f(x). x of another
// dimension is ErrDimension; a NaN or infinite coordinate or d, and a prediction, error
// or coefficient that overflows, ErrNonFinite; the filter is then unchanged.
func (f *KLMS) Update(x []float64, d float64) (float64, error) {
	if f.kern == nil {
		return 0, zeroFilter("KLMS")
	}
	if err := checkSample(x, f.d, d); err != nil {
		return 0, err
	}
	e := d - f.predict(x)
	if !finite(e) || !finite(f.eta*e) {
		return 0, fmt.Errorf("%w: a-priori error %v, step η·e %v", ErrNonFinite, e, f.eta*e)
	}
	if f.epsilon > 0 && len(f.coef) > 0 {
		best, bi := math.Inf(1), -1
		for i := range f.coef {
			c := f.centres[i*f.d : (i+1)*f.d]
			var s float64
			for j, v := range c {
				t := v - x[j]
				s += t * t
			}
			if s < best {
				best, bi = s, i
			}
		}
		if math.Sqrt(best) <= f.epsilon {
			a := f.coef[bi] + f.eta*e
			if !finite(a) {
				return 0, fmt.Errorf("%w: coefficient %d overflows", ErrNonFinite, bi)
			}
			f.coef[bi] = a
			return e, nil
		}
	}
	f.centres = append(f.centres, x...)
	f.coef = append(f.coef, f.eta*e)
	return e, nil
}
