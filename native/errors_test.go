package native_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/native"
)

// TestErrorKinds calls every exported function of the package that returns an error
// with zero-valued and hostile arguments, and checks that each error wraps exactly the
// ikpca kind it belongs to and the package's sentinel of it, first (and no call
// panics); and that each sentinel error does.
// SetThreads is called only with counts it refuses, so that the process-wide setting
// is left as it was. The table calls every exported function that returns an error
// (Cover reads the source).
func TestErrorKinds(t *testing.T) {
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
	var cases errtest.Cases
	cases.Add("EigenSym(nil, nil, nil)", ikpca.ErrArgument, eigenSym(nil, nil, nil))
	cases.Add("EigenSym typed nil", ikpca.ErrArgument, eigenSym(nil, nil, (*mat.SymDense)(nil)))
	cases.Add("EigenSym short values", ikpca.ErrArgument, eigenSym(make([]float64, 2), nil, a))
	cases.Add("EigenSym vectors shape", ikpca.ErrArgument, eigenSym(nil, mat.NewDense(2, 3, nil), a))
	cases.Add("EigenSym NaN", ikpca.ErrNonFinite, eigenSym(nil, nil, bad))
	cases.Add("EigenSymInPlace n < 0", ikpca.ErrArgument, func() error { return native.EigenSymInPlace(-1, nil, 0, nil, true) })
	cases.Add("EigenSymInPlace lda", ikpca.ErrArgument, func() error { return native.EigenSymInPlace(3, raw(), 2, make([]float64, 3), true) })
	cases.Add("EigenSymInPlace short a", ikpca.ErrArgument, func() error { return native.EigenSymInPlace(3, raw()[:5], 3, make([]float64, 3), true) })
	cases.Add("EigenSymInPlace short w", ikpca.ErrArgument, func() error { return native.EigenSymInPlace(3, raw(), 3, nil, false) })
	cases.Add("EigenSymInPlace Inf", ikpca.ErrNonFinite, func() error { return native.EigenSymInPlace(3, withNaN(), 3, make([]float64, 3), true) })
	cases.Add("EigenSymTop(nil, nil, nil, 0)", ikpca.ErrArgument, eigenSymTop(nil, nil, nil, 0))
	cases.Add("EigenSymTop typed nil", ikpca.ErrArgument, eigenSymTop(nil, nil, (*mat.SymDense)(nil), 1))
	cases.Add("EigenSymTop r < 0", ikpca.ErrArgument, eigenSymTop(nil, nil, a, -1))
	cases.Add("EigenSymTop r > n", ikpca.ErrArgument, eigenSymTop(nil, nil, a, 4))
	cases.Add("EigenSymTop short values", ikpca.ErrArgument, eigenSymTop(make([]float64, 1), nil, a, 2))
	cases.Add("EigenSymTop vectors shape", ikpca.ErrArgument, eigenSymTop(nil, mat.NewDense(3, 3, nil), a, 2))
	cases.Add("EigenSymTop NaN", ikpca.ErrNonFinite, eigenSymTop(nil, nil, bad, 2))
	cases.Add("EigenSymTopInPlace n < 0", ikpca.ErrArgument, func() error { return native.EigenSymTopInPlace(-1, 0, nil, 0, nil, nil, 0) })
	cases.Add("EigenSymTopInPlace r > n", ikpca.ErrArgument, func() error { return native.EigenSymTopInPlace(3, 4, raw(), 3, make([]float64, 4), nil, 0) })
	cases.Add("EigenSymTopInPlace lda", ikpca.ErrArgument, func() error { return native.EigenSymTopInPlace(3, 2, raw(), 1, make([]float64, 2), nil, 0) })
	cases.Add("EigenSymTopInPlace short w", ikpca.ErrArgument, func() error { return native.EigenSymTopInPlace(3, 2, raw(), 3, nil, nil, 0) })
	cases.Add("EigenSymTopInPlace ldz", ikpca.ErrArgument, func() error {
		return native.EigenSymTopInPlace(3, 2, raw(), 3, make([]float64, 2), make([]float64, 6), 1)
	})
	cases.Add("EigenSymTopInPlace short z", ikpca.ErrArgument, func() error {
		return native.EigenSymTopInPlace(3, 2, raw(), 3, make([]float64, 2), make([]float64, 3), 2)
	})
	cases.Add("EigenSymTopInPlace Inf", ikpca.ErrNonFinite, func() error {
		return native.EigenSymTopInPlace(3, 2, withNaN(), 3, make([]float64, 2), nil, 0)
	})
	cases.Add("SVDLeft negative", ikpca.ErrArgument, func() error { return native.SVDLeft(-1, 0, nil, 0, nil, nil, 0) })
	cases.Add("SVDLeft strides", ikpca.ErrArgument, func() error { return native.SVDLeft(3, 3, raw(), 2, make([]float64, 3), make([]float64, 9), 3) })
	cases.Add("SVDLeft short", ikpca.ErrArgument, func() error { return native.SVDLeft(3, 3, raw(), 3, nil, nil, 3) })
	cases.Add("SVDLeft Inf", ikpca.ErrNonFinite, func() error { return native.SVDLeft(3, 3, withNaN(), 3, make([]float64, 3), make([]float64, 9), 3) })
	cases.Add("SetThreads(0)", ikpca.ErrArgument, func() error { return native.SetThreads(0) })
	cases.Add("SetThreads(−1)", ikpca.ErrArgument, func() error { return native.SetThreads(-1) })
	if native.Compiled == "gonum" {
		cases.Add("SetThreads(1), pure Go", ikpca.ErrArgument, func() error { return native.SetThreads(1) })
	} else {
		cases.Add("SetThreads(2³¹)", ikpca.ErrArgument, func() error { return native.SetThreads(1 << 31) })
	}
	// Symmetric matrices that lie about their order or panic in At (errtest.Matrices as
	// mat.Symmetric of the order their Dims say), and a SymDense whose storage is short.
	for _, h := range errtest.Matrices(3) {
		if h.Kind != ikpca.ErrArgument || h.Name == "negative columns" || h.Name == "columns changing" {
			continue // the order is the rows: a 3×3 of NaN, or a lie about columns only, is no lie here
		}
		sym := func() mat.Symmetric { return &symLiar{*h.New().(*errtest.Liar)} }
		cases.Add("EigenSym "+h.Name, h.Kind, func() error { _, err := native.EigenSym(nil, nil, sym()); return err })
		cases.Add("EigenSymTop "+h.Name, h.Kind, func() error { _, err := native.EigenSymTop(nil, nil, sym(), 1); return err })
	}
	short := func() mat.Symmetric {
		var s mat.SymDense
		s.SetRawSymmetric(blas64.Symmetric{N: 3, Stride: 3, Uplo: blas.Upper, Data: raw()[:7]})
		return &s
	}
	cases.Add("EigenSym SymDense short of its order", ikpca.ErrArgument, func() error { _, err := native.EigenSym(nil, nil, short()); return err })
	cases.Add("EigenSymTop SymDense short of its order", ikpca.ErrArgument, func() error { _, err := native.EigenSymTop(nil, nil, short(), 1); return err })
	// The sentinels themselves.
	cases.AddSentinels(map[error]error{
		native.ErrArgument: ikpca.ErrArgument, native.ErrNonFinite: ikpca.ErrNonFinite,
		native.ErrNotConverged: ikpca.ErrNotConverged, native.ErrFixedThreads: ikpca.ErrArgument,
	})
	errtest.Of(native.ErrNonFinite, native.ErrArgument, native.ErrNotConverged).Run(t, cases)
	cases.Cover(t, 3)
}

// symLiar is an errtest.Liar that is also a mat.Symmetric of the order its Dims say.
type symLiar struct{ errtest.Liar }

func (s *symLiar) SymmetricDim() int { r, _ := s.Dims(); return r }
