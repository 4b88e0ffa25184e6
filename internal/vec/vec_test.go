package vec

import (
	"math"
	"slices"
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

// TestSqDist: integer entries make every sum exact, so for lengths 0 to 9 (the unrolled
// loop and every remainder) SqDist equals the plain loop's sum; identical points give 0;
// only y's first len(x) entries count.
func TestSqDist(t *testing.T) {
	for n := range 10 {
		x, y := make([]float64, n), make([]float64, n+2)
		var want float64
		for i := range n {
			x[i], y[i] = float64(i*i), float64(3*i-4)
			want += (x[i] - y[i]) * (x[i] - y[i])
		}
		y[n], y[n+1] = math.NaN(), math.Inf(1)
		if got := SqDist(x, y); got != want {
			t.Errorf("n = %d: SqDist = %g, want %g", n, got, want)
		}
		if got := SqDist(x, x); got != 0 {
			t.Errorf("n = %d: SqDist(x, x) = %g", n, got)
		}
	}
}

func TestDotAllocs(t *testing.T) {
	x := make([]float64, 100)
	var sink float64
	if n := testing.AllocsPerRun(100, func() { sink += Dot(x, x) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

// TestNorm: MaxAbs and Norm on exact cases, and Norm where squaring the entries would
// overflow (1e300) or underflow to zero (1e-300); the scaled sum is exact for (3, 4)·s
// up to the one rounding of the division and of the square root, 4 ulps in all.
func TestNorm(t *testing.T) {
	if MaxAbs(nil) != 0 || Norm(nil) != 0 || Norm([]float64{0, 0}) != 0 {
		t.Error("empty or zero vector")
	}
	if m := MaxAbs([]float64{1, -7, 3}); m != 7 {
		t.Errorf("MaxAbs = %v, want 7", m)
	}
	if m := MaxAbs([]float64{1, math.NaN(), 3}); !math.IsNaN(m) {
		t.Errorf("MaxAbs with a NaN = %v", m)
	}
	for _, s := range []float64{1, 1e300, 1e-300, -2} {
		want := 5 * math.Abs(s)
		if got := Norm([]float64{3 * s, 0, -4 * s}); math.Abs(got-want) > 4*0x1p-52*want {
			t.Errorf("Norm((3, 0, −4)·%g) = %v, want %v", s, got, want)
		}
	}
}

// TestSameBits: equal lengths and bits are the only test, so NaN matches NaN (the same
// payload) and −0 does not match +0, unlike ==.
func TestSameBits(t *testing.T) {
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	for _, c := range []struct {
		a, b []float64
		want bool
	}{
		{nil, nil, true},
		{nil, []float64{}, true},
		{[]float64{1, 2}, []float64{1, 2}, true},
		{[]float64{1, nan}, []float64{1, nan}, true},
		{[]float64{1, 2}, []float64{1, 2, 3}, false},
		{[]float64{0}, []float64{negZero}, false},
		{[]float64{1, 2}, []float64{1, math.Nextafter(2, 3)}, false},
	} {
		if got := SameBits(c.a, c.b); got != c.want {
			t.Errorf("SameBits(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestSubtractMean: integer entries with an integer mean are centred exactly.
func TestSubtractMean(t *testing.T) {
	x := []float64{1, 2, 6, -1}
	SubtractMean(x)
	for i, want := range []float64{-1, 0, 4, -3} {
		if x[i] != want {
			t.Fatalf("SubtractMean = %v", x)
		}
	}
}

// TestCentreColumns: each column of a strided matrix loses its mean, left in mean; the
// entries beyond the columns (the stride's padding) are not touched.
func TestCentreColumns(t *testing.T) {
	a := []float64{
		1, 10, 99,
		2, 20, 99,
		6, -30, 99,
	}
	mean := []float64{7, 7, 7}
	CentreColumns(a, 3, 2, 3, mean)
	want := []float64{-2, 10, 99, -1, 20, 99, 3, -30, 99}
	if !slices.Equal(a, want) || !slices.Equal(mean, []float64{3, 0, 7}) {
		t.Errorf("CentreColumns: a = %v, mean = %v; want %v, [3 0 7]", a, mean, want)
	}
}

func TestFinite(t *testing.T) {
	for n := range 9 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i) * 1e300
		}
		if !Finite(x) {
			t.Errorf("n = %d: finite values reported non-finite", n)
		}
		for i := range n {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				y := append([]float64(nil), x...)
				y[i] = bad
				if Finite(y) {
					t.Errorf("n = %d: %v at %d not found", n, bad, i)
				}
			}
		}
	}
}

// TestNormExtremes: Norm neither overflows nor underflows from subnormal to near the
// largest float64, and is exact on powers of two.
func TestNormExtremes(t *testing.T) {
	for _, x := range []float64{5e-324, 1e-310, 1e-300, 1, 3, 1e300, 1.7e308} {
		v := []float64{x, -x, x, -x}
		if got, want := Norm(v), 2*x; math.Abs(got-want) > 4e-16*want {
			t.Errorf("Norm(±%g ×4) = %g, want %g", x, got, want)
		}
	}
	if got := Norm([]float64{math.Inf(-1), 1}); !math.IsInf(got, 1) {
		t.Errorf("Norm with −Inf = %g", got)
	}
	if got := Norm([]float64{1, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("Norm with NaN = %g", got)
	}
	if got := MaxAbs([]float64{1, math.NaN(), 3}); !math.IsNaN(got) {
		t.Errorf("MaxAbs with NaN = %g", got)
	}
}

// TestSums: the sum and the absolute sum, in order (the same bits as a loop), and zero
// for an empty or nil slice.
func TestSums(t *testing.T) {
	for _, tt := range []struct {
		x             []float64
		sum, absolute float64
	}{
		{nil, 0, 0},
		{[]float64{}, 0, 0},
		{[]float64{-2}, -2, 2},
		{[]float64{1, -2, 3.5}, 2.5, 6.5},
		// In order: 1e16 + 1 rounds to 1e16 first, then − 1e16 leaves 0.
		{[]float64{1e16, 1, -1e16}, 0, 2e16},
	} {
		sum, abs := Sums(tt.x)
		if sum != tt.sum || abs != tt.absolute {
			t.Errorf("Sums(%v) = %v, %v, want %v, %v", tt.x, sum, abs, tt.sum, tt.absolute)
		}
	}
}
