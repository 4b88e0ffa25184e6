package chinsuter

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/vec"
)

// compressed is the state a compression produces.
type compressed struct {
	pts, ka, alpha   dense
	sv, nu           []float64
	resComp, resMean float64
	orth             float64
}

// compress re-expresses the r components (α over the points of Ā, singular values sv)
// and the mean (ν) on at most (r+1)·n′ shared pre-images Z (Chin & Suter 2007, §IV):
//
//  1. Sequential shared pre-images. The mean first, then the components in order: each
//     vector v is projected onto span φ(Z) of the pre-images found so far, and up to n′
//     new pre-images are added for what is left, one at a time, each maximising
//     ⟨ψ, φ(z)⟩ for the current residual ψ (fixed-point iteration, preImage) and
//     re-projecting v after it joins — so a vector well described by earlier
//     pre-images adds none.
//  2. Second pass: every coefficient vector is re-fitted on the final set, the
//     feature-space least-squares solution b = K_Z⁻¹K_{ZĀ}a.
//  3. Kernel re-orthogonalisation: M_o = α′ᵀK_Zα′ = QDQᵀ, α_o = α′QD^{-½}. (Any
//     orthonormal basis of the span — Gram–Schmidt's "project, normalise" included —
//     leads to the same result after step 4.)
//  4. Singular values from the projection: S = α_oᵀK_{ZĀ}αΣ, the old scaled axes
//     UΣ seen in the new basis, = ŨS̃Ṽᵀ; the axes become α_oŨ with singular values
//     S̃, the best description of the data's variance within span φ(Z).
func (md *Model) compress(pts, mbar, alpha dense, sv, nu []float64, trace float64) (compressed, error) {
	r := alpha.c
	vectors := make([][]float64, r+1)
	vectors[0] = nu
	for j := range r {
		v := make([]float64, pts.r)
		for i := range pts.r {
			v[i] = alpha.at(i, j)
		}
		vectors[j+1] = v
	}
	norms := make([]float64, r+1)
	mv := make([]float64, pts.r)
	for j, a := range vectors {
		symv(mv, mbar, a)
		norms[j] = math.Sqrt(math.Max(vec.Dot(a, mv), 0))
	}
	z, err := md.sharedPreImages(pts, mbar, vectors, norms)
	if err != nil {
		return compressed{}, err
	}
	out, ac := refit(z, mbar, vectors, norms)
	ao, err := reorthogonalise(out.ka, ac)
	if err != nil {
		return compressed{}, err
	}

	// 4. Singular values from the projection of UΣ onto the new basis.
	us := alpha.cols(0, r)
	for i := range us.r {
		for k := range r {
			us.set(i, k, us.at(i, k)*sv[k])
		}
	}
	S := mul(ao, true, mul(z.cross(), false, us, false), false)
	sS, uS, err := leftSVD(S)
	if err != nil {
		return compressed{}, err
	}
	rNew := md.keep(sS, func(v float64) float64 { return v * v }, z.n, trace)
	out.alpha = mul(ao, false, uS.cols(0, rNew), false)
	out.sv = append([]float64(nil), sS[:rNew]...)
	if !finite(out.alpha.a) || !finite(out.nu) {
		return compressed{}, fmt.Errorf("%w: the compression produced non-finite coefficients", ErrNonFinite)
	}
	if out.orth, err = orthogonality(out.ka, out.alpha); err != nil {
		return compressed{}, err
	}
	return out, nil
}

// sharedPreImages is step 1 of compress: up to n′ pre-images for what span φ(Z) leaves
// of each vector (coefficients over the points pts of kernel matrix mbar, of
// feature-space norms norms), in order.
func (md *Model) sharedPreImages(pts, mbar dense, vectors [][]float64, norms []float64) (*basis, error) {
	cfg := md.opts.Compression
	pi := preImager{points: pts, mbar: mbar, sigma: md.sigma, maxIter: cfg.MaxIter, tol: cfg.Tol}
	if pi.maxIter == 0 {
		pi.maxIter = 100
	}
	if pi.tol == 0 {
		pi.tol = 1e-9
	}
	z := newBasis(md.d, len(vectors)*cfg.PreImages, pts, md.sigma)
	for j, a := range vectors {
		if norms[j] == 0 {
			continue
		}
		for range cfg.PreImages {
			b := z.project(a)
			zi, gain := pi.find(a, z, b)
			if !(math.Abs(gain) > 1e-10*norms[j]) {
				break // the residual is negligible or no pre-image improves on it
			}
			if !z.add(zi) {
				break // φ(z) is numerically in the span already
			}
		}
	}
	if z.n == 0 {
		// Every vector's norm is zero, or no pre-image improved on none: the search
		// failed, and the update is refused.
		return nil, fmt.Errorf("%w: the compression found no pre-image", ErrNotConverged)
	}
	return z, nil
}

// refit is step 2 of compress: every vector's coefficients on the final pre-images Z,
// and the relative residual of each. It returns the compressed state's points, kernel
// matrix, mean and residuals, and the components' coefficients α′ (|Z|×r).
func refit(z *basis, mbar dense, vectors [][]float64, norms []float64) (compressed, dense) {
	r := len(vectors) - 1
	coef := make([][]float64, r+1)
	res := make([]float64, r+1)
	mv := make([]float64, mbar.r)
	for j, a := range vectors {
		coef[j] = z.project(a)
		if norms[j] > 0 {
			// ‖v − φ(Z)b‖² = aᵀM̄a − 2bᵀK_{ZĀ}a + bᵀK_Zb.
			symv(mv, mbar, a)
			za := z.crossTimes(a)
			kb := z.kernelTimes(coef[j])
			e := vec.Dot(a, mv) - 2*vec.Dot(coef[j], za) + vec.Dot(coef[j], kb)
			res[j] = math.Sqrt(math.Max(e, 0)) / norms[j]
		}
	}
	out := compressed{pts: z.points(), ka: z.kernel(), nu: coef[0], resMean: res[0]}
	for _, e := range res[1:] {
		out.resComp = math.Max(out.resComp, e)
	}
	ac := newDense(z.n, r)
	for j := range r {
		for i := range z.n {
			ac.set(i, j, coef[j+1][i])
		}
	}
	return out, ac
}

// reorthogonalise is step 3 of compress: M_o = α′ᵀK_Zα′ = QDQᵀ, α_o = α′QD^{-½}, over
// the eigenvalues of M_o above rounding.
func reorthogonalise(kz, ac dense) (dense, error) {
	nz := ac.r
	mo := mul(ac, true, mul(kz, false, ac, false), false)
	symmetrise(mo)
	d, q, err := eigSym(mo)
	if err != nil {
		return dense{}, kinds.Wrap(err, "the re-orthogonalisation")
	}
	ro := 0
	for _, v := range d {
		if !(v > float64(max(nz, 1))*0x1p-52*d[0]) {
			break
		}
		ro++
	}
	qd := q.cols(0, ro)
	for i := range qd.r {
		for k := range ro {
			qd.set(i, k, qd.at(i, k)/math.Sqrt(d[k]))
		}
	}
	return mul(ac, false, qd, false), nil
}

// compressInPlace compresses the current state (used when the initial batch is already
// larger than the budget).
func (md *Model) compressInPlace() error {
	cs, err := md.compress(md.pts, md.ka, md.alpha, md.sv, md.nu, md.trace)
	if err != nil {
		return err
	}
	md.commit(cs.pts, cs.ka, cs.alpha, cs.sv, cs.nu)
	md.stats.Compressed = true
	md.stats.Expansion, md.stats.Components, md.stats.PreImages = cs.pts.r, len(cs.sv), cs.pts.r
	md.stats.ResidualComponents, md.stats.ResidualMean, md.stats.Orthogonality = cs.resComp, cs.resMean, cs.orth
	return nil
}

// symv computes dst = s·x for a square s.
func symv(dst []float64, s dense, x []float64) {
	for i := range s.r {
		dst[i] = vec.Dot(s.row(i), x)
	}
}
