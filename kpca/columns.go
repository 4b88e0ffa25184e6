package kpca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// A model of kernel.Precomputed holds kernel columns instead of points: kernels on
// strings, graphs or sets have values but no coordinates, and exact incremental kernel
// PCA needs nothing but a new point's kernel column against the points and its
// self-kernel (docs/design.md, "Kernels given as columns"). Such a model has dimension
// 0. Fit takes the n×n kernel matrix, Add and AddBatch take rows of kernel values,
// AddColumn and RemoveColumn take columns, and Transform takes the kernel rows of new
// points against the model's points — scikit-learn's kernel="precomputed". What needs
// the kernel itself (Remove without a column, Refresh, Polish, Certify, Inverse,
// PreImage, a window's slide) is an error wrapping ErrNoKernel.

// precomputed reports a model of kernel columns (kernel.Precomputed).
func (md *Model) precomputed() bool { return kernel.IsPrecomputed(md.kern) }

// errNoKernel is the error of op, which evaluates the kernel, on a model of columns.
func errNoKernel(op string) error {
	return fmt.Errorf("%w: %s needs the kernel's values, and a model of kernel.Precomputed has only the kernel columns it was given", ErrNoKernel, op)
}

// needKernel returns errNoKernel(op) for a model of columns, and nil otherwise.
func (md *Model) needKernel(op string) error {
	if md.precomputed() {
		return errNoKernel(op)
	}
	return nil
}

// checkPrecomputedOptions refuses the options a model of columns cannot honour: drift
// control, which refreshes from the kernel.
func checkPrecomputedOptions(o Options) error {
	if o.RefreshTolerance > 0 {
		return fmt.Errorf("%w: Options.RefreshTolerance with kernel.Precomputed: drift control refreshes the decomposition from the kernel, which the model does not have", ErrNoKernel)
	}
	return nil
}

// errFullWindow is the error of a step that would slide a full window of columns.
func (md *Model) errFullWindow() error {
	return fmt.Errorf("%w: the window of %d points is full, and sliding it needs the kernel column of the oldest point, which a model of kernel.Precomputed does not hold: RemoveColumn(0, column) first", ErrNoKernel, md.opts.Window)
}

// AddColumn adds a point given by its kernel values to a model of kernel.Precomputed:
// col holds k(xᵢ, x) for the Len() points xᵢ in the order of Remove's indices (oldest
// first), and self is k(x, x). The decomposition is updated exactly as Add updates it
// for a kernel of these values — exactly, or tracked at rank r (docs/design.md,
// "Kernels given as columns") — so that a model streamed by columns equals one of
// points with the same kernel, to rounding. col is not retained.
//
// A model of another kernel is an error wrapping ErrArgument (give it points: Add), and
// so is a full Window (ErrNoKernel: sliding it needs the oldest point's column;
// RemoveColumn(0, …) first). A col of another length is an error wrapping
// ErrDimension, a NaN or infinite value ErrNonFinite, a solver that does not converge
// ErrNotConverged. On error the model is unchanged.
func (md *Model) AddColumn(col []float64, self float64) error {
	if err := md.columnsOnly("AddColumn"); err != nil {
		return err
	}
	if len(col) != md.m {
		return fmt.Errorf("%w: kernel column of %d values, the model has %d points", ErrDimension, len(col), md.m)
	}
	if w := md.opts.Window; w > 0 && md.m >= w {
		return md.errFullWindow()
	}
	return md.transact(md.addScope(), func() error {
		md.pending = md.pending[:0]
		if err := md.addGiven(col, self); err != nil {
			return err
		}
		md.endStep()
		return nil
	})
}

// columnsOnly refuses op, a method of models of kernel.Precomputed, on other models.
func (md *Model) columnsOnly(op string) error {
	if err := md.ready(); err != nil {
		return err
	}
	if !md.precomputed() {
		return fmt.Errorf("%w: %s is for models of kernel.Precomputed; this model has the kernel %v and takes points", ErrArgument, op, md.kern)
	}
	return nil
}

// addGiven adds the point of kernel column col (of length m) and self-kernel self;
// addColumn checks their values. The column is copied to md.col first: ensure may
// reallocate it, and the update must not read the caller's slice after it returns.
func (md *Model) addGiven(col []float64, self float64) error {
	m := md.m
	md.ensure(m + 1)
	a := md.col[:m]
	copy(a, col)
	return md.addColumn(a, self, nil)
}

// RemoveColumn removes point i of a model of kernel.Precomputed, given its kernel
// column col against the Len() points (col[i] = k(xᵢ, xᵢ)), as Remove removes a point
// of a model that can compute the column (see Remove): the later points' indices fall
// by one.
//
// The column is checked against the point's row sum, which the model keeps (the sum
// of its kernel values with every point): a column whose sum differs from it by more
// than 1e-8 of Σ|col| — a rounding allowance far above what a row sum accumulates over
// 10⁶ updates — is not point i's, and is an error wrapping ErrArgument. A model of
// another kernel is an error wrapping ErrArgument, an index out of range ErrIndex, a
// col of another length ErrDimension, a NaN or infinite value ErrNonFinite, a solver
// that does not converge ErrNotConverged. On error the model is unchanged.
func (md *Model) RemoveColumn(i int, col []float64) error {
	if err := md.columnsOnly("RemoveColumn"); err != nil {
		return err
	}
	if i < 0 || i >= md.m {
		return fmt.Errorf("%w: RemoveColumn(%d) of %d points", ErrIndex, i, md.m)
	}
	if len(col) != md.m {
		return fmt.Errorf("%w: kernel column of %d values, the model has %d points", ErrDimension, len(col), md.m)
	}
	var s, abs float64
	for j, v := range col {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: kernel value of point %d with point %d is %g", ErrNonFinite, i, j, v)
		}
		s += v
		abs += math.Abs(v)
	}
	if math.Abs(s-md.rowSum[i]) > 1e-8*(abs+math.Abs(md.rowSum[i])) {
		return fmt.Errorf("%w: RemoveColumn(%d): the column's values sum to %g, point %d's row sum is %g: not its column", ErrArgument, i, s, i, md.rowSum[i])
	}
	return md.transact(scopeStep, func() error {
		md.pending = md.pending[:0]
		a := md.col[:md.m]
		copy(a, col)
		if err := md.removeColumn(i, a); err != nil {
			return err
		}
		md.endStep()
		return nil
	})
}

// fitKernelRows fits a model of columns without points to the kernel matrix K (n×n,
// validated; its lower triangle is read, as LAPACK's uplo = 'L'): the last Window of
// its points in a window, the first BatchStart of them by one batch decomposition of
// their block of K and the others added as columns. On error the caller's txn
// (AddBatch's) gives the model back its state, and Fit discards it.
func (md *Model) fitKernelRows(K mat.Matrix, lo, start, rows int) error {
	if _, err := kinds.Floats("the kernel matrix of a batch decomposition", start, start); err != nil {
		return err
	}
	md.ensure(start)
	S := mat.NewSymDense(start, nil)
	for i := range start {
		for j := range i + 1 {
			S.SetSym(j, i, K.At(lo+i, lo+j))
		}
	}
	if err := md.batchStart(start, func() error { return md.decomposeMatrix(S) }); err != nil {
		return err
	}
	if start == rows {
		return nil
	}
	md.Reserve(rows)
	return md.addKernelRows(K, lo+start, lo+rows, lo)
}

// addKernelRows adds rows r0 to r1−1 of X as points of kernel columns, one at a time:
// the row of a point holds its kernel values against the model's points from column c0
// on, then its self-kernel (at column c0 + Len(), Len() counting the rows added before
// it). It stops at the first error, returning it with the row.
func (md *Model) addKernelRows(X mat.Matrix, r0, r1, c0 int) error {
	w := md.opts.Window
	for r := r0; r < r1; r++ {
		if w > 0 && md.m >= w {
			return fmt.Errorf("kpca: row %d: %w", r, md.errFullWindow())
		}
		m := md.m
		md.ensure(m + 1)
		a := md.col[:m]
		for j := range a {
			a[j] = X.At(r, c0+j)
		}
		md.pending = md.pending[:0]
		if err := md.addColumn(a, X.At(r, c0+m), nil); err != nil {
			return fmt.Errorf("kpca: row %d: %w", r, err)
		}
		md.endStep()
	}
	return nil
}

// transformKernelRows is Transform for a model of columns: the rows of X are the kernel
// values of new points against the model's points (n×Len()), scored as Transform scores
// the kernel columns it computes: (X·Uᵀ − shift)·scale, a dgemm.
func (md *Model) transformKernelRows(b basis, dst *mat.Dense, X mat.Matrix, rows, k int) error {
	top, scale, shift := md.projector(b, k)
	var out mat.Dense
	native.Mul(&out, X, top.T())
	for i := range rows {
		row := out.RawRowView(i)
		for q, p := range row {
			if math.IsNaN(p) || math.IsInf(p, 0) {
				return fmt.Errorf("%w: the scores of row %d overflow", ErrNonFinite, i)
			}
			row[q] = (p - shift[q]) * scale[q]
		}
	}
	if dst.IsEmpty() {
		dst.ReuseAs(rows, k)
	}
	dst.Copy(&out)
	return nil
}

// kernelRows checks X as b rows of kernel values for a model of columns of m points:
// b×(m+b) (see AddBatch), finite, and returns the matrix to read them from
// (kinds.Matrix) and b.
func (md *Model) kernelRows(X mat.Matrix) (mat.Matrix, int, error) {
	X, b, c, err := kinds.Matrix(X)
	if err != nil {
		return nil, 0, err
	}
	if b == 0 {
		return nil, 0, fmt.Errorf("%w: no kernel rows", ErrEmpty)
	}
	if c != md.m+b {
		return nil, 0, fmt.Errorf("%w: %d rows of %d kernel values; a model of kernel.Precomputed with %d points takes b×(m+b) = %d×%d (each row against the points, then against the new ones)",
			ErrDimension, b, c, md.m, b, md.m+b)
	}
	return kinds.Points(X, md.m+b)
}

// kernelBatch checks X as AddBatch's rows of kernel values for a model of columns, and
// refuses rows beyond a full window, which a model of columns cannot slide.
func (md *Model) kernelBatch(X mat.Matrix) (mat.Matrix, int, error) {
	X, b, err := md.kernelRows(X)
	if err != nil {
		return nil, 0, err
	}
	if w := md.opts.Window; md.m > 0 && w > 0 && md.m+b > w {
		return nil, 0, md.errFullWindow()
	}
	return X, b, nil
}

// addKernelBatch is AddBatch for a model of columns, of the b rows of X checked by
// kernelBatch; its steps only append points, and the caller's txn (scopeAppend) makes
// it all or nothing.
func (md *Model) addKernelBatch(X mat.Matrix, b int) error {
	if md.m == 0 {
		return md.fitRows(X, b)
	}
	md.ensure(md.m + b)
	return md.addKernelRows(X, 0, b, 0)
}
