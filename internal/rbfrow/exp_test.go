package rbfrow

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/native"
)

// bigExp returns exp(x) rounded to float64, from 300-bit arithmetic: the Taylor series
// of x/2ˢ (|x/2ˢ| < 2⁻¹⁰), squared s times.
func bigExp(x float64) float64 {
	const prec = 300
	s := 0
	for a := math.Abs(x); a > 0x1p-10; a /= 2 {
		s++
	}
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -s)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := 1; k < 40; k++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(k)))
		sum.Add(sum, term)
	}
	for range s {
		sum.Mul(sum, sum)
	}
	f, _ := sum.Float64()
	return f
}

// ulpsFrom returns |got − want| in units of the last place of want.
func ulpsFrom(got, want float64) float64 {
	return math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want)
}

// TestExpNeg compares ExpNeg, and expNegGo, with 300-bit arithmetic on exponents spread over
// [0, 708] (uniform, near zero, and logarithmically from 1e-8 to 1e3) and at every
// power-of-two boundary the table reduction splits at: at most 1 ulp from the correctly
// rounded value for expNegGo, as math.Exp (the routine's analysis gives 0.52 ulp), 4
// for ExpNeg (libmvec's vector exp in the openblas build, by glibc's tables), never
// above 1, and the special values math.Exp gives outside the range.
func TestExpNeg(t *testing.T) {
	for _, f := range []struct {
		name string
		exp  func([]float64)
		ulps float64
	}{{"ExpNeg-" + native.Compiled, ExpNeg, 4}, {"expNegGo", expNegGo, 1}} {
		t.Run(f.name, func(t *testing.T) { checkExpNeg(t, f.exp, f.ulps) })
	}
}

func checkExpNeg(t *testing.T, exp func([]float64), ulps float64) {
	rng := rand.New(rand.NewPCG(71, 72))
	n := 60000
	if testing.Short() {
		n = 6000
	}
	v := make([]float64, 0, n+2000)
	for i := range n {
		switch i % 3 {
		case 0:
			v = append(v, rng.Float64()*2)
		case 1:
			v = append(v, rng.Float64()*expMax)
		default:
			v = append(v, math.Pow(10, rng.Float64()*11-8))
		}
	}
	for k := range 1000 { // the reduction's boundaries (k·N + j + ½)·ln2/N
		b := (float64(k) + 0.5) * math.Ln2 / expN
		v = append(v, b, math.Nextafter(b, 0))
	}
	row := append([]float64(nil), v...)
	exp(row)
	var worst float64
	for i, x := range v {
		want := bigExp(-x)
		u := ulpsFrom(row[i], want)
		worst = math.Max(worst, u)
		if !(u <= ulps) || row[i] > 1 {
			t.Errorf("exp(−%v) = %v, want %v (%.2f ulp)", x, row[i], want, u)
		}
	}
	t.Logf("%d exponents: at most %.2f ulp from the correctly rounded value", len(v), worst)

	special := []float64{0, math.Copysign(0, -1), 1e-320, expMax, math.Nextafter(expMax, 1000), 745, 746, -1, -700,
		math.Inf(1), math.Inf(-1), math.NaN()}
	for _, n := range []int{len(special), 4, 1} { // vector lanes and the scalar tail
		row = append(row[:0], special...)
		exp(row[:n])
		for i, x := range special[:n] {
			want := math.Exp(-x)
			if got := row[i]; got != want && !(math.IsNaN(got) && math.IsNaN(want)) && !(ulpsFrom(got, want) <= ulps) {
				t.Errorf("exp(−%v) = %v, math.Exp gives %v", x, got, want)
			}
		}
	}
}

func BenchmarkExpNeg(b *testing.B) {
	v := make([]float64, 1024)
	for i := range v {
		v[i] = float64(i) * 0.004
	}
	row := make([]float64, len(v))
	b.Run("ExpNeg", func(b *testing.B) {
		for b.Loop() {
			copy(row, v)
			ExpNeg(row)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(v)), "ns/value")
	})
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			copy(row, v)
			expNegGo(row)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(v)), "ns/value")
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, x := range v {
				row[i] = math.Exp(-x)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(v)), "ns/value")
	})
}
