package chinsuter

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/preimage"
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
// iteration of Schölkopf et al. (1999) and Mika et al. (1999), run by package
// preimage (preimage.FixedPoint, Options.Magnitude; docs/design.md, "Pre-images") over
// the points of the expansion of ψ, Ā then Z, with coefficients a then −b. It is
// started from the point of Ā where |⟨ψ, φ(·)⟩| is largest and stopped when a step moves
// z by less than tol·σ, when the denominator (which is ⟨ψ, φ(z)⟩ itself) vanishes, or
// after maxIter steps; the best point visited is returned, so the result is never worse
// than the start. The iteration is known to be unstable for mixed-sign expansions;
// keeping the best point makes it safe.
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
	// The expansion: the points of Ā then the pre-images Z, with coefficients a and −b.
	pts := make([]float64, 0, (Nb+z.n)*d)
	pts = append(append(pts, p.points.a[:Nb*d]...), z.z[:z.n*d]...)
	coef := make([]float64, 0, Nb+z.n)
	coef = append(coef, a...)
	for _, v := range b[:z.n] {
		coef = append(coef, -v)
	}
	cur := append([]float64(nil), p.points.row(best)...)
	res, err := preimage.FixedPoint(cur, kernel.RBF{Sigma: p.sigma}, mat.NewDense(Nb+z.n, d, pts), coef,
		preimage.Options{MaxIter: p.maxIter, Tol: p.tol, Magnitude: true})
	if err != nil {
		// The arguments are the model's own, checked and finite: the start is the
		// point of Ā found above, with its value.
		return p.points.row(best), f[best]
	}
	return cur, res.Value
}
