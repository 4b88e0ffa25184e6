package pca

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/wiretest"
)

var sentinels = errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument, ErrEncoding, ErrNotConverged)

// state is what an error must leave as it was: the encoding, bit for bit.
func state(t *testing.T, m *Model) string {
	t.Helper()
	b := wiretest.Marshal(t, m)
	return string(b)
}

// TestErrors: every bad argument of every method gives an error of its kind, with the
// package's sentinel, and leaves the model exactly as it was (its encoding bit for bit),
// for the exact model, a window and the rank-r form.
func TestErrors(t *testing.T) {
	X := mat.DenseCopyOf(data.Magic().X.Slice(0, 60, 0, 10))
	nan, inf := math.NaN(), math.Inf(1)
	good := X.RawRowView(0)
	with := func(i int, v float64) []float64 {
		x := append([]float64(nil), good...)
		x[i] = v
		return x
	}
	bad := mat.DenseCopyOf(X.Slice(0, 12, 0, 10))
	bad.Set(11, 3, nan) // the last row of a batch that would refactorise
	far := make([]float64, 10)
	for i := range far {
		far[i] = 1e6 * float64(i+1) // far outside the points: its removal leaves S indefinite
	}
	// errorCase is a call on the model m that must fail with an error of kind.
	type errorCase struct {
		name string
		m    *Model
		call func(*Model) error
		kind error
	}
	for _, opts := range []Options{{Components: All}, {Components: 3, Window: 30}, {Components: 3, Rank: 4}} {
		m := mustFit(t, X, opts)
		one := mustNew(t, 10, opts)
		if err := one.Add(good); err != nil {
			t.Fatal(err)
		}
		empty := mustNew(t, 10, opts)
		cases := []errorCase{
			{"Add short", m, func(m *Model) error { return m.Add(good[:9]) }, ikpca.ErrDimension},
			{"Add nil", m, func(m *Model) error { return m.Add(nil) }, ikpca.ErrDimension},
			{"Add NaN", m, func(m *Model) error { return m.Add(with(2, nan)) }, ikpca.ErrNonFinite},
			{"Add Inf", m, func(m *Model) error { return m.Add(with(9, -inf)) }, ikpca.ErrNonFinite},
			{"Add overflowing", m, func(m *Model) error { return m.Add(with(4, 1e200)) }, ikpca.ErrNonFinite},
			{"AddBatch overflowing", m, func(m *Model) error {
				big := mat.DenseCopyOf(X.Slice(0, 20, 0, 10))
				big.Set(19, 0, -1e200)
				return m.AddBatch(big)
			}, ikpca.ErrNonFinite},
			{"AddWeighted 0", m, func(m *Model) error { return m.AddWeighted(good, 0) }, ikpca.ErrArgument},
			{"AddWeighted −1", m, func(m *Model) error { return m.AddWeighted(good, -1) }, ikpca.ErrArgument},
			{"AddWeighted NaN", m, func(m *Model) error { return m.AddWeighted(good, nan) }, ikpca.ErrArgument},
			{"AddWeighted Inf", m, func(m *Model) error { return m.AddWeighted(good, inf) }, ikpca.ErrArgument},
			{"AddBatch nil", m, func(m *Model) error { return m.AddBatch(nil) }, ikpca.ErrArgument},
			{"AddBatch typed nil", m, func(m *Model) error { return m.AddBatch((*mat.Dense)(nil)) }, ikpca.ErrArgument},
			{"AddBatch no rows", m, func(m *Model) error { return m.AddBatch(mat.NewDense(1, 10, nil).Slice(0, 0, 0, 10)) }, ikpca.ErrEmpty},
			{"AddBatch columns", m, func(m *Model) error { return m.AddBatch(X.Slice(0, 5, 0, 9)) }, ikpca.ErrDimension},
			{"AddBatch NaN", m, func(m *Model) error { return m.AddBatch(bad) }, ikpca.ErrNonFinite},
			{"AddBatch NaN, empty", empty, func(m *Model) error { return m.AddBatch(bad) }, ikpca.ErrNonFinite},
			{"Transform nil", m, func(m *Model) error { var d mat.Dense; return m.Transform(&d, nil, 1) }, ikpca.ErrArgument},
			{"Transform k 0", m, func(m *Model) error { var d mat.Dense; return m.Transform(&d, X, 0) }, ikpca.ErrArgument},
			{"Transform k > Components", m, func(m *Model) error { var d mat.Dense; return m.Transform(&d, X, 11) }, ikpca.ErrArgument},
			{"Transform dst", m, func(m *Model) error { return m.Transform(mat.NewDense(2, 2, nil), X, 1) }, ikpca.ErrDimension},
			{"Transform nil dst", m, func(m *Model) error { return m.Transform(nil, X, 1) }, ikpca.ErrArgument},
			{"Transform empty model", empty, func(m *Model) error { var d mat.Dense; return m.Transform(&d, X, 1) }, ikpca.ErrEmpty},
			{"InverseTransform nil", m, func(m *Model) error { var d mat.Dense; return m.InverseTransform(&d, nil) }, ikpca.ErrArgument},
			{"InverseTransform no rows", m, func(m *Model) error {
				var d mat.Dense
				return m.InverseTransform(&d, mat.NewDense(1, 2, nil).Slice(0, 0, 0, 2))
			}, ikpca.ErrEmpty},
			{"InverseTransform too wide", m, func(m *Model) error { var d mat.Dense; return m.InverseTransform(&d, mat.NewDense(2, 11, nil)) }, ikpca.ErrDimension},
			{"InverseTransform NaN", m, func(m *Model) error {
				var d mat.Dense
				return m.InverseTransform(&d, mat.NewDense(1, 2, []float64{1, nan}))
			}, ikpca.ErrNonFinite},
			{"InverseTransform dst", m, func(m *Model) error { return m.InverseTransform(mat.NewDense(1, 1, nil), X.Slice(0, 2, 0, 2)) }, ikpca.ErrDimension},
			{"InverseTransform empty model", empty, func(m *Model) error { var d mat.Dense; return m.InverseTransform(&d, X.Slice(0, 2, 0, 2)) }, ikpca.ErrEmpty},
		}
		if opts.Window == 0 {
			cases = append(cases, []errorCase{
				{"Remove short", m, func(m *Model) error { return m.Remove(good[:3]) }, ikpca.ErrDimension},
				{"Remove NaN", m, func(m *Model) error { return m.Remove(with(0, nan)) }, ikpca.ErrNonFinite},
				{"Remove empty", empty, func(m *Model) error { return m.Remove(good) }, ikpca.ErrEmpty},
				{"RemoveWeighted 0", m, func(m *Model) error { return m.RemoveWeighted(good, 0) }, ikpca.ErrArgument},
				{"RemoveWeighted all", m, func(m *Model) error { return m.RemoveWeighted(good, 60) }, ikpca.ErrArgument},
				{"RemoveWeighted beyond", one, func(m *Model) error { return m.RemoveWeighted(good, math.Inf(1)) }, ikpca.ErrArgument},
			}...)
			if opts.Rank == 0 {
				cases = append(cases, errorCase{"Remove a point never added", m, func(m *Model) error { return m.Remove(far) }, ikpca.ErrArgument})
			}
		} else {
			cases = append(cases, errorCase{"Remove in a window", m, func(m *Model) error { return m.Remove(good) }, ikpca.ErrArgument})
		}
		for _, c := range cases {
			before := state(t, c.m)
			err := c.call(c.m)
			if msg := sentinels.Check(err, c.kind); msg != "" {
				t.Errorf("%+v, %s: %s", opts, c.name, msg)
			}
			if state(t, c.m) != before {
				t.Errorf("%+v, %s: the model changed", opts, c.name)
			}
		}
		// The model still works after its errors.
		if err := m.Add(good); err != nil {
			t.Errorf("%+v: Add after the errors: %v", opts, err)
		}
	}
	// Weights whose total overflows.
	heavy := mustNew(t, 10, Options{Components: 2})
	if err := heavy.AddWeighted(good, math.MaxFloat64); err != nil {
		t.Fatal(err)
	}
	before := state(t, heavy)
	if msg := sentinels.Check(heavy.AddWeighted(X.RawRowView(1), math.MaxFloat64), ikpca.ErrArgument); msg != "" {
		t.Errorf("a total weight that overflows: %s", msg)
	}
	if state(t, heavy) != before {
		t.Error("a total weight that overflows changed the model")
	}
	var zero Model
	for name, err := range map[string]error{
		"Add":      zero.Add([]float64{1}),
		"AddBatch": zero.AddBatch(X),
		"Remove":   zero.Remove([]float64{1}),
		"Transform": func() error {
			var d mat.Dense
			return zero.Transform(&d, X, 1)
		}(),
		"MarshalBinary": func() error { _, err := zero.MarshalBinary(); return err }(),
	} {
		if msg := sentinels.Check(err, ikpca.ErrArgument); msg != "" {
			t.Errorf("zero Model, %s: %s", name, msg)
		}
	}
}

// TestOptions: impossible options are ErrArgument from New and Fit.
func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{}, {Components: -2}, {Components: 11}, {Components: All, Rank: 3}, {Components: 3, Rank: 2},
		{Components: 3, Rank: 10}, {Components: 3, Rank: -1}, {Components: 3, Window: 1}, {Components: 3, Window: -1},
	} {
		_, err := New(10, o)
		if msg := sentinels.Check(err, ikpca.ErrArgument); msg != "" {
			t.Errorf("New(10, %+v): %s", o, msg)
		}
	}
	for _, d := range []int{0, -1, math.MaxInt} {
		_, err := New(d, Options{Components: 1})
		if msg := sentinels.Check(err, ikpca.ErrArgument); msg != "" {
			t.Errorf("New(%d): %s", d, msg)
		}
	}
}
