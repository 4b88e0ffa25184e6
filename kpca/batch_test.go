package kpca

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// TestAddBatchRoutes: AddBatch of many rows into an exact model takes one batch
// decomposition (the cost model says so; Stats().Last is the decomposition's "set"),
// a few rows one update each, and a rank-r model always updates; either way the result
// is the model of all the points (checkExact against batch, and the same eigenvalues as
// adding the rows one at a time, to 1e-10). In a window, the decomposition keeps the
// last Window points.
func TestAddBatchRoutes(t *testing.T) {
	x, k := sample(t, "magic", 160)
	for _, mode := range []Mode{Centred, Uncentred} {
		opts := Options{Mode: mode}
		md := newModel(t, k, x.Slice(0, 50, 0, 10), opts)
		if md.refactorPays(2) || !md.refactorPays(100) {
			t.Errorf("%v: the cost model takes 2 rows by refactorization %v, 100 rows %v", mode, md.refactorPays(2), md.refactorPays(100))
		}
		one := newModel(t, k, x.Slice(0, 50, 0, 10), opts)
		if err := md.AddBatch(x.Slice(50, 150, 0, 10)); err != nil {
			t.Fatal(err)
		}
		if md.Stats().Last.Op != "set" || md.Len() != 150 {
			t.Errorf("%v: a batch of 100 rows: last operation %q, %d points", mode, md.Stats().Last.Op, md.Len())
		}
		if _, err := one.AddRows(context.Background(), x.Slice(50, 150, 0, 10), nil); err != nil {
			t.Fatal(err)
		}
		checkExact(t, mode.String()+" refactorized", md, 1e-10)
		if d := maxRelDiff(md.Values(nil), one.Values(nil)); d > 1e-10 {
			t.Errorf("%v: refactorized and incremental eigenvalues differ by %.3g·λmax", mode, d)
		}
		if err := md.AddBatch(x.Slice(150, 152, 0, 10)); err != nil {
			t.Fatal(err)
		}
		if md.Stats().Last.Op != "extend" {
			t.Errorf("%v: a batch of 2 rows: last operation %q", mode, md.Stats().Last.Op)
		}
		// A window: the decomposition keeps the last 60 points.
		w := newModel(t, k, x.Slice(0, 50, 0, 10), Options{Mode: mode, Window: 60})
		if err := w.AddBatch(x.Slice(50, 160, 0, 10)); err != nil {
			t.Fatal(err)
		}
		var p mat.Dense
		w.Points(&p)
		if w.Len() != 60 || !mat.Equal(&p, x.Slice(100, 160, 0, 10)) || w.Stats().Last.Op != "set" {
			t.Errorf("%v: a window of 60 after a batch holds %d points, last operation %q", mode, w.Len(), w.Stats().Last.Op)
		}
		checkExact(t, mode.String()+" window refactorized", w, 1e-10)
		// Rank r: updates, always.
		r := newModel(t, k, x.Slice(0, 50, 0, 10), Options{Mode: mode, Rank: 10})
		if r.refactorPays(1000) {
			t.Errorf("%v: a rank-r model refactorizes", mode)
		}
	}
}

// TestAddBatchRefactorFailure: a refactorization that fails (a kernel value that is
// not finite among the new rows) leaves the model exactly as it was, in a window too.
func TestAddBatchRefactorFailure(t *testing.T) {
	x, k := sample(t, "yeast", 120)
	odd := kernel.Func{Name: "odd", F: func(a, b []float64) float64 {
		if a[0] == 7 || b[0] == 7 {
			return math.Inf(1)
		}
		return k.Eval(a, b)
	}}
	for _, opts := range []Options{{}, {Mode: Uncentred}, {Window: 70}} {
		md := newModel(t, odd, x.Slice(0, 40, 0, 8), opts)
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
