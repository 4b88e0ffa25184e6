package kpca

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/ikpca/ikpca/internal/wiretest"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// failAfter is the kernel k whose values are NaN from the n-th evaluation on: a failure
// injected at each step of a call, wherever the call evaluates the kernel. Evaluations
// run on several goroutines in a pass: the count is atomic.
func failAfter(k kernel.Kernel, n int64) (kernel.Func, *atomic.Int64) {
	count := new(atomic.Int64)
	return kernel.Func{Name: "fail-after", F: func(a, b []float64) float64 {
		if count.Add(1) >= n {
			return math.NaN()
		}
		return k.Eval(a, b)
	}}, count
}

// whole is everything a caller can observe of md: its encoding, its state as the tests
// capture it, its statistics and those of its last step.
type whole struct {
	enc     []byte
	state   state
	stats   Stats
	updates []update.Stats
}

func observe(t testing.TB, md testModel) whole {
	t.Helper()
	return whole{enc: wiretest.Marshal(t, md), state: captureAny(md), stats: md.Stats(), updates: md.UpdateStats(nil)}
}

// untimed is w without the durations of its updates, which differ between two runs of
// the same steps.
func (w whole) untimed() whole {
	w.stats.Last.Project, w.stats.Last.Solve, w.stats.Last.Assemble = 0, 0, 0
	w.updates = slices.Clone(w.updates)
	for i := range w.updates {
		w.updates[i].Project, w.updates[i].Solve, w.updates[i].Assemble = 0, 0, 0
	}
	return w
}

func (a whole) equal(b whole) bool {
	return bytes.Equal(a.enc, b.enc) && a.state.equal(b.state) && reflect.DeepEqual(a.stats, b.stats) &&
		reflect.DeepEqual(a.updates, b.updates)
}

// txnCall is a mutating call of a Model, made on a model of kernel k.
type txnCall struct {
	name string
	call func(md *Model) error
}

// TestTxnRollback: every mutating call of a Model, on every kind of model, failing at
// each of its kernel evaluations in turn — the kernel column of a step, a window's
// removal or its addition, a block step, a batch decomposition, a refresh, a polish's
// passes — leaves the model as it was, bit for bit: its encoding, its state, its
// statistics and those of its last step (txn's first invariant). The failure is counted
// from the call's first evaluation until the call succeeds.
func TestTxnRollback(t *testing.T) {
	x, k := sample(t, "yeast", 80)
	more := x.Slice(40, 72, 0, 8)
	few := x.Slice(40, 43, 0, 8)
	calls := []txnCall{
		{"Add", func(md *Model) error { return md.Add(x.RawRowView(40)) }},
		{"AddBatch of 3", func(md *Model) error { return md.AddBatch(few) }},
		{"AddBatch of 32", func(md *Model) error { return md.AddBatch(more) }},
		{"Remove", func(md *Model) error { return md.Remove(3) }},
		{"Refresh", func(md *Model) error { return md.Refresh() }},
		{"Polish", func(md *Model) error { return md.Polish(2) }},
	}
	for _, opts := range []Options{
		{Components: All},
		{Components: All, Uncentred: true},
		{Components: 3, Rank: 4, Block: 4},
		{Components: All, Window: 20},
		{Components: 3, Rank: 4, Window: 20, WindowPolish: WindowPolish{Every: 2}},
		{Components: 3, Rank: 4, RefreshTolerance: 1e-300, CheckEvery: 2},
	} {
		base := fitModel(t, k, x.Slice(0, 20, 0, 8), opts)
		for _, c := range calls {
			injected := txnFailures(t, base, k, c)
			t.Logf("%s, %s: %d failures injected", name(opts), c.name, injected)
		}
	}
}

// txnFailures makes call c on copies of base, failing at the n-th kernel evaluation for
// n = 1, 2, … (then in larger strides) until the call succeeds, checks that each failure
// left the copy as base, and returns the number of failures.
func txnFailures(t *testing.T, base *Model, k kernel.Kernel, c txnCall) int {
	t.Helper()
	want := observe(t, base)
	var md Model
	failures := 0
	for n := int64(1); ; n += 1 + n/16 {
		if err := md.CopyFrom(base); err != nil {
			t.Fatal(err)
		}
		bad, _ := failAfter(k, n)
		md.kern = bad
		err := c.call(&md)
		md.kern = k
		if err == nil {
			return failures
		}
		failures++
		if !errors.Is(err, ErrNonFinite) {
			t.Fatalf("%s, %s, failing at evaluation %d: %v, want ErrNonFinite", name(base.opts), c.name, n, err)
		}
		if got := observe(t, &md); !got.equal(want) {
			t.Fatalf("%s, %s failing at evaluation %d changed the model", name(base.opts), c.name, n)
		}
	}
}

// TestTxnAddRows: AddRows is not all or nothing, but each row is: failing at each
// kernel evaluation, it leaves the model as Add would have left it after the rows it
// reports added.
func TestTxnAddRows(t *testing.T) {
	x, k := sample(t, "yeast", 60)
	rows := x.Slice(20, 26, 0, 8)
	for _, opts := range []Options{{Components: All, Window: 20}, {Components: 3, Rank: 4}} {
		base := fitModel(t, k, x.Slice(0, 20, 0, 8), opts)
		for n := int64(1); ; n += 1 + n/8 {
			var md Model
			md.CopyFrom(base)
			bad, _ := failAfter(k, n)
			md.kern = bad
			added, err := md.AddRows(context.Background(), rows, nil)
			md.kern = k
			if err == nil {
				break
			}
			// The model of Add of the same kernel values: the RBF's own columns differ from
			// the entry-by-entry ones by rounding.
			var ref Model
			ref.CopyFrom(base)
			ref.kern, _ = failAfter(k, math.MaxInt64)
			for i := range added {
				if err := ref.Add(rows.(*mat.Dense).RawRowView(i)); err != nil {
					t.Fatal(err)
				}
			}
			ref.kern = k
			if !observe(t, &md).untimed().equal(observe(t, &ref).untimed()) {
				t.Fatalf("%s: AddRows failing at evaluation %d (row %d) is not the model of the %d rows before", name(opts), n, added, added)
			}
		}
	}
}

// TestTxnColumns: a model of kernel.Precomputed, whose calls fail on a kernel value that
// is not finite in the columns given: AddColumn, RemoveColumn, and AddBatch failing at
// each of its rows, leave the model as it was.
func TestTxnColumns(t *testing.T) {
	x, k := sample(t, "yeast", 30)
	K := kernel.Matrix(k, x)
	for _, opts := range []Options{{Components: All}, {Components: 3, Rank: 4}, {Components: All, Window: 28}} {
		var sub mat.Dense
		sub.CloneFrom(K.SliceSym(0, 20))
		base := fitModel(t, kernel.Precomputed{}, &sub, opts)
		want := observe(t, base)
		rows := mat.NewDense(6, 26, nil)
		for i := range 6 {
			for j := range 20 + i + 1 {
				rows.Set(i, j, K.At(20+i, j))
			}
		}
		for bad := range 6 {
			var md Model
			md.CopyFrom(base)
			r := mat.DenseCopyOf(rows)
			r.Set(bad, 20+bad, math.Inf(1))
			if err := md.AddBatch(r); !errors.Is(err, ErrNonFinite) {
				t.Fatalf("%s: AddBatch with row %d bad: %v", name(opts), bad, err)
			}
			if !observe(t, &md).equal(want) {
				t.Fatalf("%s: AddBatch failing at row %d changed the model", name(opts), bad)
			}
		}
		var md Model
		md.CopyFrom(base)
		col := make([]float64, 20)
		for j := range col {
			col[j] = K.At(20, j)
		}
		col[7] = math.NaN()
		if err := md.AddColumn(col, 1); !errors.Is(err, ErrNonFinite) {
			t.Fatalf("%s: AddColumn: %v", name(opts), err)
		}
		for j := range col {
			col[j] = K.At(4, j)
		}
		col[9] = math.NaN()
		if err := md.RemoveColumn(4, col); !errors.Is(err, ErrNonFinite) {
			t.Fatalf("%s: RemoveColumn: %v", name(opts), err)
		}
		if !observe(t, &md).equal(want) {
			t.Fatalf("%s: a failed AddColumn or RemoveColumn changed the model", name(opts))
		}
	}
}

// TestTxnNested: a txn begun inside another (none is, in the package) restores what it
// recorded, and the outer one everything, with buffers of its own (txn's second
// invariant).
func TestTxnNested(t *testing.T) {
	x, k := sample(t, "yeast", 40)
	md := fitModel(t, k, x.Slice(0, 20, 0, 8), Options{Components: All, Window: 22})
	want := observe(t, md)
	outer := md.begin(scopeAll)
	testmat.AddRows(t, md, x, 20, 22)
	middle := observe(t, md)
	inner := md.begin(scopeSlide)
	if inner.buf.thin == outer.buf.thin || len(inner.buf.sums) > 0 && &inner.buf.sums[0] == &outer.buf.sums[0] {
		t.Fatal("a nested txn shares its buffers with the outer one")
	}
	// A window step failing in its addition, after its removal.
	md.kern, _ = failAfter(k, int64(md.Len())+2)
	if err := md.add(x.RawRowView(30)); !errors.Is(err, ErrNonFinite) {
		t.Fatalf("a step failing in its addition: %v", err)
	}
	md.kern = k
	md.rollback(&inner)
	md.end(&inner)
	if !observe(t, md).equal(middle) {
		t.Error("the inner txn did not restore its state")
	}
	md.rollback(&outer)
	md.end(&outer)
	if !observe(t, md).equal(want) {
		t.Error("the outer txn did not restore its state")
	}
}

// TestRankOneTxn: every mutating call of a RankOneModel — Add, AddBatch, AddRows'
// rows, Refresh — failing at each kernel evaluation (a NaN) or in its root finder (capped
// at one iteration) leaves the model as it was, or for AddRows as Add leaves it after
// the rows it reports added (docs/design.md, "Transactions").
func TestRankOneTxn(t *testing.T) {
	x, k := sample(t, "yeast", 60)
	calls := []struct {
		name string
		call func(r *RankOneModel) error
	}{
		{"Add", func(r *RankOneModel) error { return r.Add(x.RawRowView(40)) }},
		{"AddBatch", func(r *RankOneModel) error { return r.AddBatch(x.Slice(40, 45, 0, 8)) }},
		{"Refresh", func(r *RankOneModel) error { return r.Refresh() }},
	}
	for _, opts := range allOptions {
		base := fitRankOne(t, k, x.Slice(0, 20, 0, 8), opts)
		testmat.AddRows(t, base, x, 20, 40)
		want := observe(t, base)
		for _, c := range calls {
			var r RankOneModel
			failures := 0
			for n := int64(1); ; n += 1 + n/16 {
				if err := r.CopyFrom(base); err != nil {
					t.Fatal(err)
				}
				r.md.kern, _ = failAfter(k, n)
				err := c.call(&r)
				r.md.kern = k
				if err == nil {
					break
				}
				failures++
				if !errors.Is(err, ErrNonFinite) {
					t.Fatalf("%s, %s, failing at evaluation %d: %v, want ErrNonFinite", name(opts), c.name, n, err)
				}
				if !observe(t, &r).equal(want) {
					t.Fatalf("%s, %s failing at evaluation %d changed the model", name(opts), c.name, n)
				}
			}
			if failures == 0 {
				t.Fatalf("%s, %s: no failure injected", name(opts), c.name)
			}
			if c.name == "Refresh" {
				continue // a batch eigensolver has no root finder to cap
			}
			r.CopyFrom(base)
			setMaxIterationsAny(&r, 1)
			err := c.call(&r)
			setMaxIterationsAny(&r, 0)
			if !errors.Is(err, ErrNotConverged) {
				t.Fatalf("%s, %s with a capped root finder: %v, want ErrNotConverged", name(opts), c.name, err)
			}
			if !observe(t, &r).equal(want) {
				t.Fatalf("%s, %s with a capped root finder changed the model", name(opts), c.name)
			}
		}
		rows := x.Slice(40, 46, 0, 8)
		for n := int64(1); ; n += 1 + n/8 {
			var r RankOneModel
			r.CopyFrom(base)
			r.md.kern, _ = failAfter(k, n)
			added, err := r.AddRows(context.Background(), rows, nil)
			r.md.kern = k
			if err == nil {
				break
			}
			var ref RankOneModel
			ref.CopyFrom(base)
			ref.md.kern, _ = failAfter(k, math.MaxInt64)
			for i := range added {
				if err := ref.Add(rows.(*mat.Dense).RawRowView(i)); err != nil {
					t.Fatal(err)
				}
			}
			ref.md.kern = k
			if !observe(t, &r).untimed().equal(observe(t, &ref).untimed()) {
				t.Fatalf("%s: AddRows failing at evaluation %d (row %d) is not the model of the %d rows before", name(opts), n, added, added)
			}
		}
	}
}
