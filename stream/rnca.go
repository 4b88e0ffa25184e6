package stream

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// RNCAOptions configure randomized nonlinear component analysis. The kernel, a
// kernel.RBF that gives the bandwidth, is NewRNCA's first argument.
type RNCAOptions struct {
	// Features is the number D of random Fourier features; Form and Seed describe them
	// (features.RFFOptions).
	Features int
	Form     features.Form
	Seed     uint64
	// Uncentred decomposes ZᵀZ, whose eigenvalues approximate those of the kernel
	// matrix G. By default the model centres in feature space: it subtracts the
	// features' running mean, and its eigenvalues are those of the covariance
	// Σ(z−z̄)(z−z̄)ᵀ, which approximate the centred kernel matrix's.
	Uncentred bool
}

// RNCA is randomized nonlinear component analysis (Lopez-Paz, Sra, Smola, Ghahramani &
// Schölkopf, ICML 2014): random Fourier features z(x) ∈ Rᴰ of a Gaussian kernel and the
// exact eigendecomposition of their D×D covariance (or uncentred, second-moment matrix
// ZᵀZ), accumulated
// over the stream in O(D²) per point (O(D²) per point also for a batch, through one
// dsyrk). Space is O(D²), independent of n. The eigendecomposition is computed when
// first read after new points (O(D³), LAPACK dsyevd with OpenBLAS).
//
// Not safe for concurrent use.
type RNCA struct {
	kern   kernel.RBF
	opts   RNCAOptions
	rff    *features.RFF
	n      int
	sum    []float64 // Σz
	moment []float64 // upper triangle of ZᵀZ, D×D
	z      []float64
	// Cached eigendecomposition, valid while fresh.
	fresh   bool
	vals    []float64 // descending
	vecs    *mat.Dense
	mean    []float64
	scratch []float64
}

// RNCA is an ikpca.Incremental and an ikpca.Persistent.
var _ ikpca.Incremental = (*RNCA)(nil)
var _ ikpca.Persistent = (*RNCA)(nil)

// NewRNCA returns an empty model of d-dimensional points with the Gaussian kernel k, a
// kernel.RBF given by its bandwidth σ or by γ (or a non-nil *kernel.RBF): random
// Fourier features approximate that kernel only, and any other is an ErrArgument, as
// are invalid options, among them more than 2¹⁴ features (the D×D matrix) and sizes
// whose frequencies (d×D/2) would hold more than 2³⁰ numbers.
func NewRNCA(k kernel.Kernel, d int, opts RNCAOptions) (*RNCA, error) {
	g, rff, err := randomFeatures(k, d, "RNCA", features.RFFOptions{Dim: opts.Features, Form: opts.Form, Seed: opts.Seed})
	if err != nil {
		return nil, err
	}
	D := opts.Features
	if D > 1<<14 {
		return nil, fmt.Errorf("%w: RNCA with %d features needs a %d×%d matrix; at most %d", ErrArgument, D, D, D, 1<<14)
	}
	return &RNCA{kern: g, opts: opts, rff: rff, sum: make([]float64, D), moment: make([]float64, D*D), z: make([]float64, D)}, nil
}

// Kernel returns the model's kernel, the kernel.RBF it was made with.
func (r *RNCA) Kernel() kernel.Kernel { return r.kern }

// Centred reports whether the model subtracts the features' running mean (the default;
// see RNCAOptions.Uncentred).
func (r *RNCA) Centred() bool { return !r.opts.Uncentred }

// Options returns the options the model was made with.
func (r *RNCA) Options() RNCAOptions { return r.opts }

// Map returns the feature map.
func (r *RNCA) Map() *features.RFF { return r.rff }

// Len returns the number of points seen.
func (r *RNCA) Len() int { return r.n }

// Dim returns the dimension of the points.
func (r *RNCA) Dim() int {
	if r.rff == nil {
		return 0 // a zero RNCA
	}
	return r.rff.InDim()
}

func (r *RNCA) sym() blas64.Symmetric {
	return blas64.Symmetric{N: r.opts.Features, Stride: r.opts.Features, Uplo: blas.Upper, Data: r.moment}
}

// Add adds one point: ZᵀZ += z·zᵀ (dsyr). A point of the wrong dimension is an
// ErrDimension; one with a non-finite coordinate, or coordinates so large that its
// random features are not finite, an ErrNonFinite; the model is then unchanged. Add
// does not allocate.
func (r *RNCA) Add(x []float64) error {
	if err := mapPoint(r.rff, r.z, x); err != nil {
		return err
	}
	native.Syr(1, blas64.Vector{N: len(r.z), Inc: 1, Data: r.z}, r.sym())
	for i, v := range r.z {
		r.sum[i] += v
	}
	r.n++
	r.fresh = false
	return nil
}

// AddBatch adds the rows of X: ZᵀZ += ZᵀZ_X by one dsyrk. All or nothing: every row is
// checked first, its random features included (the errors of Add), so that a bad row
// adds none. A nil X is an ErrArgument, one without rows an ErrEmpty.
func (r *RNCA) AddBatch(X mat.Matrix) error {
	Z, err := batchFeatures(r.rff, X)
	if err != nil {
		return err
	}
	raw := Z.RawMatrix()
	native.Syrk(blas.Trans, 1, raw, 1, r.sym())
	for i := range raw.Rows {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			r.sum[j] += v
		}
	}
	r.n += raw.Rows
	r.fresh = false
	return nil
}

// settle computes the eigendecomposition of the (centred) second-moment matrix when
// points came since the last read, and fixes the components' signs (package sign: the
// largest-magnitude entry of each direction in feature space positive, O(D²)).
//
// It is computed here, lazily, and not at Add: the eigendecomposition costs O(D³), the
// update O(D²). It cannot fail: the matrix is symmetric and finite (the features are
// bounded, |zᵢ| ≤ √(2/D), and the points checked finite on the way in), and LAPACK's
// symmetric eigensolvers (dsyevd, gonum's Dsyev) converge on every such matrix. Were
// one ever to report otherwise, settle panics with the error rather than return a wrong
// spectrum. A model without points has no eigenvalues.
func (r *RNCA) settle() {
	if r.fresh || r.n == 0 {
		return
	}
	D := r.opts.Features
	if r.scratch == nil {
		r.scratch = make([]float64, D*D)
		r.vals = make([]float64, D)
		r.mean = make([]float64, D)
		r.vecs = mat.NewDense(D, D, nil)
	}
	copy(r.scratch, r.moment)
	clear(r.mean)
	if !r.opts.Uncentred {
		// Σ(z−z̄)(z−z̄)ᵀ = ZᵀZ − n·z̄z̄ᵀ.
		for i, s := range r.sum {
			r.mean[i] = s / float64(r.n)
		}
		native.Syr(-float64(r.n), blas64.Vector{N: D, Inc: 1, Data: r.mean},
			blas64.Symmetric{N: D, Stride: D, Uplo: blas.Upper, Data: r.scratch})
	}
	w := make([]float64, D)
	if err := native.EigenSymInPlace(D, r.scratch, D, w, true); err != nil {
		panic(fmt.Sprintf("stream: internal error: RNCA's eigendecomposition failed on a finite matrix: %v", err))
	}
	// Ascending from LAPACK; store descending, eigenvectors as columns.
	for j := range D {
		src := D - 1 - j
		r.vals[j] = w[src]
		for i := range D {
			r.vecs.Set(i, j, r.scratch[i*D+src])
		}
	}
	sign.Flip(r.vecs)
	r.fresh = true
}

// components returns the number of eigenvalues: D once there are points, none before.
func (r *RNCA) components() int {
	if r.n == 0 {
		return 0
	}
	return r.opts.Features
}

// Values returns the eigenvalues of ZᵀZ (centred: of the covariance, not divided by n),
// descending — the eigenvalue estimates of the kernel matrix, D of them (none before the
// first point). dst follows the rule of ikpca.Model.Values.
func (r *RNCA) Values(dst []float64) []float64 {
	r.settle()
	dst = check.Room(dst, r.components())
	copy(dst, r.vals)
	return dst
}

// VectorsTo writes the principal directions in feature space (unit columns, D×D) to
// dst, in the order of Values: the component of a point x is (z(x) − m)ᵀv_j, m the
// Mean. Each
// column's largest-magnitude entry is positive (package sign, docs/design.md, "Signs").
// dst follows the rule for destinations of package ikpca: written in place if D×D, resized if
// empty (and left empty before the first point), replaced by a new matrix otherwise.
func (r *RNCA) VectorsTo(dst *mat.Dense) {
	r.settle()
	if check.Vectors(dst, r.opts.Features, r.components()) {
		dst.Copy(r.vecs)
	}
}

// Mean returns the point of feature space the scores are measured from, D numbers:
// the features' mean z̄ = Σz/n of the points seen when the model centres (zero before
// the first point), zero when it does not. dst follows the rule of
// ikpca.Model.Values.
func (r *RNCA) Mean(dst []float64) []float64 {
	dst = check.Room(dst, r.opts.Features)
	for j := range dst {
		dst[j] = 0
		if !r.opts.Uncentred && r.n > 0 {
			dst[j] = r.sum[j] / float64(r.n)
		}
	}
	return dst
}

// Transform writes the scores of the rows of X on the top k components, (z(x) − m)ᵀV_k
// with V signed as by VectorsTo and m the Mean, to dst (rows×k, resized if empty).
// Errors are those of ikpca.Model.Transform, and leave dst unchanged.
func (r *RNCA) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	r.settle()
	var mean []float64
	if !r.opts.Uncentred {
		mean = r.mean
	}
	return project(dst, r.rff, X, r.vecs, mean, k, r.components())
}

// Bytes returns the memory the model holds: the D×D moment matrix, and once read its
// eigendecomposition (two more D×D matrices).
func (r *RNCA) Bytes() int {
	if r.rff == nil {
		return 0 // a zero RNCA holds nothing
	}
	b := 8 * (len(r.moment) + len(r.sum) + len(r.z) + r.rff.InDim()*r.opts.Features)
	if r.scratch != nil {
		b += 8 * (len(r.scratch) + 2*len(r.vals) + r.opts.Features*r.opts.Features)
	}
	return b
}
