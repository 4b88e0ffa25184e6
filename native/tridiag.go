package native

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"

	"github.com/ikpca/ikpca/internal/vec"
)

// This file computes selected eigenpairs of a symmetric tridiagonal matrix T for the
// pure-Go partial eigensolver (EigenSymTopInPlace): gonum's LAPACK has Dsterf (all
// eigenvalues, no vectors) and Dsteqr (all pairs, O(n³) with vectors) but not LAPACK's
// dstebz and dstein, which dsyevx and dsyevr use for a subset. The eigenvalues come from
// Dsterf on each unreduced block of T (O(n²) in all); the vectors from inverse iteration,
// a port of dstein with its dlagtf/dlagts factor-and-solve; and the result is checked
// before it is used. See docs/design.md, "Backends".

// Inverse iteration constants of LAPACK's dstein: at most maxInverseIts solves per
// vector, and extraIts more once the iterate has grown enough.
const (
	maxInverseIts = 5
	extraIts      = 2
)

// topPair is an eigenvalue of T and the unreduced block of T it belongs to.
type topPair struct {
	value float64
	block int
}

// tridiagTop computes the r largest eigenvalues of the n×n symmetric tridiagonal matrix T
// with diagonal d and off-diagonal e (1 ≤ r ≤ n), in ascending order, into w[:r] and, if y
// is not nil, orthonormal eigenvectors of them into the columns of y (n×r, row-major,
// stride r). d and e are overwritten. It reports false if Dsterf fails or if the vectors
// fail the a-posteriori check (checkTop) — inverse iteration's known weakness on large
// tight clusters — and the caller then solves T in full.
//
// T is first cleared of entries below tinyRelative·max|tᵢⱼ| (a perturbation below
// n·ε²·‖T‖, as in gonumGuard) and split where an off-diagonal entry is negligible by
// Dsterf's own test, |eᵢ| ≤ ε·√|dᵢ|·√|dᵢ₊₁| (a perturbation of relative size ε).
func tridiagTop(n, r int, d, e, w, y []float64) bool {
	starts := splitTridiag(n, d, e)

	var impl gonumlapack.Implementation
	pairs := make([]topPair, 0, n)
	dd := make([]float64, n)
	ee := make([]float64, n)
	for b := range len(starts) - 1 {
		lo, hi := starts[b], starts[b+1]
		k := hi - lo
		copy(dd, d[lo:hi])
		copy(ee, e[lo:hi-1])
		s := scaleBlock(dd[:k], ee[:k-1])
		if k > 1 && !impl.Dsterf(k, dd, ee) {
			return false
		}
		for _, v := range dd[:k] {
			pairs = append(pairs, topPair{math.Ldexp(v, s), b})
		}
	}
	slices.SortStableFunc(pairs, func(p, q topPair) int {
		return cmp.Or(cmp.Compare(p.value, q.value), p.block-q.block)
	})
	top := pairs[n-r:]
	for j, p := range top {
		w[j] = p.value
	}
	if y == nil {
		return true
	}

	// The columns of each block, in ascending order of eigenvalue.
	cols := make([][]int, len(starts)-1)
	for j, p := range top {
		cols[p.block] = append(cols[p.block], j)
	}
	clear(y[:n*r])
	rng := uint64(0x9E3779B97F4A7C15)
	for b, js := range cols {
		if len(js) == 0 {
			continue
		}
		lo, hi := starts[b], starts[b+1]
		if !inverseIteration(d[lo:hi], e[lo:hi-1], w, js, y[lo*r:], r, &rng) {
			return false
		}
	}
	return checkTop(n, r, d, e, w, y, starts, cols)
}

// splitTridiag sets to zero the entries of T (diagonal d, off-diagonal e[:n−1]) below
// tinyRelative·‖T‖, and the off-diagonal entries negligible against their diagonal
// neighbours (dsterf's splitting test), and returns the starts of the
// unreduced blocks [starts[b], starts[b+1]), ending with n.
func splitTridiag(n int, d, e []float64) []int {
	var tnorm float64
	for _, v := range d {
		tnorm = max(tnorm, math.Abs(v))
	}
	for _, v := range e[:n-1] {
		tnorm = max(tnorm, math.Abs(v))
	}
	small := tinyRelative * tnorm
	for i, v := range d {
		if math.Abs(v) < small {
			d[i] = 0
		}
	}
	for i, v := range e[:n-1] {
		if math.Abs(v) < small || math.Abs(v) <= vec.Roundoff*math.Sqrt(math.Abs(d[i]))*math.Sqrt(math.Abs(d[i+1])) {
			e[i] = 0
		}
	}
	starts := []int{0}
	for i := range n - 1 {
		if e[i] == 0 {
			starts = append(starts, i+1)
		}
	}
	starts = append(starts, n)

	return starts
}

// scaleBlock scales a block (diagonal dd, off-diagonal ee) by a power of two to a
// largest entry in [0.5, 1), exactly (its entries are at least tinyRelative·‖T‖):
// Dsterf then never rescales, which is where gonum v0.17's Dsterf fails (gonumGuard).
// It returns the exponent s: the block's eigenvalues are 2ˢ times the scaled ones.
func scaleBlock(dd, ee []float64) int {
	var bmax float64
	for _, v := range dd {
		bmax = max(bmax, math.Abs(v))
	}
	for _, v := range ee {
		bmax = max(bmax, math.Abs(v))
	}
	_, s := math.Frexp(bmax)
	if bmax == 0 {
		s = 0
	}
	for i := range dd {
		dd[i] = math.Ldexp(dd[i], -s)
	}
	for i := range ee {
		ee[i] = math.Ldexp(ee[i], -s)
	}
	return s
}

// inverseIteration computes eigenvectors of the unreduced symmetric tridiagonal block
// with diagonal d (length k) and off-diagonal e for its eigenvalues w[j], j in js
// (ascending), into column j of y (k rows, stride ldy), as LAPACK's dstein does: for each
// eigenvalue λ, a random start, LU factors with partial pivoting of T − λI (dlagtf),
// solves with tiny pivots perturbed (dlagts, JOB = −1) until the iterate has grown
// enough, and modified Gram–Schmidt against the vectors of the eigenvalues within
// 10⁻³‖T‖₁ below it. Eigenvalues closer than 10·ε·|λ| are pulled apart by that much so
// that their iterations differ. It reports false if an iteration did not converge.
func inverseIteration(d, e, w []float64, js []int, y []float64, ldy int, rng *uint64) bool {
	k := len(d)
	if k == 1 {
		y[js[0]] = 1
		return true
	}
	onenrm := tridiagNorm1(d, e)
	ortol := 1e-3 * onenrm
	dtpcrt := math.Sqrt(0.1 / float64(k))

	ua := make([]float64, k)   // U's diagonal
	ub := make([]float64, k-1) // U's first super-diagonal
	lc := make([]float64, k-1) // L's multipliers
	ud := make([]float64, k)   // U's second super-diagonal (k−2 used)
	piv := make([]bool, k)     // row interchanges
	x := make([]float64, k)
	gp := 0 // first index in js of the current Gram–Schmidt group
	var xjm float64
	for q, j := range js {
		xj := w[j]
		if q > 0 {
			if pertol := 10 * math.Abs(vec.Roundoff*xj); xj-xjm < pertol {
				xj = xjm + pertol
			}
			if math.Abs(xj-xjm) > ortol {
				gp = q
			}
		}
		for i := range x {
			x[i] = uniform(rng)
		}
		copy(ua, d)
		copy(ub, e)
		copy(lc, e)
		dlagtf(ua, xj, ub, lc, ud, piv)
		tol := 0.0
		converged := false
		checks := 0
		for its := 0; its < maxInverseIts; its++ {
			jmax := idamax(x)
			scl := float64(k) * onenrm * max(vec.Roundoff, math.Abs(ua[k-1])) / math.Abs(x[jmax])
			for i := range x {
				x[i] *= scl
			}
			tol = dlagts(ua, ub, lc, ud, piv, x, tol)
			orthogonalise(x, y, ldy, js[gp:q])
			if math.Abs(x[idamax(x)]) < dtpcrt {
				continue
			}
			checks++
			if checks >= extraIts+1 {
				converged = true
				break
			}
		}
		if !converged {
			return false
		}
		var nrm float64
		for _, v := range x {
			nrm = math.Hypot(nrm, v)
		}
		scl := 1 / nrm
		if x[idamax(x)] < 0 {
			scl = -scl
		}
		for l := range k {
			y[l*ldy+j] = scl * x[l]
		}
		xjm = xj
	}
	return true
}

// tridiagNorm1 returns the 1-norm of the symmetric tridiagonal matrix with diagonal d
// (at least 2 long) and off-diagonal e: its largest column sum of absolute values.
func tridiagNorm1(d, e []float64) float64 {
	k := len(d)
	n := max(math.Abs(d[0])+math.Abs(e[0]), math.Abs(d[k-1])+math.Abs(e[k-2]))
	for i := 1; i < k-1; i++ {
		n = max(n, math.Abs(d[i])+math.Abs(e[i-1])+math.Abs(e[i]))
	}
	return n
}

// orthogonalise removes from x, by modified Gram–Schmidt, its components along the
// columns cols of y (len(x) rows, stride ldy), orthonormal, in their order.
func orthogonalise(x, y []float64, ldy int, cols []int) {
	for _, i := range cols {
		var dot float64
		for l, v := range x {
			dot += v * y[l*ldy+i]
		}
		for l := range x {
			x[l] -= dot * y[l*ldy+i]
		}
	}
}

// uniform returns a pseudo-random number in (−1, 1) (xorshift64*), deterministic, as
// LAPACK's dlarnv with its fixed seed is.
func uniform(state *uint64) float64 {
	s := *state
	s ^= s >> 12
	s ^= s << 25
	s ^= s >> 27
	*state = s
	return 2*float64((s*0x2545F4914F6CDD1D)>>11)/(1<<53) - 1
}

// idamax returns the index of the entry of x of largest magnitude (the first of
// equal ones), like BLAS idamax.
func idamax(x []float64) int {
	best, idx := -1.0, 0
	for i, v := range x {
		if a := math.Abs(v); a > best {
			best, idx = a, i
		}
	}
	return idx
}

// dlagtf factors T − λI = P·L·U for the tridiagonal T with diagonal a and super- and
// sub-diagonals b and c (equal here: T is symmetric), as LAPACK's dlagtf with TOL = 0:
// on return a, b and d hold the diagonal and the two super-diagonals of U, c the
// multipliers of L, and in[k] whether rows k and k+1 were interchanged.
func dlagtf(a []float64, lambda float64, b, c, d []float64, in []bool) {
	n := len(a)
	a[0] -= lambda
	if n == 1 {
		return
	}
	scale1 := math.Abs(a[0]) + math.Abs(b[0])
	for k := 0; k < n-1; k++ {
		a[k+1] -= lambda
		scale2 := math.Abs(c[k]) + math.Abs(a[k+1])
		if k < n-2 {
			scale2 += math.Abs(b[k+1])
		}
		piv1 := 0.0
		if a[k] != 0 {
			piv1 = math.Abs(a[k]) / scale1
		}
		if c[k] == 0 {
			in[k] = false
			scale1 = scale2
			if k < n-2 {
				d[k] = 0
			}
			continue
		}
		piv2 := math.Abs(c[k]) / scale2
		if piv2 <= piv1 {
			in[k] = false
			scale1 = scale2
			c[k] /= a[k]
			a[k+1] -= c[k] * b[k]
			if k < n-2 {
				d[k] = 0
			}
		} else {
			in[k] = true
			mult := a[k] / c[k]
			a[k] = c[k]
			temp := a[k+1]
			a[k+1] = b[k] - mult*temp
			if k < n-2 {
				d[k] = b[k+1]
				b[k+1] = -mult * d[k]
			}
			b[k] = temp
			c[k] = mult
		}
	}
}

// dlagts solves (T − λI)·x = y in place for the factors of dlagtf, as LAPACK's dlagts
// with JOB = −1: a diagonal entry of U too small to divide by without overflow is
// perturbed by tol, doubled until it is not. A tol ≤ 0 is replaced by ε times the largest
// entry of U (or ε); the tol used is returned, for the next solve with the same factors.
func dlagts(a, b, c, d []float64, in []bool, y []float64, tol float64) float64 {
	const (
		sfmin  = 0x1p-1022 // dlamch('S')
		bignum = 1 / sfmin
	)
	n := len(a)
	if tol <= 0 {
		tol = math.Abs(a[0])
		if n > 1 {
			tol = max(tol, math.Abs(a[1]), math.Abs(b[0]))
		}
		for k := 2; k < n; k++ {
			tol = max(tol, math.Abs(a[k]), math.Abs(b[k-1]), math.Abs(d[k-2]))
		}
		tol *= vec.Roundoff
		if tol == 0 {
			tol = vec.Roundoff
		}
	}
	for k := 1; k < n; k++ {
		if !in[k-1] {
			y[k] -= c[k-1] * y[k-1]
		} else {
			temp := y[k-1]
			y[k-1] = y[k]
			y[k] = temp - c[k-1]*y[k]
		}
	}
	for k := n - 1; k >= 0; k-- {
		var temp float64
		switch {
		case k <= n-3:
			temp = y[k] - b[k]*y[k+1] - d[k]*y[k+2]
		case k == n-2:
			temp = y[k] - b[k]*y[k+1]
		default:
			temp = y[k]
		}
		ak := a[k]
		pert := math.Copysign(tol, ak)
		for {
			absak := math.Abs(ak)
			if absak >= 1 {
				break
			}
			if absak < sfmin {
				if absak == 0 || math.Abs(temp)*sfmin > absak {
					ak += pert
					pert *= 2
					continue
				}
				temp *= bignum
				ak *= bignum
				break
			}
			if math.Abs(temp) > absak*bignum {
				ak += pert
				pert *= 2
				continue
			}
			break
		}
		y[k] = temp / ak
	}
	return tol
}

// checkTop verifies the eigenvectors y (n×r, stride r) of T computed by inverse
// iteration, before they are used: each residual ‖Tyⱼ − wⱼyⱼ‖₂ at most topCheck·n·ε·‖T‖₁,
// and YᵀY within topCheck·n·ε of the identity entrywise (by one dsyrk, O(n·r²) next to the
// O(n²·r) of the back transformation).
func checkTop(n, r int, d, e, w, y []float64, starts []int, cols [][]int) bool {
	tol := topCheck * float64(n) * vec.Roundoff
	var tnorm float64
	for i := range n {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < n-1 {
			s += math.Abs(e[i])
		}
		tnorm = max(tnorm, s)
	}
	for b, js := range cols {
		lo, hi := starts[b], starts[b+1]
		for _, j := range js {
			var ss float64
			for i := lo; i < hi; i++ {
				v := (d[i] - w[j]) * y[i*r+j]
				if i > lo {
					v += e[i-1] * y[(i-1)*r+j]
				}
				if i < hi-1 {
					v += e[i] * y[(i+1)*r+j]
				}
				ss += v * v
			}
			if !(math.Sqrt(ss) <= tol*tnorm) {
				return false
			}
		}
	}
	g := blas64.Symmetric{N: r, Stride: r, Uplo: blas.Upper, Data: make([]float64, r*r)}
	Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: r, Stride: r, Data: y}, 0, g)
	for i := range r {
		for j := i; j < r; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if !(math.Abs(g.Data[i*r+j]-want) <= tol) {
				return false
			}
		}
	}
	return true
}
