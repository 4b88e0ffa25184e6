package kpca

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// TestAddRows: AddRows performs the same steps as Add in a loop (so the models agree bit
// for bit), reports progress, and accepts any mat.Matrix.
func TestAddRows(t *testing.T) {
	x, k := sample(t, "yeast", 60)
	for _, opts := range allOptions {
		for _, nm := range exactModels(t, k, x.Slice(0, 10, 0, 8), opts) {
			ref := nm.md
			testmat.AddRows(t, ref, x, 10, 60)
			for _, rows := range []mat.Matrix{x.Slice(10, 60, 0, 8), mat.Transpose{Matrix: mat.DenseCopyOf(x.Slice(10, 60, 0, 8).T())}} {
				md := fitLike(t, ref, k, x.Slice(0, 10, 0, 8), opts)
				var calls []int
				added, err := md.AddRows(context.Background(), rows, func(added, total int) {
					if total != 50 {
						t.Errorf("progress total %d", total)
					}
					calls = append(calls, added)
				})
				if err != nil || added != 50 || md.Len() != 60 {
					t.Fatalf("%s: AddRows = %d, %v; Len %d", nm.name, added, err, md.Len())
				}
				if len(calls) != 50 || calls[0] != 1 || calls[49] != 50 {
					t.Errorf("%s: progress calls %v", nm.name, calls)
				}
				if !slices.Equal(md.Values(nil), ref.Values(nil)) {
					t.Errorf("%s: AddRows and a loop of Add differ", nm.name)
				}
			}
		}
	}
}

// TestAddRowsCancel: cancelled part-way, AddRows stops between two points and the model
// holds exactly the points added so far: its encoding decodes and continues as the
// uninterrupted model does.
func TestAddRowsCancel(t *testing.T) {
	x, k := sample(t, "yeast", 60)
	full := fitModel(t, k, x.Slice(0, 10, 0, 8), Options{Components: All})
	if _, err := full.AddRows(context.Background(), x.Slice(10, 60, 0, 8), nil); err != nil {
		t.Fatal(err)
	}
	md := fitModel(t, k, x.Slice(0, 10, 0, 8), Options{Components: All})
	stop := errors.New("stop requested")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	added, err := md.AddRows(ctx, x.Slice(10, 60, 0, 8), func(added, _ int) {
		if added == 17 {
			cancel(stop)
		}
	})
	if added != 17 || !errors.Is(err, stop) || md.Len() != 27 {
		t.Fatalf("AddRows = %d, %v; Len %d; want 17 added and the cause", added, err, md.Len())
	}
	back, err := decoded(encode(t, md))
	if err != nil || back.Len() != 27 {
		t.Fatalf("the encoding of the points added: %v", err)
	}
	if _, err := back.AddRows(context.Background(), x.Slice(27, 60, 0, 8), nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Values(nil), full.Values(nil)) {
		t.Error("the resumed model differs from the uninterrupted one")
	}
	// Already cancelled: nothing is added.
	if added, err := back.AddRows(ctx, x.Slice(0, 5, 0, 8), nil); added != 0 || !errors.Is(err, stop) || back.Len() != 60 {
		t.Errorf("cancelled context: %d added, %v", added, err)
	}
}

// TestAddRowsBadInput: bad rows anywhere are found before any is added, nil arguments
// are typed errors, and a row that fails part-way leaves the rows before it added.
func TestAddRowsBadInput(t *testing.T) {
	x := points(t, "yeast", 30)
	md := fitModel(t, rbfMedian(t, x), x.Slice(0, 10, 0, 8), Options{Components: All})
	before := md.Values(nil)
	bad := mat.DenseCopyOf(x.Slice(10, 30, 0, 8))
	bad.Set(15, 3, math.NaN())
	cases := []struct {
		name string
		ctx  context.Context
		X    mat.Matrix
		want error
	}{
		{"NaN in row 15", context.Background(), bad, ErrNonFinite},
		{"wrong dimension", context.Background(), x.Slice(10, 30, 0, 7), ErrDimension},
		{"nil rows", context.Background(), nil, ErrArgument},
		{"typed nil rows", context.Background(), (*mat.Dense)(nil), ErrArgument},
		{"no rows", context.Background(), mat.NewDense(1, 8, nil).Slice(0, 0, 0, 8), ErrEmpty},
		{"nil context", nil, x.Slice(10, 30, 0, 8), ErrArgument},
	}
	for _, c := range cases {
		added, err := md.AddRows(c.ctx, c.X, nil)
		if added != 0 || !errors.Is(err, c.want) {
			t.Errorf("%s: %d added, %v; want %v", c.name, added, err, c.want)
		}
	}
	if md.Len() != 10 || !slices.Equal(md.Values(nil), before) {
		t.Error("rejected rows changed the model")
	}
	// A kernel that overflows on one point: finite input, non-finite kernel value.
	huge := mat.NewDense(3, 1, []float64{1, 2, 1e200})
	lin := fitModel(t, kernel.Linear{}, mat.NewDense(2, 1, []float64{0.5, 1}), Options{Components: All})
	added, err := lin.AddRows(context.Background(), huge, nil)
	if added != 2 || !errors.Is(err, ErrNonFinite) || lin.Len() != 4 {
		t.Errorf("overflowing row 2: %d added, %v, Len %d; want 2 added", added, err, lin.Len())
	}
}

// TestAddRowsAllocs: AddRows allocates nothing beyond the Adds it performs.
func TestAddRowsAllocs(t *testing.T) {
	x := points(t, "yeast", 40)
	base := fitModel(t, rbfMedian(t, x), x.Slice(0, 20, 0, 8), Options{Components: All})
	rows := x.Slice(20, 40, 0, 8).(*mat.Dense)
	var work Model
	work.CopyFrom(base)
	work.Reserve(40)
	ctx := context.Background()
	loop := testing.AllocsPerRun(5, func() {
		work.CopyFrom(base)
		testmat.AddRows(t, &work, rows, 0, 20)
	})
	batch := testing.AllocsPerRun(5, func() {
		work.CopyFrom(base)
		if _, err := work.AddRows(ctx, rows, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations for 20 rows: AddRows %v, loop of Add %v", batch, loop)
	if batch > loop {
		t.Errorf("AddRows allocates %v times for 20 rows, a loop of Add %v", batch, loop)
	}
}

// TestAddBatchRoutes: AddBatch of many rows into an exact model takes one batch
// decomposition (the cost model says so; Stats().Last is the decomposition's "set"),
// a few rows one update each, and a rank-r model always updates; either way the result
// is the model of all the points (checkExact against batch, and the same eigenvalues as
// adding the rows one at a time, to 1e-10). In a window, the decomposition keeps the
// last Window points.
func TestAddBatchRoutes(t *testing.T) {
	x, k := sample(t, "magic", 160)
	for _, uncentred := range []bool{false, true} {
		opts := Options{Components: All, Uncentred: uncentred}
		md := fitModel(t, k, x.Slice(0, 50, 0, 10), opts)
		if md.refactorPays(2) || !md.refactorPays(100) {
			t.Errorf("%v: the cost model takes 2 rows by refactorization %v, 100 rows %v", modeName(uncentred), md.refactorPays(2), md.refactorPays(100))
		}
		one := fitModel(t, k, x.Slice(0, 50, 0, 10), opts)
		if err := md.AddBatch(x.Slice(50, 150, 0, 10)); err != nil {
			t.Fatal(err)
		}
		if md.Stats().Last.Op != "set" || md.Len() != 150 {
			t.Errorf("%v: a batch of 100 rows: last operation %q, %d points", modeName(uncentred), md.Stats().Last.Op, md.Len())
		}
		if _, err := one.AddRows(context.Background(), x.Slice(50, 150, 0, 10), nil); err != nil {
			t.Fatal(err)
		}
		checkExact(t, modeName(uncentred)+" refactorized", md, 1e-10)
		if d := maxRelDiff(md.Values(nil), one.Values(nil)); d > 1e-10 {
			t.Errorf("%v: refactorized and incremental eigenvalues differ by %.3g·λmax", modeName(uncentred), d)
		}
		if err := md.AddBatch(x.Slice(150, 152, 0, 10)); err != nil {
			t.Fatal(err)
		}
		if md.Stats().Last.Op != "border" {
			t.Errorf("%v: a batch of 2 rows: last operation %q", modeName(uncentred), md.Stats().Last.Op)
		}
		// A window: the decomposition keeps the last 60 points.
		w := fitModel(t, k, x.Slice(0, 50, 0, 10), Options{Components: All, Uncentred: uncentred, Window: 60})
		if err := w.AddBatch(x.Slice(50, 160, 0, 10)); err != nil {
			t.Fatal(err)
		}
		var p mat.Dense
		w.Points(&p)
		if w.Len() != 60 || !mat.Equal(&p, x.Slice(100, 160, 0, 10)) || w.Stats().Last.Op != "set" {
			t.Errorf("%v: a window of 60 after a batch holds %d points, last operation %q", modeName(uncentred), w.Len(), w.Stats().Last.Op)
		}
		checkExact(t, modeName(uncentred)+" window refactorized", w, 1e-10)
		// Rank r: updates, always.
		r := fitModel(t, k, x.Slice(0, 50, 0, 10), Options{Uncentred: uncentred, Components: 10, Rank: 10})
		if r.refactorPays(1000) {
			t.Errorf("%v: a rank-r model refactorizes", modeName(uncentred))
		}
	}
}

// TestAddBatchRefactorFailure: a refactorization that fails (a kernel value that is
// not finite among the new rows) leaves the model exactly as it was, in a window too.
func TestAddBatchRefactorFailure(t *testing.T) {
	x, k := sample(t, "yeast", 120)
	odd := poisoned(k, func(x []float64) bool { return x[0] == 7 }, math.Inf(1))
	for _, opts := range []Options{{Components: All}, {Components: All, Uncentred: true}, {Components: All, Window: 70}} {
		md := fitModel(t, odd, x.Slice(0, 40, 0, 8), opts)
		batch := mat.DenseCopyOf(x.Slice(40, 120, 0, 8))
		batch.Set(60, 0, 7)
		if !md.refactorPays(80) {
			t.Fatalf("%+v: 80 rows are not refactorized", opts)
		}
		before := capture(md)
		if err := md.AddBatch(batch); !errors.Is(err, ErrNonFinite) {
			t.Errorf("%+v: %v, want ErrNonFinite", opts, err)
		}
		if !capture(md).equal(before) {
			t.Errorf("%+v: a failed refactorization changed the model", opts)
		}
	}
}

// TestRankOneGrows: NewRankOne grows by Add, AddBatch and AddRows to the model
// FitRankOne gives, within the rounding of the steps (checkExact against a batch
// decomposition), and an empty one reports nothing and encodes.
func TestRankOneGrows(t *testing.T) {
	x, k := sample(t, "yeast", 60)
	for _, opts := range allOptions {
		r, err := NewRankOne(k, 8, opts)
		if err != nil {
			t.Fatal(err)
		}
		var dst mat.Dense
		if r.Len() != 0 || r.Components() != 0 || len(r.Values(nil)) != 0 || !errors.Is(r.Transform(&dst, x, 1), ErrEmpty) {
			t.Errorf("%s: an empty RankOneModel reports %d points, %d components", name(opts), r.Len(), r.Components())
		}
		if err := r.Refresh(); err != nil {
			t.Errorf("%s: Refresh of an empty model: %v", name(opts), err)
		}
		empty, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back := new(RankOneModel)
		if err := back.UnmarshalBinary(empty); err != nil || back.Len() != 0 {
			t.Fatalf("%s: the encoding of an empty model: %v", name(opts), err)
		}
		for i := range 3 {
			if err := r.Add(x.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.AddBatch(x.Slice(3, 40, 0, 8)); err != nil {
			t.Fatal(err)
		}
		if _, err := r.AddRows(context.Background(), x.Slice(40, 60, 0, 8), nil); err != nil {
			t.Fatal(err)
		}
		checkExact(t, name(opts)+" grown", r, 1e-10)
		into := new(RankOneModel)
		if err := into.UnmarshalBinary(empty); err != nil {
			t.Fatal(err)
		}
		if err := into.AddBatch(x); err != nil { // into a model without points: a batch fit
			t.Fatal(err)
		}
		fit := fitRankOne(t, k, x, opts)
		if !captureRankOne(into).equal(captureRankOne(fit)) {
			t.Errorf("%s: AddBatch into an empty model is not FitRankOne", name(opts))
		}
	}
}
