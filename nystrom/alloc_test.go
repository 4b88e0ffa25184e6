package nystrom

import "testing"

// TestAddAllocations: Add allocates nothing, with either backend: its kernel column,
// features and sums live in the model's scratch (r = 200 landmarks, below the size from
// which kernel.Column goes parallel), and a dgemv allocates nothing in gonum's BLAS or
// OpenBLAS.
func TestAddAllocations(t *testing.T) {
	X := points(t, "magic", 400, 6)
	m := fit(t, rbfMedian(t, X), rows(X, 0, 200), rows(X, 200, 300), Options{})
	x := X.RawRowView(350)
	if allocs := testing.AllocsPerRun(50, func() {
		if err := m.Add(x); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("Add allocates %v times, want 0", allocs)
	}
}
