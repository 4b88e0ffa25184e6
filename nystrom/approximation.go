package nystrom

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// ApproximationOptions configure an Approximation.
type ApproximationOptions struct {
	// Order lists the landmarks (row indices of the data) in the order they are added.
	// Nil means a uniformly random permutation of all rows, drawn with Seed.
	Order []int
	// Seed seeds the random order when Order is nil.
	Seed uint64
	// Update tunes the eigen-update solver.
	Update update.Options
}

// Approximation is the incremental Nyström approximation of the n×n kernel matrix K of
// a fixed data set (Hallgren and Northrop, §4, eq. 7; docs/design.md, "Nyström"): with
// m landmarks, the kernel matrix K_mm of the landmarks has the eigendecomposition
// U·Λ·Uᵀ, and K is approximated by
//
//	K̃ = K_nm·K_mm⁺·K_mn,  with eigenvalues (n/m)·Λ and eigenvectors √(m/n)·K_nm·U·Λ⁻¹.
//
// Landmarks, rows of the data, are added one at a time. Each addition borders K_mm
// (update.Sym.BorderWith) and carries P = K_nm·U along with the same change of basis,
// O(n·m) for the new kernel column plus O(n·m²) for the product, instead of recomputing
// anything from scratch. Eigenvalues that are zero or numerically zero (at most
// m·ε·λmax) are left out of the pseudo-inverse, as they are of the projections.
//
// An Approximation is not an ikpca.Model, unlike Model: it approximates the kernel
// matrix of a data set given at the start and kept whole, its Len counts landmarks
// rather than points, and it takes no points. Its Values, VectorsTo and Transform
// follow the rules of ikpca.Model nonetheless, signs included. An Approximation must
// not be used by several goroutines at once.
type Approximation struct {
	kern  kernel.Kernel
	n, d  int
	x     mat.Dense // the data, n×d
	order []int
	m     int
	lbuf  []float64 // landmark points, m×d
	lview mat.Dense
	sym   update.Sym     // K_mm
	prod  update.Product // P = K_nm·U
	col   []float64
	full  []float64
	colV  mat.VecDense // headers that pass col and full to update (vector)
	fullV mat.VecDense
	k     *mat.SymDense // the full kernel matrix, computed by Errors on first use
}

// NewApproximation prepares the approximation of the kernel matrix of the rows of X
// (n ≥ 1 points) for the kernel k, with no landmark yet: call Add or Grow. X is copied.
//
// A nil or invalid kernel (kernel.Validate), invalid update options, a nil X and an
// Order with a row out of range or a row twice are errors wrapping ErrArgument; an X
// without rows or columns wraps ErrEmpty, and a NaN or infinite entry ErrNonFinite.
func NewApproximation(k kernel.Kernel, X mat.Matrix, opts ApproximationOptions) (*Approximation, error) {
	if err := checkKernel(k); err != nil {
		return nil, err
	}
	if err := opts.Update.Validate(); err != nil {
		return nil, kinds.Wrap(err, "update options")
	}
	X, n, d, err := kinds.Data(X)
	if err != nil {
		return nil, err
	}
	a := &Approximation{kern: k, n: n, d: d}
	if opts.Order != nil {
		seen := make([]bool, n)
		for p, i := range opts.Order {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("%w: landmark %d is row %d of %d", ErrArgument, p, i, n)
			}
			if seen[i] {
				return nil, fmt.Errorf("%w: row %d is a landmark twice", ErrArgument, i)
			}
			seen[i] = true
		}
		a.order = append([]int(nil), opts.Order...)
	} else {
		a.order = rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x5851F42D4C957F2D)).Perm(n)
	}
	a.x.ReuseAs(n, d)
	a.x.Copy(X)
	if err := a.sym.SetOptions(opts.Update); err != nil {
		return nil, kinds.Wrap(err, "update options")
	}
	a.prod.Reset(n)
	a.full = make([]float64, n)
	return a, nil
}

// Len returns the number of landmarks m.
func (a *Approximation) Len() int { return a.m }

// Size returns the number of data points n.
func (a *Approximation) Size() int { return a.n }

// Dim returns the dimension of the points.
func (a *Approximation) Dim() int { return a.d }

// Kernel returns the approximation's kernel.
func (a *Approximation) Kernel() kernel.Kernel { return a.kern }

// Landmarks returns the rows used as landmarks so far, in order.
func (a *Approximation) Landmarks() []int { return append([]int(nil), a.order[:a.m]...) }

// Add adds the next landmark. The landmark order exhausted is an error wrapping
// ErrArgument, a kernel value that is not finite ErrNonFinite, and the eigen-update's
// failure to converge ErrNotConverged; on error the approximation is unchanged.
func (a *Approximation) Add() error {
	if a.m >= len(a.order) {
		return fmt.Errorf("%w: all %d landmarks are in", ErrArgument, len(a.order))
	}
	m, d := a.m, a.d
	x := a.x.RawRowView(a.order[m])
	a.col = hugepage.Grow(a.col, m)
	col := a.col
	if m > 0 {
		kernel.Column(col, a.kern, &a.lview, x)
	}
	kernel.Column(a.full, a.kern, &a.x, x)
	c := a.kern.Eval(x, x)
	for i, v := range a.full {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: kernel value with point %d is %g", ErrNonFinite, i, v)
		}
	}
	if err := a.sym.BorderWith(vector(&a.colV, col), c, &a.prod, vector(&a.fullV, a.full)); err != nil {
		return kinds.Wrap(err, "landmark %d", m)
	}
	a.lbuf = append(a.lbuf[:m*d], x...)
	a.m = m + 1
	a.lview.SetRawMatrix(blas64.General{Rows: a.m, Cols: d, Stride: d, Data: a.lbuf})
	return nil
}

// Grow adds landmarks until there are m of them. More than the landmark order holds is
// an error wrapping ErrArgument; an error of Add stops it, with the landmarks added
// before it kept.
func (a *Approximation) Grow(m int) error {
	if m > len(a.order) {
		return fmt.Errorf("%w: %d landmarks requested, %d available", ErrArgument, m, len(a.order))
	}
	for a.m < m {
		if err := a.Add(); err != nil {
			return err
		}
	}
	return nil
}

// Values returns the approximate eigenvalues of K, (n/m)·λ for the eigenvalues λ of
// K_mm, in descending order (m of them). dst follows the rule of ikpca.Model.Values.
func (a *Approximation) Values(dst []float64) []float64 {
	dst = check.Room(dst, a.m)
	v := a.sym.Values(nil)
	f := float64(a.n) / float64(a.m)
	for q := range dst {
		dst[q] = f * v[a.m-1-q]
	}
	return dst
}

// VectorsTo stores the approximate eigenvectors of K, √(m/n)·K_nm·U·Λ⁻¹, as the columns
// of dst (n×m, in the order of Values; dst follows the rule for destinations of package ikpca:
// written in place if n×m, resized if empty, replaced by a new matrix otherwise). Columns of numerically zero eigenvalues are
// zero. Each column's largest-magnitude entry is positive (package sign,
// docs/design.md, "Signs").
func (a *Approximation) VectorsTo(dst *mat.Dense) {
	n, m := a.n, a.m
	if !check.Vectors(dst, n, m) {
		return
	}
	v := a.sym.Values(nil)
	tol := zeroTolerance(v, m)
	f := math.Sqrt(float64(m) / float64(n))
	for q := range m {
		j := m - 1 - q
		s := 0.0
		if v[j] > tol {
			s = f / v[j] * sign.OfColumn(&a.prod, j)
		}
		for i := range n {
			dst.Set(i, q, s*a.prod.At(i, j))
		}
	}
}

// Transform projects the rows of X onto the top k approximate components:
// score_j(x) = ±uⱼᵀ·k_m(x)/√λⱼ with k_m(x) the kernel column of x against the landmarks —
// the Nyström extension of the eigenvectors, which for a data point equals its
// coordinate (√(m/n)·K_nm·U·Λ⁻¹)ᵢⱼ times √((n/m)·λⱼ), the sign that of VectorsTo.
// Numerically zero components score zero. dst is resized if empty, otherwise it must be
// rows×k. Errors are those of ikpca.Model.Transform (k in [1, Len()]), and leave dst
// unchanged.
//
// The points go through in blocks of blocks.Size rows: the block's kernel values
// against the landmarks (kernel.Cross: a dgemm for RBF, polynomial and linear kernels,
// docs/design.md, "Kernel blocks") times the scaled, signed eigenvectors
// (Cross.ProjectTo: for RBF each row's scores as soon as its values are computed).
func (a *Approximation) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if a.kern == nil {
		return fmt.Errorf("%w: a zero Approximation: make one with NewApproximation", ErrArgument)
	}
	X, _, err := kinds.Transform(dst, X, a.d, k, a.m)
	if err != nil {
		return err
	}
	m := a.m
	v := a.sym.Values(nil)
	tol := zeroTolerance(v, m)
	u := a.sym.Vectors()
	// proj: row q is ±u_j/√λ_j for j = m−1−q, zero for a numerically zero λ_j.
	proj := mat.NewDense(k, m, nil)
	for q := range k {
		j := m - 1 - q
		if v[j] <= tol {
			continue
		}
		s := sign.OfColumn(&a.prod, j) / math.Sqrt(v[j])
		for l := range m {
			proj.Set(q, l, s*u.At(l, j))
		}
	}
	cross := kernel.NewCross(a.kern, &a.lview)
	return blocks.KernelProjections(dst, cross, X, proj, func(lo, hi, bad int, out *mat.Dense) error {
		if bad >= 0 {
			return blocks.NonFinite(ErrNonFinite, cross, X, lo+bad, "landmark")
		}
		if !finiteDense(out) {
			return fmt.Errorf("%w: a score is not finite", ErrNonFinite)
		}
		return nil
	})
}

// Norms are the norms of the error K − K̃ of an approximation.
type Norms struct {
	Frobenius, Spectral, Trace float64
}

// Errors returns ‖K − K̃‖ in the Frobenius, spectral and trace (nuclear) norms for the
// current landmarks, the quantities of Hallgren and Northrop's Figure 2, used to choose
// the number of landmarks. It forms K (n×n, computed once and kept) and the error
// E = K − K̃ explicitly: O(n²·m) time (one symmetric rank-m product) and O(n²) memory,
// meant for data sets of a few thousand points. The spectral norm comes from the Lanczos
// method (O(n²) per step, a few dozen steps); E is a Schur complement, positive
// semi-definite, so its trace norm is its trace (docs/design.md, "Nyström").
//
// An n×n matrix of more than 2³⁰ numbers (n > 32768) is an error wrapping ErrArgument
// (docs/design.md, "Sizes"), and error norms that are not finite (a kernel that
// overflows) ErrNonFinite.
func (a *Approximation) Errors() (Norms, error) {
	if a.kern == nil {
		return Norms{}, fmt.Errorf("%w: a zero Approximation: make one with NewApproximation", ErrArgument)
	}
	n, m := a.n, a.m
	if _, err := kinds.Floats("the kernel matrix", n, n); err != nil {
		return Norms{}, err
	}
	if a.k == nil {
		a.k = kernel.Matrix(a.kern, &a.x)
	}
	e := mat.NewSymDense(n, nil)
	e.CopySym(a.k)
	if m > 0 {
		// K̃ = G·Gᵀ with G = P·Λ^{-½} over the non-zero eigenvalues.
		v := a.sym.Values(nil)
		tol := zeroTolerance(v, m)
		g := mat.NewDense(n, m, nil)
		for j := range m {
			if v[j] <= tol {
				continue
			}
			s := 1 / math.Sqrt(v[j])
			for i := range n {
				g.Set(i, j, s*a.prod.At(i, j))
			}
		}
		e.SymRankK(e, -1, g)
	}
	var out Norms
	raw := e.RawSymmetric()
	var ss float64
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		out.Trace += row[i]
		ss += row[i] * row[i]
		for _, x := range row[i+1:] {
			ss += 2 * x * x
		}
	}
	out.Frobenius = math.Sqrt(ss)
	if math.IsNaN(out.Frobenius) || math.IsInf(out.Frobenius, 0) || math.IsNaN(out.Trace) || math.IsInf(out.Trace, 0) {
		return Norms{}, fmt.Errorf("%w: the Nyström error is not finite", ErrNonFinite)
	}
	out.Spectral = lanczos.SymNorm(e)
	if math.IsNaN(out.Spectral) || math.IsInf(out.Spectral, 0) {
		return Norms{}, fmt.Errorf("%w: the Nyström error is not finite", ErrNonFinite)
	}
	return out, nil
}

// zeroTolerance is the eigenvalue below which a component is treated as zero in
// projections: m·ε times the largest eigenvalue magnitude (the rule of package kpca).
func zeroTolerance(values []float64, m int) float64 {
	var big float64
	for _, v := range values {
		big = math.Max(big, math.Abs(v))
	}
	return float64(max(m, 1)) * 0x1p-52 * big
}

// finiteDense reports whether every entry of a is finite.
func finiteDense(a *mat.Dense) bool {
	raw := a.RawMatrix()
	for i := range raw.Rows {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// vector points the header h at x and returns it: package update takes its vectors as
// mat.Vector, and a header kept with the approximation passes a scratch slice without
// allocating (a *mat.VecDense of increment 1 is read in place).
func vector(h *mat.VecDense, x []float64) *mat.VecDense {
	h.SetRawVector(blas64.Vector{N: len(x), Inc: 1, Data: x})
	return h
}
