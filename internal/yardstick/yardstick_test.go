package yardstick

import "testing"

func TestStick(t *testing.T) {
	s := New(40)
	if s.MeanDgemm() != 0 || s.MedianBatch() != 0 {
		t.Fatal("fresh stick reports times")
	}
	for range 3 {
		s.Dgemm()
	}
	if s.count != 3 || s.MeanDgemm() <= 0 {
		t.Errorf("after 3 dgemms: count %d, mean %v", s.count, s.MeanDgemm())
	}
	s.Batch(10) // above the limit: not timed
	if s.MedianBatch() != 0 {
		t.Error("batch timed above the limit")
	}
	s.Batch(-1)
	s.Batch(100)
	if len(s.batches) != 2 || s.MedianBatch() <= 0 {
		t.Errorf("%d batches timed, median %v", len(s.batches), s.MedianBatch())
	}
	// The batch decomposition really ran: eigenvalues ascending.
	for i := 1; i < len(s.w); i++ {
		if s.w[i] < s.w[i-1] {
			t.Fatal("eigenvalues not ascending")
		}
	}
	if DefaultBatchMax() < 1000 {
		t.Errorf("default batch limit %d", DefaultBatchMax())
	}
}
