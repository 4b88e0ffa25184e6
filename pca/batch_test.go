package pca

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/synth"
)

// TestAddBatch: batches below refactorAt (rank-one updates) and above it (one
// refactorisation), into an empty and a fitted model, and a batch that slides a window,
// give stat.PC's PCA of the points, to the tolerances of TestStatPCMagic.
func TestAddBatch(t *testing.T) {
	X := mat.DenseCopyOf(data.Magic().X.Slice(0, 400, 0, 10))
	m := mustNew(t, 10, Options{Components: All})
	n := 0
	for _, b := range []int{1, 3, refactorAt - 1, refactorAt, 50, 2, 200} {
		if err := m.AddBatch(X.Slice(n, n+b, 0, 10)); err != nil {
			t.Fatal(err)
		}
		n += b
		if m.Len() != n {
			t.Fatalf("Len %d after %d rows", m.Len(), n)
		}
		if n >= 2 { // stat.PC's variances of one point are NaN
			compareReference(t, "batches", m, X.Slice(0, n, 0, 10), nil, 1e-11, 1e-10)
		}
	}
	// A window of 40: a batch that fills it refactorises, one that slides it adds row
	// by row.
	w := mustNew(t, 10, Options{Components: 3, Window: 40})
	if err := w.AddBatch(X.Slice(0, 30, 0, 10)); err != nil {
		t.Fatal(err)
	}
	if err := w.AddBatch(X.Slice(30, 100, 0, 10)); err != nil {
		t.Fatal(err)
	}
	compareReference(t, "window", w, X.Slice(60, 100, 0, 10), nil, 1e-11, 1e-10)
	var pts mat.Dense
	if !w.Points(&pts) || !mat.Equal(&pts, X.Slice(60, 100, 0, 10)) {
		t.Error("the window does not hold the last 40 rows, oldest first")
	}
	// Fit with a window keeps the last Window rows.
	f := mustFit(t, X.Slice(0, 100, 0, 10), Options{Components: 3, Window: 40})
	compareReference(t, "Fit with a window", f, X.Slice(60, 100, 0, 10), nil, 1e-11, 1e-10)
}

// TestRemoveAll: removing every point, in another order than they came, leaves at each
// step stat.PC's PCA of the others, then the empty model, which takes points again.
func TestRemoveAll(t *testing.T) {
	X := mat.DenseCopyOf(data.Magic().X.Slice(0, 40, 0, 10))
	m := mustFit(t, X, Options{Components: All})
	held := make([]int, 40)
	for i := range held {
		held[i] = i
	}
	for len(held) > 0 {
		k := (len(held) * 7) % len(held)
		if err := m.Remove(X.RawRowView(held[k])); err != nil {
			t.Fatalf("%d points held: %v", len(held), err)
		}
		held = append(held[:k], held[k+1:]...)
		if m.Len() != len(held) {
			t.Fatalf("Len %d, %d held", m.Len(), len(held))
		}
		if len(held) >= 2 {
			compareReference(t, "removal", m, synth.SelectRows(X, held), nil, 1e-11, 1e-10)
		}
	}
	for j, v := range m.Values(nil) {
		if v != 0 {
			t.Errorf("empty model: λ%d = %g", j, v)
		}
	}
	if mu := m.Mean(nil); !allZero(mu) || m.Weight() != 0 {
		t.Errorf("empty model: mean %v, weight %g", mu, m.Weight())
	}
	if err := m.AddBatch(X.Slice(0, 20, 0, 10)); err != nil {
		t.Fatal(err)
	}
	compareReference(t, "after emptying", m, X.Slice(0, 20, 0, 10), nil, 1e-11, 1e-10)
}

// TestInverseTransform: with every component, InverseTransform of Transform gives the
// points back to rounding (‖x‖·d·ε); with k of them it is the orthogonal projection onto
// the affine span of the top k, which projecting again leaves unchanged.
func TestInverseTransform(t *testing.T) {
	X := mat.DenseCopyOf(data.Magic().X.Slice(0, 200, 0, 10))
	m := mustFit(t, X, Options{Components: All})
	var y, back mat.Dense
	if err := m.Transform(&y, X, 10); err != nil {
		t.Fatal(err)
	}
	if err := m.InverseTransform(&back, &y); err != nil {
		t.Fatal(err)
	}
	big := mat.Norm(X, math.Inf(1))
	var diff mat.Dense
	diff.Sub(&back, X)
	if e := mat.Norm(&diff, math.Inf(1)) / big; e > 1e-13 {
		t.Errorf("round trip off by %.3g relative", e)
	}
	var y3, p, y3b, p2 mat.Dense
	if err := m.Transform(&y3, X, 3); err != nil {
		t.Fatal(err)
	}
	if err := m.InverseTransform(&p, &y3); err != nil {
		t.Fatal(err)
	}
	if err := m.Transform(&y3b, &p, 3); err != nil {
		t.Fatal(err)
	}
	if err := m.InverseTransform(&p2, &y3b); err != nil {
		t.Fatal(err)
	}
	diff.Reset()
	diff.Sub(&p2, &p)
	if e := mat.Norm(&diff, math.Inf(1)) / big; e > 1e-13 {
		t.Errorf("projecting twice moves the points by %.3g relative", e)
	}
}
