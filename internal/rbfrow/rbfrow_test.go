package rbfrow

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/native"
)

// rbfRowInputs returns a row of −2x̃ᵀỹⱼ and the norms for Finish that reach every
// branch: ordinary entries, D̂ < 0 from rounding (a near-duplicate), a NaN and an
// infinite product (overflows), and bounds above g2 with D̂ below and above it (marks
// and not).
func rbfRowInputs(rng *rand.Rand, n int) (row, yn []float64, xn float64) {
	xn = 4
	row, yn = make([]float64, n), make([]float64, n)
	for j := range n {
		yn[j] = 1 + 3*rng.Float64()
		g := -2 * math.Sqrt(xn*yn[j]) * (2*rng.Float64() - 1) // |x̃ᵀỹ| ≤ ‖x̃‖‖ỹ‖
		switch rng.IntN(8) {
		case 0:
			g = -(xn + yn[j]) * (1 + 0x1p-50) // D̂ slightly negative
		case 1:
			g = math.NaN()
		case 2:
			g = math.Inf(-1)
		case 3:
			yn[j] = 1e20 // a bound far above g2, D̂ far above it too: not marked
		case 4:
			yn[j], g = 1e20, -(xn+1e20)*(1-1e-14) // a bound above max(g2, D̂): marked
		}
		row[j] = g
	}
	return row, yn, xn
}

// TestFinish checks Finish against its Go definition (rbfRowGo, then dot
// products): the rows bit for bit — the vectorised OpenBLAS path does the same
// operations, uncontracted, and the same exponential — the marks, and the products within
// the bound of a dot product, (n+2)·ε·Σ|row[j]·p[q][j]| (doubled: the reference sum
// rounds too), when nothing is marked, for lengths with and without a
// tail of fewer than four values, and 0 to 33 vectors (beyond the fused path's 32).
func TestFinish(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const g2, coef, under = 8.0, 0.3, 1e-300
	for _, n := range []int{1, 3, 4, 7, 64, 1001} {
		for _, k := range []int{0, 1, 6, 32, 33} {
			for trial := range 20 {
				row, yn, xn := rbfRowInputs(rng, n)
				if trial%2 == 0 { // half of the rows without marks, so that products are taken
					for j := range n {
						if yn[j] == 1e20 || row[j] != row[j] || math.IsInf(row[j], 0) {
							yn[j], row[j] = 2, -1
						}
					}
				}
				p := blas64.General{Rows: k, Cols: n, Stride: n + 1, Data: make([]float64, max(k*(n+1)-1, 0))}
				for i := range p.Data {
					p.Data[i] = rng.NormFloat64()
				}
				want := append([]float64(nil), row...)
				wantMarked := rbfRowGo(want, yn, xn, 1/g2, g2, coef, under)
				dots := make([]float64, k+1)
				dots[k] = 42 // beyond p's rows: untouched
				got := append([]float64(nil), row...)
				marked := Finish(got, yn, xn, 1/g2, g2, coef, under, p, dots)
				if marked != wantMarked {
					t.Fatalf("n=%d k=%d: marked %v, Go %v", n, k, marked, wantMarked)
				}
				for j := range n {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("n=%d k=%d: row[%d] = %v, Go %v (−2x̃ᵀỹ = %v, ‖ỹ‖² = %v)", n, k, j, got[j], want[j], row[j], yn[j])
					}
				}
				if dots[k] != 42 {
					t.Fatalf("n=%d k=%d: dots[%d] written", n, k, k)
				}
				for q := range k {
					if marked { // nothing meaningful: the caller takes the products
						continue
					}
					var sum, size float64
					for j, v := range want {
						sum += v * p.Data[q*p.Stride+j]
						size += math.Abs(v * p.Data[q*p.Stride+j])
					}
					if bound := float64(2*n+4) * 0x1p-53 * size; !(math.Abs(dots[q]-sum) <= bound) {
						t.Fatalf("n=%d k=%d: product %d is %v, want %v (bound %.3g)", n, k, q, dots[q], sum, bound)
					}
				}
			}
		}
	}
	if native.Compiled == "openblas" {
		// The same through gonum's route in the openblas build: the Go loop.
		backend.WithGonum(func() {
			row, yn, xn := rbfRowInputs(rng, 9)
			want := append([]float64(nil), row...)
			rbfRowGo(want, yn, xn, 1/g2, g2, coef, under)
			Finish(row, yn, xn, 1/g2, g2, coef, under, blas64.General{}, nil)
			for j := range row {
				if math.Float64bits(row[j]) != math.Float64bits(want[j]) {
					t.Fatalf("WithGonum: row[%d] = %v, Go %v", j, row[j], want[j])
				}
			}
		})
	}
}

// TestFinishPanics: products asked for with vectors or room that do not fit.
func TestFinishPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"p too short": func() {
			Finish(make([]float64, 4), make([]float64, 4), 1, 1, 1, 1, 0, blas64.General{Rows: 1, Cols: 3, Stride: 3, Data: make([]float64, 3)}, make([]float64, 1))
		},
		"no room": func() {
			Finish(make([]float64, 4), make([]float64, 4), 1, 1, 1, 1, 0, blas64.General{Rows: 2, Cols: 4, Stride: 4, Data: make([]float64, 8)}, make([]float64, 1))
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// FuzzFinish checks Finish against its Go definition on any values: the rows
// bit for bit (NaN as NaN), the same marks, and when nothing is marked, products within
// the bound of a dot product where they are finite. With OpenBLAS on AVX2 it compares
// the vectorised C pass with the Go loop; in the pure-Go build the two are one code.
func FuzzFinish(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef"), 4.0, 8.0, 0.3, 2)
	f.Add(make([]byte, 16*9), 1e300, 1e-300, 1e10, 1)
	f.Fuzz(func(t *testing.T, data []byte, xn, g2, coef float64, k int) {
		n := len(data) / 16
		if n == 0 || n > 64 {
			return
		}
		k = min(max(k, 0), 3)
		row, yn := make([]float64, n), make([]float64, n)
		for j := range n {
			row[j] = math.Float64frombits(binary.LittleEndian.Uint64(data[16*j:]))
			yn[j] = math.Float64frombits(binary.LittleEndian.Uint64(data[16*j+8:]))
		}
		const under = 1e-290
		p := blas64.General{Rows: k, Cols: n, Stride: n, Data: make([]float64, k*n)}
		for i := range p.Data {
			p.Data[i] = float64(i%7) - 3
		}
		want := append([]float64(nil), row...)
		wantMarked := rbfRowGo(want, yn, xn, 1/g2, g2, coef, under)
		dots := make([]float64, k)
		got := append([]float64(nil), row...)
		marked := Finish(got, yn, xn, 1/g2, g2, coef, under, p, dots)
		if marked != wantMarked {
			t.Fatalf("marked %v, Go %v", marked, wantMarked)
		}
		for j := range n {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) && !(math.IsNaN(got[j]) && math.IsNaN(want[j])) {
				t.Fatalf("row[%d] = %v, Go %v (−2x̃ᵀỹ = %v, ‖ỹ‖² = %v)", j, got[j], want[j], row[j], yn[j])
			}
		}
		if marked {
			return
		}
		// Where the row holds values near overflow, the reference sum is formed on values
		// scaled by 2⁻¹⁶, so that neither a term nor the running sum overflows (n ≤ 64,
		// |p| ≤ 3): the bound then exists even when the unscaled sum of |terms| would
		// overflow while the sum itself does not. Elsewhere it is unscaled, so that
		// subnormal terms keep their bits.
		scale := 1.0
		for _, v := range want {
			if math.Abs(v) > 0x1p1000 {
				scale = 0x1p-16
			}
		}
		for q := range k {
			var sum, size float64
			for j, v := range want {
				term := (v * scale) * p.Data[q*n+j]
				sum += term
				size += math.Abs(term)
			}
			if math.IsNaN(sum) || math.IsInf(size, 0) {
				// A non-finite value in the row: the product cannot be finite.
				if !math.IsNaN(dots[q]) && !math.IsInf(dots[q], 0) {
					t.Fatalf("product %d is %v from a row with a non-finite value", q, dots[q])
				}
				continue
			}
			// The error of a dot product in any order: relative to the sum of |terms|, plus
			// half an ulp of the smallest subnormal for every rounding that underflows.
			bound := float64(2*n+4) * (0x1p-53*size + 0x1p-1074)
			if math.IsInf(dots[q], 0) || math.IsNaN(dots[q]) {
				// Another order of summation may overflow (and then meet an infinity of the
				// other sign) only where some partial sum can: where the sum of |terms| does.
				if size+bound < math.MaxFloat64*scale {
					t.Fatalf("product %d is %v, want %v", q, dots[q], sum/scale)
				}
				continue
			}
			if !(math.Abs(dots[q]*scale-sum) <= bound) {
				t.Fatalf("product %d is %v, want %v (bound %.3g)", q, dots[q], sum/scale, bound/scale)
			}
		}
	})
}
