//go:build cgo && openblas

package lapackref_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ikpca/ikpca/internal/lapackref"
)

func TestDlaed4OneByOne(t *testing.T) {
	for _, c := range []struct{ d, z, rho float64 }{
		{1.5, 1, 2},
		{-3, -1, 0.25},
		{0, 0.6, 5}, // LAPACK computes d + rho·z² even when z is not a unit vector.
	} {
		lambda, delta, info := lapackref.Dlaed4(0, []float64{c.d}, []float64{c.z}, c.rho)
		if info != 0 {
			t.Fatalf("%+v: info=%d", c, info)
		}
		if want := c.d + c.rho*c.z*c.z; math.Abs(lambda-want) > 1e-15*math.Abs(want) {
			t.Errorf("%+v: lambda=%v, want %v", c, lambda, want)
		}
		if len(delta) != 1 || delta[0] != 1 {
			t.Errorf("%+v: delta=%v, want [1]", c, delta)
		}
	}
}

// randProblem returns strictly increasing d, unit z and rho > 0.
func randProblem(rnd *rand.Rand, n int) (d, z []float64, rho float64) {
	d = make([]float64, n)
	z = make([]float64, n)
	for j := range d {
		d[j] = 10*rnd.Float64() - 5
		z[j] = rnd.NormFloat64()
	}
	slices.Sort(d)
	for j := 1; j < n; j++ {
		if d[j] <= d[j-1] {
			d[j] = math.Nextafter(d[j-1], math.Inf(1)) + 1e-3
		}
	}
	var norm float64
	for _, v := range z {
		norm += v * v
	}
	norm = math.Sqrt(norm)
	for j := range z {
		z[j] /= norm
	}
	return d, z, 0.1 + 3*rnd.Float64()
}

func TestDlaed4Secular(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	const n = 5
	for trial := 0; trial < 50; trial++ {
		d, z, rho := randProblem(rnd, n)
		prev := math.Inf(-1)
		for i := 0; i < n; i++ {
			lambda, delta, info := lapackref.Dlaed4(i, d, z, rho)
			if info != 0 {
				t.Fatalf("trial %d, i=%d: info=%d", trial, i, info)
			}
			// Interlacing: d_i < λ_i < d_{i+1}, and d_{n-1} < λ_{n-1} < d_{n-1} + rho.
			upper := d[n-1] + rho
			if i < n-1 {
				upper = d[i+1]
			}
			if !(d[i] < lambda && lambda < upper) || !(lambda > prev) {
				t.Errorf("trial %d, i=%d: λ=%v not in (%v, %v) or not increasing", trial, i, lambda, d[i], upper)
			}
			prev = lambda
			// Secular equation residual, relative to the size of its terms.
			f := 1 / rho
			scale := 1 / rho
			for j := range d {
				term := z[j] * z[j] / delta[j]
				f += term
				scale += math.Abs(term)
			}
			if math.Abs(f) > 1e-12*scale {
				t.Errorf("trial %d, i=%d: |f(λ)|=%g, terms %g", trial, i, math.Abs(f), scale)
			}
			for j := range d {
				if diff := math.Abs(delta[j] - (d[j] - lambda)); diff > 1e-13*(math.Abs(d[j])+math.Abs(lambda)) {
					t.Errorf("trial %d, i=%d: delta[%d]=%v, d_j−λ=%v", trial, i, j, delta[j], d[j]-lambda)
				}
			}
		}
	}
}

func TestDlaed4TwoByTwo(t *testing.T) {
	d := []float64{1, 3}
	z := []float64{0.6, 0.8}
	const rho = 2.0
	for i := 0; i < 2; i++ {
		lambda, delta, info := lapackref.Dlaed4(i, d, z, rho)
		if info != 0 {
			t.Fatalf("i=%d: info=%d", i, info)
		}
		// Eigenvalues of diag(d) + rho·z·zᵀ = [[1.72, 0.96], [0.96, 4.28]].
		tr, det := 1.72+4.28, 1.72*4.28-0.96*0.96
		want := (tr - math.Sqrt(tr*tr-4*det)) / 2
		if i == 1 {
			want = (tr + math.Sqrt(tr*tr-4*det)) / 2
		}
		if math.Abs(lambda-want) > 1e-14*want {
			t.Errorf("i=%d: λ=%v, want %v", i, lambda, want)
		}
		// For n == 2 delta is the unit eigenvector, ∝ z_j/(d_j − λ).
		if nrm := math.Hypot(delta[0], delta[1]); math.Abs(nrm-1) > 1e-14 {
			t.Errorf("i=%d: ‖delta‖=%v, want 1", i, nrm)
		}
		v0, v1 := z[0]/(d[0]-lambda), z[1]/(d[1]-lambda)
		if cross := delta[0]*v1 - delta[1]*v0; math.Abs(cross) > 1e-13*math.Hypot(v0, v1) {
			t.Errorf("i=%d: delta=%v not parallel to %v", i, delta, []float64{v0, v1})
		}
	}
}

func TestDlaed4BadArgs(t *testing.T) {
	d := []float64{1, 2, 3}
	z := []float64{0.6, 0, 0.8}
	cases := []struct {
		name string
		i    int
		d, z []float64
		rho  float64
		want int
	}{
		{"empty", 0, nil, nil, 1, -1},
		{"i<0", -1, d, z, 1, -2},
		{"i>=n", 3, d, z, 1, -2},
		{"d not increasing", 0, []float64{1, 1, 3}, z, 1, -3},
		{"d NaN", 0, []float64{1, math.NaN(), 3}, z, 1, -3},
		{"z short", 0, d, z[:2], 1, -4},
		{"z Inf", 0, d, []float64{0.6, math.Inf(1), 0.8}, 1, -4},
		{"rho zero", 0, d, z, 0, -6},
		{"rho negative", 0, d, z, -1, -6},
		{"rho NaN", 0, d, z, math.NaN(), -6},
	}
	for _, c := range cases {
		lambda, delta, info := lapackref.Dlaed4(c.i, c.d, c.z, c.rho)
		if info != c.want || delta != nil || !math.IsNaN(lambda) {
			t.Errorf("%s: got (%v, %v, %d), want (NaN, nil, %d)", c.name, lambda, delta, info, c.want)
		}
	}
}
