package chinsuter

import (
	"math"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// basis is the growing set Z of shared pre-images, with its kernel matrix K_Z, the
// Cholesky factor of K_Z (extended by one row per pre-image, O(|Z|²)) and the cross
// kernel K_{ZĀ} against the points of the expansion being compressed.
type basis struct {
	k         kernel.RBF
	d, n      int
	cap       int
	ref       dense       // Ā: the expansion points
	z         []float64   // n×d pre-images
	kz        []float64   // cap×cap kernel matrix, first n×n used
	chol      []float64   // cap×cap lower Cholesky factor of K_Z
	crossRows [][]float64 // row i: k(z_i, Ā_j)
}

func newBasis(d, capacity int, ref dense, sigma float64) *basis {
	return &basis{k: kernel.RBF{Sigma: sigma}, d: d, cap: capacity, ref: ref,
		kz: make([]float64, capacity*capacity), chol: make([]float64, capacity*capacity)}
}

// minPivot is the smallest squared distance from φ(z) to span φ(Z) (k(z, z) = 1) for
// which z joins the set: below it K_Z would be too ill-conditioned for the re-fit to be
// accurate, and z would add at most √minPivot·‖ψ‖ to the approximation.
const minPivot = 1e-10

// add appends z unless the set is full or φ(z) is numerically in the span already.
func (b *basis) add(z []float64) bool {
	if b.n == b.cap {
		return false
	}
	n, c := b.n, b.cap
	kv := make([]float64, n)
	for i := range n {
		kv[i] = b.k.Eval(b.z[i*b.d:(i+1)*b.d], z)
	}
	// Forward solve L·l = k_Z(z); the new pivot is k(z, z) − ‖l‖² = 1 − ‖l‖².
	l := make([]float64, n)
	var ll float64
	for i := range n {
		s := kv[i]
		for j := range i {
			s -= b.chol[i*c+j] * l[j]
		}
		l[i] = s / b.chol[i*c+i]
		ll += l[i] * l[i]
	}
	piv := 1 - ll
	if !(piv > minPivot) {
		return false
	}
	for i := range n {
		b.kz[i*c+n] = kv[i]
		b.kz[n*c+i] = kv[i]
		b.chol[n*c+i] = l[i]
	}
	b.kz[n*c+n] = 1
	b.chol[n*c+n] = math.Sqrt(piv)
	row := make([]float64, b.ref.r)
	for j := range b.ref.r {
		row[j] = b.k.Eval(z, b.ref.row(j))
	}
	b.crossRows = append(b.crossRows, row)
	b.z = append(b.z, z...)
	b.n++
	return true
}

// crossTimes returns K_{ZĀ}·a.
func (b *basis) crossTimes(a []float64) []float64 {
	out := make([]float64, b.n)
	for i, row := range b.crossRows {
		out[i] = vec.Dot(row, a)
	}
	return out
}

// kernelTimes returns K_Z·x.
func (b *basis) kernelTimes(x []float64) []float64 {
	out := make([]float64, b.n)
	for i := range b.n {
		out[i] = vec.Dot(b.kz[i*b.cap:i*b.cap+b.n], x)
	}
	return out
}

// project returns the coefficients over Z of the feature-space projection of φ(Ā)a
// onto span φ(Z): the solution of K_Z·x = K_{ZĀ}·a, by the Cholesky factor.
func (b *basis) project(a []float64) []float64 {
	x := b.crossTimes(a)
	n, c := b.n, b.cap
	for i := range n {
		s := x[i]
		for j := range i {
			s -= b.chol[i*c+j] * x[j]
		}
		x[i] = s / b.chol[i*c+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := x[i]
		for j := i + 1; j < n; j++ {
			s -= b.chol[j*c+i] * x[j]
		}
		x[i] = s / b.chol[i*c+i]
	}
	return x
}

func (b *basis) points() dense {
	return dense{r: b.n, c: b.d, a: append([]float64(nil), b.z...)}
}

func (b *basis) kernel() dense {
	out := newDense(b.n, b.n)
	for i := range b.n {
		copy(out.row(i), b.kz[i*b.cap:i*b.cap+b.n])
	}
	return out
}

func (b *basis) cross() dense {
	out := newDense(b.n, b.ref.r)
	for i, row := range b.crossRows {
		copy(out.row(i), row)
	}
	return out
}

// preImager finds approximate pre-images for the Gaussian kernel.
type preImager struct {
	points  dense // Ā
	mbar    dense // K(Ā, Ā)
	sigma   float64
	maxIter int
	tol     float64
}

// find returns a point z that (locally) maximises |⟨ψ, φ(z)⟩| for the residual
// ψ = φ(Ā)a − φ(Z)b, and that inner product (the coefficient of φ(z) in the best
// one-term approximation of ψ, since k(z, z) = 1).
//
// The stationarity condition of ⟨ψ, φ(z)⟩ for the Gaussian kernel gives the fixed-point
// iteration of Schölkopf et al. (1999) and Mika et al. (1999):
//
//	z ← Σᵢ cᵢ k(pᵢ, z) pᵢ / Σᵢ cᵢ k(pᵢ, z)
//
// over the points pᵢ of the expansion of ψ with coefficients cᵢ. It is started from the
// point of Ā where |⟨ψ, φ(·)⟩| is largest and stopped when a step moves z by less than
// tol·σ, when the denominator (which is ⟨ψ, φ(z)⟩ itself) vanishes, or after maxIter
// steps; the best point visited is returned, so the result is never worse than the
// start. The iteration is known to be unstable for mixed-sign expansions; keeping the
// best point makes it safe.
func (p preImager) find(a []float64, z *basis, b []float64) ([]float64, float64) {
	Nb, d := p.points.r, p.points.c
	// ⟨ψ, φ(Āᵢ)⟩ = (M̄a)ᵢ − (K_{ZĀ}ᵀb)ᵢ.
	f := make([]float64, Nb)
	symv(f, p.mbar, a)
	for k, row := range z.crossRows {
		for i, v := range row {
			f[i] -= b[k] * v
		}
	}
	best := 0
	for i, v := range f {
		if math.Abs(v) > math.Abs(f[best]) {
			best = i
		}
	}
	cur := append([]float64(nil), p.points.row(best)...)
	bestZ, bestF := append([]float64(nil), cur...), f[best]
	next := make([]float64, d)
	g := 2 * p.sigma * p.sigma
	for range p.maxIter {
		for j := range next {
			next[j] = 0
		}
		var den, mag float64
		accumulate := func(pt []float64, c float64) {
			w := c * math.Exp(-vec.SqDist(pt, cur)/g)
			den += w
			mag += math.Abs(w)
			for j, v := range pt {
				next[j] += w * v
			}
		}
		for i := range Nb {
			accumulate(p.points.row(i), a[i])
		}
		for k := range z.n {
			accumulate(z.z[k*d:(k+1)*d], -b[k])
		}
		// den = ⟨ψ, φ(cur)⟩.
		if math.Abs(den) > math.Abs(bestF) {
			bestF = den
			copy(bestZ, cur)
		}
		if !(math.Abs(den) > 1e-14*mag) {
			break
		}
		var step float64
		for j := range next {
			next[j] /= den
			step += (next[j] - cur[j]) * (next[j] - cur[j])
		}
		if !finite(next) {
			break
		}
		copy(cur, next)
		if math.Sqrt(step) <= p.tol*p.sigma {
			// Evaluate the converged point.
			v := p.value(cur, a, z, b)
			if math.Abs(v) > math.Abs(bestF) {
				bestF = v
				copy(bestZ, cur)
			}
			break
		}
	}
	return bestZ, bestF
}

// value returns ⟨ψ, φ(y)⟩.
func (p preImager) value(y, a []float64, z *basis, b []float64) float64 {
	g := 2 * p.sigma * p.sigma
	var s float64
	for i := range p.points.r {
		s += a[i] * math.Exp(-vec.SqDist(p.points.row(i), y)/g)
	}
	d := p.points.c
	for k := range z.n {
		s -= b[k] * math.Exp(-vec.SqDist(z.z[k*d:(k+1)*d], y)/g)
	}
	return s
}
