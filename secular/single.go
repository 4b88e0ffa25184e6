package secular

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/vec"
)

// RankOneRoot computes the i-th smallest eigenvalue (i = 0, …, n−1) of diag(d) + ρ·z·zᵀ,
// the i-th root of 1 + ρ Σⱼ zⱼ²/(dⱼ − λ) = 0, and writes delta[j] = d[j] − λ. It is the
// counterpart of LAPACK's dlaed4, without its restrictions to ρ > 0 and ‖z‖ = 1: d must
// be strictly increasing, every zⱼ non-zero and ρ non-zero (apply deflation first
// otherwise; Solver.RankOne does). iterations is the number of iterations used.
// It allocates O(n) workspace; use a Solver to solve many roots.
func RankOneRoot(i int, d, z []float64, rho float64, delta []float64) (lambda float64, iterations int, err error) {
	n := len(d)
	if err := checkSingle(d, z, delta, n); err != nil {
		return 0, 0, err
	}
	if i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%w: root index %d of %d", ErrArgument, i, n)
	}
	if rho == 0 || math.IsNaN(rho) || math.IsInf(rho, 0) {
		return 0, 0, fmt.Errorf("%w: rho = %g", ErrArgument, rho)
	}
	znorm := vec.Norm(z)
	r := rhoNormSq(rho, znorm)
	if math.IsInf(r, 0) {
		return 0, 0, fmt.Errorf("%w: ρ‖z‖² overflows", ErrNonFinite)
	}
	if n == 1 {
		delta[0] = -r
		return d[0] + r, 0, nil
	}
	scale := pow2Above(math.Max(vec.MaxAbs(d), math.Abs(r)))
	dd, zz := make([]float64, n), make([]float64, n)
	for j := range n {
		dd[j], zz[j] = d[j]/scale, z[j]/znorm
	}
	rs := r / scale
	eq := equation{d: dd, z: zz, a: 1 / rs, top: rs}
	root := i
	if rs < 0 {
		var m equation
		eq.mirror(&m, make([]float64, n), make([]float64, n), -rs)
		eq, root = m, n-1-i
	}
	lambda, o, tau, iterations, ok := solveOne(&eq, nil, false, root, delta[:n])
	eq.differences(o, tau, delta[:n])
	if rs < 0 {
		lambda = -lambda
		unmirror(delta[:n])
	}
	for j := range n {
		delta[j] *= scale
	}
	if !ok {
		return lambda * scale, iterations, fmt.Errorf("%w: root %d of %d after %d iterations", ErrNotConverged, i, n, iterations)
	}
	return lambda * scale, iterations, nil
}

// ArrowRoot computes the i-th smallest eigenvalue (i = 0, …, n) of the (n+1)×(n+1)
// arrowhead matrix [[diag(d), w], [wᵀ, c]], the i-th root of
// g(λ) = c − λ − Σⱼ wⱼ²/(dⱼ − λ) = 0, and writes delta[j] = d[j] − λ for j < n. d must
// be strictly increasing and every wⱼ non-zero. It allocates O(n) workspace.
func ArrowRoot(i int, d, w []float64, c float64, delta []float64) (lambda float64, iterations int, err error) {
	n := len(d)
	if err := checkSingle(d, w, delta, n); err != nil {
		return 0, 0, err
	}
	if i < 0 || i > n {
		return 0, 0, fmt.Errorf("%w: root index %d of %d", ErrArgument, i, n+1)
	}
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return 0, 0, fmt.Errorf("%w: c = %g", ErrNonFinite, c)
	}
	wnorm := vec.Norm(w)
	if math.IsInf(wnorm, 0) {
		return 0, 0, fmt.Errorf("%w: ‖w‖ overflows", ErrNonFinite)
	}
	if n == 0 {
		return c, 0, nil
	}
	scale := pow2Above(math.Max(vec.MaxAbs(d), math.Max(math.Abs(c), wnorm)))
	dd, zz := make([]float64, n), make([]float64, n)
	for j := range n {
		dd[j], zz[j] = d[j]/scale, w[j]/scale
	}
	cs := c / scale
	if n == 1 {
		var roots [2]float64
		var t [4]float64
		arrow2(dd[0], zz[0], cs, roots[:], t[:])
		lambda = roots[i]
		delta[0] = (dd[0] - lambda) * scale
		return lambda * scale, 0, nil
	}
	wn := wnorm / scale
	eq := equation{d: dd, z: zz, a: -cs, b: 1, top: arrowTop(dd[n-1], cs, wn)}
	var m equation
	if i == 0 {
		eq.mirror(&m, make([]float64, n), make([]float64, n), arrowTop(-dd[0], -cs, wn))
	}
	lambda, o, tau, iterations, ok := solveOne(&eq, &m, true, i, delta[:n])
	eq.differences(o, tau, delta[:n])
	for j := range n {
		delta[j] *= scale
	}
	if !ok {
		return lambda * scale, iterations, fmt.Errorf("%w: root %d of %d after %d iterations", ErrNotConverged, i, n+1, iterations)
	}
	return lambda * scale, iterations, nil
}

// checkSingle validates the inputs of a single-root solve: strictly increasing finite
// poles, finite non-zero weights, and room for the differences.
func checkSingle(d, z, delta []float64, n int) error {
	if len(z) != n {
		return fmt.Errorf("%w: len(d) = %d, len(weights) = %d", ErrDimension, n, len(z))
	}
	if len(delta) < n {
		return fmt.Errorf("%w: len(delta) = %d < %d", ErrDimension, len(delta), n)
	}
	if err := checkPoles(d); err != nil {
		return err
	}
	for j := 1; j < n; j++ {
		if d[j] == d[j-1] {
			return fmt.Errorf("%w: d[%d] = d[%d] = %g; poles must be distinct", ErrNotSorted, j-1, j, d[j])
		}
	}
	if err := checkFinite("weights", z); err != nil {
		return err
	}
	for j, v := range z {
		if v == 0 {
			return fmt.Errorf("%w: weight %d is zero", ErrArgument, j)
		}
	}
	return nil
}

// RestrictRoot computes the i-th smallest eigenvalue (i = 0, …, n−2) of diag(d)
// restricted to the hyperplane orthogonal to z, the i-th root of
// h(μ) = Σⱼ zⱼ²/(dⱼ − μ) = 0, which lies between d[i] and d[i+1], and writes
// delta[j] = d[j] − μ. d must be strictly increasing and every zⱼ non-zero (apply
// deflation first otherwise; Solver.Restrict does); z may have any length. It
// allocates O(n) workspace; use a Solver to solve many roots.
func RestrictRoot(i int, d, z, delta []float64) (mu float64, iterations int, err error) {
	n := len(d)
	if err := checkSingle(d, z, delta, n); err != nil {
		return 0, 0, err
	}
	if i < 0 || i >= n-1 {
		return 0, 0, fmt.Errorf("%w: root index %d of %d", ErrArgument, i, n-1)
	}
	dd, zz := make([]float64, n), make([]float64, n)
	scale := restrictScale(d, z, dd, zz)
	if n == 2 {
		var roots [1]float64
		var t [2]float64
		d0, d1 := restrict2(dd, zz, roots[:], t[:])
		delta[0], delta[1] = d0*scale, d1*scale
		return roots[0] * scale, 0, nil
	}
	eq := equation{d: dd, z: zz}
	mu, o, tau, iterations, ok := solveOne(&eq, nil, false, i, delta[:n])
	eq.differences(o, tau, delta[:n])
	for j := range n {
		delta[j] *= scale
	}
	if !ok {
		return mu * scale, iterations, fmt.Errorf("%w: root %d of %d after %d iterations", ErrNotConverged, i, n-1, iterations)
	}
	return mu * scale, iterations, nil
}
