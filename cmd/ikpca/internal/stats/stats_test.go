package stats

import (
	"math"
	"testing"
)

func TestMeanSD(t *testing.T) {
	// 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample variance 32/7.
	m, sd := MeanSD([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if math.Abs(m-5) > 1e-15 || math.Abs(sd-math.Sqrt(32.0/7)) > 1e-15 {
		t.Errorf("MeanSD = %g, %g; want 5, %g", m, sd, math.Sqrt(32.0/7))
	}
	if m, sd := MeanSD([]float64{3}); m != 3 || sd != 0 {
		t.Errorf("one value: %g, %g; want 3, 0", m, sd)
	}
	if m, _ := MeanSD(nil); !math.IsNaN(m) {
		t.Errorf("no values: mean %g, want NaN", m)
	}
}

func TestMedian(t *testing.T) {
	v := []float64{5, 1, 3}
	for _, tc := range []struct {
		v    []float64
		want float64
	}{{v, 3}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := Median(tc.v); got != tc.want {
			t.Errorf("Median(%v) = %g, want %g", tc.v, got, tc.want)
		}
	}
	if v[0] != 5 {
		t.Error("Median sorted its argument")
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median of nothing is not NaN")
	}
}

func TestLogSlope(t *testing.T) {
	// y = 3·x^-0.5 exactly: the fit recovers the exponent to rounding.
	xs := []float64{16, 32, 64, 128, 256}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = 3 * math.Pow(x, -0.5)
	}
	if b := LogSlope(xs, ys); math.Abs(b+0.5) > 1e-13 {
		t.Errorf("LogSlope = %g, want -0.5", b)
	}
}
