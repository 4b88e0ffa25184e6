package kaf

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

// SPEEDOptions configure a SPEED feature map: exactly one of Components and Cutoff is
// set.
type SPEEDOptions struct {
	// Components is the number m of eigenfunctions kept (at most the size n of the
	// dictionary, and only those of positive eigenvalue). If zero, the eigenfunctions of
	// all eigenvalues at least Cutoff·λ₁ are kept, Cutoff in (0, 1].
	Components int
	Cutoff     float64
	// Centred uses the mean-adjusted Gram matrix (as kernel PCA does); the default is
	// the uncentred one, as in Li & Príncipe.
	Centred bool
}

// SPEED is the spectral eigenfunction feature map of Li & Príncipe ("Spectral
// Eigenfunction Decomposition for Kernel Adaptive Filtering"): from a dictionary X of n
// samples with Gram matrix K = VΛVᵀ, the top m eigenpairs give the explicit map
//
//	φ̃(x) = Ψ·k(X, x),  Ψ = Λ_m^{-½}·V_mᵀ  (m×n)
//
// whose inner products approximate the kernel, φ̃(x)ᵀφ̃(y) ≈ k(x, y) (exactly on the
// dictionary when m = n). Centred, k(X, x) is replaced by k(X, x) − K1/n, since V ⊥ 1
// (docs/design.md, "Projection of new points"). Grow adds a sample to the dictionary by
// one exact bordered eigen-update (package kpca, update.Sym.Border) instead of a batch
// recompute: iSPEED.
// Map does not allocate. Not safe for concurrent use.
type SPEED struct {
	opts  SPEEDOptions
	model *kpca.Model
	kern  kernel.Kernel
	d, m  int
	psi   *mat.Dense // m×n
	vals  []float64  // top m eigenvalues
	dict  mat.Dense  // n×d
	mean  []float64  // K1/n (centred)
	col   []float64
}

// NewSPEED computes the map of the dictionary X (its rows) for kernel k. Options that
// set neither or both of Components and Cutoff, a negative Components, a Cutoff outside
// (0, 1], a kernel that kernel.Validate refuses, a nil X, and a dictionary whose Gram
// matrix has no positive eigenvalue are ErrArgument; an X without rows ErrEmpty, with a
// NaN or infinite entry (or kernel value) ErrNonFinite; the eigensolver failing
// ErrNotConverged (the errors of kpca.Fit, wrapped).
func NewSPEED(k kernel.Kernel, X mat.Matrix, opts SPEEDOptions) (*SPEED, error) {
	switch c := opts.Cutoff; {
	case opts.Components < 0 || !(c >= 0 && c <= 1):
		return nil, fmt.Errorf("%w: SPEED Components %d, Cutoff %v: want Components ≥ 1 or 0 < Cutoff ≤ 1", ErrArgument, opts.Components, c)
	case (opts.Components == 0) == (c == 0):
		return nil, fmt.Errorf("%w: SPEED Components %d, Cutoff %v: set exactly one", ErrArgument, opts.Components, c)
	}
	// kpca.Fit takes kernel.Precomputed (a kernel matrix for X), which SPEED cannot:
	// its map evaluates the kernel on new inputs.
	if err := kinds.Kernel(kernel.Validate(k)); err != nil {
		return nil, err
	}
	md, err := kpca.Fit(k, X, kpca.Options{Components: kpca.All, Uncentred: !opts.Centred})
	if err != nil {
		return nil, kinds.WrapOr(ErrArgument, err, "SPEED's dictionary")
	}
	s := &SPEED{opts: opts, model: md, kern: k, d: md.Dim()} // X.Dims() again could differ (kinds.Matrix)
	if err := s.refresh(); err != nil {
		return nil, err
	}
	return s, nil
}

// refresh recomputes Ψ, the dictionary view and the centring vector from the model.
func (s *SPEED) refresh() error {
	vals := s.model.Values(nil)
	m := s.opts.Components
	if m == 0 {
		for m < len(vals) && vals[m] >= s.opts.Cutoff*vals[0] {
			m++
		}
	}
	m = min(m, len(vals))
	for m > 0 && !(vals[m-1] > 0) {
		m-- // eigenfunctions of zero eigenvalues do not exist
	}
	if m == 0 {
		return fmt.Errorf("%w: SPEED: the dictionary's Gram matrix has no positive eigenvalue", ErrArgument)
	}
	var v mat.Dense
	s.model.VectorsTo(&v) // n×Components, descending
	n, _ := v.Dims()
	if s.psi == nil || s.psi.RawMatrix().Rows != m || s.psi.RawMatrix().Cols != n {
		s.psi = mat.NewDense(m, n, nil)
	}
	for j := range m {
		c := 1 / math.Sqrt(vals[j])
		for i := range n {
			s.psi.Set(j, i, c*v.At(i, j))
		}
	}
	s.m = m
	s.vals = append(s.vals[:0], vals[:m]...)
	s.dict.Reset()
	s.model.Points(&s.dict)
	s.col = make([]float64, n)
	if s.opts.Centred {
		// K1/n from the stored points (O(n²·d), as often as the dictionary grows).
		s.mean = make([]float64, n)
		for i := range n {
			kernel.Column(s.col, s.kern, &s.dict, s.dict.RawRowView(i))
			for l, v := range s.col {
				s.mean[l] += v / float64(n)
			}
		}
	}
	return nil
}

// InDim returns the dimension of the inputs.
func (s *SPEED) InDim() int { return s.d }

// OutDim returns the number m of eigenfunctions.
func (s *SPEED) OutDim() int { return s.m }

// Len returns the size n of the dictionary.
func (s *SPEED) Len() int {
	if s.model == nil {
		return 0
	}
	return s.model.Len()
}

// Values returns the m eigenvalues kept, descending.
func (s *SPEED) Values(dst []float64) []float64 { return append(dst[:0], s.vals...) }

// Basis copies Ψ (m×n) into dst, gonum's VectorsTo rule: an empty dst is resized, and
// a non-empty dst of another shape is a programming error that panics with
// mat.ErrShape. A zero SPEED has no basis, and leaves dst as it is.
func (s *SPEED) Basis(dst *mat.Dense) {
	if s.psi == nil {
		return
	}
	m, n := s.psi.Dims()
	if check.Vectors(dst, m, n) {
		dst.Copy(s.psi)
	}
}

// Map writes φ̃(x) to dst (length m): dst of another length than OutDim or x of
// another dimension than InDim is ErrDimension, a NaN or infinite coordinate, or a
// feature that overflows, ErrNonFinite (dst then holds what was computed). It does not
// allocate.
func (s *SPEED) Map(dst, x []float64) error {
	if s.model == nil {
		return zeroFilter("SPEED")
	}
	if len(dst) != s.m {
		return fmt.Errorf("%w: destination length %d, want %d", ErrDimension, len(dst), s.m)
	}
	if err := checkSample(x, s.d, 0); err != nil {
		return err
	}
	kernel.Column(s.col, s.kern, &s.dict, x)
	if s.opts.Centred {
		for i, v := range s.mean {
			s.col[i] -= v
		}
	}
	native.Gemv(blas.NoTrans, 1, s.psi.RawMatrix(), blas64.Vector{N: len(s.col), Inc: 1, Data: s.col},
		0, blas64.Vector{N: s.m, Inc: 1, Data: dst})
	if !vec.Finite(dst) {
		return fmt.Errorf("%w: the features of the input overflow", ErrNonFinite)
	}
	return nil
}

// Grow adds x to the dictionary by one bordered eigen-update and recomputes Ψ (with
// Components fixed, m stays; with a Cutoff it may change). If w is not nil it holds the
// weights of a linear filter on the old features, and is replaced by the weights that
// carry the filter into the new basis (see Transfer); its length may change with m.
// x of another dimension than InDim or *w of another length than OutDim is
// ErrDimension, a NaN or infinite coordinate or weight (or a kernel value, or
// transferred weights that overflow) ErrNonFinite, the eigen-update failing
// ErrNotConverged. On error the map and w are unchanged.
func (s *SPEED) Grow(x []float64, w *[]float64) error {
	if s.model == nil {
		return zeroFilter("SPEED")
	}
	if err := checkSample(x, s.d, 0); err != nil {
		return err
	}
	var coef []float64
	if w != nil {
		if len(*w) != s.m {
			return fmt.Errorf("%w: %d weights for %d features", ErrDimension, len(*w), s.m)
		}
		if !vec.Finite(*w) {
			return fmt.Errorf("%w: a weight is not finite", ErrNonFinite)
		}
		coef = expansion(s.psi, *w)
	}
	undo, err := s.grow(x)
	if err != nil {
		return err
	}
	if w != nil {
		out, err := s.Transfer(append(coef, 0))
		if err != nil {
			undo()
			return err
		}
		*w = out
	}
	return nil
}

// grow adds x, a checked input, to the dictionary by one bordered eigen-update and
// recomputes the map. On error the map is as it was; on success grow returns a function
// that restores the map as it was before, for a caller that fails later.
func (s *SPEED) grow(x []float64) (undo func(), err error) {
	backup := new(kpca.Model)
	backup.CopyFrom(s.model)
	undo = func() {
		s.model.CopyFrom(backup)
		// The map of a model refresh accepted before, recomputed bit for bit: refresh
		// is a function of the model.
		_ = s.refresh()
	}
	if err := s.model.Add(x); err != nil {
		return nil, kinds.WrapOr(ErrArgument, err, "adding the input to SPEED's dictionary")
	}
	if err := s.refresh(); err != nil {
		undo()
		return nil, err
	}
	return undo, nil
}

// expansion returns the coefficients c = Ψᵀw of the function wᵀφ̃ of a map of basis Ψ
// as a kernel expansion over its dictionary: wᵀφ̃(x) = cᵀk(X, x) (centred:
// cᵀ(k(X, x) − K1/n)).
func expansion(psi *mat.Dense, w []float64) []float64 {
	_, n := psi.Dims()
	c := make([]float64, n)
	native.Gemv(blas.Trans, 1, psi.RawMatrix(), blas64.Vector{N: len(w), Inc: 1, Data: w},
		0, blas64.Vector{N: n, Inc: 1, Data: c})
	return c
}

// Transfer returns the weights w′ on the current features that best represent the
// kernel expansion with coefficients c over the current dictionary (for a dictionary
// that just grew, the old expansion with a zero for the new sample): the least-squares
// solution of Ψᵀw′ ≈ c, which is w′ = (ΨΨᵀ)⁻¹Ψc = Λ^{½}·V_mᵀ·c since ΨΨᵀ = Λ⁻¹. The
// function it represents is the projection of c onto the kept eigenvectors, so the
// transfer is exact when m = n and otherwise drops only the part of the old function
// along the discarded eigenfunctions (Li & Príncipe's change of basis, in its
// least-squares form).
//
// Centred, the old expansion is measured against the old mean K1/n, which the new sample
// moves; the transferred function then differs from the old one by that shift as well.
//
// c of another length than Len is ErrDimension, a NaN or infinite coefficient or
// weights that overflow ErrNonFinite.
func (s *SPEED) Transfer(c []float64) ([]float64, error) {
	if s.model == nil {
		return nil, zeroFilter("SPEED")
	}
	if _, n := s.psi.Dims(); len(c) != n {
		return nil, fmt.Errorf("%w: %d coefficients for a dictionary of %d", ErrDimension, len(c), n)
	}
	if !vec.Finite(c) {
		return nil, fmt.Errorf("%w: a coefficient is not finite", ErrNonFinite)
	}
	out := make([]float64, s.m)
	// Λ^{½}V_mᵀ = Λ·Ψ.
	native.Gemv(blas.NoTrans, 1, s.psi.RawMatrix(), blas64.Vector{N: len(c), Inc: 1, Data: c},
		0, blas64.Vector{N: s.m, Inc: 1, Data: out})
	for j := range out {
		out[j] *= s.vals[j]
	}
	if !vec.Finite(out) {
		return nil, fmt.Errorf("%w: the transferred weights overflow", ErrNonFinite)
	}
	return out, nil
}
