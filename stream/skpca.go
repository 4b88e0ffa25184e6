package stream

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/sketch"
)

// SKPCAOptions configure streaming kernel PCA. The kernel, a kernel.RBF that gives the
// bandwidth, is NewSKPCA's first argument.
type SKPCAOptions struct {
	// Features is the number D of random Fourier features; Form and Seed describe them
	// (features.RFFOptions).
	Features int
	Form     features.Form
	Seed     uint64
	// Sketch is ℓ, the number of rows of the Frequent Directions sketch (the number of
	// components kept); Buffer its buffer (0: 2ℓ, see sketch.Options).
	Sketch int
	Buffer int
	// Uncentred sketches the features as they are, the model of the paper: its
	// eigenvalues estimate those of ZZᵀ ≈ G. By default the model centres in feature
	// space, estimating those of the centred (HZ)(HZ)ᵀ ≈ HGH, H = I − 11ᵀ/n.
	Uncentred bool
}

// SKPCA is streaming kernel PCA (Ghashami, Perry & Phillips 2016): each point x is
// mapped to z(x) ∈ Rᴰ by random Fourier features of a Gaussian kernel and z(x) is fed
// to a Frequent Directions sketch B (at most ℓ rows of D). With Z the n×D matrix of the
// features seen, the sketch certifies 0 ⪯ ZᵀZ − BᵀB ⪯ Δ·I, Δ its ErrorBound, Δ ≤
// ‖Z‖_F²/(ℓ+1) = n/(ℓ+1) in the cos-sin form (‖z‖ = 1).
//
// Uncentred (SKPCAOptions.Uncentred, the paper's model), the components are the
// sketch's right singular vectors W and the eigenvalues its squared singular values:
// the kernel matrix G is approximated by G̃ = Z·WᵀW·Zᵀ, and
//
//	‖G − G̃‖₂ ≤ ‖G − ZZᵀ‖₂ + ‖Z(I − WᵀW)Zᵀ‖₂ ≤ ‖G − ZZᵀ‖₂ + Δ,
//
// the first term the feature map's error, O(n/√D).
//
// Centred (the default), the model also keeps n and Σz exactly as summed, so z̄ = Σz/n,
// and its components are the top eigenvectors of C̃ = BᵀB − n·z̄z̄ᵀ, the sketch's
// estimate of the covariance C = Σ(z − z̄)(z − z̄)ᵀ = ZᵀZ − n·z̄z̄ᵀ, whose eigenvalues are
// those of the centred (HZ)(HZ)ᵀ. The mean term is exact, so C − C̃ = ZᵀZ − BᵀB and the
// same Δ bounds the error: 0 ⪯ C − C̃ ⪯ Δ·I, and λᵢ(C) − Δ ≤ λᵢ(C̃) ≤ λᵢ(C) (Weyl). C̃
// is zero outside span(Bᵀ, z̄), so its eigenpairs come from an (ℓ+1)×(ℓ+1) problem,
// never a D×D one (docs/design.md, "Centred SKPCA").
//
// Space is O(ℓ·D), independent of n; training costs O(d·D + D·ℓ) per point (O(D) more
// centred), a projection O(d·D + D·k). Not safe for concurrent use.
type SKPCA struct {
	kern kernel.RBF
	opts SKPCAOptions
	rff  *features.RFF
	fd   *sketch.FD
	z    []float64
	// Centred: the features' sum Σz (n is the sketch's Count), plain running sums —
	// their rounding, at most n·ε·Σ|z| (Higham, §4.2), is of the order of the sketch's
	// own and far below Δ once it shrinks (docs/design.md, "Centred SKPCA").
	sum []float64
	// The decomposition as read: the components W (D×ℓ, the first len(vals) columns
	// in use, signed) and the eigenvalues, valid while fresh; centred, the mean and the
	// scratch of the small problem (centring.go).
	w     *mat.Dense
	vals  []float64
	fresh bool
	c     *centring
}

// SKPCA is an ikpca.Incremental and an ikpca.Persistent.
var _ ikpca.Incremental = (*SKPCA)(nil)
var _ ikpca.Persistent = (*SKPCA)(nil)

// NewSKPCA returns an empty model of d-dimensional points with the Gaussian kernel k,
// a kernel.RBF given by its bandwidth σ or by γ (or a non-nil *kernel.RBF): random
// Fourier features approximate that kernel only, and any other is an ErrArgument, as
// are invalid options, among them sizes whose arrays — the frequencies (d×D/2), the
// sketch's buffer (2ℓ×D) or the components (D×ℓ, and centred D×(ℓ+1) and the
// (ℓ+1)×(ℓ+1) eigenproblem) — would hold more than 2³⁰ numbers (8 GiB).
func NewSKPCA(k kernel.Kernel, d int, opts SKPCAOptions) (*SKPCA, error) {
	g, rff, err := randomFeatures(k, d, "SKPCA", features.RFFOptions{Dim: opts.Features, Form: opts.Form, Seed: opts.Seed})
	if err != nil {
		return nil, err
	}
	fd, err := sketch.New(opts.Sketch, opts.Features, sketch.Options{Buffer: opts.Buffer})
	if err != nil {
		return nil, kinds.WrapOr(ErrArgument, err, "")
	}
	if _, err := kinds.Floats("the components", opts.Features, opts.Sketch); err != nil {
		return nil, err
	}
	s := &SKPCA{kern: g, opts: opts, rff: rff, fd: fd, z: make([]float64, opts.Features),
		w: mat.NewDense(opts.Features, opts.Sketch, nil), vals: make([]float64, 0, opts.Sketch)}
	if !opts.Uncentred {
		if _, err := kinds.Floats("the centred components' basis", opts.Features, opts.Sketch+1); err != nil {
			return nil, err
		}
		if _, err := kinds.Floats("the centred eigenproblem", opts.Sketch+1, opts.Sketch+1); err != nil {
			return nil, err
		}
		s.sum = make([]float64, opts.Features)
		s.c = newCentring(opts.Features, opts.Sketch)
	}
	return s, nil
}

// Options returns the options the model was made with.
func (s *SKPCA) Options() SKPCAOptions { return s.opts }

// Kernel returns the model's kernel, the kernel.RBF it was made with.
func (s *SKPCA) Kernel() kernel.Kernel { return s.kern }

// Centred reports whether the model centres in feature space (the default; see
// SKPCAOptions.Uncentred).
func (s *SKPCA) Centred() bool { return !s.opts.Uncentred }

// Map returns the feature map.
func (s *SKPCA) Map() *features.RFF { return s.rff }

// Sketch returns the Frequent Directions sketch of the features (read it, do not update
// it).
func (s *SKPCA) Sketch() *sketch.FD { return s.fd }

// Len returns the number of points seen.
func (s *SKPCA) Len() int {
	if s.fd == nil {
		return 0 // a zero SKPCA
	}
	return s.fd.Count()
}

// Dim returns the dimension of the points.
func (s *SKPCA) Dim() int {
	if s.rff == nil {
		return 0 // a zero SKPCA
	}
	return s.rff.InDim()
}

// Add adds one point. A point of the wrong dimension is an ErrDimension; one with a
// non-finite coordinate, or coordinates so large that its random features are not
// finite, an ErrNonFinite; the model is then unchanged. Add does not allocate.
func (s *SKPCA) Add(x []float64) error {
	if err := mapPoint(s.rff, s.z, x); err != nil {
		return err
	}
	s.fresh = false
	if err := s.fd.Update(s.z); err != nil {
		return wrapSketch(err)
	}
	if s.sum != nil { // centred
		for j, v := range s.z {
			s.sum[j] += v
		}
	}
	return nil
}

// Reset forgets the points: s becomes a model of its kernel, options and random
// features with no points, in its own storage, so that it allocates nothing (the
// sketch's Reset, and the sums zeroed). A model reused for one shard of data after
// another resets rather than draw or decode its features again. Of a zero SKPCA it
// does nothing.
func (s *SKPCA) Reset() {
	if s.fd == nil {
		return
	}
	s.fd.Reset()
	clear(s.sum)
	s.fresh = false
}

// AddBatch adds the rows of X in order, all or nothing: every row is checked first, its
// random features included (the errors of Add), so that a bad row adds none. A nil X is
// an ErrArgument, one without rows an ErrEmpty.
func (s *SKPCA) AddBatch(X mat.Matrix) error {
	Z, err := batchFeatures(s.rff, X)
	if err != nil {
		return err
	}
	s.fresh = false
	if err := s.fd.UpdateRows(Z); err != nil {
		return wrapSketch(err)
	}
	if s.sum != nil {
		raw := Z.RawMatrix()
		for i := range raw.Rows { // point by point, as Add sums them
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				s.sum[j] += v
			}
		}
	}
	return nil
}

// Merge adds the points of o, a model made with the same kernel and options (the same
// feature map, the same centring) on another shard of the stream: the sketches merge
// (Frequent Directions is mergeable, sketch.FD.Merge: the bounds add, Δ = Δ_s + Δ_o +
// the merge's own shrinkage), and centred the counts and sums add exactly as summed.
// A nil o, s itself, or one with another kernel, options or dimension is an
// ErrArgument, and s is unchanged.
func (s *SKPCA) Merge(o *SKPCA) error {
	switch {
	case o == nil || o.fd == nil:
		return fmt.Errorf("%w: merging an SKPCA model with a nil or zero one", ErrArgument)
	case o == s:
		return fmt.Errorf("%w: merging an SKPCA model with itself", ErrArgument)
	case o.kern != s.kern || o.opts != s.opts || o.rff.InDim() != s.rff.InDim():
		return fmt.Errorf("%w: merging SKPCA models of different kernels, options or dimensions (%v, %+v, d = %d; %v, %+v, d = %d)",
			ErrArgument, s.kern, s.opts, s.Dim(), o.kern, o.opts, o.Dim())
	}
	s.fresh = false
	if err := s.fd.Merge(o.fd); err != nil {
		return wrapSketch(err)
	}
	for j, v := range o.sum {
		s.sum[j] += v
	}
	return nil
}

// wrapSketch reports an error of the sketch under the package's kind of the same name
// (own): the only one its updates return on checked rows is LAPACK's SVD not
// converging (sketch.ErrNotConverged), which settle's comment explains never happens on
// finite rows.
func wrapSketch(err error) error { return kinds.Wrap(err, "") }

// settle reads the decomposition out of the sketch when points came since the last
// read, and fixes the components' signs (package sign: the largest-magnitude entry of
// each direction in feature space positive), O(ℓ·D) on top of the sketch's SVD.
//
// It is computed here, lazily, and not at Add: settling the sketch costs an SVD of its
// buffer, O(ℓ²·D), which at every point would make Frequent Directions ℓ times slower
// than its amortised O(ℓ·D). It cannot fail: the sketch's only failure is LAPACK's SVD
// (dgesvd) not converging, which it does not do on finite input — the features are
// bounded, |zᵢ| ≤ √(2/D) — and the rows are checked finite on the way in. Were it ever
// to happen, settle panics with the error rather than return a wrong spectrum.
func (s *SKPCA) settle() {
	if s.fresh || s.fd == nil { // a zero SKPCA has nothing to read
		return
	}
	vals, err := s.fd.Values(s.vals[:0])
	if err == nil && len(vals) > 0 {
		err = s.fd.VectorsTo(s.w.Slice(0, s.opts.Features, 0, len(vals)).(*mat.Dense))
	}
	if err != nil {
		panic(fmt.Sprintf("stream: internal error: the sketch's SVD failed on finite input: %v", err))
	}
	if s.c != nil {
		// Centred: the top eigenpairs of BᵀB − n·z̄z̄ᵀ from the sketch's σ² and V
		// (centring.go), into the same storage.
		vals = s.c.decompose(s.w, vals, s.sum, s.fd.Count(), max(s.fd.Buffer(), s.opts.Features))
	}
	s.vals = vals
	if len(vals) > 0 {
		sign.Flip(s.w.Slice(0, s.opts.Features, 0, len(vals)).(*mat.Dense))
	}
	s.fresh = true
}

// Values returns the eigenvalue estimates of the kernel matrix, descending, at most ℓ
// (none before the first point). Uncentred, the squared singular values of the sketch,
// which estimate those of ZZᵀ ≈ G; centred, the eigenvalues of BᵀB − n·z̄z̄ᵀ above
// rounding, which estimate those of the centred (HZ)(HZ)ᵀ ≈ HGH. Either way from below
// and within the sketch's ErrorBound Δ: λᵢ − Δ ≤ Values[i] ≤ λᵢ. dst follows the rule
// of ikpca.Model.Values. Reading Values (or VectorsTo) after new points compresses the
// sketch's buffer (sketch.FD.Values), which later points and MarshalBinary start from:
// a model read as it streams holds the bound with the ErrorBound it reports, but not
// the bits of one read only at the end.
func (s *SKPCA) Values(dst []float64) []float64 {
	s.settle()
	dst = check.Room(dst, len(s.vals))
	copy(dst, s.vals)
	return dst
}

// VectorsTo writes the principal directions in feature space (unit columns, D×k with
// k = len(Values)) to dst, in the order of Values: the component of a point x is
// (z(x) − m)ᵀw_j, m the Mean. Each column's largest-magnitude entry is positive (package sign,
// docs/design.md, "Signs"). dst follows the rule for destinations of package ikpca: written in
// place if of that shape, resized if empty (and left empty if there is no component),
// replaced by a new matrix otherwise.
func (s *SKPCA) VectorsTo(dst *mat.Dense) {
	s.settle()
	D, k := s.opts.Features, len(s.vals)
	if check.Vectors(dst, D, k) {
		dst.Copy(s.w.Slice(0, D, 0, k))
	}
}

// Mean returns the point of feature space the scores are measured from, D numbers:
// the features' mean z̄ = Σz/n of the points seen when the model centres (zero before
// the first point), zero when it does not. dst follows the rule of
// ikpca.Model.Values.
func (s *SKPCA) Mean(dst []float64) []float64 {
	dst = check.Room(dst, s.opts.Features)
	n := s.Len()
	for j := range dst {
		dst[j] = 0
		if s.sum != nil && n > 0 {
			dst[j] = s.sum[j] / float64(n)
		}
	}
	return dst
}

// Transform writes the scores of the rows of X on the top k components, (z(x) − m)ᵀW_k
// with W signed as by VectorsTo and m the Mean, to dst (rows×k, resized if empty).
// Errors are those of ikpca.Model.Transform, and leave dst unchanged.
func (s *SKPCA) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	s.settle()
	var mean []float64
	if s.c != nil {
		mean = s.c.mean
	}
	return project(dst, s.rff, X, s.w, mean, k, len(s.vals))
}

// Bytes returns the memory the model holds: the sketch, the feature map's frequencies,
// the feature vector, the components as read and, centred, the sum and the small
// problem's arrays (all allocated with the model, so that Bytes does not change as
// points come).
func (s *SKPCA) Bytes() int {
	if s.fd == nil {
		return 0 // a zero SKPCA holds nothing
	}
	r, c := s.w.Dims()
	b := s.fd.Bytes() + 8*(s.rff.InDim()*s.opts.Features+len(s.z)+r*c+cap(s.vals)+len(s.sum))
	if s.c != nil {
		b += s.c.bytes()
	}
	return b
}

// ErrorBound returns the sketch's certified bound Δ on the error of the second-moment
// matrix the model decomposes: ‖ZᵀZ − BᵀB‖₂ ≤ Δ uncentred, and centred the same Δ
// bounds ‖C − C̃‖₂ (C − C̃ = ZᵀZ − BᵀB; see SKPCA). Reading the model may compress the
// sketch and raise Δ; read ErrorBound after Values, VectorsTo or Transform.
func (s *SKPCA) ErrorBound() float64 {
	if s.fd == nil {
		return 0 // a zero SKPCA has seen no point
	}
	return s.fd.ErrorBound()
}

// batchFeatures checks the rows of X (all before any is used) and returns their random
// features z(x), one row each: the batch of RNCA's and SKPCA's AddBatch.
func batchFeatures(rff *features.RFF, X mat.Matrix) (*mat.Dense, error) {
	if rff == nil {
		return nil, errZero
	}
	X, _, err := kinds.Points(X, rff.InDim())
	if err != nil {
		return nil, err
	}
	var Z mat.Dense
	if err := rff.Transform(&Z, X); err != nil {
		return nil, kinds.Wrap(err, "") // unreachable: X is checked, Z empty
	}
	raw := Z.RawMatrix()
	for i := range raw.Rows {
		if err := finiteFeatures(raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols], i); err != nil {
			return nil, err
		}
	}
	return &Z, nil
}

// finiteFeatures reports random features of point i that are not finite (ErrNonFinite):
// a point with finite but huge coordinates (about 1e308/‖ω‖) can have a projection ωᵀx
// that overflows, and the sine or cosine of an infinity is NaN. Checked before the
// features reach the model, so that it is unchanged.
func finiteFeatures(z []float64, i int) error {
	for j, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: random feature %d of point %d is %g (coordinates too large for the frequencies)", ErrNonFinite, j, i, v)
		}
	}
	return nil
}

// project writes (z(x) − mean)ᵀ·W_k for the rows of X (mean nil: uncentred), W_k the
// first k columns of w, after checking X, k against the have components and dst; on
// error dst is unchanged. The points go through blocks.Size at a time — their features by
// one dgemm and the sines and cosines (features.RFF.Transform, on all cores for a large
// block), then the scores by one dgemm — so that memory stays at one block of features
// whatever the number of points.
func project(dst *mat.Dense, rff *features.RFF, X mat.Matrix, w *mat.Dense, mean []float64, k, have int) error {
	if rff == nil {
		return errZero
	}
	X, n, err := kinds.Transform(dst, X, rff.InDim(), k, have)
	if err != nil {
		return err
	}
	D, d := rff.OutDim(), rff.InDim()
	wk := w.Slice(0, D, 0, k).(*mat.Dense).RawMatrix()
	zb := mat.NewDense(min(blocks.Size, n), D, nil)
	return blocks.Scores(dst, X, d, k, func(lo, hi int, xb, out *mat.Dense) error {
		zv := zb.Slice(0, hi-lo, 0, D).(*mat.Dense)
		if err := rff.Transform(zv, xb); err != nil {
			return kinds.Wrap(err, "") // unreachable: the block is checked, zv its size
		}
		if mean != nil {
			for i := range hi - lo {
				row := zv.RawRowView(i)
				for j, m := range mean {
					row[j] -= m
				}
			}
		}
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, zv.RawMatrix(), wk, 0, out.RawMatrix())
		return nil
	})
}
