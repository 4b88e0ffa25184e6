package features

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

const (
	// defaultGQPoints is the default number of Gauss–Hermite nodes per dimension: five
	// nodes integrate polynomials of degree ≤ 9 in each coordinate exactly.
	defaultGQPoints = 5
	// maxGQPoints bounds the nodes per dimension; beyond about 200 the orthonormal
	// Hermite polynomials at the outer nodes approach the float64 range.
	maxGQPoints = 200
	// maxGQNodes bounds the size nᵈ of a full tensor rule (Dim = 0).
	maxGQNodes = 1 << 21
)

// QuadratureOptions configure a Gaussian-quadrature feature map. The kernel, and with
// it the bandwidth, is NewQuadrature's first argument.
type QuadratureOptions struct {
	// Dim is the feature dimension D: an even number ≥ 2 for a rule subsampled to D/2
	// frequencies, or 0 for the full tensor rule, of D = 2⌈nᵈ/2⌉ features (only for
	// small d: nᵈ may not exceed 2²¹).
	Dim int
	// Points is the number n of Gauss–Hermite nodes per dimension, 1 ≤ n ≤ 200; 0 means
	// 5, which integrates polynomials of degree ≤ 2n−1 = 9 in each coordinate exactly
	// (the fewest nodes for the degree-8 dense grid of Dao, De Sa & Ré; the odd degree
	// 9 comes free).
	Points int
	// Seed selects the subsample of the rule; equal options give equal maps. The full
	// rule (Dim = 0) does not use it.
	Seed uint64
}

// Quadrature is a Gaussian-quadrature feature map for the Gaussian kernel (Dao, De Sa &
// Ré, "Gaussian Quadrature for Kernel Features", NeurIPS 2017). The kernel is the
// integral
//
//	exp(−‖x−y‖²/(2σ²)) = ∫ cos(ωᵀ(x−y)) p(ω) dω,  p = N(0, σ⁻²·I),
//
// which random Fourier features estimate by Monte Carlo; a Quadrature replaces the
// random frequencies by the nodes ωᵢ of a quadrature rule with weights wᵢ:
//
//	z(x) = [√w₁·cos(ω₁ᵀx), …, √w_f·cos(ω_fᵀx), √w₁·sin(ω₁ᵀx), …, √w_f·sin(ω_fᵀx)]
//
// so that z(x)ᵀz(y) = Σ wᵢ·cos(ωᵢᵀ(x−y)) and, as the weights sum to 1, ‖z(x)‖ = 1.
//
// The rule is the tensor product of n-point Gauss–Hermite rules. Per coordinate, the
// density of N(0, σ⁻²) is (σ/√(2π))·exp(−σ²ω²/2); substituting ω = √2·t/σ (so σ²ω²/2 = t²
// and dω = (√2/σ)·dt) gives
//
//	∫ g(ω)·(σ/√(2π))·exp(−σ²ω²/2) dω = ∫ g(√2·t/σ)·exp(−t²)/√π dt ≈ Σⱼ (wⱼ/√π)·g(√2·tⱼ/σ)
//
// for the Gauss–Hermite nodes tⱼ and weights wⱼ of the weight function exp(−t²): the
// frequencies are ω = √2·t/σ and the weights wⱼ/√π, which sum to 1, one factor per
// coordinate. The n-point rule is exact for polynomials of degree ≤ 2n−1 in each
// coordinate, and the per-coordinate error for cos(ω·δ) is of order
// (δ/σ)²ⁿ·n!/(2ⁿ·(2n)!): tiny for nearby points, larger for distant ones.
//
// The full rule has nᵈ nodes: 78125 for n = 5 and d = 7, too many. As in the paper's
// subsampled dense grid, a Quadrature with Dim = D > 0 draws D/2 nodes independently
// with probability proportional to their weights and gives each the weight 2/D, so that
// z(x)ᵀz(y) is an unbiased estimate of the full rule's value. The tensor weights are
// products, so a node drawn proportionally to its weight is a node whose coordinates
// are drawn independently from the one-dimensional weights: the grid is never built,
// and any d works. The subsampled map is random Fourier features with N(0, σ⁻²·I)
// replaced by its n-point discretisation, whose moments agree with the Gaussian's to
// order 2n−1; its error is a sampling error of order 1/√D plus the rule's own small
// bias, and drawn nodes may repeat.
//
// Symmetry: the one-dimensional nodes are symmetric about 0 (made exactly so), hence
// the tensor nodes come in pairs ±ω with equal weights (the origin, for odd n, pairs
// with itself). cos(ωᵀ(x−y)) is even in ω, so a pair contributes as much as one of its
// nodes with twice the weight: the full rule keeps one node of each pair, which halves
// its size; in the subsampled rule, drawing −ω is the same as drawing ω, and the draws
// are in effect from the folded rule.
//
// A Quadrature is immutable after construction and safe for concurrent use.
type Quadrature struct {
	shape
	opts QuadratureOptions
	// omega holds the frequencies as a d×f matrix (f = D/2), as in RFF.
	omega *mat.Dense
	// sqrtW holds √wᵢ of each frequency: √(2/D) for a subsampled rule.
	sqrtW []float64
}

// NewQuadrature returns the Gaussian-quadrature feature map of d-dimensional points for
// the Gaussian kernel k (kernel.RBF, given by σ or by γ = 1/(2σ²)). It fails if k is not
// a valid kernel (kernel.Validate), d < 1, the dimension is negative or odd, the number
// of points per dimension is out of range, for the full rule nᵈ exceeds 2²¹, or the
// frequencies (d×D/2) would hold more than 2³⁰ numbers (8 GiB): each an ErrArgument.
func NewQuadrature(k kernel.RBF, d int, opts QuadratureOptions) (*Quadrature, error) {
	spectral, err := spectralScale(k, d)
	if err != nil {
		return nil, err
	}
	if opts.Points == 0 {
		opts.Points = defaultGQPoints
	}
	switch {
	case opts.Dim < 0:
		return nil, fmt.Errorf("%w: feature dimension %d, want ≥ 0 (0 for the full rule)", kinds.Argument, opts.Dim)
	case opts.Dim%2 != 0:
		return nil, fmt.Errorf("%w: feature dimension %d must be even for quadrature features", kinds.Argument, opts.Dim)
	case opts.Points < 1 || opts.Points > maxGQPoints:
		return nil, fmt.Errorf("%w: %d quadrature points per dimension, want 1 … %d", kinds.Argument, opts.Points, maxGQPoints)
	}
	n := opts.Points
	nodes, weights, err := gaussHermite(n)
	if err != nil {
		return nil, err
	}
	// ω = √2·t/σ, or √2·√(2γ)·t given γ (the substitution above).
	scale := math.Sqrt2 / k.Sigma
	if k.Gamma != 0 {
		scale = math.Sqrt2 * spectral
	}
	q := &Quadrature{shape: shape{d: d, kern: k}, opts: opts}

	if opts.Dim == 0 {
		err = q.fullRule(nodes, weights, scale)
	} else {
		err = q.sampledRule(nodes, weights, scale)
	}
	if err != nil {
		return nil, err
	}
	return q, nil
}

// fullRule sets q's frequencies to the full tensor rule of the n-point Gauss–Hermite
// nodes and weights in each of q's d dimensions (frequencies scale·node), folded.
func (q *Quadrature) fullRule(nodes, weights []float64, scale float64) error {
	n, d := len(nodes), q.d
	// The full rule, folded: node L of the N = nᵈ (in mixed radix n, coordinate 0
	// fastest) has the mirror image −ω at N−1−L, so L ≤ (N−1)/2 are one node per pair.
	N, ok := power(n, d, maxGQNodes)
	if !ok {
		return fmt.Errorf("%w: the full rule of %d points in %d dimensions has more than %d nodes; set Dim to subsample it", kinds.Argument,
			n, d, maxGQNodes)
	}
	f := (N-1)/2 + 1
	q.dim = 2 * f
	q.omega = mat.NewDense(d, f, nil)
	q.sqrtW = make([]float64, f)
	raw := q.omega.RawMatrix()
	for L := range f {
		w, m := 1.0, L
		for i := range d {
			j := m % n
			m /= n
			raw.Data[i*raw.Stride+L] = scale * nodes[j]
			w *= weights[j]
		}
		if L != N-1-L {
			w *= 2
		}
		q.sqrtW[L] = math.Sqrt(w)
	}
	return nil
}

// sampledRule sets q's opts.Dim/2 frequencies to nodes of the tensor rule drawn by
// their weights (the subsampled dense grid of Dao, De Sa & Ré), each of weight 1/f.
func (q *Quadrature) sampledRule(nodes, weights []float64, scale float64) error {
	n, d, opts := len(nodes), q.d, q.opts
	f := opts.Dim / 2
	if err := bound(d, f, opts.Dim); err != nil {
		return err
	}
	q.dim = opts.Dim
	q.omega = mat.NewDense(d, f, nil)
	q.sqrtW = make([]float64, f)
	// Cumulative weights for drawing a node index by inversion; the last is 1 exactly
	// so that every uniform draw in [0, 1) finds an index.
	cum := make([]float64, n)
	var s float64
	for j, w := range weights {
		s += w
		cum[j] = s
	}
	cum[n-1] = 1
	rng := rand.New(rand.NewPCG(opts.Seed, 0x9a55c0de))
	raw := q.omega.RawMatrix()
	sw := math.Sqrt(1 / float64(f))
	// Frequencies column by column, as in NewRFF: a map of dimension D begins with the
	// frequencies of a smaller one with the same seed.
	for c := range f {
		for i := range d {
			u := rng.Float64()
			j := 0
			for cum[j] <= u {
				j++
			}
			raw.Data[i*raw.Stride+c] = scale * nodes[j]
		}
		q.sqrtW[c] = sw
	}
	return nil
}

// power returns nᵈ and true, or false if it exceeds limit.
func power(n, d, limit int) (int, bool) {
	p := 1
	for range d {
		hi, lo := bits.Mul64(uint64(p), uint64(n))
		if hi != 0 || lo > uint64(limit) {
			return 0, false
		}
		p = int(lo)
	}
	return p, true
}

// gaussHermite returns the nodes, ascending, and the weights of the n-point
// Gauss–Hermite rule for the probability density exp(−t²)/√π: Σⱼ wⱼ·g(tⱼ) equals
// ∫ g(t)·exp(−t²)/√π dt for every polynomial g of degree ≤ 2n−1, and Σⱼ wⱼ = 1.
//
// Golub–Welsch: the orthonormal polynomials of the density satisfy
// t·pₖ = bₖ₊₁·pₖ₊₁ + bₖ·pₖ₋₁ with bₖ = √(k/2), so the nodes, the zeros of pₙ, are the
// eigenvalues of the symmetric tridiagonal Jacobi matrix with zero diagonal and
// off-diagonal b₁ … bₙ₋₁, and each weight is the squared first component of the unit
// eigenvector. The eigenvalues are then polished by Newton's method on pₙ (pₙ' =
// √(2n)·pₙ₋₁) and the weights recomputed from the Christoffel function,
// wⱼ = 1/Σₖ₌₀ⁿ⁻¹ pₖ(tⱼ)², which keeps full relative accuracy in the tiny outer weights
// that the eigenvector components lose; finally the rule is made exactly symmetric.
func gaussHermite(n int) (nodes, weights []float64, err error) {
	if n < 1 {
		return nil, nil, fmt.Errorf("%w: %d Gauss–Hermite points, want ≥ 1", kinds.Argument, n)
	}
	// The tridiagonal QL iteration of gonum's own LAPACK, called directly rather than
	// through mat.EigenSym and lapack64, which a program may have switched to another
	// backend: the rule, and so the map, is the same with every backend.
	nodes = make([]float64, n)
	offdiag := make([]float64, max(n-1, 1))
	for k := 1; k < n; k++ {
		offdiag[k-1] = math.Sqrt(float64(k) / 2)
	}
	V := make([]float64, n*n) // row-major; row 0 holds the first components
	work := make([]float64, max(1, 2*n-2))
	if !(gonumlapack.Implementation{}).Dsteqr(lapack.EVTridiag, n, nodes, offdiag, V, n, work) {
		return nil, nil, fmt.Errorf("%w: the Gauss–Hermite eigenproblem of %d points (dsteqr)", kinds.NotConverged, n)
	}
	weights = make([]float64, n)
	for j := range n {
		v := V[j]
		weights[j] = v * v
		t := nodes[j]
		for range 3 {
			pn, pn1, _ := hermiteOrthonormal(n, t)
			if pn1 == 0 {
				break
			}
			t -= pn / (math.Sqrt(2*float64(n)) * pn1)
		}
		if _, _, sq := hermiteOrthonormal(n, t); sq > 0 && !math.IsInf(sq, 0) && math.Abs(t-nodes[j]) < 1e-8*(1+math.Abs(t)) {
			nodes[j], weights[j] = t, 1/sq
		}
	}
	// Exact symmetry: tⱼ = −tₙ₋₁₋ⱼ, wⱼ = wₙ₋₁₋ⱼ, and 0 the middle node for odd n.
	for j := range n / 2 {
		t := (nodes[n-1-j] - nodes[j]) / 2
		w := (weights[j] + weights[n-1-j]) / 2
		nodes[j], nodes[n-1-j] = -t, t
		weights[j], weights[n-1-j] = w, w
	}
	if n%2 == 1 {
		nodes[n/2] = 0
	}
	var s float64
	for _, w := range weights {
		s += w
	}
	for j := range weights {
		weights[j] /= s
	}
	return nodes, weights, nil
}

// hermiteOrthonormal returns pₙ(t) and pₙ₋₁(t) for the orthonormal Hermite polynomials
// of the density exp(−t²)/√π, and Σₖ₌₀ⁿ⁻¹ pₖ(t)².
func hermiteOrthonormal(n int, t float64) (pn, pn1, sq float64) {
	prev, cur := 0.0, 1.0 // p₋₁, p₀
	bk := 0.0             // b₀
	for k := range n {
		sq += cur * cur
		bk1 := math.Sqrt(float64(k+1) / 2)
		prev, cur = cur, (t*cur-bk*prev)/bk1
		bk = bk1
	}
	return cur, prev, sq
}

// Options returns the options the map was made with, Points set to its default if it
// was 0.
func (q *Quadrature) Options() QuadratureOptions { return q.opts }

// Map writes z(x) to dst. dst must have length D and x length d with finite entries.
// Map does not allocate.
func (q *Quadrature) Map(dst, x []float64) error {
	if err := q.checkArgs(dst, x); err != nil {
		return err
	}
	f := q.dim / 2
	native.Gemv(blas.Trans, 1, q.omega.RawMatrix(), blas64.Vector{N: q.d, Inc: 1, Data: x},
		0, blas64.Vector{N: f, Inc: 1, Data: dst[:f]})
	q.finish(dst)
	return nil
}

// finish turns the projections ωᵢᵀx held in dst[:f] into the features, in place.
func (q *Quadrature) finish(dst []float64) {
	f := q.dim / 2
	for i := f - 1; i >= 0; i-- {
		s, c := math.Sincos(dst[i])
		dst[i], dst[f+i] = q.sqrtW[i]*c, q.sqrtW[i]*s
	}
}

// Transform maps the rows of X (n×d) to the rows of dst (n×D), reallocating dst if it
// is empty; the projections go through one matrix product. A non-finite entry or a
// dimension mismatch is an error, and dst is then unchanged.
func (q *Quadrature) Transform(dst *mat.Dense, X mat.Matrix) error {
	X, n, err := q.checkBatch(dst, X)
	if err != nil {
		return err
	}
	proj := dst.Slice(0, n, 0, q.dim/2).(*mat.Dense)
	native.Mul(proj, X, q.omega)
	raw := dst.RawMatrix()
	for i := range n {
		q.finish(raw.Data[i*raw.Stride : i*raw.Stride+q.dim])
	}
	return nil
}
