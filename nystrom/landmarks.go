package nystrom

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// Strategy is how Choose picks r landmarks from the rows of a sample (Options.Strategy).
type Strategy int

const (
	// Uniform draws r distinct rows uniformly at random, seeded by Options.Seed: the
	// landmarks of Sterge et al.'s analysis, and the default. It reads nothing but the r
	// rows drawn, and measured on MAGIC (10,000 points) and Yeast at r = 50, 100, 200 it
	// was as accurate as Stream (within the spread over seeds) and 2 to 25 times more
	// accurate than Greedy on the top 10 eigenvalues of MAGIC, whatever the order of the
	// data (docs/design.md, "Nyström kernel PCA").
	Uniform Strategy = iota
	// Stream takes the rows in their order, as a stream arrives, and keeps each one
	// whose feature vector is not (numerically) in the span of those kept before — the
	// squared sine of its angle to that span above 1e-12 — until r are kept: the first r
	// distinct directions of a stream in random order. It needs no pass over the data
	// before the model starts, and spends no landmark on a duplicate. Cost: for each row
	// read, its kernel column against the m landmarks kept and a triangular solve,
	// O(m·d + m²). Only a stream in random order gives representative landmarks: the
	// rows of a sorted file (MAGIC's is sorted by class) would all come from its head.
	Stream
	// Greedy picks each next landmark as the row with the largest Nyström error
	// k(x, x) − k̃(x, x), the diagonal of K − K̃ whose sum is the trace-norm error of the
	// approximation (pivoted partial Cholesky; Harbrecht, Peters and Schneider 2012).
	// It reads every row for every landmark: n·r kernel values and O(n·r²) flops, with
	// O(n·r) memory. It stops early when every row's error is below 1e-12 of the
	// largest k(x, x) (the sample's kernel matrix has numerical rank below r). It
	// minimises the error of K̃ in trace norm greedily, which favours outlying points:
	// for the leading components, the ones kernel PCA keeps, it was the least accurate
	// strategy on MAGIC, and the most accurate only when r approaches the data's
	// effective rank (Yeast, r = 200 of 1,484 points).
	Greedy
)

// String returns "uniform", "stream" or "greedy".
func (s Strategy) String() string {
	switch s {
	case Uniform:
		return "uniform"
	case Stream:
		return "stream"
	case Greedy:
		return "greedy"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// negligible is the relative Nyström error, k(x, x) − k̃(x, x) over k(x, x) (the
// squared sine of the angle between φ(x) and the span of the landmarks' features),
// below which Stream and Greedy count a point as adding nothing. The error is computed
// as a difference k − ‖ℓ‖² that loses about r·ε·k(x, x) to rounding (below 1.2e-13 for
// r ≤ 500), so 1e-12 is above that noise and still far below any real distance.
const negligible = 1e-12

// Choose picks landmarks among the rows of X (n ≥ opts.Landmarks points) for the kernel
// k, as opts.Strategy says, and returns them as the rows of a new matrix, in the order
// they were picked: opts.Landmarks of them, or fewer for Stream and Greedy when the
// sample's features span fewer directions to within their threshold. Of the options
// only Landmarks, Strategy and Seed matter (all are checked).
//
// A nil k or X, an invalid kernel, Landmarks < 1 or above n, an unknown strategy, or a
// Cholesky factor (r×r for Stream, n×r for Greedy) of more than 2³⁰ numbers is an
// ErrArgument; an X without rows an ErrEmpty, a non-finite entry or kernel value an
// ErrNonFinite.
func Choose(k kernel.Kernel, X mat.Matrix, opts Options) (*mat.Dense, error) {
	X, n, d, err := checkArgs(k, X, opts)
	if err != nil {
		return nil, err
	}
	r := opts.Landmarks
	if r < 1 || r > n {
		return nil, fmt.Errorf("%w: %d landmarks from %d points", ErrArgument, r, n)
	}
	// Stream keeps an r×r Cholesky factor, Greedy an n×r one (docs/design.md, "Sizes").
	switch opts.Strategy {
	case Stream:
		_, err = kinds.Floats("the landmarks' Cholesky factor", r, r)
	case Greedy:
		_, err = kinds.Floats("the pivoted Cholesky factor", n, r)
	}
	if err != nil {
		return nil, err
	}
	var idx []int
	switch opts.Strategy {
	case Uniform:
		idx = rand.New(rand.NewPCG(opts.Seed, 0x6c616e646d61726b)).Perm(n)[:r]
	case Stream:
		idx, err = chooseStream(k, X, r)
	case Greedy:
		idx, err = chooseGreedy(k, mat.DenseCopyOf(X), r)
	}
	if err != nil {
		return nil, err
	}
	L := mat.NewDense(len(idx), d, nil)
	for i, j := range idx {
		for c := range d {
			L.Set(i, c, X.At(j, c))
		}
	}
	return L, nil
}

// chooseStream returns the rows Stream keeps: it maintains the Cholesky factor R
// (lower triangular, m×m) of the kept rows' kernel matrix, and for each row x solves
// R·ℓ = k(L, x), whose residual k(x, x) − ‖ℓ‖² is x's Nyström error; a row is kept, and
// R bordered by [ℓᵀ, √residual], when the residual exceeds negligible·k(x, x).
func chooseStream(k kernel.Kernel, X mat.Matrix, r int) ([]int, error) {
	n, d := X.Dims()
	R := make([]float64, r*r)
	lbuf := make([]float64, 0, r*d)
	col := make([]float64, r)
	x := make([]float64, d)
	var idx []int
	var land mat.Dense
	for i := 0; i < n && len(idx) < r; i++ {
		mat.Row(x, i, X)
		kxx := k.Eval(x, x)
		m := len(idx)
		c := col[:m]
		if m > 0 {
			kernel.Column(c, k, &land, x)
		}
		if math.IsNaN(kxx) || math.IsInf(kxx, 0) {
			return nil, fmt.Errorf("%w: kernel value k(x, x) of point %d is %g", ErrNonFinite, i, kxx)
		}
		if err := finiteKernel(c, i); err != nil {
			return nil, err
		}
		// Forward substitution R·ℓ = c, in place.
		var norm2 float64
		for a := range m {
			s := c[a]
			for b, v := range R[a*r : a*r+a] {
				s -= v * c[b]
			}
			c[a] = s / R[a*r+a]
			norm2 += c[a] * c[a]
		}
		res := kxx - norm2
		if !(res > negligible*kxx) {
			continue
		}
		copy(R[m*r:m*r+m], c)
		R[m*r+m] = math.Sqrt(res)
		idx = append(idx, i)
		lbuf = append(lbuf, x...)
		land.SetRawMatrix(blas64.General{Rows: m + 1, Cols: d, Stride: d, Data: lbuf})
	}
	return idx, nil
}

// chooseGreedy returns the rows Greedy picks, by pivoted partial Cholesky of the n×n
// kernel matrix of X without forming it: G (n×r) holds the factor's columns and e the
// residual diagonal diag(K − GGᵀ); each step pivots on the largest residual, computes
// that row's kernel column and subtracts the factor so far (one dgemv), O(n·(d + m)).
func chooseGreedy(k kernel.Kernel, X *mat.Dense, r int) ([]int, error) {
	n, _ := X.Dims()
	e := make([]float64, n)
	var top float64
	for i := range n {
		x := X.RawRowView(i)
		v := k.Eval(x, x)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: kernel value k(x, x) of point %d is %g", ErrNonFinite, i, v)
		}
		e[i] = v
		top = math.Max(top, v)
	}
	G := make([]float64, n*r)
	col := make([]float64, n)
	chosen := make([]bool, n)
	var idx []int
	for m := range r {
		piv := -1
		for i, v := range e {
			if !chosen[i] && (piv < 0 || v > e[piv]) {
				piv = i
			}
		}
		if !(e[piv] > negligible*top) {
			break
		}
		kernel.Column(col, k, X, X.RawRowView(piv))
		if err := finiteKernel(col, piv); err != nil {
			return nil, err
		}
		if m > 0 {
			native.Gemv(blas.NoTrans, -1, blas64.General{Rows: n, Cols: m, Stride: r, Data: G},
				blas64.Vector{N: m, Inc: 1, Data: G[piv*r : piv*r+m]}, 1, blas64.Vector{N: n, Inc: 1, Data: col})
		}
		inv := 1 / math.Sqrt(e[piv])
		for i, v := range col {
			g := v * inv
			G[i*r+m] = g
			e[i] -= g * g
		}
		chosen[piv] = true
		idx = append(idx, piv)
	}
	return idx, nil
}

// Fit chooses opts.Landmarks landmarks among the rows of X (Choose), makes the model of
// their feature map (New, with opts) and adds every row of X (AddBatch): the batch fit.
// The model's Options().Landmarks is the number of landmarks chosen. Its errors are
// those of Choose, New and AddBatch.
func Fit(k kernel.Kernel, X mat.Matrix, opts Options) (*Model, error) {
	// X is read once (kinds.Matrix), so that Choose and AddBatch see the same rows.
	X, _, _, err := kinds.Matrix(X)
	if err != nil {
		return nil, err
	}
	L, err := Choose(k, X, opts)
	if err != nil {
		return nil, err
	}
	opts.Landmarks = 0
	md, err := New(k, L, opts)
	if err != nil {
		return nil, err
	}
	if err := md.AddBatch(X); err != nil {
		return nil, err
	}
	return md, nil
}
