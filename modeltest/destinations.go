package modeltest

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/vec"
)

// vectorsTo is a model that writes its components to a matrix (VectorsTo), a method
// that cannot fail.
type vectorsTo interface{ VectorsTo(dst *mat.Dense) }

// explained is a model that reports each component's share of the variance.
type explained interface{ ExplainedVariance(dst []float64) []float64 }

// checkDestinations: the module's rule for destinations (package ikpca, "Destinations")
// in the methods beyond Values and Transform that a model has. ExplainedVariance
// follows Values' rule for slices. VectorsTo, which cannot fail, writes a dst of the
// result's shape in place, resizes an empty one, and replaces one of another shape by a
// new matrix, leaving its old storage untouched; a nil dst does nothing; none of them
// panics, and all give the same values.
func checkDestinations(r reporter, s *Subject, m ikpca.Incremental, _ *mat.Dense) {
	r.Helper()
	if e, ok := m.(explained); ok {
		want := e.ExplainedVariance(nil)
		long := filledSlice(len(want) + 2)
		if got := e.ExplainedVariance(long); len(want) > 0 && (len(got) != len(want) || &got[0] != &long[0] || !vec.SameBits(got, want)) {
			r.Errorf("ExplainedVariance(dst) with room for %d: not written to dst[:%d]", len(want), len(want))
		}
		if len(want) > 1 {
			short := filledSlice(len(want) - 1)
			got := e.ExplainedVariance(short)
			if !vec.SameBits(got, want) || !allSentinel(short) {
				r.Errorf("ExplainedVariance(dst) without room: %v (dst now %v), want a new slice %v", got, short, want)
			}
		}
	}
	v, ok := m.(vectorsTo)
	if !ok {
		return
	}
	var want mat.Dense
	if err := try(func() error { v.VectorsTo(&want); return nil }); err != nil {
		r.Errorf("VectorsTo of an empty dst: %v", err)
		return
	}
	if want.IsEmpty() {
		return // no component to write
	}
	rows, cols := want.Dims()
	same := mat.NewDense(rows, cols, filledSlice(rows*cols))
	data := same.RawMatrix().Data
	if err := try(func() error { v.VectorsTo(same); return nil }); err != nil || &same.RawMatrix().Data[0] != &data[0] || !mat.Equal(same, &want) {
		r.Errorf("VectorsTo of a %d×%d dst: not written in place (%v)", rows, cols, err)
	}
	other := mat.NewDense(rows+1, cols, filledSlice((rows+1)*cols))
	old := other.RawMatrix().Data
	if err := try(func() error { v.VectorsTo(other); return nil }); err != nil || !mat.Equal(other, &want) || !allSentinel(old) {
		r.Errorf("VectorsTo of a %d×%d dst for %d×%d vectors: %v; want a new %d×%d matrix and the old storage untouched", rows+1, cols, rows, cols, err, rows, cols)
	}
	if err := try(func() error { v.VectorsTo(nil); return nil }); err != nil {
		r.Errorf("VectorsTo(nil): %v", err)
	}
}

// filledSlice returns n sentinels.
func filledSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = sentinel
	}
	return s
}

// allSentinel reports whether every entry of s is still the sentinel.
func allSentinel(s []float64) bool {
	for _, x := range s {
		if x != sentinel {
			return false
		}
	}
	return true
}
