package kaf

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
)

// errorCase is one call of an exported function or method that returns an error, with
// the ikpca kind its error must wrap.
type errorCase struct {
	fn   string // "NewLMS", or "LMS.Update" for a method: for TestErrorsCoverEveryFunction
	name string
	call func() error
	kind error
}

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
func errorCases(fx *errorFixtures) []errorCase {
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
	cases := []errorCase{
		{"NewLMS", "m 0", newLMS(0, 0.1), arg},
		{"NewLMS", "m −1", newLMS(-1, 0.1), arg},
		{"NewLMS", "m MaxInt", newLMS(math.MaxInt, 0.1), arg},
		{"NewLMS", "η 0", newLMS(3, 0), arg},
		{"NewLMS", "η −1", newLMS(3, -1), arg},
		{"NewLMS", "η NaN", newLMS(3, nan), arg},
		{"NewLMS", "η +Inf", newLMS(3, inf), arg},
		{"NewRLS", "m 0", newRLS(0, RLSOptions{}), arg},
		{"NewRLS", "m 2¹⁴+1", newRLS(1<<14+1, RLSOptions{}), arg},
		{"NewRLS", "m MinInt", newRLS(math.MinInt, RLSOptions{}), arg},
		{"NewRLS", "λ 1.5", newRLS(3, RLSOptions{Lambda: 1.5}), arg},
		{"NewRLS", "λ −1", newRLS(3, RLSOptions{Lambda: -1}), arg},
		{"NewRLS", "λ NaN", newRLS(3, RLSOptions{Lambda: nan}), arg},
		{"NewRLS", "δ −1", newRLS(3, RLSOptions{Delta: -1}), arg},
		{"NewRLS", "δ +Inf", newRLS(3, RLSOptions{Delta: inf}), arg},
		{"NewRLS", "q −1", newRLS(3, RLSOptions{Q: -1}), arg},
		{"NewRLS", "α NaN", newRLS(3, RLSOptions{Alpha: nan}), arg},
		{"NewExRLS", "m −1", newExRLS(-1, RLSOptions{}), arg},
		{"NewExRLS", "λ −Inf", newExRLS(3, RLSOptions{Lambda: -inf}), arg},
		{"NewExRLS", "α +Inf", newExRLS(3, RLSOptions{Alpha: inf}), arg},
		{"NewExRLS", "q −1", newExRLS(3, RLSOptions{Q: -1}), arg},
		{"NewKLMS", "nil kernel", newKLMS(nil, 2, 0.1, 0), arg},
		{"NewKLMS", "typed-nil kernel", newKLMS(fx.nilRBF, 2, 0.1, 0), arg},
		{"NewKLMS", "RBF{}", newKLMS(kernel.RBF{}, 2, 0.1, 0), arg},
		{"NewKLMS", "Polynomial{Degree: 3}", newKLMS(kernel.Polynomial{Degree: 3}, 2, 0.1, 0), arg},
		{"NewKLMS", "Func{}", newKLMS(kernel.Func{}, 2, 0.1, 0), arg},
		{"NewKLMS", "d 0", newKLMS(rbf, 0, 0.1, 0), arg},
		{"NewKLMS", "d −1", newKLMS(rbf, -1, 0.1, 0), arg},
		{"NewKLMS", "d MaxInt", newKLMS(rbf, math.MaxInt, 0.1, 0), arg},
		{"NewKLMS", "η 0", newKLMS(rbf, 2, 0, 0), arg},
		{"NewKLMS", "η NaN", newKLMS(rbf, 2, nan, 0), arg},
		{"NewKLMS", "η +Inf", newKLMS(rbf, 2, inf, 0), arg},
		{"NewKLMS", "ε −1", newKLMS(rbf, 2, 0.1, -1), arg},
		{"NewKLMS", "ε NaN", newKLMS(rbf, 2, 0.1, nan), arg},
		{"NewKLMS", "ε +Inf", newKLMS(rbf, 2, 0.1, inf), arg},
		{"NewSPEED", "nil kernel", newSPEED(nil, fx.dictionary, two), arg},
		{"NewSPEED", "RBF{}", newSPEED(kernel.RBF{}, fx.dictionary, two), arg},
		{"NewSPEED", "RBF{Sigma: NaN}", newSPEED(kernel.RBF{Sigma: nan}, fx.dictionary, two), arg},
		{"NewSPEED", "nil X", newSPEED(rbf, nil, two), arg},
		{"NewSPEED", "typed-nil X", newSPEED(rbf, fx.nilDense, two), arg},
		{"NewSPEED", "empty X", newSPEED(rbf, fx.emptyX, two), empty},
		{"NewSPEED", "NaN X", newSPEED(rbf, fx.nanX, two), nonFinite},
		{"NewSPEED", "Options{}", newSPEED(rbf, fx.dictionary, SPEEDOptions{}), arg},
		{"NewSPEED", "Components −1", newSPEED(rbf, fx.dictionary, SPEEDOptions{Components: -1}), arg},
		{"NewSPEED", "Cutoff NaN", newSPEED(rbf, fx.dictionary, SPEEDOptions{Cutoff: nan}), arg},
		{"NewSPEED", "Cutoff −1", newSPEED(rbf, fx.dictionary, SPEEDOptions{Cutoff: -1}), arg},
		{"NewSPEED", "Cutoff 1.5", newSPEED(rbf, fx.dictionary, SPEEDOptions{Cutoff: 1.5}), arg},
		{"NewSPEED", "Cutoff +Inf", newSPEED(rbf, fx.dictionary, SPEEDOptions{Cutoff: inf}), arg},
		{"NewSPEED", "Components and Cutoff", newSPEED(rbf, fx.dictionary, SPEEDOptions{Components: 2, Cutoff: 0.5}), arg},
		{"NewSPEED", "Cutoff NaN with Components", newSPEED(rbf, fx.dictionary, SPEEDOptions{Components: 2, Cutoff: nan}), arg},
		{"NewSPEED", "one point centred", newSPEED(rbf, mat.NewDense(1, 2, []float64{1, 2}), SPEEDOptions{Components: 1, Centred: true}), arg},
		{"NewSPEEDFilter", "nil map", newFilter(nil, fx.speedFilterOK, SPEEDFilterOptions{}), arg},
		{"NewSPEEDFilter", "zero map", newFilter(&SPEED{}, fx.speedFilterOK, SPEEDFilterOptions{}), arg},
		{"NewSPEEDFilter", "nil factory", newFilter(fx.speed, nil, SPEEDFilterOptions{}), arg},
		{"NewSPEEDFilter", "Threshold NaN", newFilter(fx.speed, fx.speedFilterOK, SPEEDFilterOptions{Threshold: nan}), arg},
		{"NewSPEEDFilter", "Threshold +Inf", newFilter(fx.speed, fx.speedFilterOK, SPEEDFilterOptions{Threshold: inf}), arg},
		{"NewSPEEDFilter", "MaxDictionary −1", newFilter(fx.speed, fx.speedFilterOK, SPEEDFilterOptions{MaxDictionary: -1}), arg},
		{"NewSPEEDFilter", "factory fails", newFilter(fx.speed, func(int) (Filter, error) { return nil, errors.New("no") }, SPEEDFilterOptions{}), arg},
		{"NewSPEEDFilter", "factory's own kind", newFilter(fx.speed, func(int) (Filter, error) { return NewLMS(0, 1) }, SPEEDFilterOptions{}), arg},
		{"NewSPEEDFilter", "factory's dimension error", newFilter(fx.speed, func(int) (Filter, error) {
			return nil, fmt.Errorf("mine: %w", ikpca.ErrDimension)
		}, SPEEDFilterOptions{}), dim},
		{"NewSPEEDFilter", "nil filter", newFilter(fx.speed, func(int) (Filter, error) { return nil, nil }, SPEEDFilterOptions{}), arg},
		{"NewSPEEDFilter", "typed-nil filter", newFilter(fx.speed, func(int) (Filter, error) { return (*LMS)(nil), nil }, SPEEDFilterOptions{}), arg},
		{"NewSPEEDFilter", "wrong dimension", newFilter(fx.speed, pm(7), SPEEDFilterOptions{}), arg},
		{"MackeyGlass", "n 0", mg(0, MackeyGlassOptions{}), arg},
		{"MackeyGlass", "n −1", mg(-1, MackeyGlassOptions{}), arg},
		{"MackeyGlass", "n MaxInt", mg(math.MaxInt, MackeyGlassOptions{}), arg},
		{"MackeyGlass", "Beta −1", mg(10, MackeyGlassOptions{Beta: -1}), arg},
		{"MackeyGlass", "Gamma NaN", mg(10, MackeyGlassOptions{Gamma: nan}), arg},
		{"MackeyGlass", "Tau +Inf", mg(10, MackeyGlassOptions{Tau: inf}), arg},
		{"MackeyGlass", "N −Inf", mg(10, MackeyGlassOptions{N: -inf}), arg},
		{"MackeyGlass", "Step NaN", mg(10, MackeyGlassOptions{Step: nan}), arg},
		{"MackeyGlass", "Sample −1", mg(10, MackeyGlassOptions{Sample: -1}), arg},
		{"MackeyGlass", "X0 −1", mg(10, MackeyGlassOptions{X0: -1}), arg},
		{"MackeyGlass", "Discard −1", mg(10, MackeyGlassOptions{Discard: -1}), arg},
		{"MackeyGlass", "Discard MaxInt", mg(10, MackeyGlassOptions{Discard: math.MaxInt}), arg},
		{"MackeyGlass", "Step not dividing", mg(10, MackeyGlassOptions{Step: 0.7}), arg},
		{"MackeyGlass", "Tau/Step beyond the limit", mg(10, MackeyGlassOptions{Tau: 1e7, Step: 0.5}), arg},
		{"MackeyGlass", "RK4 unstable", mg(10, MackeyGlassOptions{Gamma: 10, Step: 0.5}), arg},
		{"MackeyGlass", "integration overflows", mg(100, MackeyGlassOptions{Beta: 1e308}), arg},
		{"Embed", "order 0", embed(fx.x3, 0, 1), arg},
		{"Embed", "order −1", embed(fx.x3, -1, 1), arg},
		{"Embed", "horizon 0", embed(fx.x3, 1, 0), arg},
		{"Embed", "horizon MinInt", embed(fx.x3, 1, math.MinInt), arg},
		{"Embed", "nil series", embed(nil, 1, 1), empty},
		{"Embed", "too short", embed(fx.x3, 2, 2), empty},
		{"Embed", "order MaxInt", embed(fx.x3, math.MaxInt, 1), empty},
		{"Embed", "horizon MaxInt", embed(fx.x3, 1, math.MaxInt), empty},
		{"Embed", "NaN", embed([]float64{1, nan, 3}, 1, 1), nonFinite},
		{"Embed", "too large", embed(long, 35_000, 1), arg},
		{"Standardise", "lo NaN", standardise(fx.x3, nan, 1), arg},
		{"Standardise", "hi +Inf", standardise(fx.x3, 0, inf), arg},
		{"Standardise", "lo = hi", standardise(fx.x3, 1, 1), arg},
		{"Standardise", "lo > hi", standardise(fx.x3, 1, -1), arg},
		{"Standardise", "nil series", standardise(nil, -1, 1), empty},
		{"Standardise", "NaN", standardise([]float64{1, nan}, -1, 1), nonFinite},
		{"Standardise", "−Inf", standardise([]float64{-inf, 1}, -1, 1), nonFinite},
	}
	// Every filter: wrong lengths, non-finite values, a zero value.
	for _, f := range []struct {
		typ  string
		f    Filter
		zero Filter
	}{{"LMS", fx.lms, &fx.zeroLMS}, {"RLS", fx.rls, &fx.zeroRLS}, {"RLS", fx.ex, &fx.zeroRLS}} {
		cases = append(cases,
			errorCase{f.typ + ".Predict", "nil", predict(f.f, nil), dim},
			errorCase{f.typ + ".Predict", "short", predict(f.f, fx.x2), dim},
			errorCase{f.typ + ".Predict", "Inf", predict(f.f, fx.nanPhi3), nonFinite},
			errorCase{f.typ + ".Predict", "zero filter", predict(f.zero, nil), arg},
			errorCase{f.typ + ".Update", "nil", update(f.f, nil, 1), dim},
			errorCase{f.typ + ".Update", "long", update(f.f, []float64{1, 2, 3, 4}, 1), dim},
			errorCase{f.typ + ".Update", "Inf", update(f.f, fx.nanPhi3, 1), nonFinite},
			errorCase{f.typ + ".Update", "d NaN", update(f.f, fx.phi3, nan), nonFinite},
			errorCase{f.typ + ".Update", "d −Inf", update(f.f, fx.phi3, -inf), nonFinite},
			errorCase{f.typ + ".Update", "overflow", update(f.f, fx.bigPhi3, 1e300), nonFinite},
			errorCase{f.typ + ".Update", "zero filter", update(f.zero, nil, 1), arg},
			errorCase{f.typ + ".SetWeights", "nil", func() error { return f.f.SetWeights(nil) }, dim},
			errorCase{f.typ + ".SetWeights", "short", func() error { return f.f.SetWeights(fx.x2) }, dim},
			errorCase{f.typ + ".SetWeights", "Inf", func() error { return f.f.SetWeights(fx.nanPhi3) }, nonFinite},
			errorCase{f.typ + ".SetWeights", "zero filter", func() error { return f.zero.SetWeights(nil) }, arg},
		)
	}
	cases = append(cases,
		errorCase{"LMS.Predict", "overflow", predict(fx.huge, fx.bigPhi3), nonFinite},
		errorCase{"LMS.Update", "error overflows", update(fx.huge, fx.bigPhi3, 1), nonFinite},
		errorCase{"LMS.Update", "weights overflow", update(fx.lms, []float64{1e200, 0, 0}, 1e200), nonFinite},
		errorCase{"RLS.Update", "P indefinite", update(fx.indefinite, []float64{1, 1}, 1), ikpca.ErrNotConverged},
		errorCase{"RLS.Update", "weights overflow", update(fx.loose, []float64{1e-5, 0, 0}, math.MaxFloat64), nonFinite},
		errorCase{"KLMS.Predict", "nil", predict(fx.klms, nil), dim},
		errorCase{"KLMS.Predict", "long", predict(fx.klms, fx.x3), dim},
		errorCase{"KLMS.Predict", "NaN", predict(fx.klms, fx.nanx2), nonFinite},
		errorCase{"KLMS.Predict", "zero filter", predict(&fx.zeroKLMS, nil), arg},
		errorCase{"KLMS.Update", "short", update(fx.klms, []float64{1}, 1), dim},
		errorCase{"KLMS.Update", "NaN", update(fx.klms, fx.nanx2, 1), nonFinite},
		errorCase{"KLMS.Update", "d +Inf", update(fx.klms, fx.x2, inf), nonFinite},
		errorCase{"KLMS.Update", "step overflows", update(fx.steep, fx.x2, 1e300), nonFinite},
		errorCase{"KLMS.Update", "zero filter", update(&fx.zeroKLMS, nil, 1), arg},
		errorCase{"SPEED.Map", "short dst", func() error { return fx.speed.Map(make([]float64, 5), fx.x2) }, dim},
		errorCase{"SPEED.Map", "nil dst", func() error { return fx.speed.Map(nil, fx.x2) }, dim},
		errorCase{"SPEED.Map", "long x", func() error { return fx.speed.Map(make([]float64, 6), fx.x3) }, dim},
		errorCase{"SPEED.Map", "NaN x", func() error { return fx.speed.Map(make([]float64, 6), fx.nanx2) }, nonFinite},
		errorCase{"SPEED.Map", "zero map", func() error { return fx.zeroSPEED.Map(nil, nil) }, arg},
		errorCase{"SPEED.Grow", "nil x", func() error { return fx.speed.Grow(nil, nil) }, dim},
		errorCase{"SPEED.Grow", "NaN x", func() error { return fx.speed.Grow(fx.nanx2, nil) }, nonFinite},
		errorCase{"SPEED.Grow", "short w", func() error { w := fx.w4; return fx.speed.Grow(fx.x2, &w) }, dim},
		errorCase{"SPEED.Grow", "NaN w", func() error { w := append(fx.nanW4, 1, 1); return fx.speed.Grow(fx.x2, &w) }, nonFinite},
		errorCase{"SPEED.Grow", "zero map", func() error { return fx.zeroSPEED.Grow(fx.x2, nil) }, arg},
		errorCase{"SPEED.Transfer", "nil", func() error { _, err := fx.speed.Transfer(nil); return err }, dim},
		errorCase{"SPEED.Transfer", "short", func() error { _, err := fx.speed.Transfer(fx.w4); return err }, dim},
		errorCase{"SPEED.Transfer", "NaN", func() error {
			c := make([]float64, fx.speed.Len())
			c[3] = nan
			_, err := fx.speed.Transfer(c)
			return err
		}, nonFinite},
		errorCase{"SPEED.Transfer", "overflow", func() error {
			c := make([]float64, fx.speed.Len())
			for i := range c {
				c[i] = math.MaxFloat64
			}
			_, err := fx.speed.Transfer(c)
			return err
		}, nonFinite},
		errorCase{"SPEED.Transfer", "zero map", func() error { _, err := fx.zeroSPEED.Transfer(nil); return err }, arg},
		errorCase{"SPEEDFilter.Predict", "short", predict(fx.filter, []float64{1}), dim},
		errorCase{"SPEEDFilter.Predict", "NaN", predict(fx.filter, fx.nanx2), nonFinite},
		errorCase{"SPEEDFilter.Predict", "zero filter", predict(&fx.zeroFilter, fx.x2), arg},
		errorCase{"SPEEDFilter.Update", "long", update(fx.filter, fx.x3, 1), dim},
		errorCase{"SPEEDFilter.Update", "NaN x", update(fx.filter, fx.nanx2, 1), nonFinite},
		errorCase{"SPEEDFilter.Update", "d NaN, novel", update(fx.filter, fx.x2, nan), nonFinite},
		errorCase{"SPEEDFilter.Update", "d NaN, frozen", update(fx.frozen, fx.x2, nan), nonFinite},
		errorCase{"SPEEDFilter.Update", "the filter's update overflows", update(fx.steepFilter, fx.x2, 1e10), nonFinite},
		errorCase{"SPEEDFilter.Update", "SetWeights refuses", update(fx.refusing, fx.x2, 1), arg},
		errorCase{"SPEEDFilter.Update", "factory fails as m grows", update(fx.grows, fx.x2, 1), arg},
		errorCase{"SPEEDFilter.Update", "zero filter", update(&fx.zeroFilter, fx.x2, 1), arg},
	)
	return cases
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
	all := []struct{ kind, own error }{
		{ikpca.ErrDimension, ErrDimension}, {ikpca.ErrNonFinite, ErrNonFinite}, {ikpca.ErrEmpty, ErrEmpty},
		{ikpca.ErrArgument, ErrArgument}, {ikpca.ErrEncoding, nil}, {ikpca.ErrNotConverged, ErrNotConverged},
	}
	for _, c := range errorCases(fx) {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s(%s) panics: %v", c.fn, c.name, r)
				}
			}()
			err = c.call()
		}()
		if err == nil {
			t.Errorf("%s(%s) = nil, want an error wrapping %v", c.fn, c.name, c.kind)
			continue
		}
		kinds := 0
		for _, k := range all {
			if !errors.Is(err, k.kind) {
				continue
			}
			kinds++
			if k.own == nil || !errors.Is(err, k.own) {
				t.Errorf("%s(%s) = %v wraps %v but not kaf's sentinel of it", c.fn, c.name, err, k.kind)
			}
		}
		if !errors.Is(err, c.kind) || kinds != 1 {
			t.Errorf("%s(%s) = %v wraps %d kinds, want exactly %v", c.fn, c.name, err, kinds, c.kind)
		}
		if !strings.HasPrefix(err.Error(), "kaf: ") {
			t.Errorf("%s(%s) = %q, want the package's prefix", c.fn, c.name, err)
		}
	}
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
			_ = c.call()
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
func TestErrorsCoverEveryFunction(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() || fd.Type.Results == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil {
				typ := fd.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				id, ok := typ.(*ast.Ident)
				if !ok || !id.IsExported() {
					continue
				}
				name = id.Name + "." + name
			}
			for _, r := range fd.Type.Results.List {
				if id, ok := r.Type.(*ast.Ident); ok && id.Name == "error" {
					want = append(want, name)
				}
			}
		}
	}
	t.Logf("exported functions that return an error: %v", want)
	if len(want) < 10 {
		t.Fatalf("found %d functions that return an error: the parse is wrong", len(want))
	}
	var have []string
	for _, c := range errorCases(newErrorFixtures(t)) {
		have = append(have, c.fn)
	}
	for _, name := range want {
		if !slices.Contains(have, name) {
			t.Errorf("%s returns an error but errorCases does not call it", name)
		}
	}
}
