package sketch

import (
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

// TestErrorKinds: bad rows, destinations and merges get their kinds and change nothing.
func TestErrorKinds(t *testing.T) {
	f, err := New(2, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var empty mat.Dense
	if err := f.VectorsTo(&empty); !errors.Is(err, ErrEmpty) {
		t.Errorf("VectorsTo before any row: %v", err)
	}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"a short row", f.Update([]float64{1, 2}), ErrDimension},
		{"a NaN entry", f.Update([]float64{1, math.NaN(), 2}), ErrNonFinite},
		{"an overflowing norm", f.Update([]float64{1e200, 1e200, 0}), ErrNonFinite},
		{"nil rows", f.UpdateRows(nil), ErrArgument},
		{"a nil *mat.Dense", f.UpdateRows((*mat.Dense)(nil)), ErrArgument},
		{"wide rows", f.UpdateRows(mat.NewDense(1, 4, nil)), ErrDimension},
		{"merging nil", f.Merge(nil), ErrArgument},
		{"merging itself", f.Merge(f), ErrArgument},
		{"a nil destination for Sketch", f.Sketch(nil), ErrArgument},
		{"a nil destination for VectorsTo", f.VectorsTo(nil), ErrArgument},
		{"a destination of the wrong shape", f.Sketch(mat.NewDense(3, 3, nil)), ErrDimension},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	if f.Count() != 0 {
		t.Errorf("%d rows counted after bad input only", f.Count())
	}
}
