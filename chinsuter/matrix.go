package chinsuter

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/native"
)

// dense is a row-major matrix that may have zero rows or columns: the update's blocks
// (L with r = 0 components, a rank-deficient H with q = 0 directions) are routinely
// empty, which gonum's mat.Dense does not allow.
type dense struct {
	r, c int
	a    []float64
}

func newDense(r, c int) dense { return dense{r: r, c: c, a: make([]float64, r*c)} }

func (m dense) at(i, j int) float64     { return m.a[i*m.c+j] }
func (m dense) set(i, j int, v float64) { m.a[i*m.c+j] = v }
func (m dense) row(i int) []float64     { return m.a[i*m.c : (i+1)*m.c] }

func (m dense) general() blas64.General {
	return blas64.General{Rows: m.r, Cols: m.c, Stride: max(m.c, 1), Data: m.a}
}

// cols returns a copy of columns [lo, hi).
func (m dense) cols(lo, hi int) dense {
	out := newDense(m.r, hi-lo)
	for i := range m.r {
		copy(out.row(i), m.a[i*m.c+lo:i*m.c+hi])
	}
	return out
}

// rows returns a copy of rows [lo, hi).
func (m dense) rows(lo, hi int) dense {
	return dense{r: hi - lo, c: m.c, a: append([]float64(nil), m.a[lo*m.c:hi*m.c]...)}
}

// mul returns op(a)·op(b) through the compiled BLAS (dgemm); empty operands give a zero
// or empty product.
func mul(a dense, ta bool, b dense, tb bool) dense {
	m, k := a.r, a.c
	if ta {
		m, k = k, m
	}
	n := b.c
	if tb {
		n = b.r
	}
	out := newDense(m, n)
	gemmInto(out, 1, a, ta, b, tb, 0)
	return out
}

// gemmInto computes c = alpha·op(a)·op(b) + beta·c.
func gemmInto(c dense, alpha float64, a dense, ta bool, b dense, tb bool, beta float64) {
	k := a.c
	if ta {
		k = a.r
	}
	if c.r == 0 || c.c == 0 {
		return
	}
	if k == 0 {
		for i := range c.a {
			c.a[i] *= beta
		}
		return
	}
	tA, tB := blas.NoTrans, blas.NoTrans
	if ta {
		tA = blas.Trans
	}
	if tb {
		tB = blas.Trans
	}
	native.Gemm(tA, tB, alpha, a.general(), b.general(), beta, c.general())
}

// eigSym returns the eigenvalues of the symmetric n×n matrix s in descending order and
// the matching unit eigenvectors as columns (LAPACK dsyevd or gonum's Dsyev). s is kept.
func eigSym(s dense) ([]float64, dense, error) {
	n := s.r
	if n == 0 {
		return nil, dense{}, nil
	}
	a := append([]float64(nil), s.a...)
	w := make([]float64, n)
	if err := native.EigenSymInPlace(n, a, n, w, true); err != nil {
		return nil, dense{}, err
	}
	// Ascending to descending: reverse the values and the columns.
	vals := make([]float64, n)
	vecs := newDense(n, n)
	for j := range n {
		vals[j] = w[n-1-j]
		for i := range n {
			vecs.set(i, j, a[i*n+n-1-j])
		}
	}
	return vals, vecs, nil
}

// leftSVD returns the singular values (descending) of the r×c matrix f and its r×r left
// singular vectors (r ≤ c here: F has r+q rows and r+c+1 columns), by native.SVDLeft:
// LAPACK dgesdd (divide and conquer) with OpenBLAS, gonum's Dgesvd in pure Go.
func leftSVD(f dense) ([]float64, dense, error) {
	if f.r == 0 {
		return nil, dense{}, nil
	}
	u := newDense(f.r, f.r)
	if f.c == 0 {
		for i := range f.r {
			u.set(i, i, 1)
		}
		return make([]float64, f.r), u, nil
	}
	if f.r > f.c {
		// F has r+q ≤ r+c+1 rows (q ≤ c+1 directions of H), S of the compression
		// r' ≤ r rows: never more rows than columns.
		panic(fmt.Sprintf("chinsuter: internal error: F is %d×%d", f.r, f.c))
	}
	s := make([]float64, f.r)
	a := append([]float64(nil), f.a...)
	if err := native.SVDLeft(f.r, f.c, a, f.c, s, u.a, f.r); err != nil {
		return nil, dense{}, kinds.Wrap(err, "the SVD of the small matrix F")
	}
	return s, u, nil
}

// spectralNormSym returns the largest absolute eigenvalue of the symmetric matrix s.
func spectralNormSym(s dense) (float64, error) {
	vals, _, err := eigSym(s)
	if err != nil {
		return 0, kinds.Wrap(err, "the spectral norm")
	}
	var big float64
	for _, v := range vals {
		big = math.Max(big, math.Abs(v))
	}
	return big, nil
}

// symmetrise replaces s by (s + sᵀ)/2.
func symmetrise(s dense) {
	for i := range s.r {
		for j := i + 1; j < s.c; j++ {
			v := (s.at(i, j) + s.at(j, i)) / 2
			s.set(i, j, v)
			s.set(j, i, v)
		}
	}
}

func finite(a []float64) bool {
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
