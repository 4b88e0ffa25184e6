package stream

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/sketch"
)

// SKPCAOptions configure streaming kernel PCA.
type SKPCAOptions struct {
	// Features is the number D of random Fourier features; Sigma, Form and Seed
	// describe them (features.RFFOptions: k(x, y) = exp(−‖x−y‖²/(2σ²))).
	Features int
	Sigma    float64
	Form     features.Form
	Seed     uint64
	// Sketch is ℓ, the number of rows of the Frequent Directions sketch (the number of
	// components kept); Buffer its buffer (0: 2ℓ, see sketch.Options).
	Sketch int
	Buffer int
}

// SKPCA is streaming kernel PCA (Ghashami, Perry & Phillips 2016): each point x is
// mapped to z(x) ∈ Rᴰ by random Fourier features and z(x) is fed to a Frequent
// Directions sketch B (ℓ×D). With Z the n×D matrix of the features seen, the kernel
// matrix G is approximated by G̃ = Z·WᵀW·Zᵀ, W holding the sketch's right singular
// vectors, and
//
//	‖G − G̃‖₂ ≤ ‖G − ZZᵀ‖₂ + ‖Z(I − WᵀW)Zᵀ‖₂ ≤ ‖G − ZZᵀ‖₂ + Δ
//
// where Δ ≤ n/(ℓ+1) (‖z‖ = 1 in the cos-sin form) is the sketch's ErrorBound and the
// first term is the feature map's error, O(n/√D). Space is O(ℓ·D), independent of n;
// training costs O(d·D + D·ℓ) per point, a projection O(d·D + D·k).
//
// The model is uncentred, as in the paper. Not safe for concurrent use.
type SKPCA struct {
	opts SKPCAOptions
	rff  *features.RFF
	fd   *sketch.FD
	z    []float64
	// The decomposition as read: the components W (D×ℓ, the first len(vals) columns
	// in use, signed) and the eigenvalues, valid while fresh.
	w     *mat.Dense
	vals  []float64
	fresh bool
}

// NewSKPCA returns an empty model for d-dimensional points. Invalid options are an
// ErrArgument, among them sizes whose arrays — the frequencies (d×D/2), the sketch's
// buffer (2ℓ×D) or the components (D×ℓ) — would hold more than 2³⁰ numbers (8 GiB).
func NewSKPCA(d int, opts SKPCAOptions) (*SKPCA, error) {
	rff, err := features.NewRFF(d, features.RFFOptions{Dim: opts.Features, Sigma: opts.Sigma, Form: opts.Form, Seed: opts.Seed})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	fd, err := sketch.New(opts.Sketch, opts.Features, sketch.Options{Buffer: opts.Buffer})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	if _, err := errs.Floats("the components", opts.Features, opts.Sketch); err != nil {
		return nil, err
	}
	return &SKPCA{opts: opts, rff: rff, fd: fd, z: make([]float64, opts.Features),
		w: mat.NewDense(opts.Features, opts.Sketch, nil), vals: make([]float64, 0, opts.Sketch)}, nil
}

// Options returns the options the model was made with.
func (s *SKPCA) Options() SKPCAOptions { return s.opts }

// Map returns the feature map.
func (s *SKPCA) Map() *features.RFF { return s.rff }

// Sketch returns the Frequent Directions sketch of the features (read it, do not update
// it).
func (s *SKPCA) Sketch() *sketch.FD { return s.fd }

// Len returns the number of points seen.
func (s *SKPCA) Len() int { return s.fd.Count() }

// Dim returns the dimension of the points.
func (s *SKPCA) Dim() int { return s.rff.InDim() }

// Add adds one point. A point of the wrong dimension is an ErrDimension; one with a
// non-finite coordinate, or coordinates so large that its random features are not
// finite, an ErrNonFinite; the model is then unchanged. Add does not allocate.
func (s *SKPCA) Add(x []float64) error {
	if err := errs.Point(x, s.rff.InDim()); err != nil {
		return err
	}
	if err := s.rff.Map(s.z, x); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	if err := finiteFeatures(s.z, 0); err != nil {
		return err
	}
	s.fresh = false
	if err := s.fd.Update(s.z); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	return nil
}

// AddBatch adds the rows of X in order; all are checked first, their random features
// included (the errors of Add), so that a bad row adds none.
func (s *SKPCA) AddBatch(X mat.Matrix) error {
	Z, err := batchFeatures(s.rff, X)
	if err != nil {
		return err
	}
	s.fresh = false
	if err := s.fd.UpdateRows(Z); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	return nil
}

// Merge adds the points of o, a model made with the same options (the same feature
// map) on another shard of the stream. A nil o or one with other options is an
// ErrArgument.
func (s *SKPCA) Merge(o *SKPCA) error {
	if o == nil || o.opts != s.opts || o.rff.InDim() != s.rff.InDim() {
		return fmt.Errorf("%w: merging SKPCA models with different options", ErrArgument)
	}
	s.fresh = false
	if err := s.fd.Merge(o.fd); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	return nil
}

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
	if s.fresh {
		return
	}
	vals, err := s.fd.Values(s.vals[:0])
	if err == nil && len(vals) > 0 {
		err = s.fd.VectorsTo(s.w.Slice(0, s.opts.Features, 0, len(vals)).(*mat.Dense))
	}
	if err != nil {
		panic(fmt.Sprintf("stream: internal error: the sketch's SVD failed on finite input: %v", err))
	}
	s.vals = vals
	if len(vals) > 0 {
		sign.Flip(s.w.Slice(0, s.opts.Features, 0, len(vals)).(*mat.Dense))
	}
	s.fresh = true
}

// Values returns the eigenvalue estimates of the kernel matrix, descending: the
// squared singular values of the sketch, at most ℓ (none before the first point). They
// estimate those of ZZᵀ from below, within the sketch's ErrorBound. dst follows the
// rule of ikpca.Model.Values.
func (s *SKPCA) Values(dst []float64) []float64 {
	s.settle()
	dst = check.Room(dst, len(s.vals))
	copy(dst, s.vals)
	return dst
}

// VectorsTo writes the principal directions in feature space (unit columns, D×k with
// k = len(Values)) to dst, in the order of Values: the component of a point x is
// z(x)ᵀw_j. Each column's largest-magnitude entry is positive (package sign,
// docs/design.md, "Signs"). dst is resized if empty (and left empty if there is no
// component); VectorsTo panics on a wrong non-empty size, like gonum's VectorsTo.
func (s *SKPCA) VectorsTo(dst *mat.Dense) {
	s.settle()
	D, k := s.opts.Features, len(s.vals)
	if check.Vectors(dst, D, k) {
		dst.Copy(s.w.Slice(0, D, 0, k))
	}
}

// Transform writes the scores of the rows of X on the top k components, z(x)ᵀW_k with
// W signed as by VectorsTo, to dst (rows×k, resized if empty). Errors are those of
// ikpca.Model.Transform, and leave dst unchanged.
func (s *SKPCA) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	s.settle()
	return project(dst, s.rff, X, s.w, nil, k, len(s.vals))
}

// Bytes returns the memory the model holds: the sketch, the feature map's frequencies,
// the feature vector and the components as read (allocated with the model, so that
// Bytes does not change as points come).
func (s *SKPCA) Bytes() int {
	r, c := s.w.Dims()
	return s.fd.Bytes() + 8*(s.rff.InDim()*s.opts.Features+len(s.z)+r*c+cap(s.vals))
}

// ErrorBound returns the sketch's certified bound Δ ≥ ‖ZᵀZ − BᵀB‖₂ = ‖Z(I − WᵀW)Zᵀ‖₂
// contribution to the kernel approximation error (read after Values or Transform).
func (s *SKPCA) ErrorBound() float64 { return s.fd.ErrorBound() }

// batchFeatures checks the rows of X (all before any is used) and returns their random
// features z(x), one row each: the batch of RNCA's and SKPCA's AddBatch.
func batchFeatures(rff *features.RFF, X mat.Matrix) (*mat.Dense, error) {
	if _, err := errs.Points(X, rff.InDim()); err != nil {
		return nil, err
	}
	var Z mat.Dense
	if err := rff.Transform(&Z, X); err != nil {
		return nil, fmt.Errorf("stream: %w", err)
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
	n, err := errs.Transform(dst, X, rff.InDim(), k, have)
	if err != nil {
		return err
	}
	D, d := rff.OutDim(), rff.InDim()
	wk := w.Slice(0, D, 0, k).(*mat.Dense).RawMatrix()
	zb := mat.NewDense(min(blocks.Size, n), D, nil)
	return blocks.Scores(dst, X, d, k, func(lo, hi int, xb, out *mat.Dense) error {
		zv := zb.Slice(0, hi-lo, 0, D).(*mat.Dense)
		if err := rff.Transform(zv, xb); err != nil {
			return fmt.Errorf("stream: %w", err)
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
