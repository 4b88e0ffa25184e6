package update

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/testmat"
)

// TestErrorKinds calls every exported function and method of the package that returns
// an error — on zero values and on small valid decompositions — with zero-valued and
// hostile arguments (nil, typed nil, NaN, ±Inf, wrong sizes, negative counts,
// out-of-range indices, non-orthonormal vectors), and checks that each error wraps the
// ikpca kind it belongs to and that no call panics; and that each sentinel error wraps
// its kind.
func TestErrorKinds(t *testing.T) {
	for _, c := range []struct {
		err, kind error
	}{
		{ErrDimension, ikpca.ErrDimension},
		{ErrNonFinite, ikpca.ErrNonFinite},
		{ErrArgument, ikpca.ErrArgument},
		{ErrNotOrthogonal, ikpca.ErrArgument},
		{ErrIndex, ikpca.ErrArgument},
	} {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%v does not wrap %v", c.err, c.kind)
		}
	}

	rng := rand.New(rand.NewPCG(81, 82))
	nan, inf := math.NaN(), math.Inf(1)
	const n = 4
	a := testmat.RandomSym(n, rng)
	nanSym := mat.NewSymDense(n, nil)
	nanSym.CopySym(a)
	nanSym.SetSym(1, 2, nan)
	eye := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := range min(r, c) {
			m.Set(i, i, 1)
		}
		return m
	}
	notOrth := eye(n, n)
	notOrth.Set(0, 1, 0.5)
	nanVecs := eye(n, n)
	nanVecs.Set(2, 2, nan)
	values := []float64{1, 2, 3, 4}
	good := mat.NewVecDense(n, []float64{1, -1, 2, 0.5})
	withInf := mat.NewVecDense(n, []float64{1, inf, 2, 0.5})
	short := mat.NewVecDense(n-1, []float64{1, 2, 3})
	nanB := mat.NewDense(n, 2, nil)
	nanB.Set(3, 1, nan)
	gamma2 := mat.NewSymDense(2, []float64{1, 0, 0, 1})

	full := func() *Sym {
		s, err := NewSym(values, eye(n, n))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	thin := func() *Thin {
		th, err := NewThin(values[2:], eye(n, 2))
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	var noVectors mat.EigenSym
	if !noVectors.Factorize(a, false) {
		t.Fatal("gonum's EigenSym failed")
	}
	var prodFor3, prodFor4 Product
	prodFor3.Reset(2) // a 2×0 product: wrong for a Sym of order 4
	if err := prodFor4.Mul(mat.NewDense(2, n, nil), full()); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		call func() error
		kind error
	}{
		// Constructors.
		{"NewSym(nil, nil)", func() error { _, err := NewSym(nil, nil); return err }, ikpca.ErrArgument},
		{"NewSym typed nil", func() error { _, err := NewSym(values, (*mat.Dense)(nil)); return err }, ikpca.ErrArgument},
		{"NewSym sizes", func() error { _, err := NewSym(values[:3], eye(n, n)); return err }, ikpca.ErrDimension},
		{"NewSym NaN", func() error { _, err := NewSym(values, nanVecs); return err }, ikpca.ErrNonFinite},
		{"NewSym not orthonormal", func() error { _, err := NewSym(values, notOrth); return err }, ikpca.ErrArgument},
		{"NewSymFromEigen(nil)", func() error { _, err := NewSymFromEigen(nil); return err }, ikpca.ErrArgument},
		{"NewSymFromEigen(zero)", func() error { _, err := NewSymFromEigen(&mat.EigenSym{}); return err }, ikpca.ErrArgument},
		{"NewSymFromEigen(no vectors)", func() error { _, err := NewSymFromEigen(&noVectors); return err }, ikpca.ErrArgument},
		{"NewThin(nil, nil)", func() error { _, err := NewThin(nil, nil); return err }, ikpca.ErrArgument},
		{"NewThin(nil, empty)", func() error { _, err := NewThin(nil, &mat.Dense{}); return err }, ikpca.ErrDimension},
		{"NewThin k > n", func() error { _, err := NewThin(values, eye(3, n)); return err }, ikpca.ErrDimension},
		{"NewThin Inf value", func() error { _, err := NewThin([]float64{1, -inf}, eye(n, 2)); return err }, ikpca.ErrNonFinite},
		{"NewThin not orthonormal", func() error { _, err := NewThin([]float64{1, 2}, mat.NewDense(n, 2, nil)); return err }, ikpca.ErrArgument},

		// Options.
		{"Options.Validate", func() error { return Options{Serial: -1}.Validate() }, ikpca.ErrArgument},
		{"Sym.SetOptions", func() error { return new(Sym).SetOptions(Options{Workers: -1}) }, ikpca.ErrArgument},
		{"Thin.SetOptions", func() error { return new(Thin).SetOptions(Options{MaxIterations: -1}) }, ikpca.ErrArgument},
		{"Thin.SetTruncation rank", func() error { return new(Thin).SetTruncation(Truncation{Rank: -1}) }, ikpca.ErrArgument},
		{"Thin.SetTruncation NaN", func() error { return new(Thin).SetTruncation(Truncation{Floor: nan}) }, ikpca.ErrArgument},

		// Sym, zero and of order 4.
		{"Sym.Factorize(nil)", func() error { return new(Sym).Factorize(nil) }, ikpca.ErrArgument},
		{"Sym.Factorize typed nil", func() error { return new(Sym).Factorize((*mat.SymDense)(nil)) }, ikpca.ErrArgument},
		{"Sym.Factorize NaN", func() error { return new(Sym).Factorize(nanSym) }, ikpca.ErrNonFinite},
		{"Sym.SetEigen(nil, nil)", func() error { return new(Sym).SetEigen(nil, nil) }, ikpca.ErrArgument},
		{"Sym.SetEigen sizes", func() error { return new(Sym).SetEigen(values, eye(n, n-1)) }, ikpca.ErrDimension},
		{"Sym.SetEigen NaN value", func() error { return new(Sym).SetEigen([]float64{1, nan, 3, 4}, eye(n, n)) }, ikpca.ErrNonFinite},
		{"zero Sym.RankOne NaN ρ", func() error { return new(Sym).RankOne(nan, nil) }, ikpca.ErrNonFinite},
		{"zero Sym.RankOne long v", func() error { return new(Sym).RankOne(1, good) }, ikpca.ErrDimension},
		{"Sym.RankOne(1, nil)", func() error { return full().RankOne(1, nil) }, ikpca.ErrArgument},
		{"Sym.RankOne typed nil", func() error { return full().RankOne(1, (*mat.VecDense)(nil)) }, ikpca.ErrArgument},
		{"Sym.RankOne short", func() error { return full().RankOne(1, short) }, ikpca.ErrDimension},
		{"Sym.RankOne Inf", func() error { return full().RankOne(1, withInf) }, ikpca.ErrNonFinite},
		{"Sym.RankOne overflow", func() error {
			return full().RankOne(1e300, mat.NewVecDense(n, []float64{1e200, 0, 0, 0}))
		}, ikpca.ErrNonFinite},
		{"zero Sym.Border NaN c", func() error { return new(Sym).Border(nil, nan) }, ikpca.ErrNonFinite},
		{"zero Sym.Border long a", func() error { return new(Sym).Border(good, 1) }, ikpca.ErrDimension},
		{"Sym.Border(nil, 1)", func() error { return full().Border(nil, 1) }, ikpca.ErrArgument},
		{"Sym.Border Inf", func() error { return full().Border(withInf, 1) }, ikpca.ErrNonFinite},
		{"Sym.BorderWith product width", func() error { return full().BorderWith(good, 1, &prodFor3, nil) }, ikpca.ErrDimension},
		{"Sym.BorderWith nil b", func() error { return full().BorderWith(good, 1, &prodFor4, nil) }, ikpca.ErrArgument},
		{"Sym.BorderWith short b", func() error { return full().BorderWith(good, 1, &prodFor4, short) }, ikpca.ErrDimension},
		{"Sym.BorderWith Inf b", func() error {
			return full().BorderWith(good, 1, &prodFor4, mat.NewVecDense(2, []float64{inf, 0}))
		}, ikpca.ErrNonFinite},
		{"zero Sym.Remove(0)", func() error { return new(Sym).Remove(0) }, ikpca.ErrArgument},
		{"Sym.Remove(−1)", func() error { return full().Remove(-1) }, ikpca.ErrArgument},
		{"Sym.RemoveWith product width", func() error { return full().RemoveWith(0, &prodFor3) }, ikpca.ErrDimension},

		// Thin, zero and of 4 rows and 2 pairs.
		{"Thin.SetEigen(nil, nil)", func() error { return new(Thin).SetEigen(nil, nil) }, ikpca.ErrArgument},
		{"Thin.SetEigen sizes", func() error { return new(Thin).SetEigen(values, eye(n, 2)) }, ikpca.ErrDimension},
		{"Thin.SetEigen NaN", func() error { return new(Thin).SetEigen(values, nanVecs) }, ikpca.ErrNonFinite},
		{"Thin.Reset(−1)", func() error { return new(Thin).Reset(-1) }, ikpca.ErrArgument},
		{"zero Thin.Border f = 0", func() error { return new(Thin).Border(nil, nil, 0, 1) }, ikpca.ErrArgument},
		{"zero Thin.Border NaN f", func() error { return new(Thin).Border(nil, nil, nan, 1) }, ikpca.ErrNonFinite},
		{"zero Thin.Border long b", func() error { return new(Thin).Border(good, nil, 1, 1) }, ikpca.ErrDimension},
		{"Thin.Border nil b", func() error { return thin().Border(nil, nil, 1, 1) }, ikpca.ErrArgument},
		{"Thin.Border Inf b", func() error { return thin().Border(withInf, nil, 1, 1) }, ikpca.ErrNonFinite},
		{"Thin.Border short e", func() error { return thin().Border(good, short, 0.5, 1) }, ikpca.ErrDimension},
		{"Thin.Border Inf c", func() error { return thin().Border(good, nil, 1, -inf) }, ikpca.ErrNonFinite},
		{"Thin.BorderBlock(nil…)", func() error { return new(Thin).BorderBlock(nil, nil, nil, nil, nil) }, ikpca.ErrArgument},
		{"Thin.BorderBlock typed nil", func() error {
			return thin().BorderBlock((*mat.Dense)(nil), nil, nil, eye(2, 2), gamma2)
		}, ikpca.ErrArgument},
		{"zero Thin.BorderBlock", func() error { return new(Thin).BorderBlock(mat.NewDense(n, 2, nil), nil, nil, eye(2, 2), gamma2) }, ikpca.ErrDimension},
		{"Thin.BorderBlock F shape", func() error { return thin().BorderBlock(mat.NewDense(n, 2, nil), nil, nil, eye(3, 3), gamma2) }, ikpca.ErrDimension},
		{"Thin.BorderBlock NaN B", func() error { return thin().BorderBlock(nanB, nil, nil, eye(2, 2), gamma2) }, ikpca.ErrNonFinite},
		{"Thin.BorderBlock nil g", func() error {
			return thin().BorderBlock(mat.NewDense(n, 2, nil), mat.NewVecDense(n, []float64{0, 0, 0, 1}), nil, eye(2, 2), gamma2)
		}, ikpca.ErrArgument},
		{"Thin.BorderBlock directions", func() error {
			return thin().BorderBlock(mat.NewDense(n, 2, nil), nil, nil, notOrth.Slice(0, 2, 0, 2), gamma2)
		}, ikpca.ErrArgument},
		{"zero Thin.RankOne NaN ρ", func() error { return new(Thin).RankOne(nan, nil) }, ikpca.ErrNonFinite},
		{"zero Thin.RankOne long v", func() error { return new(Thin).RankOne(1, good) }, ikpca.ErrDimension},
		{"Thin.RankOne nil", func() error { return thin().RankOne(1, nil) }, ikpca.ErrArgument},
		{"Thin.RankOne Inf", func() error { return thin().RankOne(1, withInf) }, ikpca.ErrNonFinite},
		{"zero Thin.Remove(0)", func() error { return new(Thin).Remove(0) }, ikpca.ErrArgument},
		{"Thin.Remove(4)", func() error { return thin().Remove(n) }, ikpca.ErrArgument},
		{"zero Thin.RemoveKeepRank(0)", func() error { return new(Thin).RemoveKeepRank(0, false) }, ikpca.ErrArgument},
		{"Thin.RemoveKeepRank(−1)", func() error { return thin().RemoveKeepRank(-1, true) }, ikpca.ErrArgument},

		// Product.
		{"Product.Mul(nil, nil)", func() error { return new(Product).Mul(nil, nil) }, ikpca.ErrArgument},
		{"Product.Mul width", func() error { return new(Product).Mul(mat.NewDense(2, 3, nil), full()) }, ikpca.ErrDimension},
		{"Product.Mul NaN", func() error { return new(Product).Mul(nanB.T(), full()) }, ikpca.ErrNonFinite},
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

	// Non-convergence (the iteration cap on the poles of LAPACK issue #1166), through
	// each kind of update: ikpca.ErrNotConverged, from package secular.
	p := oracle.Issue1166
	m := len(p.D)
	s, err := NewSym(p.D, eye(m, m))
	if err != nil {
		t.Fatal(err)
	}
	th, err := NewThin(p.D, eye(m, m))
	if err != nil {
		t.Fatal(err)
	}
	s.SetOptions(Options{MaxIterations: 2})
	th.SetOptions(Options{MaxIterations: 2})
	z := mat.NewVecDense(m, p.Z)
	for name, call := range map[string]func() error{
		"Sym.RankOne":  func() error { return s.RankOne(p.Rho, z) },
		"Sym.Border":   func() error { return s.Border(z, 1e-4) },
		"Thin.RankOne": func() error { return th.RankOne(p.Rho, z) },
		"Thin.Border":  func() error { return th.Border(z, nil, 1, 1e-4) },
	} {
		if err := call(); !errors.Is(err, ikpca.ErrNotConverged) {
			t.Errorf("%s with 2 iterations = %v, want an error wrapping ikpca.ErrNotConverged", name, err)
		}
	}
}
