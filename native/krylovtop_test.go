package native

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/vec"
)

// withSpectrum returns Q·diag(values)·Qᵀ for a random orthogonal Q, row-major n×n, and
// Q.
func withSpectrum(values []float64, rng *rand.Rand) ([]float64, *mat.Dense) {
	n := len(values)
	Q := synth.RandomOrthogonal(n, rng)
	var qd, a mat.Dense
	qd.Apply(func(_, j int, v float64) float64 { return v * values[j] }, Q)
	a.Mul(&qd, Q.T())
	return a.RawMatrix().Data, Q
}

// rbfKernel returns the centred RBF kernel matrix of n random points in 5 dimensions,
// clustered so that its spectrum decays as a data set's does.
func rbfKernel(n int, rng *rand.Rand) []float64 {
	X := make([][5]float64, n)
	for i := range X {
		c := float64(i % 7)
		for j := range X[i] {
			X[i][j] = c*float64(j%3) + rng.NormFloat64()
		}
	}
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var d float64
			for k := range 5 {
				d += (X[i][k] - X[j][k]) * (X[i][k] - X[j][k])
			}
			a[i*n+j] = math.Exp(-d / 32)
		}
	}
	rows := make([]float64, n)
	var all float64
	for i := range n {
		rows[i], _ = vec.Sums(a[i*n : i*n+n])
		all += rows[i]
	}
	fn := float64(n)
	for i := range n {
		for j := range n {
			a[i*n+j] += all/(fn*fn) - rows[i]/fn - rows[j]/fn
		}
	}
	return a
}

// TestKrylovTop checks krylovTop against dsyevr (gonum's partial solver in the pure-Go
// build) on matrices it must prove — a centred RBF kernel, a geometric spectrum, a
// spectrum with a double eigenvalue at the cut, one with large negative eigenvalues —
// and that on one it cannot (no gap within the pairs it computes beyond r) it says so
// and leaves the upper triangle and the diagonal as they were, for dsyevr. The values
// must agree within 64·√n·ε·‖A‖_F, a multiple of both solvers' backward errors, the
// vectors have residuals and orthonormality at that level, and span the reference's
// subspace (a double value at the cut makes the last vector of the top r one of a
// plane, as dsyevr's is).
func TestKrylovTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const n, r = 600, 20
	geometric := make([]float64, n)
	for i := range geometric {
		geometric[i] = math.Pow(0.6, float64(i))
	}
	double := slices.Clone(geometric)
	double[r] = double[r-1] // λ_r = λ_{r+1}
	negative := slices.Clone(geometric)
	for i := n - 30; i < n; i++ {
		negative[i] = -0.5 * float64(i-n+31) // eigenvalues below, larger in magnitude
	}
	flat := make([]float64, n)
	for i := range flat {
		flat[i] = 1 / float64(1+min(i, r-2)) // no gap after the (r−1)-th
	}
	spectrum := func(values []float64) []float64 { a, _ := withSpectrum(values, rng); return a }
	for _, c := range []struct {
		name  string
		a     []float64
		prove bool
	}{
		{"rbf kernel", rbfKernel(n, rng), true},
		{"geometric", spectrum(geometric), true},
		{"double at the cut", spectrum(double), true},
		{"negative", spectrum(negative), true},
		{"flat", spectrum(flat), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := slices.Clone(c.a)
			w := make([]float64, r)
			z := make([]float64, n*r)
			if got := krylovTop(n, r, a, n, w, z, r); got != c.prove {
				t.Fatalf("krylovTop proved the top %d: %v, want %v", r, got, c.prove)
			}
			// EigenSymTopInPlace takes this route from krylovMin on: the same pairs,
			// values alone too.
			defer func(m int) { krylovMin = m }(krylovMin)
			krylovMin = n
			for _, vectors := range []bool{true, false} {
				b := slices.Clone(c.a)
				wb, zb := make([]float64, r), make([]float64, n*r)
				if !vectors {
					zb = nil
				}
				if err := EigenSymTopInPlace(n, r, b, n, wb, zb, r); err != nil {
					t.Fatal(err)
				}
				if c.prove && (!slices.Equal(wb, w) || vectors && !slices.Equal(zb, z)) {
					t.Errorf("EigenSymTopInPlace (vectors %v) is not krylovTop's", vectors)
				}
			}
			ref := slices.Clone(c.a)
			wr := make([]float64, r)
			zr := make([]float64, n*r)
			if err := eigenSymTop(n, r, ref, n, wr, zr, r); err != nil {
				t.Fatal(err)
			}
			if !c.prove {
				// What dsyevr then reads is A's: the same values and vectors to the bit.
				if err := eigenSymTop(n, r, a, n, w, z, r); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(w, wr) || !slices.Equal(z, zr) {
					t.Fatal("dsyevr after a refusal differs from dsyevr of A")
				}
				return
			}
			var frob float64
			for _, v := range c.a {
				frob += v * v
			}
			tol := 64 * math.Sqrt(n) * vec.Roundoff * math.Sqrt(frob)
			for j := range r {
				if d := math.Abs(w[j] - wr[j]); d > tol {
					t.Errorf("value %d: %v, dsyevr %v (|Δ| %.2g > %.2g)", j, w[j], wr[j], d, tol)
				}
			}
			A := mat.NewDense(n, n, c.a)
			Z := mat.NewDense(n, r, z)
			var az, ztz mat.Dense
			az.Mul(A, Z)
			for j := range r {
				var res float64
				for i := range n {
					v := az.At(i, j) - w[j]*Z.At(i, j)
					res += v * v
				}
				if math.Sqrt(res) > tol {
					t.Errorf("vector %d: residual %.2g > %.2g", j, math.Sqrt(res), tol)
				}
			}
			ztz.Mul(Z.T(), Z)
			for i := range r {
				ztz.Set(i, i, ztz.At(i, i)-1)
			}
			if d := mat.Norm(&ztz, math.Inf(1)); d > 64*math.Sqrt(n)*vec.Roundoff*r {
				t.Errorf("‖ZᵀZ − I‖∞ = %.2g", d)
			}
			// The same subspace as dsyevr's: ‖ZrᵀZ‖_F² = r to within the vectors'
			// errors over the gap after the r-th value (within the top r a double value
			// may mix two of them, which does not move the subspace).
			var cross mat.Dense
			cross.Mul(mat.NewDense(n, r, zr).T(), Z)
			var f2 float64
			for _, v := range cross.RawMatrix().Data {
				f2 += v * v
			}
			if c.name != "double at the cut" && math.Abs(f2-r) > 1e-8 {
				t.Errorf("‖Zrᵀ·Z‖_F² = %v, want %d: another subspace", f2, r)
			}
		})
	}
}

// TestProveTopMissed gives proveTop exact eigenpairs that leave out the second largest
// eigenvalue: their residuals are zero and their values have a gap, so only the
// Cholesky factorisation can find the one missed — it must refuse, and leave the upper
// triangle and the diagonal as they were. With the pair put back it proves.
func TestProveTopMissed(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	const n = 200
	values := make([]float64, n)
	for i := range values {
		values[i] = 1 + 0.001*float64(i%5)
	}
	values[0], values[1], values[2] = 10, 9, 8
	a, Q := withSpectrum(values, rng)
	orig := slices.Clone(a)
	mirrorLower(n, a, n)
	frob := 0.0
	for _, v := range orig {
		frob += v * v
	}
	frob = math.Sqrt(frob)
	pairs := func(cols ...int) (blas64.General, []float64) {
		U := mat.NewDense(n, len(cols), nil)
		theta := make([]float64, len(cols))
		for c, j := range cols {
			U.SetCol(c, mat.Col(nil, j, Q))
			theta[c] = values[j]
		}
		return U.RawMatrix(), theta
	}
	A := blas64.General{Rows: n, Cols: n, Stride: n, Data: a}
	U, theta := pairs(0, 2, 3) // 10, 8, 1: 9 left out
	if _, ok := proveTop(A, a, n, U, theta, 2, frob); ok {
		t.Fatal("proved a top 2 that misses λ₂ = 9")
	}
	for i := range n {
		if !slices.Equal(a[i*n+i:i*n+n], orig[i*n+i:i*n+n]) {
			t.Fatalf("row %d of the upper triangle changed", i)
		}
	}
	mirrorLower(n, a, n)
	U, theta = pairs(0, 1, 2, 3)
	if q, ok := proveTop(A, a, n, U, theta, 2, frob); !ok || q != 3 {
		t.Fatalf("the exact top 3 with a gap after them: proved %v, cut %d, want true, 3", ok, q)
	}
}

// TestKrylovTopSweep draws spectra meant to break the proof — no decay, a power law,
// triples of equal values, near-equal pairs (relative gaps of 1e-9) anywhere, low rank
// (below r), indefinite — and requires of every result krylovTop accepts what
// TestKrylovTop does of its proved cases: values within 64·√n·ε·‖A‖_F of dsyevr's and
// residuals below it. A refusal is always allowed; the test counts that some are proved.
func TestKrylovTopSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	const n, r = 400, 12
	proved := 0
	for trial := range 12 {
		values := make([]float64, n)
		for i := range values {
			switch trial % 6 {
			case 0:
				values[i] = 2*rng.Float64() - 1
			case 1:
				values[i] = 1 / float64((i+1)*(i+1))
			case 2:
				values[i] = math.Pow(0.7, float64(i/3))
			case 3:
				values[i] = math.Pow(0.75, float64(i))
				if i > 0 && rng.IntN(4) == 0 {
					values[i] = values[i-1] * (1 - 1e-9)
				}
			case 4:
				if i < 10 {
					values[i] = float64(10 - i)
				}
			case 5:
				values[i] = math.Pow(0.7, float64(i)) * float64(1-2*(i%2))
			}
		}
		a0, _ := withSpectrum(values, rng)
		a := slices.Clone(a0)
		w, z := make([]float64, r), make([]float64, n*r)
		if !krylovTop(n, r, a, n, w, z, r) {
			continue
		}
		proved++
		ref := slices.Clone(a0)
		wr := make([]float64, r)
		if err := eigenSymTop(n, r, ref, n, wr, nil, r); err != nil {
			t.Fatal(err)
		}
		var frob float64
		for _, v := range a0 {
			frob += v * v
		}
		tol := 64 * math.Sqrt(n) * vec.Roundoff * math.Sqrt(frob)
		var az mat.Dense
		az.Mul(mat.NewDense(n, n, a0), mat.NewDense(n, r, z))
		for j := range r {
			if d := math.Abs(w[j] - wr[j]); d > tol {
				t.Errorf("trial %d, value %d: %v, dsyevr %v (|Δ| %.2g > %.2g)", trial, j, w[j], wr[j], d, tol)
			}
			var res float64
			for i := range n {
				v := az.At(i, j) - w[j]*z[i*r+j]
				res += v * v
			}
			if math.Sqrt(res) > tol {
				t.Errorf("trial %d, vector %d: residual %.2g > %.2g", trial, j, math.Sqrt(res), tol)
			}
		}
	}
	if proved < 4 {
		t.Errorf("%d of 12 spectra proved: the sweep tests little", proved)
	}
	t.Logf("%d of 12 proved", proved)
}
