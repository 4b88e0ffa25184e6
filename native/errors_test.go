package native_test

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/native"
)

// TestErrorKinds calls every exported function of the package that returns an error
// with zero-valued and hostile arguments, and checks that each error wraps the ikpca
// kind it belongs to (and no call panics); and that each sentinel error wraps its kind.
// SetThreads is called only with counts it refuses, so that the process-wide setting
// is left as it was.
func TestErrorKinds(t *testing.T) {
	for _, c := range []struct {
		err, kind error
	}{
		{native.ErrArgument, ikpca.ErrArgument},
		{native.ErrNonFinite, ikpca.ErrNonFinite},
		{native.ErrNotConverged, ikpca.ErrNotConverged},
		{native.ErrFixedThreads, ikpca.ErrArgument},
	} {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%v does not wrap %v", c.err, c.kind)
		}
	}

	nan := math.NaN()
	a := mat.NewSymDense(3, []float64{2, 1, 0, 1, 2, 1, 0, 1, 2})
	bad := mat.NewSymDense(3, nil)
	bad.CopySym(a)
	bad.SetSym(0, 2, nan)
	raw := func() []float64 { return []float64{2, 1, 0, 1, 2, 1, 0, 1, 2} }
	withNaN := func() []float64 { x := raw(); x[4] = math.Inf(1); return x }
	eigenSym := func(values []float64, vectors *mat.Dense, a mat.Symmetric) func() error {
		return func() error { _, err := native.EigenSym(values, vectors, a); return err }
	}
	eigenSymTop := func(values []float64, vectors *mat.Dense, a mat.Symmetric, r int) func() error {
		return func() error { _, err := native.EigenSymTop(values, vectors, a, r); return err }
	}
	cases := []struct {
		name string
		call func() error
		kind error
	}{
		{"EigenSym(nil, nil, nil)", eigenSym(nil, nil, nil), ikpca.ErrArgument},
		{"EigenSym typed nil", eigenSym(nil, nil, (*mat.SymDense)(nil)), ikpca.ErrArgument},
		{"EigenSym short values", eigenSym(make([]float64, 2), nil, a), ikpca.ErrArgument},
		{"EigenSym vectors shape", eigenSym(nil, mat.NewDense(2, 3, nil), a), ikpca.ErrArgument},
		{"EigenSym NaN", eigenSym(nil, nil, bad), ikpca.ErrNonFinite},
		{"EigenSymInPlace n < 0", func() error { return native.EigenSymInPlace(-1, nil, 0, nil, true) }, ikpca.ErrArgument},
		{"EigenSymInPlace lda", func() error { return native.EigenSymInPlace(3, raw(), 2, make([]float64, 3), true) }, ikpca.ErrArgument},
		{"EigenSymInPlace short a", func() error { return native.EigenSymInPlace(3, raw()[:5], 3, make([]float64, 3), true) }, ikpca.ErrArgument},
		{"EigenSymInPlace short w", func() error { return native.EigenSymInPlace(3, raw(), 3, nil, false) }, ikpca.ErrArgument},
		{"EigenSymInPlace Inf", func() error { return native.EigenSymInPlace(3, withNaN(), 3, make([]float64, 3), true) }, ikpca.ErrNonFinite},
		{"EigenSymTop(nil, nil, nil, 0)", eigenSymTop(nil, nil, nil, 0), ikpca.ErrArgument},
		{"EigenSymTop typed nil", eigenSymTop(nil, nil, (*mat.SymDense)(nil), 1), ikpca.ErrArgument},
		{"EigenSymTop r < 0", eigenSymTop(nil, nil, a, -1), ikpca.ErrArgument},
		{"EigenSymTop r > n", eigenSymTop(nil, nil, a, 4), ikpca.ErrArgument},
		{"EigenSymTop short values", eigenSymTop(make([]float64, 1), nil, a, 2), ikpca.ErrArgument},
		{"EigenSymTop vectors shape", eigenSymTop(nil, mat.NewDense(3, 3, nil), a, 2), ikpca.ErrArgument},
		{"EigenSymTop NaN", eigenSymTop(nil, nil, bad, 2), ikpca.ErrNonFinite},
		{"EigenSymTopInPlace n < 0", func() error { return native.EigenSymTopInPlace(-1, 0, nil, 0, nil, nil, 0) }, ikpca.ErrArgument},
		{"EigenSymTopInPlace r > n", func() error { return native.EigenSymTopInPlace(3, 4, raw(), 3, make([]float64, 4), nil, 0) }, ikpca.ErrArgument},
		{"EigenSymTopInPlace lda", func() error { return native.EigenSymTopInPlace(3, 2, raw(), 1, make([]float64, 2), nil, 0) }, ikpca.ErrArgument},
		{"EigenSymTopInPlace short w", func() error { return native.EigenSymTopInPlace(3, 2, raw(), 3, nil, nil, 0) }, ikpca.ErrArgument},
		{"EigenSymTopInPlace ldz", func() error {
			return native.EigenSymTopInPlace(3, 2, raw(), 3, make([]float64, 2), make([]float64, 6), 1)
		}, ikpca.ErrArgument},
		{"EigenSymTopInPlace short z", func() error {
			return native.EigenSymTopInPlace(3, 2, raw(), 3, make([]float64, 2), make([]float64, 3), 2)
		}, ikpca.ErrArgument},
		{"EigenSymTopInPlace Inf", func() error {
			return native.EigenSymTopInPlace(3, 2, withNaN(), 3, make([]float64, 2), nil, 0)
		}, ikpca.ErrNonFinite},
		{"SVDLeft negative", func() error { return native.SVDLeft(-1, 0, nil, 0, nil, nil, 0) }, ikpca.ErrArgument},
		{"SVDLeft strides", func() error { return native.SVDLeft(3, 3, raw(), 2, make([]float64, 3), make([]float64, 9), 3) }, ikpca.ErrArgument},
		{"SVDLeft short", func() error { return native.SVDLeft(3, 3, raw(), 3, nil, nil, 3) }, ikpca.ErrArgument},
		{"SVDLeft Inf", func() error { return native.SVDLeft(3, 3, withNaN(), 3, make([]float64, 3), make([]float64, 9), 3) }, ikpca.ErrNonFinite},
		{"SetThreads(0)", func() error { return native.SetThreads(0) }, ikpca.ErrArgument},
		{"SetThreads(−1)", func() error { return native.SetThreads(-1) }, ikpca.ErrArgument},
	}
	if native.Compiled == "gonum" {
		cases = append(cases, struct {
			name string
			call func() error
			kind error
		}{"SetThreads(1), pure Go", func() error { return native.SetThreads(1) }, ikpca.ErrArgument})
	} else {
		cases = append(cases, struct {
			name string
			call func() error
			kind error
		}{"SetThreads(2³¹)", func() error { return native.SetThreads(1 << 31) }, ikpca.ErrArgument})
	}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", c.name, r)
				}
			}()
			return c.call()
		}()
		if !errors.Is(err, c.kind) {
			t.Errorf("%s = %v, want an error wrapping %v", c.name, err, c.kind)
		}
	}
}
