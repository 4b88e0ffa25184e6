package update

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
)

// The vectors that enter the public methods (RankOne's v, Border's column, a Thin's new
// direction, a Product's new column) are gonum mat.Vectors. A *mat.VecDense is read
// through its raw storage whatever its increment: checked in place, used in place when
// its increment is 1 and otherwise copied into the scratch of the receiving object —
// never an allocation. A vector of any other type is the caller's own, which may report
// a negative or absurd length, change it between calls, or panic in AtVec: it is read
// once (readVector) into a new *mat.VecDense, and only the copy is read after
// (docs/design.md, "Hostile input"). A nil vector (an untyped nil, or a nil pointer)
// stands for a vector of length 0, so that the first Border of an empty decomposition
// takes nil; for any other length it is an ErrArgument error.

// readVector returns v as an update reads it: nil as it is, and a *mat.VecDense whose
// storage holds its Len entries; a vector of any other type, or a *mat.VecDense whose
// storage is short of its length, copied once through Len and AtVec into a new
// *mat.VecDense, guarded, so that one that reports a negative or
// absurd length, changes it while it is read, or panics is an ErrArgument error naming
// it before anything else is read.
func readVector(name string, v mat.Vector) (out mat.Vector, err error) {
	if check.IsNil(v) {
		return nil, nil
	}
	if vd, ok := v.(*mat.VecDense); ok {
		if _, ok := rawVector(vd); ok {
			return vd, nil
		}
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: %s (%T) panicked when read: %v", ErrArgument, name, v, p)
		}
	}()
	n := v.Len()
	if n < 0 {
		return nil, fmt.Errorf("%w: %s (%T) reports length %d", ErrArgument, name, v, n)
	}
	if _, err := kinds.Floats(fmt.Sprintf("%s (%T)", name, v), n); err != nil {
		return nil, err
	}
	if n == 0 {
		return &mat.VecDense{}, nil // empty, but not nil: not the nil that means none
	}
	data := make([]float64, n)
	for i := range data {
		data[i] = v.AtVec(i)
	}
	if n2 := v.Len(); n2 != n {
		return nil, fmt.Errorf("%w: %s (%T) changed its length from %d to %d while it was read", ErrArgument, name, v, n, n2)
	}
	return mat.NewVecDense(n, data), nil
}

// checkVector reports a vector v that is not of length n (ErrDimension), nil where n > 0
// (ErrArgument) or with a NaN or infinite entry (ErrNonFinite), naming it name.
func checkVector(name string, v mat.Vector, n int) error {
	if check.IsNil(v) {
		if n == 0 {
			return nil
		}
		return fmt.Errorf("%w: nil %s, want length %d", ErrArgument, name, n)
	}
	if l := v.Len(); l != n {
		return fmt.Errorf("%w: len(%s) = %d, want %d", ErrDimension, name, l, n)
	}
	if raw, ok := rawVector(v); ok {
		for i := range n {
			if x := raw.Data[i*raw.Inc]; math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%w: %s[%d] = %g", ErrNonFinite, name, i, x)
			}
		}
		return nil
	}
	for i := range n {
		if x := v.AtVec(i); math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: %s[%d] = %g", ErrNonFinite, name, i, x)
		}
	}
	return nil
}

// rawVector returns the raw storage of v, when it has one that can be read directly
// (positive increment, or at most one element), with N = v.Len().
func rawVector(v mat.Vector) (blas64.Vector, bool) {
	rv, ok := v.(mat.RawVectorer)
	if !ok {
		return blas64.Vector{}, false
	}
	raw := rv.RawVector()
	n := v.Len()
	raw.N, raw.Inc = n, max(raw.Inc, 1)
	if n > 1 && rv.RawVector().Inc <= 0 || n > 0 && len(raw.Data) < (n-1)*raw.Inc+1 {
		return blas64.Vector{}, false
	}
	return raw, true
}

// vectorData returns the n entries of v (checked by checkVector) as a contiguous slice:
// v's own storage when its increment is 1, otherwise a copy in scratch[:n]. A nil v
// gives an empty slice. The caller must not write to the result.
func vectorData(v mat.Vector, n int, scratch []float64) []float64 {
	if n == 0 {
		return nil
	}
	if contiguous(v) {
		raw, _ := rawVector(v)
		return raw.Data[:n:n]
	}
	copyVector(scratch[:n], v)
	return scratch[:n]
}

// contiguous reports whether vectorData reads v (checked by checkVector) in place: a
// raw vector of increment 1 (or of at most one element), or nil.
func contiguous(v mat.Vector) bool {
	if check.IsNil(v) {
		return true
	}
	raw, ok := rawVector(v)
	return ok && (raw.Inc == 1 || raw.N <= 1)
}

// copyVector copies the len(dst) entries of v (checked by checkVector) into dst.
func copyVector(dst []float64, v mat.Vector) {
	if len(dst) == 0 {
		return
	}
	if raw, ok := rawVector(v); ok {
		if raw.Inc == 1 {
			copy(dst, raw.Data[:len(dst)])
			return
		}
		for i := range dst {
			dst[i] = raw.Data[i*raw.Inc]
		}
		return
	}
	for i := range dst {
		dst[i] = v.AtVec(i)
	}
}

// normSq returns vᵀv for a vector checked by checkVector, read in place.
func normSq(v mat.Vector) float64 {
	var s float64
	n := v.Len()
	if raw, ok := rawVector(v); ok {
		for i := range n {
			x := raw.Data[i*raw.Inc]
			s += x * x
		}
		return s
	}
	for i := range n {
		x := v.AtVec(i)
		s += x * x
	}
	return s
}
