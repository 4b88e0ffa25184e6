package features

import (
	"fmt"
	"math"
	"math/bits"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// maxTaylorDim bounds the number of Taylor features a map may hold (its tables take
// 16 bytes a feature).
const maxTaylorDim = 1 << 24

// TaylorOptions configure a Taylor-series feature map. The kernel, and with it the
// bandwidth, is NewTaylor's first argument.
type TaylorOptions struct {
	// Degree is the degree p ≥ 1 at which the series of exp(xᵀy/σ²) is truncated.
	Degree int
	// Dim, if positive, keeps only the first Dim features in degree order; it must not
	// exceed the number C(d+p, p) of monomials of degree ≤ p in d variables. 0 keeps
	// them all. A truncation inside a degree keeps part of that degree's term only, the
	// monomials in the first variables (see Taylor), and so is no longer invariant under
	// rotations of the inputs.
	Dim int
}

// Taylor is the Taylor-series feature map for the Gaussian kernel (Cotter, Keshet &
// Srebro 2011). It factors the kernel (kernel.RBF, by σ or by γ = 1/(2σ²)) as
//
//	exp(−‖x−y‖²/(2σ²)) = exp(−‖x‖²/(2σ²))·exp(−‖y‖²/(2σ²))·exp(xᵀy/σ²)
//
// and truncates exp(xᵀy/σ²) = Σₖ (xᵀy)ᵏ/(σ²ᵏ·k!) at k = p. By the multinomial theorem
// (xᵀy)ᵏ = Σ_{|α|=k} (k!/α!)·xᵅyᵅ over the multi-indices α ∈ ℕᵈ of total degree k (the
// multisets of k coordinates, that is the monomials; α! = α₁!⋯α_d!), so with u = x/σ
//
//	z_α(x) = exp(−‖u‖²/2)·uᵅ/√(α!),  |α| ≤ p,
//
// gives z(x)ᵀz(y) = exp(−‖u‖²/2)·exp(−‖v‖²/2)·Σ_{k≤p} (uᵀv)ᵏ/k! (v = y/σ): the truncated
// series exactly, with one feature per monomial, C(d+p, p) of them, instead of the
// dᵏ of the plain tensor powers.
//
// The features are ordered by degree; within a degree, by the multiset written as a
// non-decreasing sequence of coordinates, lexicographically (x₁², x₁x₂, …, x₁x_d, x₂²,
// …). The map is deterministic, has no parameters to draw, and its error is that of
// the series' remainder: small when |xᵀy| ≲ σ² and growing fast beyond, where the
// truncated series underestimates the kernel. Unlike the kernel, the approximation is
// not invariant under translations, as it expands about the origin: centre the data
// first. On the diagonal, z(x)ᵀz(x) = exp(−‖u‖²)·Σ_{k≤p} ‖u‖²ᵏ/k! is the probability
// that a Poisson variable of mean ‖u‖² is at most p, close to 1 only while ‖x‖² is
// well below p·σ². A Taylor is immutable after construction and safe for concurrent use.
type Taylor struct {
	shape
	opts TaylorOptions
	// Feature i > 0 is feature parent[i] times x[coord[i]]·coef[i]: the monomial with one
	// power fewer of its last coordinate, times that coordinate, with coef[i] = 1/(σ·√αⱼ)
	// updating the normalisation 1/(σ^|α|·√α!) by the new exponent αⱼ. Parents come
	// earlier in the order, so Map fills dst front to back in place. (Given γ, 1/σ is
	// √(2γ).)
	parent []int32
	coord  []int32
	coef   []float64
}

// NewTaylor returns the Taylor-series feature map of d-dimensional points for the
// Gaussian kernel k (kernel.RBF, given by σ or by γ). It fails with an ErrArgument if k
// is not a valid kernel (kernel.Validate), d < 1, the degree is below 1, Dim is
// negative or exceeds C(d+p, p), or the map would have more than 2²⁴ features.
func NewTaylor(k kernel.RBF, d int, opts TaylorOptions) (*Taylor, error) {
	scale, err := spectralScale(k, d)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.Degree < 1:
		return nil, fmt.Errorf("%w: Taylor degree %d, want ≥ 1", kinds.Argument, opts.Degree)
	case opts.Dim < 0:
		return nil, fmt.Errorf("%w: feature dimension %d, want ≥ 0 (0 for all monomials)", kinds.Argument, opts.Dim)
	}
	full, ok := monomialCount(d, opts.Degree, maxTaylorDim)
	dim := opts.Dim
	switch {
	case dim == 0 && !ok:
		return nil, fmt.Errorf("%w: %d variables to degree %d give more than %d monomials; set Dim to truncate", kinds.Argument,
			d, opts.Degree, maxTaylorDim)
	case dim == 0:
		dim = full
	case ok && dim > full:
		return nil, fmt.Errorf("%w: feature dimension %d exceeds the %d monomials of degree ≤ %d in %d variables", kinds.Argument,
			dim, full, opts.Degree, d)
	case dim > maxTaylorDim:
		return nil, fmt.Errorf("%w: feature dimension %d exceeds the limit %d", kinds.Argument, dim, maxTaylorDim)
	}

	t := &Taylor{shape: shape{d: d, dim: dim, kern: k}, opts: opts,
		parent: make([]int32, dim), coord: make([]int32, dim), coef: make([]float64, dim)}
	// last[i] is the largest coordinate of monomial i and mult[i] its exponent there;
	// extending monomial i only by coordinates j ≥ last[i] generates every multiset of
	// the next degree exactly once, as a non-decreasing sequence.
	last, mult := make([]int32, dim), make([]int32, dim)
	n := 1 // monomials so far; the constant one is feature 0
	lo, hi := 0, 1
	for deg := 1; deg <= opts.Degree && n < dim; deg++ {
		for i := lo; i < hi && n < dim; i++ {
			for j := int(last[i]); j < d && n < dim; j++ {
				m := int32(1)
				if i > 0 && j == int(last[i]) {
					m = mult[i] + 1
				}
				t.parent[n], t.coord[n], last[n], mult[n] = int32(i), int32(j), int32(j), m
				if k.Gamma != 0 {
					t.coef[n] = scale / math.Sqrt(float64(m))
				} else {
					t.coef[n] = 1 / (k.Sigma * math.Sqrt(float64(m)))
				}
				n++
			}
		}
		lo, hi = hi, n
	}
	return t, nil
}

// monomialCount returns C(d+p, p), the number of monomials of degree ≤ p in d
// variables, and true, or false if it exceeds limit.
func monomialCount(d, p, limit int) (int, bool) {
	c := uint64(1)
	for k := 1; k <= p; k++ {
		// C(d+k, k) = C(d+k−1, k−1)·(d+k)/k, an exact division.
		hi, lo := bits.Mul64(c, uint64(d)+uint64(k))
		if hi != 0 {
			return 0, false
		}
		c = lo / uint64(k)
		if c > uint64(limit) {
			return 0, false
		}
	}
	return int(c), true
}

// Options returns the options the map was made with.
func (t *Taylor) Options() TaylorOptions { return t.opts }

// Map writes z(x) to dst. dst must have length D and x length d with finite entries.
// Map does not allocate; it costs d + D multiplications and one exponential.
func (t *Taylor) Map(dst, x []float64) error {
	if err := t.checkArgs(dst, x); err != nil {
		return err
	}
	t.fill(dst, x)
	return nil
}

// fill writes the features of a checked point x to dst.
func (t *Taylor) fill(dst, x []float64) {
	var s float64
	for _, v := range x {
		s += v * v
	}
	// exp(−‖x‖²/(2σ²)), or exp(−γ·‖x‖²): the exponent as the kernel's parameter
	// defines it (kernel.RBF).
	if t.kern.Gamma != 0 {
		dst[0] = math.Exp(-t.kern.Gamma * s)
	} else {
		dst[0] = math.Exp(-s / (2 * t.kern.Sigma * t.kern.Sigma))
	}
	parent, coord, coef := t.parent[:len(dst)], t.coord[:len(dst)], t.coef[:len(dst)]
	for i := 1; i < len(dst); i++ {
		dst[i] = dst[parent[i]] * x[coord[i]] * coef[i]
	}
}

// Transform maps the rows of X (n×d) to the rows of dst (n×D), reallocating dst if it
// is empty. A non-finite entry or a dimension mismatch is an error, and dst is then
// unchanged.
func (t *Taylor) Transform(dst *mat.Dense, X mat.Matrix) error {
	X, n, err := t.checkBatch(dst, X)
	if err != nil {
		return err
	}
	raw := dst.RawMatrix()
	row := make([]float64, t.d)
	for i := range n {
		mat.Row(row, i, X)
		t.fill(raw.Data[i*raw.Stride:i*raw.Stride+t.dim], row)
	}
	return nil
}
