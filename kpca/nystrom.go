package kpca

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// NystromOptions configure a Nystrom approximation.
type NystromOptions struct {
	// Order lists the landmarks (row indices of the data) in the order they are added.
	// Nil means a uniformly random permutation of all rows, drawn with Seed.
	Order []int
	// Seed seeds the random order when Order is nil.
	Seed uint64
	// Update tunes the eigen-update solver.
	Update update.Options
}

// Nystrom is the incremental Nyström approximation of the n×n kernel matrix K of a data
// set (Hallgren and Northrop, §4, eq. 7): with m landmarks, the kernel matrix K_mm of the
// landmarks has the eigendecomposition U·Λ·Uᵀ, and K is approximated by
//
//	K̃ = K_nm·K_mm⁺·K_mn,  with eigenvalues (n/m)·Λ and eigenvectors √(m/n)·K_nm·U·Λ⁻¹.
//
// Landmarks are added one at a time. Each addition borders K_mm (update.Sym.BorderWith)
// and carries P = K_nm·U along with the same change of basis, O(n·m) for the new kernel
// column plus O(n·m²) for the product, instead of recomputing anything from scratch.
// Eigenvalues that are zero or numerically zero (at most m·ε·λmax) are left out of the
// pseudo-inverse, as they are of the projections.
//
// Nystrom is not an ikpca.Model: it approximates the kernel matrix of a fixed data set
// given at the start, its Len counts landmarks rather than points seen, and it has no
// points to add. Its Values, VectorsTo and Transform follow the same rules nonetheless,
// signs included.
type Nystrom struct {
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

// NewNystrom prepares the approximation of the kernel matrix of the rows of X (n ≥ 1
// points) for the kernel k, with no landmark yet: call Add or Grow.
func NewNystrom(k kernel.Kernel, X mat.Matrix, opts NystromOptions) (*Nystrom, error) {
	if isNil(k) {
		return nil, fmt.Errorf("%w: nil kernel", ErrArgument)
	}
	if err := kernel.Validate(k); err != nil {
		return nil, fmt.Errorf("kpca: %w", err)
	}
	if err := opts.Update.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrArgument, err)
	}
	n, d, err := errs.Data(X)
	if err != nil {
		return nil, err
	}
	ny := &Nystrom{kern: k, n: n, d: d}
	ny.x.ReuseAs(n, d)
	ny.x.Copy(X)
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
		ny.order = append([]int(nil), opts.Order...)
	} else {
		ny.order = rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x5851F42D4C957F2D)).Perm(n)
	}
	ny.sym.SetOptions(opts.Update)
	ny.prod.Reset(n)
	ny.full = make([]float64, n)
	return ny, nil
}

// Len returns the number of landmarks m.
func (ny *Nystrom) Len() int { return ny.m }

// Size returns the number of data points n.
func (ny *Nystrom) Size() int { return ny.n }

// Landmarks returns the rows used as landmarks so far, in order.
func (ny *Nystrom) Landmarks() []int { return append([]int(nil), ny.order[:ny.m]...) }

// Add adds the next landmark. It fails when the landmark order is exhausted; on error the
// approximation is unchanged.
func (ny *Nystrom) Add() error {
	if ny.m >= len(ny.order) {
		return fmt.Errorf("%w: all %d landmarks are in", ErrArgument, len(ny.order))
	}
	m, d := ny.m, ny.d
	x := ny.x.RawRowView(ny.order[m])
	ny.col = grow(ny.col, m)
	a := ny.col
	if m > 0 {
		kernel.Column(a, ny.kern, &ny.lview, x)
	}
	kernel.Column(ny.full, ny.kern, &ny.x, x)
	c := ny.kern.Eval(x, x)
	for i, v := range ny.full {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: kernel value with point %d is %g", ErrNonFinite, i, v)
		}
	}
	if err := ny.sym.BorderWith(vector(&ny.colV, a), c, &ny.prod, vector(&ny.fullV, ny.full)); err != nil {
		return fmt.Errorf("kpca: Nyström landmark %d: %w", m, err)
	}
	ny.lbuf = append(ny.lbuf[:m*d], x...)
	ny.m = m + 1
	ny.lview.SetRawMatrix(blas64.General{Rows: ny.m, Cols: d, Stride: d, Data: ny.lbuf})
	return nil
}

// Grow adds landmarks until there are m of them.
func (ny *Nystrom) Grow(m int) error {
	if m > len(ny.order) {
		return fmt.Errorf("%w: %d landmarks requested, %d available", ErrArgument, m, len(ny.order))
	}
	for ny.m < m {
		if err := ny.Add(); err != nil {
			return err
		}
	}
	return nil
}

// Values returns the approximate eigenvalues of K, (n/m)·λ for the eigenvalues λ of K_mm,
// in descending order (m of them). dst follows the rules of Model.Values.
func (ny *Nystrom) Values(dst []float64) []float64 {
	dst = check.Room(dst, ny.m)
	v := ny.sym.Values(nil)
	f := float64(ny.n) / float64(ny.m)
	for q := range dst {
		dst[q] = f * v[ny.m-1-q]
	}
	return dst
}

// VectorsTo stores the approximate eigenvectors of K, √(m/n)·K_nm·U·Λ⁻¹, as the columns
// of dst (n×m, in the order of Values; resized if empty, and VectorsTo panics on a wrong
// non-empty size, like gonum's VectorsTo). Columns of numerically zero eigenvalues are
// zero. Each column's largest-magnitude entry is positive (package sign), as in
// Model.VectorsTo.
func (ny *Nystrom) VectorsTo(dst *mat.Dense) {
	n, m := ny.n, ny.m
	if !check.Vectors(dst, n, m) {
		return
	}
	v := ny.sym.Values(nil)
	tol := zeroTolerance(v, m)
	f := math.Sqrt(float64(m) / float64(n))
	for q := range m {
		j := m - 1 - q
		s := 0.0
		if v[j] > tol {
			s = f / v[j] * sign.OfColumn(&ny.prod, j)
		}
		for i := range n {
			dst.Set(i, q, s*ny.prod.At(i, j))
		}
	}
}

// Transform projects the rows of X onto the top k approximate components:
// score_j(x) = ±uⱼᵀ·k_m(x)/√λⱼ with k_m(x) the kernel column of x against the landmarks —
// the Nyström extension of the eigenvectors, which for a data point equals its
// coordinate (√(m/n)·K_nm·U·Λ⁻¹)ᵢⱼ times √((n/m)·λⱼ), the sign that of VectorsTo.
// Numerically zero components score zero. dst is resized if empty, otherwise it must be
// rows×k. Errors are those of ikpca.Model.Transform, and leave dst unchanged.
//
// The points go through in blocks of blocks.Size rows: the block's kernel values
// against the landmarks (kernel.Cross: a dgemm for RBF, polynomial and linear kernels,
// docs/design.md, "Kernel blocks") times the scaled, signed eigenvectors
// (Cross.ProjectTo: for RBF each row's scores as soon as its values are computed).
func (ny *Nystrom) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if _, err := errs.Transform(dst, X, ny.d, k, ny.m); err != nil {
		return err
	}
	m := ny.m
	v := ny.sym.Values(nil)
	tol := zeroTolerance(v, m)
	u := ny.sym.Vectors()
	// proj: row q is ±u_j/√λ_j for j = m−1−q, zero for a numerically zero λ_j.
	proj := mat.NewDense(k, m, nil)
	for q := range k {
		j := m - 1 - q
		if v[j] <= tol {
			continue
		}
		s := sign.OfColumn(&ny.prod, j) / math.Sqrt(v[j])
		for l := range m {
			proj.Set(q, l, s*u.At(l, j))
		}
	}
	cross := kernel.NewCross(ny.kern, &ny.lview)
	return blocks.KernelProjections(dst, cross, X, proj, func(lo, hi, bad int, out *mat.Dense) error {
		if bad >= 0 {
			return nonFiniteKernel(cross, X, lo+bad, "landmark")
		}
		if !finiteDense(out) {
			return fmt.Errorf("%w: a score is not finite", ErrNonFinite)
		}
		return nil
	})
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

// Errors measures the approximation: ‖K − K̃‖ in three norms.
type Errors struct {
	Frobenius, Spectral, Trace float64
}

// Errors returns ‖K − K̃‖ in the Frobenius, spectral and trace (nuclear) norms for the
// current landmarks, the quantities of Hallgren and Northrop's Figure 2, used to choose
// the number of landmarks. It forms K (n×n, computed once and kept) and the error
// E = K − K̃ explicitly: O(n²·m) time (one symmetric rank-m product) and O(n²) memory,
// meant for data sets of a few thousand points. The spectral norm comes from the Lanczos
// method (O(n²) per step, a few dozen steps); E is a Schur complement, positive
// semi-definite, so its trace norm is its trace.
func (ny *Nystrom) Errors() (Errors, error) {
	n, m := ny.n, ny.m
	if ny.k == nil {
		ny.k = kernel.Matrix(ny.kern, &ny.x)
	}
	e := mat.NewSymDense(n, nil)
	e.CopySym(ny.k)
	if m > 0 {
		// K̃ = G·Gᵀ with G = P·Λ^{-½} over the non-zero eigenvalues.
		v := ny.sym.Values(nil)
		tol := zeroTolerance(v, m)
		g := mat.NewDense(n, m, nil)
		for j := range m {
			if v[j] <= tol {
				continue
			}
			s := 1 / math.Sqrt(v[j])
			for i := range n {
				g.Set(i, j, s*ny.prod.At(i, j))
			}
		}
		e.SymRankK(e, -1, g)
	}
	var out Errors
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
	out.Spectral = lanczos.SymNorm(e)
	if math.IsNaN(out.Spectral) || math.IsNaN(out.Frobenius) {
		return Errors{}, fmt.Errorf("%w: the Nyström error is not finite", ErrNonFinite)
	}
	return out, nil
}
