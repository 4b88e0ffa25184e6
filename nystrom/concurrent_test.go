package nystrom

import (
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
)

// TestConcurrentReads: once a read has computed the decomposition, reads from several
// goroutines at once — Transform, Map, Values, VectorsTo, MarshalBinary — give what
// they give alone, bit for bit (and, under the race detector, touch nothing shared).
func TestConcurrentReads(t *testing.T) {
	X := points(t, "magic", 600, 3)
	m := fit(t, rbfMedian(t, X), rows(X, 0, 40), rows(X, 0, 400), Options{})
	Y := rows(X, 400, 600)
	_ = m.Values(nil) // settles
	var want mat.Dense
	if err := m.Transform(&want, Y, 5); err != nil {
		t.Fatal(err)
	}
	wantPhi, err := m.Map(nil, Y.RawRowView(0))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				var got, v mat.Dense
				if err := m.Transform(&got, Y, 5); err != nil || !vec.SameBits(got.RawMatrix().Data, want.RawMatrix().Data) {
					t.Errorf("concurrent Transform: %v, or other scores", err)
					return
				}
				phi, err := m.Map(nil, Y.RawRowView(0))
				if err != nil || !vec.SameBits(phi, wantPhi) {
					t.Errorf("concurrent Map: %v, or another feature vector", err)
					return
				}
				_ = m.Values(nil)
				m.VectorsTo(&v)
				if _, err := m.MarshalBinary(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestConcurrentEmpty: models made by Empty share the landmarks' preparation for kernel
// blocks (a kernel.Cross, only read); each can add points on its own goroutine while the
// model they came from projects, and each ends as it would alone, bit for bit.
func TestConcurrentEmpty(t *testing.T) {
	X := points(t, "magic", 900, 4)
	m := fit(t, rbfMedian(t, X), rows(X, 0, 40), rows(X, 0, 300), Options{})
	_ = m.Values(nil)
	parts := []*mat.Dense{rows(X, 300, 500), rows(X, 500, 700), rows(X, 700, 900)}
	want := make([][]float64, len(parts))
	for i, part := range parts {
		alone := m.Empty()
		if err := alone.AddBatch(part); err != nil {
			t.Fatal(err)
		}
		want[i] = alone.Values(nil)
	}
	var wantScores mat.Dense
	if err := m.Transform(&wantScores, parts[0], 3); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i, part := range parts {
		e := m.Empty()
		wg.Go(func() {
			if err := e.AddBatch(part); err != nil {
				t.Error(err)
				return
			}
			if got := e.Values(nil); !vec.SameBits(got, want[i]) {
				t.Errorf("part %d: values %v, alone %v", i, got, want[i])
			}
		})
	}
	wg.Go(func() {
		var got mat.Dense
		if err := m.Transform(&got, parts[0], 3); err != nil || !vec.SameBits(got.RawMatrix().Data, wantScores.RawMatrix().Data) {
			t.Errorf("Transform beside the Empty models: %v, or other scores", err)
		}
	})
	wg.Wait()
}
