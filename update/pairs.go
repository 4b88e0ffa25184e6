package update

import (
	"cmp"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/probe"
)

// The read-outs and the set-up that Sym and Thin share: a Sym is a square Thin (k = n)
// with its vectors stored n×n, a Thin keeps them with a leading stride ld.

// valuesTo copies values into dst, allocated when nil; a dst of another length panics
// with mat.ErrSliceLengthMismatch, as gonum's EigenSym.Values does.
func valuesTo(dst, values []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(values))
	}
	if len(dst) != len(values) {
		panic(mat.ErrSliceLengthMismatch)
	}
	copy(dst, values)
	return dst
}

// vectorsTo copies the rows×cols matrix whose row i is src[off+i*ld : off+i*ld+cols]
// into dst, resizing an empty dst (and leaving it empty when the matrix is); a dst of
// another shape panics with mat.ErrShape, as gonum's EigenSym.VectorsTo does.
func vectorsTo(dst *mat.Dense, src []float64, off, ld, rows, cols int) {
	if dst.IsEmpty() {
		if rows == 0 || cols == 0 {
			return
		}
		dst.ReuseAs(rows, cols)
	} else if r, c := dst.Dims(); r != rows || c != cols {
		panic(mat.ErrShape)
	}
	raw := dst.RawMatrix()
	for i := range rows {
		copy(raw.Data[i*raw.Stride:i*raw.Stride+cols], src[off+i*ld:off+i*ld+cols])
	}
}

// ascending sets perm to the permutation that sorts values ascending, keeping ties in
// their order: Sym.SetEigen and Thin.SetEigen accept eigenpairs in any order.
func ascending(perm []int, values []float64) {
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(values[a], values[b]) })
}

// permuteValues sets dst[p] = values[perm[p]]: the eigenvalues of Sym.SetEigen and
// Thin.SetEigen in ascending order (perm from ascending), their vectors by
// permuteColumns.
func permuteValues(dst, values []float64, perm []int) {
	for p, j := range perm {
		dst[p] = values[j]
	}
}

// permuteColumns writes column perm[p] of src to column p of dst (row i at off + i·ld):
// from the raw rows of a mat.RawMatrixer (a *mat.Dense), through At otherwise.
func permuteColumns(dst []float64, off, ld int, src mat.Matrix, perm []int) {
	rows, _ := src.Dims()
	raw, isRaw := src.(mat.RawMatrixer)
	for i := range rows {
		to := dst[off+i*ld : off+i*ld+len(perm)]
		if isRaw {
			m := raw.RawMatrix()
			from := m.Data[i*m.Stride : i*m.Stride+m.Cols]
			for p, j := range perm {
				to[p] = from[j]
			}
			continue
		}
		for p, j := range perm {
			to[p] = src.At(i, j)
		}
	}
}

// sortedOrthogonality returns probe.Orthogonality of the columns of v in the order perm
// — the order in which Sym.SetEigen and Thin.SetEigen store them — computed on a copy
// in that order (sorted, n×len(perm)), and the scratch x, y, r (len(perm), n,
// len(perm)). Probing the vectors as they are stored makes the check a function of the
// stored state: the probe's deviation depends on the columns' order, so vectors given
// in another order could pass it and then, saved sorted and loaded again, fail it
// (FuzzLoad found a checkpoint that did).
func sortedOrthogonality(v mat.Matrix, perm []int, sorted, x, y, r []float64) float64 {
	k := len(perm)
	n, _ := v.Dims()
	permuteColumns(sorted, 0, k, v, perm)
	return probe.Orthogonality(blas64.General{Rows: n, Cols: k, Stride: k, Data: sorted}, x, probe.Fill(x, probe.Seed), y, r)
}
