package chinsuter

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/kernel"
)

// Options configure a Model. The zero value is the exact form: every component whose
// singular value is not numerically zero is kept and nothing is compressed. There is no
// Uncentred option: Chin and Suter's algorithm centres by construction, its shifting
// mean updated with every chunk (Centred reports true).
type Options struct {
	// Components is r, the largest number of components kept after an update; zero
	// keeps all of them (the exact form, whose eigenvalues and subspace equal batch
	// kernel PCA's). A cap makes the update Lim et al.'s truncated one, an
	// approximation whenever a dropped component would later have grown.
	Components int
	// Compression, if not nil, bounds the memory with reduced-set compression
	// (Gaussian kernel only; Components must then be positive).
	Compression *Compression
}

// Compression configures the reduced-set compression of Chin and Suter: after an update
// whose expansion holds more than (Components+1)·PreImages points, the components and
// the mean are re-expressed on at most that many pre-images.
type Compression struct {
	// PreImages is n′, the number of pre-images found for each of the r components
	// and the mean (≥ 1). Vectors share them, so fewer may be needed.
	PreImages int
	// MaxIter caps the fixed-point iterations of one pre-image; zero means 100.
	MaxIter int
	// Tol is the fixed-point convergence tolerance on ‖Δz‖ relative to σ; zero
	// means 1e-9.
	Tol float64
}

// Model is Chin and Suter's incremental kernel PCA with a shifting mean: the principal
// axes in feature space are expansions φ(A)·α over a set A of points (every point seen,
// or pre-images when compressed), the mean is φ(A)·ν, and the singular values Σ of the
// centred data in feature space are kept, so that Σ² are the eigenvalues of the
// centred kernel matrix. Create one with Fit (the batch fit of a first set of points)
// or New (empty); save and restore it with MarshalBinary and UnmarshalBinary, or
// MarshalBinaryTo and UnmarshalBinaryFrom on a stream. A Model must not be used by
// several goroutines at once.
type Model struct {
	kern  kernel.Kernel
	opts  Options
	sigma float64 // the RBF bandwidth, when compressing
	d     int
	n     int     // points seen
	trace float64 // Σ k(x, x) over the points seen: the trace of K, ≥ ‖K‖₂

	pts    dense     // N×d: the expansion points A
	ka     dense     // N×N: the kernel matrix of A
	alpha  dense     // N×r: the components' coefficients
	sv     []float64 // r singular values, descending
	nu     []float64 // N: the mean's coefficients
	offset []float64 // r: αᵀKν, the projection of the mean onto each axis
	// signs are the components' sign factors (package sign), computed when first read
	// after an update (signFactors); signed tells whether they are current.
	signs  []float64
	signed bool

	stats Stats
}

// Model is an ikpca.Incremental and an ikpca.Persistent.
var _ ikpca.Incremental = (*Model)(nil)
var _ ikpca.Persistent = (*Model)(nil)

// Stats describes the last update.
type Stats struct {
	// Points is the number of points seen; Expansion the number of points in A.
	Points, Expansion int
	// Components is r after the update.
	Components int
	// NewDirections is the rank kept of H, the part of the new data orthogonal to
	// the current basis (at most the chunk size c; H has c+1 columns).
	NewDirections int
	// Compressed reports whether the update ended with a compression; the fields
	// below describe it.
	Compressed bool
	// PreImages is the number of pre-images in the compressed expansion.
	PreImages int
	// ResidualComponents and ResidualMean are the largest relative feature-space
	// error ‖v − v′‖/‖v‖ over the components, and that of the mean, after the
	// second pass re-fitted the coefficients.
	ResidualComponents, ResidualMean float64
	// Orthogonality is ‖α′ᵀK′α′ − I‖₂ of the compressed, re-orthogonalised basis.
	Orthogonality float64
}

// Fit returns the model of the rows of X (at least one point, dimension d ≥ 1) by a
// batch kernel PCA — the batch fit: the eigendecomposition of the centred kernel matrix
// K' = CKC gives the axes φ(X)·u/√λ and the singular values √λ. Later points are added
// with Add and AddBatch. With -tags openblas every product runs on OpenBLAS without a
// call to native.Use (see the package documentation).
//
// A nil or invalid kernel (kernel.Validate) and impossible options — a negative cap, a
// compression without one or of another kernel than RBF, a compression's PreImages
// below 1, a negative MaxIter, a negative, NaN or infinite Tol, (r+1)·n′ pre-images
// whose kernel matrix would hold more than 2³⁰ numbers — are errors wrapping
// ErrArgument, and so is a nil X; an X without rows or columns wraps ErrEmpty, a NaN or
// infinite entry or kernel value ErrNonFinite, and an eigensolver that does not
// converge ErrNotConverged.
func Fit(k kernel.Kernel, X mat.Matrix, opts Options) (*Model, error) {
	md, err := newModel(k, opts)
	if err != nil {
		return nil, err
	}
	X, _, d, err := kinds.Data(X)
	if err != nil {
		return nil, err
	}
	md.d = d
	if err := md.start(md.points(X)); err != nil {
		return nil, err
	}
	return md, nil
}

// New returns an empty model of points of dimension d ≥ 1, fed by Add and AddBatch.
// The algorithm starts from no points: the first chunk's update, with no axes and no
// mean to shift, is the batch kernel PCA of the chunk itself (the first Add gives a
// model of one point and no component, as Fit of that point does), so that New(k, d,
// opts) followed by AddBatch(X) is Fit(k, X, opts) up to rounding. A d below 1 or
// beyond 2³⁰ (a point no array can hold, docs/design.md, "Sizes") is an error wrapping
// ErrArgument; the kernel and the options are checked as by Fit.
func New(k kernel.Kernel, d int, opts Options) (*Model, error) {
	md, err := newModel(k, opts)
	if err != nil {
		return nil, err
	}
	if err := kinds.Dim(d); err != nil {
		return nil, err
	}
	md.d = d
	md.commit(newDense(0, d), newDense(0, 0), newDense(0, 0), nil, nil)
	return md, nil
}

// newModel returns a model of the kernel and options, checked, without points or
// dimension.
func newModel(k kernel.Kernel, opts Options) (*Model, error) {
	sigma, err := checkOptions(k, opts)
	if err != nil {
		return nil, err
	}
	md := &Model{kern: k, opts: opts, sigma: sigma}
	if c := opts.Compression; c != nil {
		cc := *c
		md.opts.Compression = &cc
	}
	return md, nil
}

// checkOptions reports a nil or invalid kernel and impossible options (ErrArgument),
// and returns the RBF bandwidth a compression uses (zero without compression).
func checkOptions(k kernel.Kernel, opts Options) (float64, error) {
	if err := kinds.Kernel(kernel.Validate(k)); err != nil {
		return 0, err
	}
	if opts.Components < 0 {
		return 0, fmt.Errorf("%w: %d components", ErrArgument, opts.Components)
	}
	c := opts.Compression
	if c == nil {
		return 0, nil
	}
	sigma, ok := rbfSigma(k)
	if !ok {
		return 0, fmt.Errorf("%w: reduced-set compression needs the Gaussian (RBF) kernel, not %v", ErrArgument, k)
	}
	if opts.Components < 1 {
		return 0, fmt.Errorf("%w: compression needs a component cap, Components ≥ 1", ErrArgument)
	}
	if c.PreImages < 1 || c.MaxIter < 0 || !(c.Tol >= 0) || math.IsInf(c.Tol, 0) {
		return 0, fmt.Errorf("%w: compression %+v (want PreImages ≥ 1, MaxIter ≥ 0, finite Tol ≥ 0)", ErrArgument, *c)
	}
	// A compression finds up to N = (r+1)·n′ pre-images and factors their N×N kernel
	// matrix: N² must be allocatable (docs/design.md, "Sizes").
	if opts.Components >= check.MaxFloats || c.PreImages >= check.MaxFloats {
		return 0, fmt.Errorf("%w: compression of %d components to %d pre-images each: too many pre-images", ErrArgument, opts.Components, c.PreImages)
	}
	N, err := kinds.Floats("the pre-images (r+1)·n′", opts.Components+1, c.PreImages)
	if err == nil {
		_, err = kinds.Floats("the pre-images' kernel matrix", N, N)
	}
	if err != nil {
		return 0, err
	}
	return sigma, nil
}

// rbfSigma reports the bandwidth of a Gaussian kernel: σ, or 1/√(2γ) for a kernel given
// by γ = 1/(2σ²). The pre-images' kernel RBF{Sigma: σ} then differs from such a kernel
// by the rounding of σ, a few ulps of each value, far below the compression's own
// tolerances.
func rbfSigma(k kernel.Kernel) (float64, bool) {
	var r kernel.RBF
	switch k := k.(type) {
	case kernel.RBF:
		r = k
	case *kernel.RBF:
		r = *k
	default:
		return 0, false
	}
	if r.Gamma != 0 {
		return 1 / math.Sqrt(2*r.Gamma), true
	}
	return r.Sigma, true
}

// points copies the rows of X, which the caller has checked.
func (md *Model) points(X mat.Matrix) dense {
	rows, c := X.Dims()
	p := newDense(rows, c)
	for i := range rows {
		for j := range c {
			p.set(i, j, X.At(i, j))
		}
	}
	return p
}

// start runs the batch kernel PCA of the initial points.
func (md *Model) start(pts dense) error {
	n := pts.r
	ka, err := md.cross(pts, pts)
	if err != nil {
		return err
	}
	symmetrise(ka)
	// K' = CKC with C = I − 11ᵀ/n.
	c := kernel.Centre(mat.NewSymDense(n, ka.a))
	kc := newDense(n, n)
	for i := range n {
		for j := range n {
			kc.set(i, j, c.At(i, j))
		}
	}
	fn := float64(n)
	vals, vecs, err := eigSym(kc)
	if err != nil {
		return kinds.Wrap(err, "the initial eigendecomposition")
	}
	for i := range n {
		md.trace += ka.at(i, i)
	}
	r := md.keep(vals, func(v float64) float64 { return v }, n, md.trace)
	alpha := newDense(n, r)
	sv := make([]float64, r)
	for j := range r {
		sv[j] = math.Sqrt(vals[j])
		// α = Cu/√λ: u ⊥ 1 in exact arithmetic; centring removes the rounding.
		var mean float64
		for i := range n {
			mean += vecs.at(i, j)
		}
		mean /= fn
		for i := range n {
			alpha.set(i, j, (vecs.at(i, j)-mean)/sv[j])
		}
	}
	nu := make([]float64, n)
	for i := range nu {
		nu[i] = 1 / fn
	}
	md.n = n
	md.commit(pts, ka, alpha, sv, nu)
	md.stats = Stats{Points: n, Expansion: n, Components: r}
	if md.opts.Compression != nil && n > md.budget() {
		return md.compressInPlace()
	}
	return nil
}

// keep returns how many of the descending values are kept: those whose eigenvalue
// (value(v)) exceeds m·ε·max(λmax, tr K) — the numerical-zero rule of the kpca package,
// measured against the uncentred kernel matrix K since centring K' = CKC cancels
// entries of K's size, and below which batch kernel PCA resolves nothing either —
// capped at Components.
func (md *Model) keep(vals []float64, value func(float64) float64, m int, trace float64) int {
	if len(vals) == 0 {
		return 0
	}
	tol := md.zeroLevel(value(vals[0]), m, trace)
	r := 0
	for _, v := range vals {
		if !(value(v) > tol) {
			break
		}
		r++
	}
	if c := md.opts.Components; c > 0 {
		r = min(r, c)
	}
	return r
}

// zeroLevel is the eigenvalue below which a component is numerically zero:
// m·ε·max(λmax, tr K).
func (md *Model) zeroLevel(lmax float64, m int, trace float64) float64 {
	return float64(max(m, 1)) * 0x1p-52 * math.Max(lmax, trace)
}

// budget is the expansion size that triggers a compression: (r+1)·n′.
func (md *Model) budget() int {
	return (md.opts.Components + 1) * md.opts.Compression.PreImages
}

// commit installs a new state and recomputes the mean's projections αᵀKν (O(N² + Nr)).
func (md *Model) commit(pts, ka, alpha dense, sv, nu []float64) {
	md.pts, md.ka, md.alpha, md.sv, md.nu = pts, ka, alpha, sv, nu
	md.signs, md.signed = make([]float64, alpha.c), false
	kn := make([]float64, ka.r)
	for i := range ka.r {
		var s float64
		for j, v := range ka.row(i) {
			s += v * nu[j]
		}
		kn[i] = s
	}
	md.offset = make([]float64, alpha.c)
	for i := range alpha.r {
		for j, a := range alpha.row(i) {
			md.offset[j] += a * kn[i]
		}
	}
}

// cross returns the kernel matrix k(a_i, b_j) of the rows of a and b, or an error if a
// kernel value is not finite (a polynomial kernel that overflows).
func (md *Model) cross(a, b dense) (dense, error) {
	out := newDense(a.r, b.r)
	if a.r == 0 || b.r == 0 {
		return out, nil
	}
	view := mat.NewDense(a.r, a.c, a.a)
	col := make([]float64, a.r)
	for j := range b.r {
		kernel.Column(col, md.kern, view, b.row(j))
		for i, v := range col {
			out.set(i, j, v)
		}
	}
	if !finite(out.a) {
		return dense{}, fmt.Errorf("%w: a kernel value overflowed", ErrNonFinite)
	}
	return out, nil
}

// Len returns the number of points seen.
func (md *Model) Len() int { return md.n }

// Dim returns the dimension of the points.
func (md *Model) Dim() int { return md.d }

// Components returns r, the number of components held.
func (md *Model) Components() int { return len(md.sv) }

// Expansion returns the number of points in the expansion A: every point seen in the
// exact form, at most (r+1)·n′ pre-images between updates when compressed.
func (md *Model) Expansion() int { return md.pts.r }

// Kernel returns the model's kernel.
func (md *Model) Kernel() kernel.Kernel { return md.kern }

// Options returns the options the model was created with.
func (md *Model) Options() Options { return md.opts }

// Stats returns the statistics of the last update (or of Fit; zero for a model made by
// New before its first point).
func (md *Model) Stats() Stats { return md.stats }

// SingularValues returns Σ, the singular values of the centred data in feature space,
// descending. If len(dst) ≥ Components() they are written to dst[:Components()], which
// is returned; otherwise a new slice is allocated (the rule of ikpca.Model.Values).
func (md *Model) SingularValues(dst []float64) []float64 {
	dst = check.Room(dst, len(md.sv))
	copy(dst, md.sv)
	return dst
}

// Values returns Σ², the eigenvalues of the centred kernel matrix K' = CKC (not divided
// by the number of points, like kpca.Model.Values), descending. dst follows the rules
// of SingularValues.
func (md *Model) Values(dst []float64) []float64 {
	dst = md.SingularValues(dst)
	for i, s := range dst {
		dst[i] = s * s
	}
	return dst
}

// signFactors returns the sign factor (package sign) of each component: that of its
// scores on the expansion points, K_A·αⱼ − αⱼᵀK_Aν, which in the exact form (A every
// point seen) are the training scores, so that the signs are those of kpca.Model and
// of batch kernel PCA. They are computed when first read after an update, O(N²r), and
// kept.
func (md *Model) signFactors() []float64 {
	if md.signed {
		return md.signs
	}
	N, r := md.alpha.r, md.alpha.c
	if r > 0 {
		s := mul(md.ka, false, md.alpha, false) // N×r
		col := make([]float64, N)
		for j := range r {
			for i := range N {
				col[i] = s.at(i, j) - md.offset[j]
			}
			md.signs[j] = sign.Of(col)
		}
	}
	md.signed = true
	return md.signs
}

// VectorsTo stores the components' coefficients α over the expansion points A (N×r,
// Expansion() by Components()) as the columns of dst, in the order of Values: component
// j is the unit feature-space direction Σᵢ αᵢⱼ·φ(Aᵢ). dst follows the rule for
// destinations of package ikpca: written in place if of that shape, resized if empty, replaced by
// a new matrix otherwise. Each column's sign is fixed
// so that the component's scores on the expansion points have their largest-magnitude
// entry positive — in the exact form the training scores, as kpca.Model fixes them
// (package sign, docs/design.md, "Signs").
func (md *Model) VectorsTo(dst *mat.Dense) {
	N, r := md.alpha.r, md.alpha.c
	if !check.Vectors(dst, N, r) {
		return
	}
	signs := md.signFactors()
	for i := range N {
		for j, a := range md.alpha.row(i) {
			dst.Set(i, j, signs[j]*a)
		}
	}
}

// Transform writes to dst the projections of the rows of X onto the top k unit axes,
// score_j(x) = ⟨v_j, φ(x) − μ⟩ = α_jᵀk_A(x) − α_jᵀKν with α_j signed as by VectorsTo, the
// same quantity as kpca.Model.Transform. dst is resized if empty, otherwise it must be
// rows×k. Errors are those of ikpca.Model.Transform, and leave dst unchanged.
func (md *Model) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if md.kern == nil {
		return errZero
	}
	X, rows, err := kinds.Transform(dst, X, md.d, k, len(md.sv))
	if err != nil {
		return err
	}
	kx, err := md.cross(md.points(X), md.pts) // rows×N
	if err != nil {
		return err
	}
	s := mul(kx, false, md.alpha.cols(0, k), false)
	signs := md.signFactors()
	check.Reuse(dst, rows, k)
	for i := range rows {
		for j := range k {
			dst.Set(i, j, signs[j]*(s.at(i, j)-md.offset[j]))
		}
	}
	return nil
}

// Orthogonality returns ‖αᵀKα − I‖₂, how far the stored axes are from orthonormal in
// feature space (O(N²r)). Rounding makes it grow slowly in the exact form; the
// compressed form re-orthogonalises after each compression. Its only error is an
// eigensolver that does not converge (ErrNotConverged).
func (md *Model) Orthogonality() (float64, error) {
	return orthogonality(md.ka, md.alpha)
}

// orthogonality returns ‖αᵀKα − I‖₂.
func orthogonality(k, alpha dense) (float64, error) {
	g := mul(alpha, true, mul(k, false, alpha, false), false)
	for i := range g.r {
		g.set(i, i, g.at(i, i)-1)
	}
	symmetrise(g)
	return spectralNormSym(g)
}

// Expansions returns copies of the expansion: the points A (N×d), the components'
// coefficients α (N×r, nil if r = 0; signed as by VectorsTo) and the mean's ν, so that
// axis j is Σᵢ α_ij φ(Aᵢ) and the mean Σᵢ νᵢ φ(Aᵢ). A model without points (New) has
// no expansion: all three are nil.
func (md *Model) Expansions() (points, alpha *mat.Dense, nu []float64) {
	if md.pts.r == 0 {
		return nil, nil, nil
	}
	points = mat.NewDense(md.pts.r, md.pts.c, append([]float64(nil), md.pts.a...))
	if md.alpha.c > 0 {
		alpha = &mat.Dense{}
		md.VectorsTo(alpha)
	}
	return points, alpha, append([]float64(nil), md.nu...)
}

// Bytes returns the memory the model holds: the points, their kernel matrix, the
// coefficients and the singular values.
func (md *Model) Bytes() int {
	return 8 * (len(md.pts.a) + len(md.ka.a) + len(md.alpha.a) + len(md.sv) + len(md.nu) + len(md.offset) + len(md.signs))
}

// Centred reports true: Chin and Suter's algorithm keeps the decomposition of the
// mean-adjusted kernel matrix, shifting the mean as points arrive; it has no uncentred
// form, and Options no Uncentred.
func (md *Model) Centred() bool { return true }
