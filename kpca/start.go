package kpca

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/truncation"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

// decompose computes the decomposition of the current points from scratch: the kernel
// matrix, its row sums, total and trace, and a batch eigendecomposition of the matrix
// the mode and method keep — every pair, or the top rank (topPairs). It changes md only
// if it succeeds. A model without points gets the empty decomposition; one whose m×m
// kernel matrix would hold more than check.MaxFloats values (m above 32,768) is an
// ErrArgument, found before anything is allocated.
func (md *Model) decompose() error {
	m := md.m
	if m == 0 {
		md.thin.Reset(0)
		md.thin.SetTruncation(md.truncation())
		md.total, md.self, md.cert = 0, 0, certificate{}
		md.sincePolish = 0
		return nil
	}
	if md.precomputed() {
		return errNoKernel("a batch decomposition from the points")
	}
	if _, err := kinds.Floats("the kernel matrix of a batch decomposition", m, m); err != nil {
		return err
	}
	return md.decomposeMatrix(kernel.Matrix(md.kern, &md.view))
}

// decomposeMatrix is decompose for the kernel matrix K of the m points (its upper
// triangle is read), computed by decompose or copied by Fit of kernel.Precomputed: its
// storage is the decomposition's, and destroyed.
func (md *Model) decomposeMatrix(K *mat.SymDense) error {
	raw := wholeKernel(K)
	sums, err := kernelSums(raw)
	if err != nil {
		return err
	}
	fresh, drop, err := md.decomposeThin(K, raw)
	if err != nil {
		return err
	}
	md.thin.CopyFrom(fresh)
	md.thin.SetTruncation(md.truncation())
	var cert certificate
	if md.rank > 0 {
		cert.Drop(drop)
	}
	md.setSums(sums, cert)
	return nil
}

// matrixSums are the running sums of a kernel matrix K of m points: K·1, 1ᵀK1 and
// the trace.
type matrixSums struct {
	rowSum      []float64
	total, self float64
}

// kernelSums returns the running sums of the symmetric K, held whole in raw (both
// triangles: wholeKernel), checking that its values are finite: the first value that is
// not, in row-major order, is the error. Each row is summed in order, on up to
// GOMAXPROCS goroutines, and the rows' sums are added in order, so the sums do not
// depend on their number.
func kernelSums(raw blas64.Symmetric) (matrixSums, error) {
	m := raw.N
	out := matrixSums{rowSum: make([]float64, m)}
	bad := -1 // the first row with a value not finite
	var mu sync.Mutex
	var team parallel.Team
	team.Run(congruenceWorkers(m), m, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var s float64
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+m] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					mu.Lock()
					if bad < 0 || i < bad {
						bad = i
					}
					mu.Unlock()
					return
				}
				s += v
			}
			out.rowSum[i] = s
		}
	})
	if bad >= 0 {
		for j, v := range raw.Data[bad*raw.Stride : bad*raw.Stride+m] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return matrixSums{}, fmt.Errorf("%w: kernel value k(x%d, x%d) = %g", ErrNonFinite, bad, j, v)
			}
		}
	}
	for i, s := range out.rowSum {
		out.total += s
		out.self += raw.Data[i*raw.Stride+i]
	}
	return out, nil
}

// wholeKernel makes K's storage hold both of its triangles, the upper (K's own) mirrored
// over the lower, and returns it: the rows that kernelSums and helmertCongruence read.
func wholeKernel(K *mat.SymDense) blas64.Symmetric {
	raw := K.RawSymmetric()
	var team parallel.Team
	wholeSymmetric(&team, congruenceWorkers(raw.N), raw.Data, raw.N, raw.Stride, true)
	return raw
}

// setSums makes the sums of a batch decomposition the model's, with the certificate
// of its truncation.
func (md *Model) setSums(sums matrixSums, cert certificate) {
	copy(md.rowSum, sums.rowSum)
	md.total, md.self, md.cert = sums.total, sums.self, cert
	md.sincePolish = 0 // a batch decomposition restarts the certificate as a polish does
}

// decomposeThin returns the decomposition of method Bordered for the kernel matrix K of
// the points: the eigenpairs of K, or of the centred K' taken in the Helmert basis Q of
// 1⊥ — M = QᵀKQ, whose eigenvectors W give those of K' as V = Q·W, orthogonal to 1 by
// construction (docs/design.md, "Helmert coordinates") — all of them, or the top rank,
// and what that truncation dropped.
func (md *Model) decomposeThin(K *mat.SymDense, raw blas64.Symmetric) (*update.Thin, update.Dropped, error) {
	m := md.m
	fresh := new(update.Thin)
	fresh.SetOptions(md.opts.Update)
	centred := !md.opts.Uncentred
	n := m // the order of the matrix decomposed
	a := K
	var alpha []float64
	if centred {
		n = m - 1
		if n <= 0 {
			fresh.Reset(m) // one point (or none): no component
			return fresh, update.Dropped{}, nil
		}
		alpha = helmertAlpha(nil, m+1)
		a = helmertCongruence(raw, alpha)
	}
	values, w, drop, err := topPairs(a, md.rank, psd(md.kern))
	if err != nil {
		return nil, update.Dropped{}, kinds.Wrap(err, "batch decomposition")
	}
	k := len(values)
	if k == 0 {
		fresh.Reset(m)
		return fresh, drop, nil
	}
	v := w
	if centred {
		// V = Q·W: O(m) a column.
		v = mat.NewDense(m, k, nil)
		helmertColumns(v.RawMatrix(), w.RawMatrix(), alpha)
	}
	if err := fresh.SetEigen(values, v); err != nil {
		return nil, update.Dropped{}, kinds.Wrap(err, "batch decomposition")
	}
	return fresh, drop, nil
}

// topPairs returns the top r eigenpairs of the symmetric matrix a (every pair if r is
// zero; at most r of positive eigenvalue otherwise, as update.Thin truncates), the
// values ascending and the vectors as the columns of an n×r matrix, and what the
// truncation dropped.
//
// With r = 0, or r ≥ n−1, or a matrix not known to be positive semi-definite (psd
// false: a user's kernel), it decomposes a fully, in its own storage (fullPairs: LAPACK
// dsyevd with OpenBLAS) and truncates. Otherwise only the top r+1 pairs are computed, in a's own
// storage, which is destroyed (native.EigenSymTopInPlace: LAPACK dsyevr with an index
// range, O(n³/3·4) for the reduction to tridiagonal form and O(n·r) beyond it instead
// of dsyevd's vectors; from n = 2560 a block Krylov solver whose pairs a Cholesky
// factorisation proves, docs/design.md, "The top of a batch by block Krylov") — and
// what the others drop is known from them and the trace: their largest is the (r+1)-th
// eigenvalue, their sum trace − Σ(top r). Their negative part is what rounding leaves of a positive
// semi-definite matrix: the matrix holds each kernel value to within kernelAccuracy of
// its size (docs/design.md, "Kernel blocks") and the solver adds its backward error,
// so no dropped eigenvalue lies below −(kernelAccuracy + 64·n·ε)·‖a‖_F, which is
// what Min and Negative are given.
func topPairs(a *mat.SymDense, r int, psd bool) ([]float64, *mat.Dense, update.Dropped, error) {
	n := a.SymmetricDim()
	if r == 0 || r+1 >= n || !psd {
		return fullPairs(a, r)
	}
	// The trace and ‖a‖_F², from the upper triangle, before the solver destroys it.
	raw := a.RawSymmetric()
	var trace, diag, off float64
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		trace += row[i]
		diag += row[i] * row[i]
		for _, v := range row[i+1:] {
			off += v * v
		}
	}
	frob := diag + 2*off
	values := make([]float64, r+1)
	vecs := mat.NewDense(n, r+1, nil)
	vr := vecs.RawMatrix()
	if err := native.EigenSymTopInPlace(n, r+1, raw.Data, raw.Stride, values, vr.Data, vr.Stride); err != nil {
		return nil, nil, update.Dropped{}, err
	}
	floor := (kernelAccuracy + 64*float64(n)*vec.Roundoff) * math.Sqrt(frob)
	// values[0] is the (r+1)-th eigenvalue; the top r follow, of which only the positive
	// ones are kept.
	from := 1
	for from < len(values) && values[from] <= 0 {
		from++
	}
	kept := 0.0
	for _, v := range values[from:] {
		kept += v
	}
	drop := update.Dropped{Count: n - (len(values) - from), Max: values[from-1], Min: -floor}
	if drop.Max < drop.Min {
		drop.Min = drop.Max
	}
	drop.Negative = float64(drop.Count) * floor
	drop.Positive = math.Max(trace-kept+drop.Negative, 0)
	if from == len(values) {
		return nil, nil, drop, nil
	}
	return values[from:], mat.DenseCopyOf(vecs.Slice(0, n, from, len(values))), drop, nil
}

// kernelAccuracy is the relative accuracy of each value of kernel.Matrix (its blocks
// are accurate to 1e-13 of each value: docs/design.md, "Kernel blocks").
const kernelAccuracy = truncation.KernelAccuracy

// psd reports whether the kernel is one of the package kernel's positive semi-definite
// built-in kernels (RBF, Laplacian, linear, cosine — the linear kernel of the normalised
// points — and polynomial with a non-negative scale and offset and an integer degree);
// the sigmoid is not, and a user's kernel may not be.
func psd(k kernel.Kernel) bool { return kernel.PositiveSemiDefinite(k) }

// fullPairs is topPairs by a full decomposition, in a's own storage, which is destroyed:
// the eigenvectors take its place (native.EigenSymInPlace), and with r = 0 they are
// returned as a view of it.
func fullPairs(a *mat.SymDense, r int) ([]float64, *mat.Dense, update.Dropped, error) {
	n := a.SymmetricDim()
	raw := a.RawSymmetric()
	values := make([]float64, n)
	if err := native.EigenSymInPlace(n, raw.Data, raw.Stride, values, true); err != nil {
		return nil, nil, update.Dropped{}, err
	}
	var vecs mat.Dense
	vecs.SetRawMatrix(blas64.General{Rows: n, Cols: n, Stride: raw.Stride, Data: raw.Data[:(n-1)*raw.Stride+n]})
	if r == 0 {
		return values, &vecs, update.Dropped{}, nil
	}
	// The top r, of positive eigenvalue (the truncation of update.Thin).
	from := max(n-r, 0)
	for from < n && values[from] <= 0 {
		from++
	}
	var drop update.Dropped
	for i, v := range values[:from] {
		if i == 0 || v < drop.Min {
			drop.Min = v
		}
		if i == 0 || v > drop.Max {
			drop.Max = v
		}
		if v > 0 {
			drop.Positive += v
		} else {
			drop.Negative -= v
		}
	}
	drop.Count = from
	if from == n {
		return nil, nil, drop, nil
	}
	return values[from:], mat.DenseCopyOf(vecs.Slice(0, n, from, n)), drop, nil
}
