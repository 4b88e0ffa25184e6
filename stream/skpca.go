package stream

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/features"
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
	w    mat.Dense // cached components, D×k
	vals []float64
}

// NewSKPCA returns an empty model for d-dimensional points.
func NewSKPCA(d int, opts SKPCAOptions) (*SKPCA, error) {
	rff, err := features.NewRFF(d, features.RFFOptions{Dim: opts.Features, Sigma: opts.Sigma, Form: opts.Form, Seed: opts.Seed})
	if err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	fd, err := sketch.New(opts.Sketch, opts.Features, sketch.Options{Buffer: opts.Buffer})
	if err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	return &SKPCA{opts: opts, rff: rff, fd: fd, z: make([]float64, opts.Features)}, nil
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

// Add adds one point. A point of the wrong dimension or with a non-finite coordinate is
// an error and the model is unchanged. Add does not allocate.
func (s *SKPCA) Add(x []float64) error {
	if err := s.rff.Map(s.z, x); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	s.vals = s.vals[:0]
	return s.fd.Update(s.z)
}

// AddBatch adds the rows of X in order; all are checked first, so that a bad row adds
// none.
func (s *SKPCA) AddBatch(X mat.Matrix) error {
	var Z mat.Dense
	if err := s.rff.Transform(&Z, X); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	s.vals = s.vals[:0]
	return s.fd.UpdateRows(&Z)
}

// Merge adds the points of o, a model made with the same options (the same feature
// map) on another shard of the stream.
func (s *SKPCA) Merge(o *SKPCA) error {
	if o == nil || o.opts != s.opts || o.rff.InDim() != s.rff.InDim() {
		return errors.New("stream: merging SKPCA models with different options")
	}
	s.vals = s.vals[:0]
	return s.fd.Merge(o.fd)
}

// settle caches the eigenvalues and the components.
func (s *SKPCA) settle() error {
	if len(s.vals) > 0 {
		return nil
	}
	vals, err := s.fd.Values(s.vals)
	if err != nil {
		return err
	}
	if len(vals) == 0 {
		return errors.New("stream: no points yet")
	}
	s.w.Reset()
	if err := s.fd.VectorsTo(&s.w); err != nil {
		return err
	}
	s.vals = vals
	return nil
}

// Values returns the eigenvalue estimates of the kernel matrix, descending: the
// squared singular values of the sketch, at most ℓ. They estimate those of ZZᵀ from
// below, within the sketch's ErrorBound.
func (s *SKPCA) Values(dst []float64) ([]float64, error) {
	if err := s.settle(); err != nil {
		return nil, err
	}
	return append(dst[:0], s.vals...), nil
}

// ComponentsTo writes the top k principal directions in feature space (unit columns,
// D×k) to dst, resized if empty.
func (s *SKPCA) ComponentsTo(dst *mat.Dense, k int) error {
	if err := s.settle(); err != nil {
		return err
	}
	if k < 1 || k > len(s.vals) {
		return fmt.Errorf("stream: %d components requested, have %d", k, len(s.vals))
	}
	if dst.IsEmpty() {
		dst.ReuseAs(s.opts.Features, k)
	} else if r, c := dst.Dims(); r != s.opts.Features || c != k {
		return fmt.Errorf("stream: destination is %d×%d, want %d×%d", r, c, s.opts.Features, k)
	}
	dst.Copy(s.w.Slice(0, s.opts.Features, 0, k))
	return nil
}

// Transform writes the scores of the rows of X on the top k components, z(x)ᵀW_k, to
// dst (rows×k, resized if empty).
func (s *SKPCA) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if err := s.settle(); err != nil {
		return err
	}
	return project(dst, s.rff, X, s.w.Slice(0, s.opts.Features, 0, min(k, len(s.vals))).(*mat.Dense), nil, k, len(s.vals))
}

// Bytes returns the memory the model holds: the sketch, the feature map's frequencies
// and the cached components.
func (s *SKPCA) Bytes() int {
	r, c := s.w.Dims()
	return s.fd.Bytes() + 8*(s.rff.InDim()*s.opts.Features+len(s.z)+r*c+cap(s.vals))
}

// ErrorBound returns the sketch's certified bound Δ ≥ ‖ZᵀZ − BᵀB‖₂ = ‖Z(I − WᵀW)Zᵀ‖₂
// contribution to the kernel approximation error (read after Values or Transform).
func (s *SKPCA) ErrorBound() float64 { return s.fd.ErrorBound() }

// project writes (z(x) − mean)ᵀ·W for the rows of X (mean nil: uncentred), checking k
// against the components available.
func project(dst *mat.Dense, rff *features.RFF, X mat.Matrix, w *mat.Dense, mean []float64, k, have int) error {
	if k < 1 || k > have {
		return fmt.Errorf("stream: %d components requested, have %d", k, have)
	}
	n, _ := X.Dims()
	if !dst.IsEmpty() {
		if r, c := dst.Dims(); r != n || c != k {
			return fmt.Errorf("stream: destination is %d×%d, want %d×%d", r, c, n, k)
		}
	}
	var Z mat.Dense
	if err := rff.Transform(&Z, X); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	if mean != nil {
		for i := range n {
			row := Z.RawRowView(i)
			for j, m := range mean {
				row[j] -= m
			}
		}
	}
	if dst.IsEmpty() {
		dst.ReuseAs(n, k)
	}
	native.Mul(dst, &Z, w)
	return nil
}
