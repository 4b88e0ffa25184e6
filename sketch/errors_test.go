package sketch

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/wiretest"
)

// TestHugeSizes: sizes whose buffer could not be allocated, or whose doubling or byte
// count overflows int, are an ErrArgument, never a panic.
func TestHugeSizes(t *testing.T) {
	for _, c := range []struct{ ell, d, buf int }{
		{100_000_000_000_000, 5, 0},
		{math.MaxInt, 5, 0}, // 2ℓ and ℓ+1 overflow
		{math.MaxInt / 2, 5, 0},
		{2, 100_000_000_000_000, 0},
		{2, 5, math.MaxInt},
		{1 << 20, 1 << 10, 0},
	} {
		_, err := New(c.ell, c.d, Options{Buffer: c.buf})
		if !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("New(%d, %d, buffer %d): %v, want an ErrArgument", c.ell, c.d, c.buf, err)
		}
	}
}

// TestErrorKinds: every exported function and method of the package that returns an
// error, given zero-valued and hostile arguments — sizes ≤ 0 and too large, nil, empty,
// short, NaN and overflowing rows, nil and misshapen destinations, sketches that cannot
// be merged, nil writers and readers, bytes that are no encoding — returns an error that
// wraps the ikpca kind named and no other, and the package's sentinel of it, first; none
// panics, and the sketch is unchanged.
func TestErrorKinds(t *testing.T) {
	f, err := New(2, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := New(3, 3, Options{})
	wide, _ := New(2, 4, Options{})
	nan := math.NaN()
	var empty mat.Dense
	var cases errtest.Cases
	cases.Add("New, zero sizes", ikpca.ErrArgument, func() error { _, err := New(0, 0, Options{}); return err })
	cases.Add("New, ℓ < 0", ikpca.ErrArgument, func() error { _, err := New(-1, 3, Options{}); return err })
	cases.Add("New, d < 0", ikpca.ErrArgument, func() error { _, err := New(2, math.MinInt, Options{}); return err })
	cases.Add("New, buffer ℓ", ikpca.ErrArgument, func() error { _, err := New(2, 3, Options{Buffer: 2}); return err })
	cases.Add("New, buffer < 0", ikpca.ErrArgument, func() error { _, err := New(2, 3, Options{Buffer: -5}); return err })
	cases.Add("VectorsTo before any row", ikpca.ErrEmpty, func() error { return f.VectorsTo(&empty) })
	cases.Add("Update, nil row", ikpca.ErrDimension, func() error { return f.Update(nil) })
	cases.Add("Update, a short row", ikpca.ErrDimension, func() error { return f.Update([]float64{1, 2}) })
	cases.Add("Update, a NaN entry", ikpca.ErrNonFinite, func() error { return f.Update([]float64{1, nan, 2}) })
	cases.Add("Update, an infinite entry", ikpca.ErrNonFinite, func() error { return f.Update([]float64{1, math.Inf(-1), 2}) })
	cases.Add("Update, an overflowing norm", ikpca.ErrNonFinite, func() error { return f.Update([]float64{1e200, 1e200, 0}) })
	cases.Add("UpdateRows, nil", ikpca.ErrArgument, func() error { return f.UpdateRows(nil) })
	cases.Add("UpdateRows, a nil *mat.Dense", ikpca.ErrArgument, func() error { return f.UpdateRows((*mat.Dense)(nil)) })
	cases.Add("UpdateRows, wide rows", ikpca.ErrDimension, func() error { return f.UpdateRows(mat.NewDense(1, 4, nil)) })
	cases.Add("UpdateRows, a NaN", ikpca.ErrNonFinite, func() error { return f.UpdateRows(mat.NewDense(2, 3, []float64{0, 0, 0, 0, nan, 0})) })
	cases.Add("Merge, nil", ikpca.ErrArgument, func() error { return f.Merge(nil) })
	cases.Add("Merge, itself", ikpca.ErrArgument, func() error { return f.Merge(f) })
	cases.Add("Merge, another ℓ", ikpca.ErrArgument, func() error { return f.Merge(other) })
	cases.Add("Merge, another d", ikpca.ErrArgument, func() error { return f.Merge(wide) })
	cases.Add("Sketch, nil", ikpca.ErrArgument, func() error { return f.Sketch(nil) })
	cases.Add("Sketch, a destination of the wrong shape", ikpca.ErrDimension, func() error { return f.Sketch(mat.NewDense(3, 3, nil)) })
	cases.Add("VectorsTo, nil", ikpca.ErrArgument, func() error { return f.VectorsTo(nil) })
	cases.Add("MarshalBinary, a zero FD", ikpca.ErrArgument, func() error { _, err := new(FD).MarshalBinary(); return err })
	enc := wiretest.Marshal(t, f)
	cases.AddPersistent("FD", f, enc)
	cases.Add("UnmarshalBinary, garbage after the magic", ikpca.ErrEncoding, func() error {
		return f.UnmarshalBinary([]byte("IKPCAFDS and a good many bytes that are not a sketch at all"))
	})
	before, _ := f.MarshalBinary()
	errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument, ErrEncoding, ErrNotConverged).Run(t, cases)
	if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) || f.Count() != 0 {
		t.Errorf("bad input changed the sketch (%d rows counted)", f.Count())
	}
}
