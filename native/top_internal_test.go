package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ikpca/ikpca/internal/vec"
)

// tridiagonal returns the diagonal and off-diagonal of test tridiagonal matrices:
// Wilkinson's W⁺ (pairs of eigenvalues equal to 1e-14 and better), glued copies of it
// (clusters of copies eigenvalues within the glue of one another), a random one, and
// one with a zero and a tiny off-diagonal entry (split blocks).
func tridiagonals() map[string][2][]float64 {
	glued := func(m, copies int, glue float64) [2][]float64 {
		k := 2*m + 1
		d := make([]float64, 0, k*copies)
		e := make([]float64, 0, k*copies)
		for c := range copies {
			for i := range k {
				d = append(d, math.Abs(float64(m-i)))
				if i < k-1 {
					e = append(e, 1)
				} else if c < copies-1 {
					e = append(e, glue)
				}
			}
		}
		return [2][]float64{d, e}
	}
	rnd := rand.New(rand.NewPCG(4, 4))
	rd, re := make([]float64, 150), make([]float64, 149)
	for i := range rd {
		rd[i] = rnd.NormFloat64()
		if i < len(re) {
			re[i] = rnd.NormFloat64()
		}
	}
	sd, se := make([]float64, 60), make([]float64, 59)
	for i := range sd {
		sd[i] = float64(i%7) - 3
		if i < len(se) {
			se[i] = 0.5
		}
	}
	se[20], se[40] = 0, 1e-300
	return map[string][2][]float64{
		"W21":           glued(10, 1, 0),
		"glued 10×W21":  glued(10, 10, 1e-12),
		"glued 6×W41":   glued(20, 6, 1e-14),
		"glued 30×W5":   glued(2, 30, 1e-9),
		"random 150":    {rd, re},
		"split blocks":  {sd, se},
		"zero diagonal": {make([]float64, 40), func() []float64 { e := make([]float64, 39); e[5] = 1; return e }()},
	}
}

// TestTridiagTop compares tridiagTop with Dsteqr (tridiagByQR) on hard tridiagonal
// matrices, for several r: eigenvalues to 4·n·ε·‖T‖₁ (two backward-stable solvers of
// the same T), and the vectors pass their own check (checkTop, 16·n·ε) without the
// fallback.
func TestTridiagTop(t *testing.T) {
	for name, c := range tridiagonals() {
		n := len(c[0])
		tnorm := 0.0
		for i := range n {
			s := math.Abs(c[0][i])
			if i > 0 {
				s += math.Abs(c[1][i-1])
			}
			if i < n-1 {
				s += math.Abs(c[1][i])
			}
			tnorm = max(tnorm, s)
		}
		for _, r := range []int{1, 7, n / 2, n - 1, n} {
			ref := make([]float64, r)
			if err := tridiagByQR(n, r, append([]float64(nil), c[0]...), append([]float64(nil), c[1]...), ref, nil); err != nil {
				t.Fatal(err)
			}
			w := make([]float64, r)
			y := make([]float64, n*r)
			if !tridiagTop(n, r, append([]float64(nil), c[0]...), append([]float64(nil), c[1]...), w, y) {
				t.Errorf("%s r=%d: inverse iteration failed its check", name, r)
				continue
			}
			for j := range r {
				if d := math.Abs(w[j] - ref[j]); d > 4*float64(n)*vec.Roundoff*tnorm {
					t.Errorf("%s r=%d: eigenvalue %d = %v, Dsteqr %v", name, r, j, w[j], ref[j])
				}
			}
		}
	}
}

// TestTopFallback forces the a-posteriori check to fail, so that the full tridiagonal
// solve (Dsteqr) takes over, and checks that the result is still right; and checks that
// the standard cases do not fall back.
func TestTopFallback(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 9))
	const n, r = 80, 6
	a := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			a[i*n+j] = rnd.NormFloat64()
		}
	}
	solve := func() ([]float64, []float64) {
		buf := append([]float64(nil), a...)
		w := make([]float64, r)
		z := make([]float64, n*r)
		if err := gonumEigenSymTop(n, r, buf, n, w, z, r); err != nil {
			t.Fatal(err)
		}
		return w, z
	}
	before := topFallbacks.Load()
	w0, z0 := solve()
	if got := topFallbacks.Load() - before; got != 0 {
		t.Fatalf("a random matrix fell back %d times", got)
	}
	saved := topCheck
	topCheck = -1
	w1, z1 := solve()
	topCheck = saved
	if got := topFallbacks.Load() - before; got != 1 {
		t.Fatalf("forced check failure: %d fallbacks, want 1", got)
	}
	norm := 0.0
	for _, v := range w0 {
		norm = max(norm, math.Abs(v))
	}
	for j := range r {
		if d := math.Abs(w0[j] - w1[j]); d > 8*n*vec.Roundoff*norm {
			t.Errorf("eigenvalue %d: inverse iteration %v, fallback %v", j, w0[j], w1[j])
		}
		// Same eigenvector up to sign: |y0ᵀy1| = 1 (the top eigenvalues of a random
		// matrix are separated by far more than rounding).
		var dot float64
		for i := range n {
			dot += z0[i*r+j] * z1[i*r+j]
		}
		if math.Abs(math.Abs(dot)-1) > 1e-10 {
			t.Errorf("eigenvector %d: |y0ᵀy1| = %v", j, math.Abs(dot))
		}
	}
}
