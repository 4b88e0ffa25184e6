package nystrom

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

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

// TestAddBatchAllocations: AddBatch allocates nothing once a block has passed, with
// either backend: its kernel blocks (kernel.Cross with the model's BlockWork), features
// and sums live in the model's scratch, for a *mat.Dense and for another matrix (whose
// rows are copied into the model's block of coordinates). r = 50 landmarks at d = 10
// keep the block below the size from which kernel.Cross, and gonum's dgemm in the
// pure-Go build, start goroutines, which allocate.
func TestAddBatchAllocations(t *testing.T) {
	X := points(t, "magic", 400, 6)
	m := fit(t, rbfMedian(t, X), rows(X, 0, 50), rows(X, 50, 200), Options{})
	Y := rows(X, 200, 400)
	T := mat.DenseCopyOf(Y.T()).T()
	for name, batch := range map[string]mat.Matrix{"dense": Y, "transposed": T} {
		if allocs := testing.AllocsPerRun(20, func() {
			if err := m.AddBatch(batch); err != nil {
				t.Fatal(err)
			}
		}); allocs != 0 {
			t.Errorf("AddBatch of a %s matrix allocates %v times, want 0", name, allocs)
		}
	}
}
