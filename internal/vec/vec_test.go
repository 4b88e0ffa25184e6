package vec

import (
	"math"
	"testing"
)

func TestDot(t *testing.T) {
	// Lengths 0 to 9 cover the unrolled loop and every remainder; integer entries make
	// every sum exact, so the result must equal the plain loop's exactly.
	for n := range 10 {
		x, y := make([]float64, n), make([]float64, n+2) // y longer: only its first n count
		var want float64
		for i := range n {
			x[i], y[i] = float64(i+1), float64(2*i-3)
			want += x[i] * y[i]
		}
		y[n], y[n+1] = math.NaN(), math.Inf(1)
		if got := Dot(x, y); got != want {
			t.Errorf("n = %d: Dot = %g, want %g", n, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a shorter y did not panic")
		}
	}()
	Dot([]float64{1, 2}, []float64{1})
}

func TestDotAllocs(t *testing.T) {
	x := make([]float64, 100)
	var sink float64
	if n := testing.AllocsPerRun(100, func() { sink += Dot(x, x) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}
