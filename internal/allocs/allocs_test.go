package allocs

import "testing"

func TestCount(t *testing.T) {
	var sink [][]float64
	if n := Count(2, 0, 10, func() { sink = append(sink[:0], make([]float64, 100)) }); n < 10 {
		t.Errorf("%d allocations counted for 10 make calls", n)
	}
	x := make([]float64, 100)
	if n := Count(2, 1, 10, func() { x[0]++ }); n != 0 {
		t.Errorf("%d allocations counted for none", n)
	}
	_ = sink
}
