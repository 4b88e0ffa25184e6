package kpca

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
)

// Helmert coordinates (docs/design.md, "Helmert coordinates"). Qₘ is the m×(m−1)
// matrix whose column j (j = 1, …, m−1) is αⱼ·(1, …, 1, −j, 0, …, 0) with j ones and
// αⱼ = 1/√(j(j+1)): its columns are orthonormal and orthogonal to 1ₘ, and
// Qₘ₊₁ = [[Qₘ, αₘ·1ₘ], [0ᵀ, −m·αₘ]]. So Mₘ = QₘᵀKₘQₘ carries the non-trivial spectrum of
// the centred matrix CKₘC, and Mₘ₊₁ is Mₘ bordered by one row and column. Qₘ is never
// stored: products with it cost O(m) through prefix and suffix sums.

// helmertAlphaOf returns αⱼ = 1/√(j(j+1)), the scale of Helmert column j: the one
// formula of every step that borders in Helmert coordinates (helmertAlpha, a point's
// centredBorder, a block's helmertDirections), so that they agree bit for bit.
func helmertAlphaOf(j int) float64 {
	f := float64(j)
	return 1 / math.Sqrt(f*(f+1))
}

// helmertAlpha returns αⱼ = 1/√(j(j+1)) for j = 1, …, n−1 in alpha[j] (alpha[0] unused),
// extending dst: entries already in dst are kept.
func helmertAlpha(dst []float64, n int) []float64 {
	start := len(dst)
	if start >= n {
		return dst
	}
	if cap(dst) < n {
		dst = append(make([]float64, 0, n+n/4+16), dst...)
	}
	dst = dst[:n]
	for j := max(start, 1); j < n; j++ {
		dst[j] = helmertAlphaOf(j)
	}
	return dst
}

// helmertT sets dst = Qₘᵀy for y of length m ≥ 1 (dst of length m−1):
// (Qᵀy)ⱼ = αⱼ·(Σ_{i<j} yᵢ − j·yⱼ).
func helmertT(dst, y, alpha []float64) {
	if len(y) == 0 {
		return
	}
	s := y[0]
	for j := 1; j < len(y); j++ {
		dst[j-1] = alpha[j] * (s - float64(j)*y[j])
		s += y[j]
	}
}

// helmertCongruence overwrites the symmetric m×m K, held whole (both triangles) in raw's
// storage, with M = QₘᵀKQₘ ((m−1)×(m−1), both triangles, the same stride) and returns M:
// the matrix whose spectrum is the centred CKC's but for its zero, for alpha =
// helmertAlpha(·, m+1). K is not needed after it (its sums are taken first), and working
// in its storage spares two more m×m arrays: 128 MB each, with their first touch, at
// 4000 points. It applies Qᵀ to the rows of K and then to the columns of the result, with
// the operations of helmertT in the same order, but reading rows only: each column of
// T = KQ is transformed with the others of its strip, a row at a time, its prefix sums
// kept in s. Rows and strips are shared among GOMAXPROCS goroutines; every value is
// computed by the same operations in the same order whatever their number. O(m²).
func helmertCongruence(raw blas64.Symmetric, alpha []float64) *mat.SymDense {
	m, lda, a := raw.N, raw.Stride, raw.Data
	n := m - 1
	workers := congruenceWorkers(m)
	var team parallel.Team
	// T = K·Q in place: row i of T is helmertT of row i of K, its first n entries
	// (helmertT writes over its input one place behind its reading).
	team.Run(workers, m, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := a[i*lda : i*lda+m]
			helmertT(row[:n], row, alpha)
		}
	})
	// M = Qᵀ·T: (Qᵀt)ᵢ₋₁ = αᵢ·(Σ_{l<i} t_l − i·tᵢ) for every column t of T, a strip of
	// columns at a time. Row i−1 of M's lower triangle (columns j ≤ i−1) is written over
	// row i−1 of T, which the prefix sums have already taken in.
	const strip = 128
	team.Run(workers, (n+strip-1)/strip, 1, func(lo, hi int) {
		var s [strip]float64
		for c := lo; c < hi; c++ {
			j0, j1 := c*strip, min((c+1)*strip, n)
			sc := s[:j1-j0]
			copy(sc, a[j0:j1])
			for i := 1; i < m; i++ {
				ti := a[i*lda+j0 : i*lda+j1]
				if i > j0 {
					out := a[(i-1)*lda+j0 : (i-1)*lda+min(i, j1)]
					al, fi := alpha[i], float64(i)
					for j := range out {
						out[j] = al * (sc[j] - fi*ti[j])
					}
				}
				for j, v := range ti {
					sc[j] += v
				}
			}
		}
	})
	wholeSymmetric(&team, workers, a, n, lda, false)
	var M mat.SymDense
	M.SetRawSymmetric(blas64.Symmetric{N: n, Stride: lda, Data: a[:(n-1)*lda+n], Uplo: blas.Upper})
	return &M
}

// congruenceWorkers is the number of goroutines for the O(m²) loops of a batch start on
// m points: GOMAXPROCS, but one below 256 points, where a loop takes microseconds.
func congruenceWorkers(m int) int {
	if m < 256 {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// wholeSymmetric copies the strict upper triangle of the n×n row-major a (stride lda)
// over its lower one (toLower), or the lower over the upper, in tiles of 64×64 so that
// the rows read and the columns written both stay in cache, a band of 64 rows at a time
// on up to workers goroutines. Band i0 copies between the entries (i, j) and (j, i) for
// i in i0 … i0+63 and j > i: it writes only columns i0 … i0+63 of the lower triangle, or
// rows i0 … i0+63 of the upper, and reads only the other triangle, so no two bands write
// the same values, and none reads what another writes.
func wholeSymmetric(team *parallel.Team, workers int, a []float64, n, lda int, toLower bool) {
	const tile = 64
	team.Run(workers, (n+tile-1)/tile, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			i0 := b * tile
			for j0 := i0; j0 < n; j0 += tile {
				for i := i0; i < min(i0+tile, n); i++ {
					for j := max(j0, i+1); j < min(j0+tile, n); j++ {
						if toLower {
							a[j*lda+i] = a[i*lda+j]
						} else {
							a[i*lda+j] = a[j*lda+i]
						}
					}
				}
			}
		}
	})
}

// helmertColumns sets V = Q·W (V m×k) for the (m−1)×k W: for each column w, with the
// suffix sums tᵢ = Σ_{j>i} αⱼwⱼ (w indexed from 1), vᵢ = tᵢ − i·αᵢ·wᵢ and v₀ = t₀. It
// runs by rows, a strip of 128 columns at a time with their suffix sums kept in a
// vector, the strips shared among GOMAXPROCS goroutines from 256 points, each value by
// the same operations whatever their number: a batch start's eigenvectors mapped back
// to point coordinates, 16 million values at 4000 points for an exact model, which were
// read and written a column at a time through At and Set on one core.
func helmertColumns(V, W blas64.General, alpha []float64) {
	m, k := V.Rows, V.Cols
	const strip = 128
	var team parallel.Team
	team.Run(congruenceWorkers(m), (k+strip-1)/strip, 1, func(lo, hi int) {
		var t [strip]float64
		for s := lo; s < hi; s++ {
			c0, c1 := s*strip, min((s+1)*strip, k)
			tc := t[:c1-c0]
			clear(tc)
			for i := m - 1; i >= 1; i-- {
				wr, vr := W.Data[(i-1)*W.Stride+c0:(i-1)*W.Stride+c1], V.Data[i*V.Stride+c0:i*V.Stride+c1]
				al, fi := alpha[i], float64(i)
				for j, x := range wr {
					aw := al * x
					vr[j] = tc[j] - fi*aw
					tc[j] += aw
				}
			}
			copy(V.Data[c0:c1], tc)
		}
	})
}

// centredBorder adds a point to the centred decomposition, whose vectors are in point
// coordinates and orthogonal to 1 (docs/design.md, "Removing a point"): in the basis of
// 1⊥ that the old vectors extend by the Helmert column u = (α·1, −α·m), α = 1/√(m(m+1)),
// the new point borders the matrix with
//
//	b = α·(K·1 − m·a),   γ = α²·(1ᵀK1 − 2m·Σa + m²c)
//
// (docs/design.md, "Helmert coordinates"), for its kernel column a, self-kernel c and
// Σa = sa. It returns the scale of the border, max(‖b‖, |γ|).
func (md *Model) centredBorder(a []float64, c, sa float64) (float64, error) {
	m := len(a)
	fm := float64(m)
	alpha := helmertAlphaOf(m)
	b, e := md.work[:m], md.work2[:m]
	for i := range m {
		b[i] = alpha * (md.rowSum[i] - fm*a[i])
		e[i] = alpha
	}
	gamma := alpha * alpha * (md.total - 2*fm*sa + fm*fm*c)
	if err := md.thin.Border(vector(&md.vecA, b), vector(&md.vecB, e), -alpha*fm, gamma); err != nil {
		return 0, err
	}
	return math.Max(vec.Norm(b), math.Abs(gamma)), nil
}
