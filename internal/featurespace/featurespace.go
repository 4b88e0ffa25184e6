// Package featurespace measures kernel expansions φ(P)·c in explicit feature-space
// coordinates, for tests and experiments that compare incremental kernel PCA with batch
// kernel PCA.
//
// The kernel trick alone is a poor instrument at rounding level: principal angles from
// cosines, √(1 − cos²), cannot resolve angles below √ε ≈ 1e-8, and quadratic forms cᵀKc
// lose accuracy when the coefficients carry large components in K's numerical null
// space — invisible in feature space but amplifying rounding. Here the joint kernel
// matrix K of all the expansion points is eigendecomposed once, K = WDWᵀ, and every
// expansion is mapped to the coordinates D^½Wᵀc (numerically-null eigenvalues set to
// zero), where lengths and angles are computed directly.
package featurespace

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// Space holds the coordinates map of a set of points.
type Space struct {
	n int
	f *mat.Dense // n×n: column i holds the coordinates of φ(P_i)
}

// New eigendecomposes the kernel matrix of the rows of P (with native.EigenSym).
func New(k kernel.Kernel, P *mat.Dense) (*Space, error) {
	K := kernel.Matrix(k, P)
	n := K.SymmetricDim()
	var W mat.Dense
	vals, err := native.EigenSym(nil, &W, K)
	if err != nil {
		return nil, err
	}
	big := vals[n-1]
	f := mat.NewDense(n, n, nil)
	for j, v := range vals {
		if v <= float64(n)*0x1p-52*big {
			continue
		}
		s := math.Sqrt(v)
		for i := range n {
			f.Set(j, i, s*W.At(i, j))
		}
	}
	return &Space{n: n, f: f}, nil
}

// Coordinates returns the coordinates of the expansions φ(P)·c for the columns of c
// (n×k, n the number of points).
func (s *Space) Coordinates(c mat.Matrix) *mat.Dense {
	var y mat.Dense
	y.Mul(s.f, c)
	return &y
}

// Sine returns the sine of the largest principal angle between the spans of the
// columns of ya and yb (coordinates, k columns each): the norm of (I − Q_bQ_bᵀ)Q_a with
// Q the orthonormalised columns.
func Sine(ya, yb *mat.Dense) (float64, error) {
	_, k := ya.Dims()
	if _, kb := yb.Dims(); kb != k || k == 0 {
		return 0, errors.New("featurespace: the subspaces need the same positive dimension")
	}
	qa, qb := orthonormal(ya, k), orthonormal(yb, k)
	var c, res mat.Dense
	c.Mul(qb.T(), qa)
	res.Mul(qb, &c)
	res.Sub(qa, &res)
	return mat.Norm(&res, 2), nil
}

func orthonormal(y *mat.Dense, k int) *mat.Dense {
	var qr mat.QR
	qr.Factorize(y)
	var q mat.Dense
	qr.QTo(&q)
	r, _ := y.Dims()
	return mat.DenseCopyOf(q.Slice(0, r, 0, k))
}

// Orthogonality returns ‖YᵀY − I‖₂ for coordinates Y.
func Orthogonality(y *mat.Dense) float64 {
	var g mat.Dense
	g.Mul(y.T(), y)
	k, _ := g.Dims()
	for i := range k {
		g.Set(i, i, g.At(i, i)-1)
	}
	return mat.Norm(&g, 2)
}

// Pair is the joint space of two point sets X (n rows) and A (N rows), for comparing
// expansions over X with expansions over A. When A equals X the points are not
// repeated.
type Pair struct {
	*Space
	n, N   int
	shared bool
}

// NewPair builds the joint space of the rows of X and A.
func NewPair(k kernel.Kernel, X, A *mat.Dense) (*Pair, error) {
	n, d := X.Dims()
	N, _ := A.Dims()
	if mat.Equal(X, A) {
		s, err := New(k, X)
		return &Pair{Space: s, n: n, N: N, shared: true}, err
	}
	J := mat.NewDense(n+N, d, nil)
	J.Slice(0, n, 0, d).(*mat.Dense).Copy(X)
	J.Slice(n, n+N, 0, d).(*mat.Dense).Copy(A)
	s, err := New(k, J)
	return &Pair{Space: s, n: n, N: N}, err
}

// X returns the coordinates of the expansions φ(X)·c (c has n rows).
func (p *Pair) X(c mat.Matrix) *mat.Dense {
	_, k := c.Dims()
	full := mat.NewDense(p.Space.n, k, nil)
	full.Slice(0, p.n, 0, k).(*mat.Dense).Copy(c)
	return p.Coordinates(full)
}

// A returns the coordinates of the expansions φ(A)·c (c has N rows).
func (p *Pair) A(c mat.Matrix) *mat.Dense {
	if p.shared {
		return p.X(c)
	}
	_, k := c.Dims()
	full := mat.NewDense(p.Space.n, k, nil)
	full.Slice(p.n, p.n+p.N, 0, k).(*mat.Dense).Copy(c)
	return p.Coordinates(full)
}
