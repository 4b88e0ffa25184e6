package sketch

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
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
// wraps the ikpca kind named and no other, none panics, and the sketch is unchanged.
func TestErrorKinds(t *testing.T) {
	f, err := New(2, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := New(3, 3, Options{})
	wide, _ := New(2, 4, Options{})
	nan := math.NaN()
	var empty mat.Dense
	cases := []struct {
		name string
		kind error
		f    func() error
	}{
		{"New, zero sizes", ikpca.ErrArgument, func() error { _, err := New(0, 0, Options{}); return err }},
		{"New, ℓ < 0", ikpca.ErrArgument, func() error { _, err := New(-1, 3, Options{}); return err }},
		{"New, d < 0", ikpca.ErrArgument, func() error { _, err := New(2, math.MinInt, Options{}); return err }},
		{"New, buffer ℓ", ikpca.ErrArgument, func() error { _, err := New(2, 3, Options{Buffer: 2}); return err }},
		{"New, buffer < 0", ikpca.ErrArgument, func() error { _, err := New(2, 3, Options{Buffer: -5}); return err }},
		{"VectorsTo before any row", ikpca.ErrEmpty, func() error { return f.VectorsTo(&empty) }},
		{"Update, nil row", ikpca.ErrDimension, func() error { return f.Update(nil) }},
		{"Update, a short row", ikpca.ErrDimension, func() error { return f.Update([]float64{1, 2}) }},
		{"Update, a NaN entry", ikpca.ErrNonFinite, func() error { return f.Update([]float64{1, nan, 2}) }},
		{"Update, an infinite entry", ikpca.ErrNonFinite, func() error { return f.Update([]float64{1, math.Inf(-1), 2}) }},
		{"Update, an overflowing norm", ikpca.ErrNonFinite, func() error { return f.Update([]float64{1e200, 1e200, 0}) }},
		{"UpdateRows, nil", ikpca.ErrArgument, func() error { return f.UpdateRows(nil) }},
		{"UpdateRows, a nil *mat.Dense", ikpca.ErrArgument, func() error { return f.UpdateRows((*mat.Dense)(nil)) }},
		{"UpdateRows, wide rows", ikpca.ErrDimension, func() error { return f.UpdateRows(mat.NewDense(1, 4, nil)) }},
		{"UpdateRows, a NaN", ikpca.ErrNonFinite, func() error { return f.UpdateRows(mat.NewDense(2, 3, []float64{0, 0, 0, 0, nan, 0})) }},
		{"Merge, nil", ikpca.ErrArgument, func() error { return f.Merge(nil) }},
		{"Merge, itself", ikpca.ErrArgument, func() error { return f.Merge(f) }},
		{"Merge, another ℓ", ikpca.ErrArgument, func() error { return f.Merge(other) }},
		{"Merge, another d", ikpca.ErrArgument, func() error { return f.Merge(wide) }},
		{"Sketch, nil", ikpca.ErrArgument, func() error { return f.Sketch(nil) }},
		{"Sketch, a destination of the wrong shape", ikpca.ErrDimension, func() error { return f.Sketch(mat.NewDense(3, 3, nil)) }},
		{"VectorsTo, nil", ikpca.ErrArgument, func() error { return f.VectorsTo(nil) }},
		{"MarshalBinary, a zero FD", ikpca.ErrArgument, func() error { _, err := new(FD).MarshalBinary(); return err }},
		{"MarshalBinaryTo, nil", ikpca.ErrArgument, func() error { _, err := f.MarshalBinaryTo(nil); return err }},
		{"UnmarshalBinary, nil", ikpca.ErrEncoding, func() error { return f.UnmarshalBinary(nil) }},
		{"UnmarshalBinary, garbage", ikpca.ErrEncoding, func() error {
			return f.UnmarshalBinary([]byte("IKPCAFDS and a good many bytes that are not a sketch at all"))
		}},
		{"UnmarshalBinaryFrom, nil", ikpca.ErrArgument, func() error { _, err := f.UnmarshalBinaryFrom(nil); return err }},
		{"UnmarshalBinaryFrom, nothing", ikpca.ErrEncoding, func() error {
			_, err := f.UnmarshalBinaryFrom(bytes.NewReader(nil))
			return err
		}},
	}
	kinds := []error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument, ikpca.ErrEncoding, ikpca.ErrNotConverged}
	before, _ := f.MarshalBinary()
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s panicked: %v", c.name, p)
				}
			}()
			return c.f()
		}()
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want an error wrapping %v", c.name, err, c.kind)
		}
		for _, k := range kinds {
			if k != c.kind && errors.Is(err, k) {
				t.Errorf("%s: %v wraps %v as well", c.name, err, k)
			}
		}
	}
	if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) || f.Count() != 0 {
		t.Errorf("bad input changed the sketch (%d rows counted)", f.Count())
	}
}
