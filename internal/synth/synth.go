// Package synth draws the random matrices and point sets that the tests and the
// programs (bench, the command's studies) share — N(0,1) matrices, Haar-random
// orthogonal matrices, symmetric matrices of a given spectrum, the seed paper's 2-D toy
// data — builds matrices from them (U·diag(values)·Uᵀ, a leading submatrix), and samples
// and standardises the rows of a data set. The oracles that judge results stay in the
// test support, internal/testmat, which programs may not import (docs/design.md,
// "Layout").
//
// All random helpers are deterministic given the *rand.Rand they receive
// (math/rand/v2: Seeded(seed), or rand.New(rand.NewPCG(seed1, seed2))). Invalid
// arguments cause a panic rather than an error.
package synth

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Seeded returns a generator of one seed, PCG with the seed and its twin
// seed ^ 0x9e3779b97f4a7c15 (the golden ratio's bits), so that small seeds 1, 2, …
// give unrelated streams.
func Seeded(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// Normal returns an r×c matrix of independent N(0,1) entries, drawn row by row. It
// panics if r or c is less than 1.
func Normal(r, c int, rng *rand.Rand) *mat.Dense {
	g := make([]float64, r*c)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	return mat.NewDense(r, c, g)
}

// RandomOrthogonal returns an n×n orthogonal matrix drawn from the Haar
// (uniform) distribution on O(n): it takes the QR factorisation of a matrix
// of independent N(0,1) entries and absorbs the signs of R's diagonal into
// the columns of Q, so that the result does not depend on the sign
// convention of the QR routine. It panics if n < 1.
func RandomOrthogonal(n int, rng *rand.Rand) *mat.Dense {
	if n < 1 {
		panic(fmt.Sprintf("synth: RandomOrthogonal: n = %d < 1", n))
	}
	var qr mat.QR
	qr.Factorize(Normal(n, n, rng))
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	for j := range n {
		if r.At(j, j) < 0 {
			for i := range n {
				q.Set(i, j, -q.At(i, j))
			}
		}
	}
	return &q
}

// SymWithSpectrum returns A = Q·diag(values)·Qᵀ for a Haar-random orthogonal
// Q (see RandomOrthogonal), together with Q. Column j of Q is an eigenvector
// of A for values[j] up to rounding. A is exactly symmetric by construction
// (it is stored as a SymDense, from the average of the two computed
// triangles). It panics if values is empty.
func SymWithSpectrum(values []float64, rng *rand.Rand) (*mat.SymDense, *mat.Dense) {
	q := RandomOrthogonal(len(values), rng)
	return Reconstruct(values, q), q
}

// RandomSym returns an n×n symmetric matrix whose entries on and above the
// diagonal are independent N(0,1) draws (the lower triangle mirrors the
// upper). It panics if n < 1.
func RandomSym(n int, rng *rand.Rand) *mat.SymDense {
	if n < 1 {
		panic(fmt.Sprintf("synth: RandomSym: n = %d < 1", n))
	}
	s := mat.NewSymDense(n, nil)
	raw := s.RawSymmetric()
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			row[j] = rng.NormFloat64()
		}
	}
	return s
}

// Reconstruct returns U·diag(values)·Uᵀ for an n×k matrix U and k values, as
// an exactly symmetric SymDense (the average of the two computed triangles).
// It panics if len(values) differs from the number of columns of U.
func Reconstruct(values []float64, u mat.Matrix) *mat.SymDense {
	n, k := u.Dims()
	if k != len(values) {
		panic(fmt.Sprintf("synth: Reconstruct: U is %d×%d, %d values", n, k, len(values)))
	}
	var b mat.Dense
	b.Mul(scaleColumns(u, values), u.T())
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(b.At(i, j)+b.At(j, i)))
		}
	}
	return s
}

// scaleColumns returns a new matrix equal to U·diag(values).
func scaleColumns(u mat.Matrix, values []float64) *mat.Dense {
	d := mat.DenseCopyOf(u)
	raw := d.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j, v := range values {
			row[j] *= v
		}
	}
	return d
}

// Leading returns a copy of the leading m×m principal submatrix of a (rows
// and columns 0 … m−1); the result shares no storage with a. It panics
// unless 1 ≤ m ≤ n.
func Leading(a mat.Symmetric, m int) *mat.SymDense {
	n := a.SymmetricDim()
	if m < 1 || m > n {
		panic(fmt.Sprintf("synth: Leading: m = %d, want 1 ≤ m ≤ %d", m, n))
	}
	s := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			s.SetSym(i, j, a.At(i, j))
		}
	}
	return s
}
