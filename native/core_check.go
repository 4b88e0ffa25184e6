package native

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
)

// coreOps are the routines of a backend that proveCore checks: dgemm in blas.Float64's
// row-major idiom, and dsyevd of the upper triangle of a row-major matrix with
// eigenvectors (as EigenSymInPlace: ascending values in w, vectors as the columns of a),
// reporting success.
type coreOps struct {
	dgemm  func(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
	dsyevd func(n int, a []float64, lda int, w []float64) bool
}

// The sizes of the proof: odd and unequal, so that every kernel's edge cases (partial
// register blocks in m, n and k) run, and small enough that gonum's pure-Go reference
// costs a few milliseconds. coreRateN is the order of the timed dgemm: large enough for
// the kernel, not the call, to dominate, and a few milliseconds on the slowest core.
const (
	proveM, proveN, proveK = 97, 131, 113
	eigenProveN            = 96
	coreRateN              = 256
)

// proveCore checks a backend's dgemm and dsyevd against gonum's pure-Go BLAS on inputs
// drawn from a fixed seed, and returns an error that says what disagreed.
//
// dgemm runs in its four transpositions with α = 0.75, β = −0.5, strides wider than
// the matrices and a canary past each row of C. Both it and gonum compute each entry
// with an error of at most γ₍ₖ₊₂₎·(|α|·(|A||B|)ᵢⱼ + |β|·|cᵢⱼ|), γⱼ = j·ε/(1 − j·ε)
// (Higham, Accuracy and Stability, §3.5, whatever the order of the sums, fused or not),
// so they may differ by twice that; (|A||B|)ᵢⱼ is bounded by row i's sum of |A| times
// column j's largest |B|. A wrong kernel is off by the size of the entries, 10¹³ times
// more.
//
// dsyevd runs on A = H₂H₁DH₁H₂ with D the diagonal of known, distinct eigenvalues and
// Hᵢ random Householder reflections. Its eigenvalues must be D's to 32·n·ε·‖D‖, its
// residual ‖AV − VΛ‖ to 32·n·ε·‖D‖ entrywise and VᵀV to the identity to 32·n·ε,
// all computed with gonum's BLAS: forming A perturbs D's eigenvalues by a few n·ε·‖D‖
// (Weyl), and dsyevd is backward stable with a constant LAPACK's own tests take as 30·n.
func proveCore(ops coreOps) error {
	rng := rand.New(rand.NewPCG(28, 1))
	if err := proveGemm(ops, rng); err != nil {
		return err
	}
	return proveEigen(ops, rng)
}

// fill returns r×c random entries in [−1, 1) with stride ld and the padding set to
// canary.
func fill(rng *rand.Rand, r, c, ld int, canary float64) []float64 {
	a := make([]float64, r*ld)
	for i := range a {
		a[i] = canary
	}
	for i := range r {
		for j := range c {
			a[i*ld+j] = 2*rng.Float64() - 1
		}
	}
	return a
}

// stored returns the dimensions of the matrix stored for op(X), r×c: r×c, or c×r when t
// is blas.Trans.
func stored(t blas.Transpose, r, c int) (rows, cols int) {
	if t == blas.Trans {
		return c, r
	}
	return r, c
}

func proveGemm(ops coreOps, rng *rand.Rand) error {
	const alpha, beta, canary = 0.75, -0.5, 12345.0
	m, n, k := proveM, proveN, proveK
	eps := math.Nextafter(1, 2) - 1
	gamma := float64(k+2) * eps / (1 - float64(k+2)*eps)
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			ar, ac := stored(tA, m, k)
			br, bc := stored(tB, k, n)
			lda, ldb, ldc := ac+3, bc+5, n+7
			a, b := fill(rng, ar, ac, lda, canary), fill(rng, br, bc, ldb, canary)
			c := fill(rng, m, n, ldc, canary)
			want := slices.Clone(c)
			gonumblas.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
			got := slices.Clone(c)
			ops.dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
			opA := func(i, l int) float64 {
				if tA == blas.Trans {
					return a[l*lda+i]
				}
				return a[i*lda+l]
			}
			opB := func(l, j int) float64 {
				if tB == blas.Trans {
					return b[j*ldb+l]
				}
				return b[l*ldb+j]
			}
			colMax := make([]float64, n)
			for l := range k {
				for j := range n {
					colMax[j] = math.Max(colMax[j], math.Abs(opB(l, j)))
				}
			}
			for i := range m {
				var rowSum float64
				for l := range k {
					rowSum += math.Abs(opA(i, l))
				}
				for j := range ldc {
					g, w := got[i*ldc+j], want[i*ldc+j]
					if j >= n {
						if g != canary {
							return fmt.Errorf("dgemm %s: wrote %v past row %d of C", transName(tA, tB), g, i)
						}
						continue
					}
					tol := 2 * gamma * (math.Abs(alpha)*rowSum*colMax[j] + math.Abs(beta)*math.Abs(c[i*ldc+j]))
					if !(math.Abs(g-w) <= tol) {
						return fmt.Errorf("dgemm %s: C[%d,%d] = %v, pure Go %v", transName(tA, tB), i, j, g, w)
					}
				}
			}
		}
	}
	return nil
}

func transName(tA, tB blas.Transpose) string {
	s := [2]byte{'N', 'N'}
	if tA == blas.Trans {
		s[0] = 'T'
	}
	if tB == blas.Trans {
		s[1] = 'T'
	}
	return string(s[:])
}

func proveEigen(ops coreOps, rng *rand.Rand) error {
	n := eigenProveN
	lda := n + 1
	eps := math.Nextafter(1, 2) - 1
	// Known eigenvalues in [−3, 3], distinct and unevenly spaced.
	d := make([]float64, n)
	for i := range d {
		d[i] = -3 + 6*float64(i)/float64(n-1) + 0.01*math.Sin(float64(i))
	}
	var norm float64
	for _, v := range d {
		norm = math.Max(norm, math.Abs(v))
	}
	a := make([]float64, n*lda)
	for i := range n {
		a[i*lda+i] = d[i]
	}
	for range 2 {
		householder(a, n, lda, rng)
	}
	for i := range n { // exactly symmetric, as dsyevd sees it
		for j := range i {
			a[i*lda+j] = a[j*lda+i]
		}
	}
	full := slices.Clone(a)
	w := make([]float64, n)
	if !ops.dsyevd(n, a, lda, w) {
		return errors.New("dsyevd failed")
	}
	tol := 32 * float64(n) * eps * norm
	for i := range n {
		if !(math.Abs(w[i]-d[i]) <= tol) {
			return fmt.Errorf("dsyevd: eigenvalue %d = %v, want %v", i, w[i], d[i])
		}
	}
	// R = A·V − V·Λ and G = VᵀV − I, with gonum's BLAS.
	r := make([]float64, n*n)
	for i := range n {
		for j := range n {
			r[i*n+j] = -a[i*lda+j] * w[j]
		}
	}
	g := gonumblas.Implementation{}
	g.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, full, lda, a, lda, 1, r, n)
	gram := make([]float64, n*n)
	for i := range n {
		gram[i*n+i] = -1
	}
	g.Dgemm(blas.Trans, blas.NoTrans, n, n, n, 1, a, lda, a, lda, 1, gram, n)
	for i := range n * n {
		if !(math.Abs(r[i]) <= tol) {
			return fmt.Errorf("dsyevd: residual %v in row %d", r[i], i/n)
		}
		if !(math.Abs(gram[i]) <= 32*float64(n)*eps) {
			return fmt.Errorf("dsyevd: eigenvectors not orthonormal (%v)", gram[i])
		}
	}
	return nil
}

// householder replaces the symmetric n×n matrix a (stride lda, both triangles) by HaH with
// H = I − 2uuᵀ for a random unit vector u: HaH = a − 2upᵀ − 2puᵀ + 4(uᵀp)uuᵀ, p = au.
func householder(a []float64, n, lda int, rng *rand.Rand) {
	u := make([]float64, n)
	var s float64
	for i := range u {
		u[i] = 2*rng.Float64() - 1
		s += u[i] * u[i]
	}
	s = math.Sqrt(s)
	for i := range u {
		u[i] /= s
	}
	p := make([]float64, n)
	var up float64
	for i := range n {
		for j := range n {
			p[i] += a[i*lda+j] * u[j]
		}
		up += u[i] * p[i]
	}
	for i := range n {
		for j := range n {
			a[i*lda+j] += -2*u[i]*p[j] - 2*p[i]*u[j] + 4*up*u[i]*u[j]
		}
	}
}

// dgemmRate times dgemm of order n (C = A·B, random A and B) and returns its rate in
// GFLOP/s, 2n³ over the best of three calls after one to warm the caches: the best,
// since the question is what the kernel can do, and other work on the machine only
// slows it.
func dgemmRate(dgemm func(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int), n int) float64 {
	rng := rand.New(rand.NewPCG(28, 2))
	a, b := fill(rng, n, n, n, 0), fill(rng, n, n, n, 0)
	c := make([]float64, n*n)
	best := time.Duration(math.MaxInt64)
	for i := range 4 {
		start := time.Now()
		dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n)
		if t := time.Since(start); i > 0 {
			best = min(best, t)
		}
	}
	fn := float64(n)
	return 2 * fn * fn * fn / max(best.Seconds(), 1e-9) / 1e9
}
