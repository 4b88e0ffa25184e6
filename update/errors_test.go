package update

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/synth"
)

// TestErrorKinds calls every exported function and method of the package that returns
// an error — on zero values and on small valid decompositions — with zero-valued and
// hostile arguments (nil, typed nil, NaN, ±Inf, wrong sizes, negative counts,
// out-of-range indices, non-orthonormal vectors), and checks that each error wraps
// exactly the ikpca kind it belongs to and the package's sentinel of it, first, and that
// no call panics; and that each sentinel error does. The table calls every exported
// function and method that returns an error (Cover reads the source).
func TestErrorKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	nan, inf := math.NaN(), math.Inf(1)
	const n = 4
	a := synth.RandomSym(n, rng)
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

	// Constructors.
	var cases errtest.Cases
	cases.Add("NewSym(nil, nil)", ikpca.ErrArgument, func() error { _, err := NewSym(nil, nil); return err })
	cases.Add("NewSym typed nil", ikpca.ErrArgument, func() error { _, err := NewSym(values, (*mat.Dense)(nil)); return err })
	cases.Add("NewSym sizes", ikpca.ErrDimension, func() error { _, err := NewSym(values[:3], eye(n, n)); return err })
	cases.Add("NewSym NaN", ikpca.ErrNonFinite, func() error { _, err := NewSym(values, nanVecs); return err })
	cases.Add("NewSym not orthonormal", ikpca.ErrArgument, func() error { _, err := NewSym(values, notOrth); return err })
	cases.Add("NewSymFromEigen(nil)", ikpca.ErrArgument, func() error { _, err := NewSymFromEigen(nil); return err })
	cases.Add("NewSymFromEigen(zero)", ikpca.ErrArgument, func() error { _, err := NewSymFromEigen(&mat.EigenSym{}); return err })
	cases.Add("NewSymFromEigen(no vectors)", ikpca.ErrArgument, func() error { _, err := NewSymFromEigen(&noVectors); return err })
	cases.Add("NewThin(nil, nil)", ikpca.ErrArgument, func() error { _, err := NewThin(nil, nil); return err })
	cases.Add("NewThin(nil, empty)", ikpca.ErrDimension, func() error { _, err := NewThin(nil, &mat.Dense{}); return err })
	cases.Add("NewThin k > n", ikpca.ErrDimension, func() error { _, err := NewThin(values, eye(3, n)); return err })
	cases.Add("NewThin Inf value", ikpca.ErrNonFinite, func() error { _, err := NewThin([]float64{1, -inf}, eye(n, 2)); return err })
	cases.Add("NewThin not orthonormal", ikpca.ErrArgument, func() error { _, err := NewThin([]float64{1, 2}, mat.NewDense(n, 2, nil)); return err })

	// Options.
	cases.Add("Options.Validate", ikpca.ErrArgument, func() error { return Options{Serial: -1}.Validate() })
	cases.Add("Sym.SetOptions", ikpca.ErrArgument, func() error { return new(Sym).SetOptions(Options{Workers: -1}) })
	cases.Add("Thin.SetOptions", ikpca.ErrArgument, func() error { return new(Thin).SetOptions(Options{MaxIterations: -1}) })
	cases.Add("Thin.SetTruncation rank", ikpca.ErrArgument, func() error { return new(Thin).SetTruncation(Truncation{Rank: -1}) })
	cases.Add("Thin.SetTruncation NaN", ikpca.ErrArgument, func() error { return new(Thin).SetTruncation(Truncation{Floor: nan}) })

	// Sym, zero and of order 4.
	cases.Add("Sym.Factorize(nil)", ikpca.ErrArgument, func() error { return new(Sym).Factorize(nil) })
	cases.Add("Sym.Factorize typed nil", ikpca.ErrArgument, func() error { return new(Sym).Factorize((*mat.SymDense)(nil)) })
	cases.Add("Sym.Factorize NaN", ikpca.ErrNonFinite, func() error { return new(Sym).Factorize(nanSym) })
	cases.Add("Sym.SetEigen(nil, nil)", ikpca.ErrArgument, func() error { return new(Sym).SetEigen(nil, nil) })
	cases.Add("Sym.SetEigen sizes", ikpca.ErrDimension, func() error { return new(Sym).SetEigen(values, eye(n, n-1)) })
	cases.Add("Sym.SetEigen NaN value", ikpca.ErrNonFinite, func() error { return new(Sym).SetEigen([]float64{1, nan, 3, 4}, eye(n, n)) })
	cases.Add("zero Sym.RankOne NaN ρ", ikpca.ErrNonFinite, func() error { return new(Sym).RankOne(nan, nil) })
	cases.Add("zero Sym.RankOne long v", ikpca.ErrDimension, func() error { return new(Sym).RankOne(1, good) })
	cases.Add("Sym.RankOne(1, nil)", ikpca.ErrArgument, func() error { return full().RankOne(1, nil) })
	cases.Add("Sym.RankOne typed nil", ikpca.ErrArgument, func() error { return full().RankOne(1, (*mat.VecDense)(nil)) })
	cases.Add("Sym.RankOne short", ikpca.ErrDimension, func() error { return full().RankOne(1, short) })
	cases.Add("Sym.RankOne Inf", ikpca.ErrNonFinite, func() error { return full().RankOne(1, withInf) })
	cases.Add("Sym.RankOne overflow", ikpca.ErrNonFinite, func() error {
		return full().RankOne(1e300, mat.NewVecDense(n, []float64{1e200, 0, 0, 0}))
	})
	cases.Add("zero Sym.Border NaN c", ikpca.ErrNonFinite, func() error { return new(Sym).Border(nil, nan) })
	cases.Add("zero Sym.Border long a", ikpca.ErrDimension, func() error { return new(Sym).Border(good, 1) })
	cases.Add("Sym.Border(nil, 1)", ikpca.ErrArgument, func() error { return full().Border(nil, 1) })
	cases.Add("Sym.Border Inf", ikpca.ErrNonFinite, func() error { return full().Border(withInf, 1) })
	cases.Add("Sym.BorderWith product width", ikpca.ErrDimension, func() error { return full().BorderWith(good, 1, &prodFor3, nil) })
	cases.Add("Sym.BorderWith nil b", ikpca.ErrArgument, func() error { return full().BorderWith(good, 1, &prodFor4, nil) })
	cases.Add("Sym.BorderWith short b", ikpca.ErrDimension, func() error { return full().BorderWith(good, 1, &prodFor4, short) })
	cases.Add("Sym.BorderWith Inf b", ikpca.ErrNonFinite, func() error {
		return full().BorderWith(good, 1, &prodFor4, mat.NewVecDense(2, []float64{inf, 0}))
	})
	cases.Add("zero Sym.Remove(0)", ikpca.ErrArgument, func() error { return new(Sym).Remove(0) })
	cases.Add("Sym.Remove(−1)", ikpca.ErrArgument, func() error { return full().Remove(-1) })
	cases.Add("Sym.RemoveWith product width", ikpca.ErrDimension, func() error { return full().RemoveWith(0, &prodFor3) })

	// Thin, zero and of 4 rows and 2 pairs.
	cases.Add("Thin.SetEigen(nil, nil)", ikpca.ErrArgument, func() error { return new(Thin).SetEigen(nil, nil) })
	cases.Add("Thin.SetEigen sizes", ikpca.ErrDimension, func() error { return new(Thin).SetEigen(values, eye(n, 2)) })
	cases.Add("Thin.SetEigen NaN", ikpca.ErrNonFinite, func() error { return new(Thin).SetEigen(values, nanVecs) })
	cases.Add("Thin.Reset(−1)", ikpca.ErrArgument, func() error { return new(Thin).Reset(-1) })
	cases.Add("Thin.Reset(MaxInt32)", ikpca.ErrArgument, func() error { return new(Thin).Reset(math.MaxInt32) })
	cases.Add("Thin.Reset(MaxInt)", ikpca.ErrArgument, func() error { return new(Thin).Reset(math.MaxInt) })
	cases.Add("zero Thin.Border f = 0", ikpca.ErrArgument, func() error { return new(Thin).Border(nil, nil, 0, 1) })
	cases.Add("zero Thin.Border NaN f", ikpca.ErrNonFinite, func() error { return new(Thin).Border(nil, nil, nan, 1) })
	cases.Add("zero Thin.Border long b", ikpca.ErrDimension, func() error { return new(Thin).Border(good, nil, 1, 1) })
	cases.Add("Thin.Border nil b", ikpca.ErrArgument, func() error { return thin().Border(nil, nil, 1, 1) })
	cases.Add("Thin.Border Inf b", ikpca.ErrNonFinite, func() error { return thin().Border(withInf, nil, 1, 1) })
	cases.Add("Thin.Border short e", ikpca.ErrDimension, func() error { return thin().Border(good, short, 0.5, 1) })
	cases.Add("Thin.Border Inf c", ikpca.ErrNonFinite, func() error { return thin().Border(good, nil, 1, -inf) })
	cases.Add("Thin.BorderBlock(nil…)", ikpca.ErrArgument, func() error { return new(Thin).BorderBlock(nil, nil, nil, nil, nil) })
	cases.Add("Thin.BorderBlock typed nil", ikpca.ErrArgument, func() error {
		return thin().BorderBlock((*mat.Dense)(nil), nil, nil, eye(2, 2), gamma2)
	})
	cases.Add("zero Thin.BorderBlock", ikpca.ErrDimension, func() error { return new(Thin).BorderBlock(mat.NewDense(n, 2, nil), nil, nil, eye(2, 2), gamma2) })
	cases.Add("Thin.BorderBlock F shape", ikpca.ErrDimension, func() error { return thin().BorderBlock(mat.NewDense(n, 2, nil), nil, nil, eye(3, 3), gamma2) })
	cases.Add("Thin.BorderBlock NaN B", ikpca.ErrNonFinite, func() error { return thin().BorderBlock(nanB, nil, nil, eye(2, 2), gamma2) })
	cases.Add("Thin.BorderBlock nil g", ikpca.ErrArgument, func() error {
		return thin().BorderBlock(mat.NewDense(n, 2, nil), mat.NewVecDense(n, []float64{0, 0, 0, 1}), nil, eye(2, 2), gamma2)
	})
	cases.Add("Thin.BorderBlock directions", ikpca.ErrArgument, func() error {
		return thin().BorderBlock(mat.NewDense(n, 2, nil), nil, nil, notOrth.Slice(0, 2, 0, 2), gamma2)
	})
	cases.Add("zero Thin.RankOne NaN ρ", ikpca.ErrNonFinite, func() error { return new(Thin).RankOne(nan, nil) })
	cases.Add("zero Thin.RankOne long v", ikpca.ErrDimension, func() error { return new(Thin).RankOne(1, good) })
	cases.Add("Thin.RankOne nil", ikpca.ErrArgument, func() error { return thin().RankOne(1, nil) })
	cases.Add("Thin.RankOne Inf", ikpca.ErrNonFinite, func() error { return thin().RankOne(1, withInf) })
	cases.Add("zero Thin.Remove(0)", ikpca.ErrArgument, func() error { return new(Thin).Remove(0) })
	cases.Add("Thin.Remove(4)", ikpca.ErrArgument, func() error { return thin().Remove(n) })
	cases.Add("zero Thin.RemoveKeepRank(0)", ikpca.ErrArgument, func() error { return new(Thin).RemoveKeepRank(0, false) })
	cases.Add("Thin.RemoveKeepRank(−1)", ikpca.ErrArgument, func() error { return thin().RemoveKeepRank(-1, true) })

	// Product.
	cases.Add("Product.Mul(nil, nil)", ikpca.ErrArgument, func() error { return new(Product).Mul(nil, nil) })
	cases.Add("Product.Mul width", ikpca.ErrDimension, func() error { return new(Product).Mul(mat.NewDense(2, 3, nil), full()) })
	cases.Add("Product.Mul NaN", ikpca.ErrNonFinite, func() error { return new(Product).Mul(nanB.T(), full()) })
	// Matrices of a caller's own type that lie about their size or panic when read: B,
	// F and Γ of BorderBlock, B of Product.Mul, a of Factorize (hostileCases).
	hostileCases(&cases, full, thin)
	// The sentinels themselves.
	cases.AddSentinels(map[error]error{
		ErrDimension: ikpca.ErrDimension, ErrNonFinite: ikpca.ErrNonFinite, ErrArgument: ikpca.ErrArgument,
		ErrNotConverged: ikpca.ErrNotConverged, ErrNotOrthogonal: ikpca.ErrArgument, ErrIndex: ikpca.ErrArgument,
	})
	sentinels := errtest.Of(ErrDimension, ErrNonFinite, ErrArgument, ErrNotConverged)
	sentinels.Run(t, cases)
	cases.Cover(t, 3)

	// Non-convergence (the iteration cap on the poles of LAPACK issue #1166), through
	// each kind of update: ErrNotConverged, wrapping package secular's.
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
		if p := sentinels.Check(call(), ikpca.ErrNotConverged); p != "" {
			t.Errorf("%s with 2 iterations: %s", name, p)
		}
	}
}

// symLiar is an errtest.Liar that is also a mat.Symmetric of the order its Dims say.
type symLiar struct{ errtest.Liar }

func (s *symLiar) SymmetricDim() int { r, _ := s.Dims(); return r }

// hostileCases adds to cases the calls that read a hostile matrix (errtest.Matrices:
// sizes negative, beyond any array or changing between calls, an At that panics): as
// Product.Mul's B of a Sym of order 4, as BorderBlock's B (4×2) and F (2×2) of a Thin of
// 4 rows, and, as a mat.Symmetric, as BorderBlock's Γ and Factorize's matrix. Each
// must be an error of the kind the matrix names; a lie about the size that makes the
// matrix merely of another shape may be ErrDimension instead.
func hostileCases(cases *errtest.Cases, full func() *Sym, thin func() *Thin) {
	eye2 := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	gamma2 := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	B := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 2, 0, 0, 3})
	for _, h := range errtest.Matrices(4) {
		cases.Add("Product.Mul "+h.Name, h.Kind, func() error { return new(Product).Mul(h.New(), full()) })
	}
	for _, h := range errtest.Matrices(2) {
		if h.Kind != ikpca.ErrArgument {
			continue // a 3×2 matrix of NaN: B and F are of the wrong shape first
		}
		cases.Add("Thin.BorderBlock B "+h.Name, h.Kind, func() error { return thin().BorderBlock(h.New(), nil, nil, eye2, gamma2) })
		cases.Add("Thin.BorderBlock F "+h.Name, h.Kind, func() error { return thin().BorderBlock(B, nil, nil, h.New(), gamma2) })
		sym := func() mat.Symmetric { return &symLiar{*h.New().(*errtest.Liar)} }
		cases.Add("Thin.BorderBlock Γ "+h.Name, h.Kind, func() error { return thin().BorderBlock(B, nil, nil, eye2, sym()) })
		cases.Add("Sym.Factorize "+h.Name, h.Kind, func() error { return new(Sym).Factorize(sym()) })
	}
	// Every vector argument, hostile, where a vector of 4 (or, for BorderBlock's g and
	// BorderWith's b, 2) is wanted. A Thin's e must be a unit vector.
	e4, g2 := mat.NewVecDense(4, []float64{1, 0, 0, 0}), mat.NewVecDense(2, nil)
	b4 := mat.NewVecDense(4, []float64{1, 2, 3, 4})
	for _, h := range hostileVectors(4) {
		cases.Add("Sym.RankOne "+h.name, ikpca.ErrArgument, func() error { return full().RankOne(1, h.new()) })
		cases.Add("Sym.Border "+h.name, ikpca.ErrArgument, func() error { return full().Border(h.new(), 1) })
		cases.Add("Thin.RankOne "+h.name, ikpca.ErrArgument, func() error { return thin().RankOne(1, h.new()) })
		cases.Add("Thin.Border b "+h.name, ikpca.ErrArgument, func() error { return thin().Border(h.new(), nil, 1, 1) })
		cases.Add("Thin.Border e "+h.name, ikpca.ErrArgument, func() error { return thin().Border(b4, h.new(), 0, 1) })
		cases.Add("Thin.BorderBlock e "+h.name, ikpca.ErrArgument, func() error { return thin().BorderBlock(B, h.new(), g2, eye2, gamma2) })
	}
	for _, h := range hostileVectors(2) {
		cases.Add("Thin.BorderBlock g "+h.name, ikpca.ErrArgument, func() error { return thin().BorderBlock(B, e4, h.new(), eye2, gamma2) })
		cases.Add("Sym.BorderWith b "+h.name, ikpca.ErrArgument, func() error {
			s := full()
			var p Product
			if err := p.Mul(mat.NewDense(2, 4, []float64{1, 0, 0, 0, 0, 1, 0, 0}), s); err != nil {
				return err
			}
			return s.BorderWith(b4, 1, &p, h.new())
		})
	}
}

// vecLiar is an errtest.Liar of one column as a mat.Vector of the length its Dims say.
type vecLiar struct{ errtest.Liar }

func (v *vecLiar) Len() int            { r, _ := v.Dims(); return r }
func (v *vecLiar) AtVec(i int) float64 { return v.At(i, 0) }

// hostileVectors returns vectors wanted of length n that lie, each an ErrArgument error:
// lengths negative, beyond any array or changing while read, an AtVec that panics, and
// a *mat.VecDense whose storage is short of its length.
func hostileVectors(n int) []struct {
	name string
	new  func() mat.Vector
} {
	liar := func(value func(i, j int) float64, lens ...int) func() mat.Vector {
		sizes := make([][2]int, len(lens))
		for i, l := range lens {
			sizes[i] = [2]int{l, 1}
		}
		return func() mat.Vector { return &vecLiar{errtest.Liar{Sizes: sizes, Value: value}} }
	}
	return []struct {
		name string
		new  func() mat.Vector
	}{
		{"length -1", liar(nil, -1)},
		{"length MinInt", liar(nil, math.MinInt)},
		{"length MaxInt", liar(nil, math.MaxInt)},
		{"length 2⁴⁰", liar(nil, 1<<40)},
		{"length growing while read", liar(nil, n, 1000)},
		{"length turning negative", liar(nil, n, -5)},
		{"AtVec panics", liar(func(i, j int) float64 { panic("vecLiar: AtVec refuses") }, n)},
		{"VecDense short of its length", func() mat.Vector {
			var v mat.VecDense
			v.SetRawVector(blas64.Vector{N: n, Inc: 1, Data: make([]float64, n-1)})
			return &v
		}},
	}
}

// TestReserveBeyondArrays asks Reserve, ReserveBlocks and Reset for sizes no array holds
// or negative ones: the Reserves take nothing (a hint), Reset is an ErrArgument error,
// and the decompositions work as before. CopyFrom(nil) copies the zero value, and an
// empty Product copies into an empty dst.
func TestReserveBeyondArrays(t *testing.T) {
	huge := []int{-5, -1, math.MaxInt32, 1 << 40, math.MaxInt, math.MinInt}
	var s Sym
	var th Thin
	for _, n := range huge {
		s.Reserve(n)
		th.ReserveBlocks(n, 2)
		th.ReserveBlocks(2, n)
		for _, k := range huge {
			th.Reserve(n, k)
		}
		th.Reserve(n, 3)
		th.Reserve(3, n)
	}
	for _, n := range []int{-1, math.MaxInt32, math.MaxInt} {
		if th.Reset(n) == nil { // its kind: TestErrorKinds
			t.Errorf("Reset(%d) succeeded", n)
		}
	}
	if r, k := th.Dims(); r != 0 || k != 0 {
		t.Errorf("Thin after the failed Resets is %d×%d, want 0×0", r, k)
	}
	values := []float64{1, 2}
	vectors := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	if err := s.SetEigen(values, vectors); err != nil {
		t.Fatal(err)
	}
	if err := th.SetEigen(values, vectors); err != nil {
		t.Fatal(err)
	}
	if err := s.Border(mat.NewVecDense(2, []float64{0.5, 0.5}), 3); err != nil {
		t.Fatal(err)
	}
	if err := th.Border(mat.NewVecDense(2, []float64{0.5, 0.5}), nil, 1, 3); err != nil {
		t.Fatal(err)
	}
	// An empty Product copies into an empty dst, which stays empty.
	var p Product
	p.Reset(2)
	var dst mat.Dense
	p.To(&dst)
	if !dst.IsEmpty() {
		t.Errorf("an empty Product's To made dst %v", dst.RawMatrix())
	}
	s.CopyFrom(nil)
	th.CopyFrom(nil)
	if s.Len() != 0 || len(s.Values(nil)) != 0 {
		t.Errorf("Sym.CopyFrom(nil) left order %d", s.Len())
	}
	if r, k := th.Dims(); r != 0 || k != 0 {
		t.Errorf("Thin.CopyFrom(nil) left %d×%d", r, k)
	}
}
