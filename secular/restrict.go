package secular

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/vec"
)

// Restrict computes the eigendecomposition of diag(d) restricted to the hyperplane
// orthogonal to z: the n−1 eigenpairs of P·diag(d)·P on z⊥, P = I − zzᵀ/‖z‖², for d
// sorted in ascending order (ties allowed) and any non-zero z. Its eigenvalues are the
// roots of
//
//	h(μ) = Σⱼ zⱼ²/(dⱼ − μ) = 0,
//
// which strictly interlace the poles after deflation, and its eigenvectors, orthogonal
// to z, are (D − μI)⁻¹z normalised: the limit ρ → ∞ of the rank-one problem
// D + ρzzᵀ (h = lim f/ρ) without its top eigenpair, which tends to z itself.
//
// Deleting row and column i of A = U·diag(d)·Uᵀ is the restriction with z = Uᵀeᵢ, the
// row i of U: the eigenvectors of the smaller matrix are the rows other than i of U
// times the vectors of the Result, whose row i vanishes (docs/design.md, "Removing a
// point"). The problem is invariant under scaling of z, so any normal of the hyperplane
// will do, of any length (a centred model's normal has ‖z‖² = 1 − 1/m).
//
// The Result has n−1 values and K = len(Keep)−1 secular roots, with Stride = len(Keep)
// (see Result). z = 0 (no hyperplane, and in particular n = 0) is reported as
// ErrArgument. On error the returned Result is nil and the Solver's Result is invalid
// until the next successful solve.
//
// # Deflation without ρ
//
// The rank-one rules (dlaed2) measure a weight by |ρzⱼ| against TOL = 64·ε·σ with σ the
// norm of the problem. For a restriction the norm is ‖D‖ = max|d| — z carries no
// magnitude — so TOL = 64·ε·max|d| here, and with ‖z‖ = 1:
//
//   - a weight deflates when |zⱼ| ≤ 64ε (the ρ → ∞ limit of the rank-one rule
//     |ρzⱼ| ≤ 64ε·max(|d|, |ρ|)). The pair (dⱼ, eⱼ) is an exact eigenpair of the
//     restriction to z̃⊥, z̃ = (z − zⱼeⱼ)/√(1 − zⱼ²). z̃ = Gz for the rotation G by the
//     angle θ = asin|zⱼ| in the plane of z and eⱼ, so the restriction of D to z̃⊥ is
//     similar to that of GᵀDG to z⊥: the deflated problem is the exact restriction of
//     D + E, E = GᵀDG − D = Gᵀ(D − σI)G − (D − σI) for any shift σ, and
//     ‖E‖₂ ≤ 2‖G − I‖₂·‖D‖₂ ≤ 2θ·max|d| ≈ 128ε·max|d| = 2·TOL. The entry of the
//     deflated eigenvector along the removed coordinate is zⱼ: at most 64ε;
//   - two close poles p < q rotate as for the rank-one problem, when the off-diagonal
//     element |(d_q − d_p)·c·s| neglected in the rotated basis is at most TOL. (The
//     ρ → ∞ limit of that rule would rotate every pair: its tolerance grows with
//     |ρ|‖z‖², the norm of D + ρzzᵀ, while the restriction's norm stays ‖D‖.)
//
// Both are backward errors O(ε·‖A‖), independent of the scales of z and d. There is no
// "negligible update": one dimension always goes, and since max|zⱼ| ≥ 1/√n ≫ 64ε at
// least one component stays in the secular problem. With k components left it has
// k−1 roots, one in each interval between consecutive poles and none outside.
func (s *Solver) Restrict(d, z []float64) (*Result, error) {
	n := len(d)
	if err := checkProblem(d, z, "z"); err != nil {
		return nil, err
	}
	if vec.MaxAbs(z) == 0 {
		return nil, fmt.Errorf("%w: z = 0 is normal to no hyperplane", ErrArgument)
	}
	s.grow(n, n)
	dd, zz := s.dd[:n], s.zz[:n]
	scale := restrictScale(d, z, dd, zz)
	dmax := vec.MaxAbs(dd)
	tol := 64 * vec.Roundoff * dmax
	// deflate compares |ρ·zⱼ| with tol: ρ = max|d| makes that |zⱼ| ≤ 64ε. With D = 0
	// the poles are all equal and rotate whatever the tolerance, and the weights are
	// compared with 64ε as always (ρ = 1): a rotation by a subnormal weight would not
	// be orthogonal.
	rho := dmax
	if dmax == 0 {
		rho, tol = 1, 64*vec.Roundoff
	}
	s.deflate(dd, zz, rho, tol)

	k := len(s.keep)
	if k == 0 {
		// Impossible for a finite non-zero z (see above); refuse rather than drop a
		// dimension silently.
		return nil, fmt.Errorf("%w: every weight deflated", ErrBreakdown)
	}
	K := k - 1
	kd, kz := s.gather(dd, zz)
	s.res.Stats = Stats{Size: n - 1, Deflated: n - k, Rotated: len(s.rots), Secular: K, Workers: 1}
	t := s.table(K, k)
	switch k {
	case 1:
		// All the weight on one (rotated) component: it is the one removed, and the
		// deflated pairs are the whole answer.
	case 2:
		restrict2(kd, kz, s.roots[:1], t)
	default:
		eq := &s.eq
		*eq = equation{d: kd, z: kz, limit: s.MaxIterations}
		if err := s.solveRoots(eq, t, k, restrictShape); err != nil {
			return nil, err
		}
		if err := s.vectors(eq, t, k, restrictShape); err != nil {
			return nil, err
		}
	}
	if err := s.finish(n, k, K, scale); err != nil {
		return nil, err
	}
	return &s.res, nil
}

// restrictScale writes the scaled poles d/σ and the unit weights z/‖z‖ into dd and zz
// and returns σ, the power of two that puts max|d| in [½, 1). z is first divided by a
// power of two near its largest entry, so that its norm neither overflows nor
// underflows and so that z and 2ᵉ·z give the same weights, bit for bit.
func restrictScale(d, z, dd, zz []float64) (scale float64) {
	scale = pow2Above(vec.MaxAbs(d))
	zs := pow2Above(vec.MaxAbs(z))
	for j := range d {
		dd[j] = d[j] / scale
		zz[j] = z[j] / zs
	}
	nrm := vec.Norm(zz)
	for j := range zz {
		zz[j] /= nrm
	}
	return scale
}

// restrict2 solves the restriction of diag(a, b), a < b, to the line orthogonal to
// (za, zb) in closed form: the eigenvector is (−zb, za)/‖z‖ and the eigenvalue its
// Rayleigh quotient (zb²·a + za²·b)/‖z‖², taken as an offset from the nearer pole so that
// it does not cancel: μ − a = za²·(b − a)/‖z‖² and b − μ = zb²·(b − a)/‖z‖². It
// returns the differences a − μ and b − μ, each accurate relative to itself.
func restrict2(d, z, roots, t []float64) (da, db float64) {
	a, b := d[0], d[1]
	za2, zb2 := z[0]*z[0], z[1]*z[1]
	ss := za2 + zb2
	gap := b - a
	if za2 <= zb2 {
		off := za2 / ss * gap
		roots[0] = a + off
		da, db = -off, gap-off
	} else {
		off := zb2 / ss * gap
		roots[0] = b - off
		da, db = off-gap, off
	}
	h := math.Hypot(z[0], z[1])
	t[0], t[1] = -z[1]/h, z[0]/h
	return da, db
}
