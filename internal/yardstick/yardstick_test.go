package yardstick

import (
	"math"
	"testing"
)

// TestStick checks that the yardsticks do their work — the product g·gᵀ, a batch
// eigendecomposition only up to the limit — and keep count. It asserts nothing about
// the times themselves: a clock may read zero for a short call, and timings depend on
// the machine and its load.
func TestStick(t *testing.T) {
	s := New(40)
	if s.MeanDgemm() != 0 || s.MedianBatch() != 0 {
		t.Fatal("fresh stick reports times")
	}
	for range 3 {
		s.Dgemm()
	}
	if s.count != 3 {
		t.Errorf("after 3 dgemms: count %d", s.count)
	}
	// The product really ran: c = g·gᵀ, entries of a sum of 40 products of N(0, 1)
	// numbers, to 1e-12 (about 100 ε times their size).
	n := s.n
	for i := range n {
		for j := range n {
			var want float64
			for l := range n {
				want += s.g.Data[i*n+l] * s.g.Data[j*n+l]
			}
			if d := math.Abs(s.c.Data[i*n+j] - want); d > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("c[%d, %d] = %v, want %v", i, j, s.c.Data[i*n+j], want)
			}
		}
	}
	s.Batch(10) // above the limit: not timed
	if len(s.batches) != 0 {
		t.Error("batch timed above the limit")
	}
	s.Batch(-1)
	s.Batch(100)
	if len(s.batches) != 2 {
		t.Errorf("%d batches timed, want 2", len(s.batches))
	}
	// The batch decomposition really ran: eigenvalues ascending, summing to the trace.
	var trace, sum float64
	for i := range n {
		trace += s.sym[i*n+i]
		sum += s.w[i]
		if i > 0 && s.w[i] < s.w[i-1] {
			t.Fatal("eigenvalues not ascending")
		}
	}
	if math.Abs(sum-trace) > 1e-12*float64(n) {
		t.Errorf("eigenvalues sum to %v, trace %v", sum, trace)
	}
	if DefaultBatchMax() < 1000 {
		t.Errorf("default batch limit %d", DefaultBatchMax())
	}
}
