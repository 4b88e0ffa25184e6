package kaf

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/kernel"
)

// sentinels are kaf's: it returns no ErrEncoding, and an error of that kind fails the
// test.
var sentinels = errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument, ErrNotConverged)

// errorFixtures are the filters and maps the cases call, and their zero values.
type errorFixtures struct {
	lms, huge                   *LMS
	rls, ex, indefinite, loose  *RLS
	klms, steep                 *KLMS
	speed                       *SPEED
	filter, frozen, grows       *SPEEDFilter
	steepFilter, refusing       *SPEEDFilter
	zeroLMS                     LMS
	zeroRLS                     RLS
	zeroKLMS                    KLMS
	zeroSPEED                   SPEED
	zeroFilter                  SPEEDFilter
	calls                       *int // the factory calls of grows
	growsM                      int
	speedFilterOK               func(int) (Filter, error)
	dictionary, nanX, emptyX    mat.Matrix
	nilDense                    *mat.Dense
	nilRBF                      *kernel.RBF
	x2, x3, nanx2, bigx2, phi3  []float64
	nanPhi3, bigPhi3, w4, nanW4 []float64
}

// newErrorFixtures builds the filters the cases call, each already trained on a few
// samples so that a rejected call has state to spoil.
func newErrorFixtures(t *testing.T) *errorFixtures {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	nan, inf := math.NaN(), math.Inf(1)
	fx := &errorFixtures{
		x2: []float64{0.1, -0.2}, x3: []float64{1, 2, 3}, nanx2: []float64{0.3, nan},
		bigx2: []float64{1e200, -1e200}, phi3: []float64{0.5, -0.25, 1},
		nanPhi3: []float64{0.5, inf, 1}, bigPhi3: []float64{1e200, 1e200, 1e200},
		w4: []float64{1, -1, 0.5, 0.25}, nanW4: []float64{1, nan, 0.5, 0.25},
	}
	var err error
	fx.lms, err = NewLMS(3, 0.1)
	must(err)
	fx.huge, err = NewLMS(3, 0.1)
	must(err)
	must(fx.huge.SetWeights([]float64{1e300, 1e300, 1e300}))
	fx.rls, err = NewRLS(3, RLSOptions{Lambda: 0.99})
	must(err)
	fx.ex, err = NewExRLS(3, RLSOptions{Alpha: 0.9, Q: 1e-3})
	must(err)
	// P = 10¹⁰·I: the gain P·φ/(λ + φᵀPφ) is 5·10⁴ for φ = 10⁻⁵·e₁.
	fx.loose, err = NewRLS(3, RLSOptions{Delta: 1e-10})
	must(err)
	fx.indefinite, err = NewRLS(2, RLSOptions{})
	must(err)
	// P made indefinite, as rounding could make it over a long run: λ + φᵀPφ < 0 for
	// φ = (1, 1).
	copy(fx.indefinite.p, []float64{-2, 0, 0, -2})
	fx.klms, err = NewKLMS(kernel.RBF{Sigma: 1}, 2, 0.5, 0)
	must(err)
	fx.steep, err = NewKLMS(kernel.RBF{Sigma: 1}, 2, 1e10, 0)
	must(err)
	for i := range 5 {
		x := []float64{float64(i) / 5, 1 - float64(i)/5}
		for _, f := range []Filter{fx.lms, fx.rls, fx.ex} {
			_, err := f.Update([]float64{x[0], x[1], 1}, x[0]-x[1])
			must(err)
		}
		_, err := fx.klms.Update(x, x[0]-x[1])
		must(err)
	}
	X := randomInputs(12, 2, 31)
	fx.dictionary = X
	fx.nanX = mat.DenseCopyOf(X)
	fx.nanX.(*mat.Dense).Set(4, 1, nan)
	fx.emptyX = mat.NewDense(1, 2, nil).Slice(0, 0, 0, 2)
	fx.speed, err = NewSPEED(kernel.RBF{Sigma: 0.7}, X.Slice(0, 8, 0, 2), SPEEDOptions{Components: 6})
	must(err)
	fx.speedFilterOK = func(m int) (Filter, error) { return NewRLS(m, RLSOptions{Delta: 1e-2}) }
	speed := func(n, m int) *SPEED {
		s, err := NewSPEED(kernel.RBF{Sigma: 0.7}, X.Slice(0, n, 0, 2), SPEEDOptions{Components: m})
		must(err)
		return s
	}
	fx.filter, err = NewSPEEDFilter(speed(8, 6), fx.speedFilterOK, SPEEDFilterOptions{})
	must(err)
	fx.frozen, err = NewSPEEDFilter(speed(8, 6), fx.speedFilterOK, SPEEDFilterOptions{Threshold: -1})
	must(err)
	// A map of 4 samples and up to 10 components grows a feature with its next sample,
	// and the factory refuses every dimension but the first.
	fx.growsM = speed(4, 10).OutDim()
	fx.calls = new(int)
	fx.grows, err = NewSPEEDFilter(speed(4, 10), func(m int) (Filter, error) {
		*fx.calls++
		if m != fx.growsM {
			return nil, fmt.Errorf("no filter of %d features", m)
		}
		return NewLMS(m, 0.5)
	}, SPEEDFilterOptions{})
	must(err)
	// A filter whose update overflows, and one whose SetWeights refuses the carried
	// weights once the dictionary has grown and the filter learnt: both must undo it all.
	fx.steepFilter, err = NewSPEEDFilter(speed(8, 6), func(m int) (Filter, error) { return NewLMS(m, 1e300) }, SPEEDFilterOptions{})
	must(err)
	fx.refusing, err = NewSPEEDFilter(speed(8, 6), func(m int) (Filter, error) {
		f, err := NewLMS(m, 0.5)
		return &refusingFilter{LMS: f}, err
	}, SPEEDFilterOptions{})
	must(err)
	for i := 8; i < 11; i++ {
		for _, f := range []*SPEEDFilter{fx.filter, fx.frozen, fx.refusing} {
			_, err := f.Update(X.RawRowView(i), X.At(i, 0))
			must(err)
		}
	}
	fx.refusing.filter.(*refusingFilter).refuse = true
	return fx
}

// refusingFilter is a caller's Filter, an LMS filter whose SetWeights can refuse.
type refusingFilter struct {
	*LMS
	refuse bool
}

func (f *refusingFilter) SetWeights(w []float64) error {
	if f.refuse {
		return errors.New("refused")
	}
	return f.LMS.SetWeights(w)
}

// errorCases are zero-valued and hostile arguments for every exported function and
// method of the package that returns an error.
func errorCases(fx *errorFixtures) errtest.Cases {
	nan, inf := math.NaN(), math.Inf(1)
	arg, dim, nonFinite, empty := ikpca.ErrArgument, ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty
	newLMS := func(m int, eta float64) func() error {
		return func() error { _, err := NewLMS(m, eta); return err }
	}
	newRLS := func(m int, o RLSOptions) func() error {
		return func() error { _, err := NewRLS(m, o); return err }
	}
	newExRLS := func(m int, o RLSOptions) func() error {
		return func() error { _, err := NewExRLS(m, o); return err }
	}
	rbf := kernel.RBF{Sigma: 1}
	newKLMS := func(k kernel.Kernel, d int, eta, eps float64) func() error {
		return func() error { _, err := NewKLMS(k, d, eta, eps); return err }
	}
	newSPEED := func(k kernel.Kernel, X mat.Matrix, o SPEEDOptions) func() error {
		return func() error { _, err := NewSPEED(k, X, o); return err }
	}
	two := SPEEDOptions{Components: 2}
	newFilter := func(s *SPEED, factory func(int) (Filter, error), o SPEEDFilterOptions) func() error {
		return func() error { _, err := NewSPEEDFilter(s, factory, o); return err }
	}
	mg := func(n int, o MackeyGlassOptions) func() error {
		return func() error { _, err := MackeyGlass(n, o); return err }
	}
	embed := func(s []float64, order, horizon int) func() error {
		return func() error { _, _, err := Embed(s, order, horizon); return err }
	}
	standardise := func(s []float64, lo, hi float64) func() error {
		return func() error { _, err := Standardise(s, lo, hi); return err }
	}
	predict := func(f interface {
		Predict([]float64) (float64, error)
	}, x []float64) func() error {
		return func() error { _, err := f.Predict(x); return err }
	}
	update := func(f interface {
		Update([]float64, float64) (float64, error)
	}, x []float64, d float64) func() error {
		return func() error { _, err := f.Update(x, d); return err }
	}
	long := make([]float64, 70_000) // order 35000: 35000 rows × 35000 > 2³⁰ values
	pm := func(m int) func(int) (Filter, error) {
		return func(int) (Filter, error) { return NewLMS(m, 0.1) }
	}
	var c errtest.Cases
	c.Add("NewLMS: m 0", arg, newLMS(0, 0.1))
	c.Add("NewLMS: m −1", arg, newLMS(-1, 0.1))
	c.Add("NewLMS: m MaxInt", arg, newLMS(math.MaxInt, 0.1))
	c.Add("NewLMS: η 0", arg, newLMS(3, 0))
	c.Add("NewLMS: η −1", arg, newLMS(3, -1))
	c.Add("NewLMS: η NaN", arg, newLMS(3, nan))
	c.Add("NewLMS: η +Inf", arg, newLMS(3, inf))
	c.Add("NewRLS: m 0", arg, newRLS(0, RLSOptions{}))
	c.Add("NewRLS: m 2¹⁴+1", arg, newRLS(1<<14+1, RLSOptions{}))
	c.Add("NewRLS: m MinInt", arg, newRLS(math.MinInt, RLSOptions{}))
	c.Add("NewRLS: λ 1.5", arg, newRLS(3, RLSOptions{Lambda: 1.5}))
	c.Add("NewRLS: λ −1", arg, newRLS(3, RLSOptions{Lambda: -1}))
	c.Add("NewRLS: λ NaN", arg, newRLS(3, RLSOptions{Lambda: nan}))
	c.Add("NewRLS: δ −1", arg, newRLS(3, RLSOptions{Delta: -1}))
	c.Add("NewRLS: δ +Inf", arg, newRLS(3, RLSOptions{Delta: inf}))
	c.Add("NewRLS: q −1", arg, newRLS(3, RLSOptions{Q: -1}))
	c.Add("NewRLS: α NaN", arg, newRLS(3, RLSOptions{Alpha: nan}))
	c.Add("NewExRLS: m −1", arg, newExRLS(-1, RLSOptions{}))
	c.Add("NewExRLS: λ −Inf", arg, newExRLS(3, RLSOptions{Lambda: -inf}))
	c.Add("NewExRLS: α +Inf", arg, newExRLS(3, RLSOptions{Alpha: inf}))
	c.Add("NewExRLS: q −1", arg, newExRLS(3, RLSOptions{Q: -1}))
	c.Add("NewKLMS: nil kernel", arg, newKLMS(nil, 2, 0.1, 0))
	c.Add("NewKLMS: typed-nil kernel", arg, newKLMS(fx.nilRBF, 2, 0.1, 0))
	c.Add("NewKLMS: RBF{}", arg, newKLMS(kernel.RBF{}, 2, 0.1, 0))
	c.Add("NewKLMS: Polynomial{Degree: 3}", arg, newKLMS(kernel.Polynomial{Degree: 3}, 2, 0.1, 0))
	c.Add("NewKLMS: Func{}", arg, newKLMS(kernel.Func{}, 2, 0.1, 0))
	c.Add("NewKLMS: d 0", arg, newKLMS(rbf, 0, 0.1, 0))
	c.Add("NewKLMS: d −1", arg, newKLMS(rbf, -1, 0.1, 0))
	c.Add("NewKLMS: d MaxInt", arg, newKLMS(rbf, math.MaxInt, 0.1, 0))
	c.Add("NewKLMS: η 0", arg, newKLMS(rbf, 2, 0, 0))
	c.Add("NewKLMS: η NaN", arg, newKLMS(rbf, 2, nan, 0))
	c.Add("NewKLMS: η +Inf", arg, newKLMS(rbf, 2, inf, 0))
	c.Add("NewKLMS: ε −1", arg, newKLMS(rbf, 2, 0.1, -1))
	c.Add("NewKLMS: ε NaN", arg, newKLMS(rbf, 2, 0.1, nan))
	c.Add("NewKLMS: ε +Inf", arg, newKLMS(rbf, 2, 0.1, inf))
	c.Add("NewSPEED: nil kernel", arg, newSPEED(nil, fx.dictionary, two))
	c.Add("NewSPEED: RBF{}", arg, newSPEED(kernel.RBF{}, fx.dictionary, two))
	c.Add("NewSPEED: RBF{Sigma: NaN}", arg, newSPEED(kernel.RBF{Sigma: nan}, fx.dictionary, two))
	c.Add("NewSPEED: nil X", arg, newSPEED(rbf, nil, two))
	c.Add("NewSPEED: typed-nil X", arg, newSPEED(rbf, fx.nilDense, two))
	c.Add("NewSPEED: empty X", empty, newSPEED(rbf, fx.emptyX, two))
	c.Add("NewSPEED: NaN X", nonFinite, newSPEED(rbf, fx.nanX, two))
	c.Add("NewSPEED: Options{}", arg, newSPEED(rbf, fx.dictionary, SPEEDOptions{}))
	c.Add("NewSPEED: Components −1", arg, newSPEED(rbf, fx.dictionary, SPEEDOptions{Components: -1}))
	c.Add("NewSPEED: Cutoff NaN", arg, newSPEED(rbf, fx.dictionary, SPEEDOptions{Cutoff: nan}))
	c.Add("NewSPEED: Cutoff −1", arg, newSPEED(rbf, fx.dictionary, SPEEDOptions{Cutoff: -1}))
	c.Add("NewSPEED: Cutoff 1.5", arg, newSPEED(rbf, fx.dictionary, SPEEDOptions{Cutoff: 1.5}))
	c.Add("NewSPEED: Cutoff +Inf", arg, newSPEED(rbf, fx.dictionary, SPEEDOptions{Cutoff: inf}))
	c.Add("NewSPEED: Components and Cutoff", arg, newSPEED(rbf, fx.dictionary, SPEEDOptions{Components: 2, Cutoff: 0.5}))
	c.Add("NewSPEED: Cutoff NaN with Components", arg, newSPEED(rbf, fx.dictionary, SPEEDOptions{Components: 2, Cutoff: nan}))
	c.Add("NewSPEED: one point centred", arg, newSPEED(rbf, mat.NewDense(1, 2, []float64{1, 2}), SPEEDOptions{Components: 1, Centred: true}))
	c.Add("NewSPEEDFilter: nil map", arg, newFilter(nil, fx.speedFilterOK, SPEEDFilterOptions{}))
	c.Add("NewSPEEDFilter: zero map", arg, newFilter(&SPEED{}, fx.speedFilterOK, SPEEDFilterOptions{}))
	c.Add("NewSPEEDFilter: nil factory", arg, newFilter(fx.speed, nil, SPEEDFilterOptions{}))
	c.Add("NewSPEEDFilter: Threshold NaN", arg, newFilter(fx.speed, fx.speedFilterOK, SPEEDFilterOptions{Threshold: nan}))
	c.Add("NewSPEEDFilter: Threshold +Inf", arg, newFilter(fx.speed, fx.speedFilterOK, SPEEDFilterOptions{Threshold: inf}))
	c.Add("NewSPEEDFilter: MaxDictionary −1", arg, newFilter(fx.speed, fx.speedFilterOK, SPEEDFilterOptions{MaxDictionary: -1}))
	c.Add("NewSPEEDFilter: factory fails", arg, newFilter(fx.speed, func(int) (Filter, error) { return nil, errors.New("no") }, SPEEDFilterOptions{}))
	c.Add("NewSPEEDFilter: factory's own kind", arg, newFilter(fx.speed, func(int) (Filter, error) { return NewLMS(0, 1) }, SPEEDFilterOptions{}))
	c.Add("NewSPEEDFilter: factory's dimension error", dim, newFilter(fx.speed, func(int) (Filter, error) {
		return nil, fmt.Errorf("mine: %w", ikpca.ErrDimension)
	}, SPEEDFilterOptions{}))
	c.Add("NewSPEEDFilter: nil filter", arg, newFilter(fx.speed, func(int) (Filter, error) { return nil, nil }, SPEEDFilterOptions{}))
	c.Add("NewSPEEDFilter: typed-nil filter", arg, newFilter(fx.speed, func(int) (Filter, error) { return (*LMS)(nil), nil }, SPEEDFilterOptions{}))
	c.Add("NewSPEEDFilter: wrong dimension", arg, newFilter(fx.speed, pm(7), SPEEDFilterOptions{}))
	c.Add("MackeyGlass: n 0", arg, mg(0, MackeyGlassOptions{}))
	c.Add("MackeyGlass: n −1", arg, mg(-1, MackeyGlassOptions{}))
	c.Add("MackeyGlass: n MaxInt", arg, mg(math.MaxInt, MackeyGlassOptions{}))
	c.Add("MackeyGlass: Beta −1", arg, mg(10, MackeyGlassOptions{Beta: -1}))
	c.Add("MackeyGlass: Gamma NaN", arg, mg(10, MackeyGlassOptions{Gamma: nan}))
	c.Add("MackeyGlass: Tau +Inf", arg, mg(10, MackeyGlassOptions{Tau: inf}))
	c.Add("MackeyGlass: N −Inf", arg, mg(10, MackeyGlassOptions{N: -inf}))
	c.Add("MackeyGlass: Step NaN", arg, mg(10, MackeyGlassOptions{Step: nan}))
	c.Add("MackeyGlass: Sample −1", arg, mg(10, MackeyGlassOptions{Sample: -1}))
	c.Add("MackeyGlass: X0 −1", arg, mg(10, MackeyGlassOptions{X0: -1}))
	c.Add("MackeyGlass: Discard −1", arg, mg(10, MackeyGlassOptions{Discard: -1}))
	c.Add("MackeyGlass: Discard MaxInt", arg, mg(10, MackeyGlassOptions{Discard: math.MaxInt}))
	c.Add("MackeyGlass: Step not dividing", arg, mg(10, MackeyGlassOptions{Step: 0.7}))
	c.Add("MackeyGlass: Tau/Step beyond the limit", arg, mg(10, MackeyGlassOptions{Tau: 1e7, Step: 0.5}))
	c.Add("MackeyGlass: RK4 unstable", arg, mg(10, MackeyGlassOptions{Gamma: 10, Step: 0.5}))
	c.Add("MackeyGlass: integration overflows", arg, mg(100, MackeyGlassOptions{Beta: 1e308}))
	c.Add("Embed: order 0", arg, embed(fx.x3, 0, 1))
	c.Add("Embed: order −1", arg, embed(fx.x3, -1, 1))
	c.Add("Embed: horizon 0", arg, embed(fx.x3, 1, 0))
	c.Add("Embed: horizon MinInt", arg, embed(fx.x3, 1, math.MinInt))
	c.Add("Embed: nil series", empty, embed(nil, 1, 1))
	c.Add("Embed: too short", empty, embed(fx.x3, 2, 2))
	c.Add("Embed: order MaxInt", empty, embed(fx.x3, math.MaxInt, 1))
	c.Add("Embed: horizon MaxInt", empty, embed(fx.x3, 1, math.MaxInt))
	c.Add("Embed: NaN", nonFinite, embed([]float64{1, nan, 3}, 1, 1))
	c.Add("Embed: too large", arg, embed(long, 35_000, 1))
	c.Add("Standardise: lo NaN", arg, standardise(fx.x3, nan, 1))
	c.Add("Standardise: hi +Inf", arg, standardise(fx.x3, 0, inf))
	c.Add("Standardise: lo = hi", arg, standardise(fx.x3, 1, 1))
	c.Add("Standardise: lo > hi", arg, standardise(fx.x3, 1, -1))
	c.Add("Standardise: nil series", empty, standardise(nil, -1, 1))
	c.Add("Standardise: NaN", nonFinite, standardise([]float64{1, nan}, -1, 1))
	c.Add("Standardise: −Inf", nonFinite, standardise([]float64{-inf, 1}, -1, 1))

	// Every filter: wrong lengths, non-finite values, a zero value.
	for _, f := range []struct {
		typ  string
		f    Filter
		zero Filter
	}{{"LMS", fx.lms, &fx.zeroLMS}, {"RLS", fx.rls, &fx.zeroRLS}, {"RLS", fx.ex, &fx.zeroRLS}} {
		c.Add(f.typ+".Predict"+": nil", dim, predict(f.f, nil))
		c.Add(f.typ+".Predict"+": short", dim, predict(f.f, fx.x2))
		c.Add(f.typ+".Predict"+": Inf", nonFinite, predict(f.f, fx.nanPhi3))
		c.Add(f.typ+".Predict"+": zero filter", arg, predict(f.zero, nil))
		c.Add(f.typ+".Update"+": nil", dim, update(f.f, nil, 1))
		c.Add(f.typ+".Update"+": long", dim, update(f.f, []float64{1, 2, 3, 4}, 1))
		c.Add(f.typ+".Update"+": Inf", nonFinite, update(f.f, fx.nanPhi3, 1))
		c.Add(f.typ+".Update"+": d NaN", nonFinite, update(f.f, fx.phi3, nan))
		c.Add(f.typ+".Update"+": d −Inf", nonFinite, update(f.f, fx.phi3, -inf))
		c.Add(f.typ+".Update"+": overflow", nonFinite, update(f.f, fx.bigPhi3, 1e300))
		c.Add(f.typ+".Update"+": zero filter", arg, update(f.zero, nil, 1))
		c.Add(f.typ+".SetWeights"+": nil", dim, func() error { return f.f.SetWeights(nil) })
		c.Add(f.typ+".SetWeights"+": short", dim, func() error { return f.f.SetWeights(fx.x2) })
		c.Add(f.typ+".SetWeights"+": Inf", nonFinite, func() error { return f.f.SetWeights(fx.nanPhi3) })
		c.Add(f.typ+".SetWeights"+": zero filter", arg, func() error { return f.zero.SetWeights(nil) })
	}
	c.Add("LMS.Predict: overflow", nonFinite, predict(fx.huge, fx.bigPhi3))
	c.Add("LMS.Update: error overflows", nonFinite, update(fx.huge, fx.bigPhi3, 1))
	c.Add("LMS.Update: weights overflow", nonFinite, update(fx.lms, []float64{1e200, 0, 0}, 1e200))
	c.Add("RLS.Update: P indefinite", ikpca.ErrNotConverged, update(fx.indefinite, []float64{1, 1}, 1))
	c.Add("RLS.Update: weights overflow", nonFinite, update(fx.loose, []float64{1e-5, 0, 0}, math.MaxFloat64))
	c.Add("KLMS.Predict: nil", dim, predict(fx.klms, nil))
	c.Add("KLMS.Predict: long", dim, predict(fx.klms, fx.x3))
	c.Add("KLMS.Predict: NaN", nonFinite, predict(fx.klms, fx.nanx2))
	c.Add("KLMS.Predict: zero filter", arg, predict(&fx.zeroKLMS, nil))
	c.Add("KLMS.Update: short", dim, update(fx.klms, []float64{1}, 1))
	c.Add("KLMS.Update: NaN", nonFinite, update(fx.klms, fx.nanx2, 1))
	c.Add("KLMS.Update: d +Inf", nonFinite, update(fx.klms, fx.x2, inf))
	c.Add("KLMS.Update: step overflows", nonFinite, update(fx.steep, fx.x2, 1e300))
	c.Add("KLMS.Update: zero filter", arg, update(&fx.zeroKLMS, nil, 1))
	c.Add("SPEED.Map: short dst", dim, func() error { return fx.speed.Map(make([]float64, 5), fx.x2) })
	c.Add("SPEED.Map: nil dst", dim, func() error { return fx.speed.Map(nil, fx.x2) })
	c.Add("SPEED.Map: long x", dim, func() error { return fx.speed.Map(make([]float64, 6), fx.x3) })
	c.Add("SPEED.Map: NaN x", nonFinite, func() error { return fx.speed.Map(make([]float64, 6), fx.nanx2) })
	c.Add("SPEED.Map: zero map", arg, func() error { return fx.zeroSPEED.Map(nil, nil) })
	c.Add("SPEED.Grow: nil x", dim, func() error { return fx.speed.Grow(nil, nil) })
	c.Add("SPEED.Grow: NaN x", nonFinite, func() error { return fx.speed.Grow(fx.nanx2, nil) })
	c.Add("SPEED.Grow: short w", dim, func() error { w := fx.w4; return fx.speed.Grow(fx.x2, &w) })
	c.Add("SPEED.Grow: NaN w", nonFinite, func() error { w := append(fx.nanW4, 1, 1); return fx.speed.Grow(fx.x2, &w) })
	c.Add("SPEED.Grow: zero map", arg, func() error { return fx.zeroSPEED.Grow(fx.x2, nil) })
	c.Add("SPEED.Transfer: nil", dim, func() error { _, err := fx.speed.Transfer(nil); return err })
	c.Add("SPEED.Transfer: short", dim, func() error { _, err := fx.speed.Transfer(fx.w4); return err })
	c.Add("SPEED.Transfer: NaN", nonFinite, func() error {
		c := make([]float64, fx.speed.Len())
		c[3] = nan
		_, err := fx.speed.Transfer(c)
		return err
	})
	c.Add("SPEED.Transfer: overflow", nonFinite, func() error {
		c := make([]float64, fx.speed.Len())
		for i := range c {
			c[i] = math.MaxFloat64
		}
		_, err := fx.speed.Transfer(c)
		return err
	})
	c.Add("SPEED.Transfer: zero map", arg, func() error { _, err := fx.zeroSPEED.Transfer(nil); return err })
	c.Add("SPEEDFilter.Predict: short", dim, predict(fx.filter, []float64{1}))
	c.Add("SPEEDFilter.Predict: NaN", nonFinite, predict(fx.filter, fx.nanx2))
	c.Add("SPEEDFilter.Predict: zero filter", arg, predict(&fx.zeroFilter, fx.x2))
	c.Add("SPEEDFilter.Update: long", dim, update(fx.filter, fx.x3, 1))
	c.Add("SPEEDFilter.Update: NaN x", nonFinite, update(fx.filter, fx.nanx2, 1))
	c.Add("SPEEDFilter.Update: d NaN, novel", nonFinite, update(fx.filter, fx.x2, nan))
	c.Add("SPEEDFilter.Update: d NaN, frozen", nonFinite, update(fx.frozen, fx.x2, nan))
	c.Add("SPEEDFilter.Update: the filter's update overflows", nonFinite, update(fx.steepFilter, fx.x2, 1e10))
	c.Add("SPEEDFilter.Update: SetWeights refuses", arg, update(fx.refusing, fx.x2, 1))
	c.Add("SPEEDFilter.Update: factory fails as m grows", arg, update(fx.grows, fx.x2, 1))
	c.Add("SPEEDFilter.Update: zero filter", arg, update(&fx.zeroFilter, fx.x2, 1))
	return c
}

// state is a fingerprint of every fixture's state, to check that rejected calls change
// nothing.
func (fx *errorFixtures) state() string {
	var b strings.Builder
	bits := func(name string, v []float64) {
		fmt.Fprintf(&b, "%s:", name)
		for _, x := range v {
			fmt.Fprintf(&b, " %x", math.Float64bits(x))
		}
		b.WriteByte('\n')
	}
	for i, f := range []*LMS{fx.lms, fx.huge} {
		bits(fmt.Sprint("LMS ", i), f.w)
	}
	for i, f := range []*RLS{fx.rls, fx.ex, fx.indefinite, fx.loose} {
		bits(fmt.Sprint("RLS ", i, " w"), f.w)
		bits(fmt.Sprint("RLS ", i, " P"), f.p)
	}
	for i, f := range []*KLMS{fx.klms, fx.steep} {
		bits(fmt.Sprint("KLMS ", i, " centres"), f.centres)
		bits(fmt.Sprint("KLMS ", i, " coefficients"), f.coef)
	}
	speed := func(name string, s *SPEED) {
		var psi mat.Dense
		s.Basis(&psi)
		bits(name+".psi", psi.RawMatrix().Data)
		bits(name+".vals", s.vals)
		bits(name+".mean", s.mean)
		var dict mat.Dense
		s.model.Points(&dict)
		bits(name+".dict", dict.RawMatrix().Data)
		enc, err := s.model.MarshalBinary()
		fmt.Fprintf(&b, "%s.model: %x %v\n", name, enc, err)
	}
	speed("speed", fx.speed)
	for i, f := range []*SPEEDFilter{fx.filter, fx.frozen, fx.grows, fx.steepFilter, fx.refusing} {
		name := fmt.Sprint("SPEEDFilter ", i)
		speed(name, f.speed)
		bits(name+".w", f.filter.Weights(nil))
		if r, ok := f.filter.(*RLS); ok {
			bits(name+".p", r.p)
		}
		fmt.Fprintf(&b, "%s.filter: %p %d\n", name, f.filter, len(f.phi))
	}
	fmt.Fprintf(&b, "zero: %v %v %v %v %v\n", fx.zeroLMS, fx.zeroRLS, fx.zeroKLMS, fx.zeroSPEED, fx.zeroFilter)
	return b.String()
}

// TestErrorKinds runs every exported function and method of the package that returns
// an error with zero-valued and hostile arguments: each call returns an error — it does
// not panic — that wraps the expected ikpca kind and kaf's sentinel for it, and no other
// kind; and the filters and maps the rejected calls were made on are unchanged, bit for
// bit.
func TestErrorKinds(t *testing.T) {
	fx := newErrorFixtures(t)
	before := fx.state()
	sentinels.Run(t, errorCases(fx))
	if after := fx.state(); after != before {
		b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Errorf("rejected calls changed %s", strings.SplitN(a[i], ":", 2)[0])
			}
		}
	}
	if *fx.calls != 2 {
		t.Errorf("the refusing factory was called %d times, want 2 (at the start and as m grew)", *fx.calls)
	}
}

// TestErrorsLeaveFiltersWorking: after the rejected calls, each fixture still accepts a
// good sample and the growing SPEEDFilter grows once its factory agrees.
func TestErrorsLeaveFiltersWorking(t *testing.T) {
	fx := newErrorFixtures(t)
	for _, c := range errorCases(fx) {
		func() {
			defer func() { _ = recover() }()
			_ = c.Call()
		}()
	}
	for _, f := range []Filter{fx.lms, fx.rls, fx.ex} {
		if _, err := f.Update(fx.phi3, 0.5); err != nil {
			t.Errorf("%T after rejected calls: %v", f, err)
		}
	}
	if _, err := fx.klms.Update(fx.x2, 0.5); err != nil {
		t.Errorf("KLMS after rejected calls: %v", err)
	}
	for _, f := range []*SPEEDFilter{fx.filter, fx.frozen} {
		n := f.Map().Len()
		if _, err := f.Update(fx.x2, 0.5); err != nil {
			t.Errorf("SPEEDFilter after rejected calls: %v", err)
		}
		if grew := f.Map().Len() - n; (f == fx.filter) != (grew == 1) {
			t.Errorf("SPEEDFilter (threshold %v) grew by %d", f.opts.Threshold, grew)
		}
	}
	fx.growsM = fx.grows.Map().OutDim() + 1 // the factory now makes the next dimension
	if _, err := fx.grows.Update(fx.x2, 1); err != nil {
		t.Fatal(err)
	}
	if got := fx.grows.filter.Dim(); got != fx.growsM || fx.grows.Map().OutDim() != got || len(fx.grows.phi) != got {
		t.Errorf("after the growth: filter dimension %d, map %d, scratch %d; want %d", got, fx.grows.Map().OutDim(), len(fx.grows.phi), fx.growsM)
	}
}

// TestErrorsCoverEveryFunction reads the package's source and checks that errorCases
// calls every exported function and method that returns an error, so that a new one
// cannot be added without its hostile arguments.
func TestErrorsCoverEveryFunction(t *testing.T) { errorCases(newErrorFixtures(t)).Cover(t, 10) }
