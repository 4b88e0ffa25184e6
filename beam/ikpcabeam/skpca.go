package ikpcabeam

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/sketch"
	"github.com/ikpca/ikpca/stream"
)

// SKPCA is streaming kernel PCA — the model of stream.SKPCA: random Fourier features
// z(x) sketched by Frequent Directions — as a Summary: it merges with another SKPCA of
// the same options and encodes itself, so that Beam can carry it between workers. It is
// built from the same core parts (features.RFF, sketch.FD) with the same options, and
// fed the same points in the same order it computes what stream.SKPCA computes, bit for
// bit: Values, VectorsTo and Transform are those of stream.SKPCA, including the signs
// of the components (the direction in feature space, scikit-learn's svd_flip rule:
// docs/design.md, "Signs").
//
// It stands in for stream.SKPCA until that type has a binary encoding of its own
// (issue 14 §1); then this file shrinks to an adapter. A sketch read back from its
// encoding holds its rows as rows of a new sketch, and the counts they stand for
// (points, ‖A‖_F², the certified bound Δ) are carried beside it: merging it is Frequent
// Directions' merge (Agarwal et al. 2013), so the bound holds for the union, by the
// triangle inequality over the parts.
//
// Make one with NewSKPCA, or decode one (DecodeSummary, or UnmarshalBinary into a zero
// SKPCA, which is otherwise not usable). Not safe for concurrent use.
type SKPCA struct {
	opts stream.SKPCAOptions
	rff  *features.RFF
	fd   *sketch.FD
	z    []float64
	// What the rows of decoded sketches stand for beyond themselves: fd counts each
	// row it was given as one point of squared norm ‖row‖², and a decoded row stands
	// for many points and for their shrinkage.
	extraPoints int
	extraFrob2  float64
	extraShrink float64
	// The decomposition as read (as in stream.SKPCA): the signed components W (D×ℓ,
	// the first len(vals) columns in use) and the eigenvalues, valid while fresh.
	w     *mat.Dense
	vals  []float64
	fresh bool
}

// NewSKPCA returns an empty model of d-dimensional points with stream.SKPCA's options.
// Invalid options are an ErrArgument.
func NewSKPCA(d int, opts stream.SKPCAOptions) (*SKPCA, error) {
	rff, err := features.NewRFF(d, features.RFFOptions{Dim: opts.Features, Sigma: opts.Sigma, Form: opts.Form, Seed: opts.Seed})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	fd, err := sketch.New(opts.Sketch, opts.Features, sketch.Options{Buffer: opts.Buffer})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	return &SKPCA{opts: opts, rff: rff, fd: fd, z: make([]float64, opts.Features),
		w: mat.NewDense(opts.Features, opts.Sketch, nil), vals: make([]float64, 0, opts.Sketch)}, nil
}

// Options returns the options the model was made with.
func (s *SKPCA) Options() stream.SKPCAOptions { return s.opts }

// Map returns the feature map.
func (s *SKPCA) Map() *features.RFF { return s.rff }

// Dim returns the dimension of the points.
func (s *SKPCA) Dim() int { return s.rff.InDim() }

// Len returns the number of points the model summarises.
func (s *SKPCA) Len() int { return s.fd.Count() + s.extraPoints }

// Frobenius2 returns ‖Z‖_F², the sum of the squared norms of the features of the
// points (each 1 in the cos-sin form).
func (s *SKPCA) Frobenius2() float64 { return s.fd.Frobenius2() + s.extraFrob2 }

// ErrorBound returns the certified bound Δ ≥ ‖ZᵀZ − BᵀB‖₂ of the sketch B of the
// features Z (read it after Values or Transform, which may compress the sketch), as
// stream.SKPCA's ErrorBound.
func (s *SKPCA) ErrorBound() float64 { return s.fd.ErrorBound() + s.extraShrink }

// Add adds one point. A point of the wrong dimension is an ErrDimension, one with a NaN
// or infinite coordinate an ErrNonFinite, and the model is then unchanged. Add does not
// allocate.
func (s *SKPCA) Add(x []float64) error {
	if err := checkPoint(x, s.rff.InDim()); err != nil {
		return err
	}
	if err := s.rff.Map(s.z, x); err != nil {
		return fmt.Errorf("ikpcabeam: %w", err)
	}
	s.fresh = false
	if err := s.fd.Update(s.z); err != nil {
		return fmt.Errorf("ikpcabeam: %w", err)
	}
	return nil
}

// Merge adds the points of o, an *SKPCA of the same dimension and options (the same
// feature map) that summarises other points; o is unchanged. Anything else, s itself
// included, is an ErrArgument and leaves s unchanged.
func (s *SKPCA) Merge(o Summary) error {
	t, ok := o.(*SKPCA)
	if !ok || t == nil {
		return fmt.Errorf("%w: merging an SKPCA model with %T", ErrArgument, o)
	}
	if t == s {
		return fmt.Errorf("%w: merging an SKPCA model with itself", ErrArgument)
	}
	if t.opts != s.opts || t.rff.InDim() != s.rff.InDim() {
		return fmt.Errorf("%w: merging SKPCA models with different options", ErrArgument)
	}
	s.fresh = false
	if err := s.fd.Merge(t.fd); err != nil {
		return fmt.Errorf("ikpcabeam: %w", err)
	}
	s.extraPoints += t.extraPoints
	s.extraFrob2 += t.extraFrob2
	s.extraShrink += t.extraShrink
	return nil
}

// settle reads the decomposition out of the sketch when points came since the last
// read, and signs the components, as stream.SKPCA does (and for its reasons: lazily,
// because the sketch's SVD costs O(ℓ²·D); it cannot fail on the finite, bounded
// features the sketch holds, and panics rather than return a wrong spectrum if LAPACK's
// dgesvd ever did).
func (s *SKPCA) settle() {
	if s.fresh {
		return
	}
	vals, err := s.fd.Values(s.vals[:0])
	if err == nil && len(vals) > 0 {
		err = s.fd.VectorsTo(s.w.Slice(0, s.opts.Features, 0, len(vals)).(*mat.Dense))
	}
	if err != nil {
		panic(fmt.Sprintf("ikpcabeam: internal error: the sketch's SVD failed on finite input: %v", err))
	}
	s.vals = vals
	if len(vals) > 0 {
		flipSigns(s.w.Slice(0, s.opts.Features, 0, len(vals)).(*mat.Dense))
	}
	s.fresh = true
}

// Values returns the eigenvalue estimates of the kernel matrix, descending: the squared
// singular values of the sketch, at most ℓ. dst follows the rule of
// ikpca.Model.Values.
func (s *SKPCA) Values(dst []float64) []float64 {
	s.settle()
	if len(dst) < len(s.vals) {
		dst = make([]float64, len(s.vals))
	}
	dst = dst[:len(s.vals)]
	copy(dst, s.vals)
	return dst
}

// VectorsTo writes the principal directions in feature space (unit columns, D×k with
// k = len(Values), signed) to dst, which is resized if empty (and left empty if there
// is no component); a non-empty dst of another shape panics with mat.ErrShape, as
// gonum's VectorsTo does.
func (s *SKPCA) VectorsTo(dst *mat.Dense) {
	s.settle()
	D, k := s.opts.Features, len(s.vals)
	if dst.IsEmpty() {
		if k == 0 {
			return
		}
		dst.ReuseAs(D, k)
	} else if r, c := dst.Dims(); r != D || c != k {
		panic(mat.ErrShape)
	}
	dst.Copy(s.w.Slice(0, D, 0, k))
}

// Transform writes the scores of the rows of X on the top k components, z(x)ᵀW_k, to
// dst (rows×k, resized if empty). Errors are those of ikpca.Model.Transform, and leave
// dst unchanged.
func (s *SKPCA) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	s.settle()
	n, err := checkTransform(dst, X, s.rff.InDim(), k, len(s.vals))
	if err != nil {
		return err
	}
	var Z mat.Dense
	if err := s.rff.Transform(&Z, X); err != nil {
		return fmt.Errorf("ikpcabeam: %w", err)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(n, k)
	}
	native.Mul(dst, &Z, s.w.Slice(0, s.opts.Features, 0, k))
	return nil
}

// Bytes returns the memory the model holds: the sketch, the feature map's frequencies,
// the feature vector and the components as read.
func (s *SKPCA) Bytes() int {
	r, c := s.w.Dims()
	return s.fd.Bytes() + 8*(s.rff.InDim()*s.opts.Features+len(s.z)+r*c+cap(s.vals))
}

// signTie is the relative difference below which two magnitudes count as tied in
// flipSigns: the core's sign.Tie.
const signTie = 1e-6

// flipSigns signs each column of w as the core's package sign does (docs/design.md,
// "Signs"), which stream.SKPCA applies to the same directions: the first entry whose
// magnitude is within a relative signTie of the column's largest is made positive.
func flipSigns(w *mat.Dense) {
	r, c := w.Dims()
	for j := range c {
		var big float64
		for i := range r {
			big = max(big, math.Abs(w.At(i, j)))
		}
		if !(big > 0) {
			continue
		}
		for i := range r {
			if v := w.At(i, j); math.Abs(v) >= (1-signTie)*big {
				if v < 0 {
					for i := range r {
						w.Set(i, j, -w.At(i, j))
					}
				}
				break
			}
		}
	}
}
