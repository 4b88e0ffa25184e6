package native_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/native"
)

// eachBackend runs f on the compiled-in backend and, in the openblas build, also on
// gonum's pure-Go code (backend.WithGonum), so that one run of the openblas tests
// checks both solvers. Not parallel.
func eachBackend(t *testing.T, f func(t *testing.T)) {
	t.Run(native.Compiled, f)
	if native.Compiled != "gonum" {
		t.Run("gonum", func(t *testing.T) { backend.WithGonum(func() { f(t) }) })
	}
}

// wilkinson returns the tridiagonal Wilkinson matrix W⁺ of order 2m+1 (diagonal
// |m−i|, off-diagonal 1), whose largest eigenvalues come in pairs that agree to many
// digits (about 1e-14 apart for m = 10), glued copies times: consecutive copies are
// joined by an off-diagonal entry glue, which makes clusters of copies eigenvalues
// within about glue of each other — the hard case for inverse iteration.
func wilkinson(m, copies int, glue float64) *mat.SymDense {
	k := 2*m + 1
	n := k * copies
	s := mat.NewSymDense(n, nil)
	for c := range copies {
		for i := range k {
			p := c*k + i
			s.SetSym(p, p, math.Abs(float64(m-i)))
			if i < k-1 {
				s.SetSym(p, p+1, 1)
			} else if c < copies-1 {
				s.SetSym(p, p+1, glue)
			}
		}
	}
	return s
}

// rbfMatrix returns the Gaussian kernel matrix, bandwidth √d, of n standard normal
// points in d dimensions: positive semi-definite with a fast-decaying spectrum, the
// matrices the partial solver is for.
func rbfMatrix(rnd *rand.Rand, n, d int) *mat.SymDense {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rnd.NormFloat64()
	}
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			var ss float64
			for k := range d {
				t := x[i*d+k] - x[j*d+k]
				ss += t * t
			}
			s.SetSym(i, j, math.Exp(-ss/(2*float64(d))))
		}
	}
	return s
}

// spectrum returns a random symmetric matrix with the given eigenvalues.
func spectrum(rnd *rand.Rand, values []float64) *mat.SymDense {
	s, _ := synth.SymWithSpectrum(values, rnd)
	return s
}

func scaled(a *mat.SymDense, f float64) *mat.SymDense {
	var s mat.SymDense
	s.ScaleSym(f, a)
	return &s
}

type topCase struct {
	name string
	a    mat.Symmetric
	r    int
	// cut: the r-th and (r+1)-th largest eigenvalues coincide or nearly, so that the
	// subspace kept is not unique and only values, residuals and orthogonality are
	// compared.
	cut bool
}

func topCases() []topCase {
	rnd := rand.New(rand.NewPCG(21, 8))
	geometric := make([]float64, 300)
	for i := range geometric {
		geometric[i] = math.Pow(0.8, float64(i))
	}
	// Ten eigenvalues within 1e-12 of one another at the top.
	tight := make([]float64, 200)
	for i := range tight {
		tight[i] = float64(i) / 200
		if i >= 190 {
			tight[i] = 1 + float64(i-190)*1e-13
		}
	}
	// Eighty equal eigenvalues at the top, the cut among them.
	equal := make([]float64, 120)
	for i := range equal {
		equal[i] = 1
		if i < 40 {
			equal[i] = float64(i) / 100
		}
	}
	// A cluster of five equal to rounding straddling the cut (r = 12 takes two).
	straddle := make([]float64, 80)
	for i := range straddle {
		straddle[i] = float64(i)
		if i >= 65 && i < 70 {
			straddle[i] = 70 + float64(i-65)*1e-15*70
		}
	}
	identity := mat.NewSymDense(60, nil)
	for i := range 60 {
		identity.SetSym(i, i, 1)
	}
	subnormal := synth.RandomSym(40, rnd)
	for i := range 40 {
		for j := i; j < 40; j += 3 {
			subnormal.SetSym(i, j, subnormal.At(i, j)*0x1p-1060)
		}
	}
	return []topCase{
		{name: "random n=200 r=1", a: synth.RandomSym(200, rnd), r: 1},
		{name: "random n=200 r=20", a: synth.RandomSym(200, rnd), r: 20},
		{name: "random n=200 r=150", a: synth.RandomSym(200, rnd), r: 150},
		{name: "random n=200 r=199", a: synth.RandomSym(200, rnd), r: 199},
		{name: "random n=200 r=n", a: synth.RandomSym(200, rnd), r: 200},
		{name: "geometric n=300 r=30", a: spectrum(rnd, geometric), r: 30},
		{name: "rbf n=400 r=50", a: rbfMatrix(rnd, 400, 5), r: 50},
		{name: "rbf n=400 r=300", a: rbfMatrix(rnd, 400, 5), r: 300},
		{name: "tight cluster n=200 r=12", a: spectrum(rnd, tight), r: 12},
		{name: "tight cluster n=200 r=5", a: spectrum(rnd, tight), r: 5, cut: true},
		{name: "equal n=120 r=50", a: spectrum(rnd, equal), r: 50, cut: true},
		{name: "straddling n=80 r=12", a: spectrum(rnd, straddle), r: 12, cut: true},
		{name: "identity n=60 r=20", a: identity, r: 20, cut: true},
		{name: "zero n=40 r=7", a: mat.NewSymDense(40, nil), r: 7, cut: true},
		{name: "wilkinson 21 r=10", a: wilkinson(10, 1, 0), r: 10, cut: true},
		{name: "glued wilkinson 8×21 r=40", a: wilkinson(10, 8, 1e-10), r: 40, cut: true},
		{name: "glued wilkinson 4×41 r=30", a: wilkinson(20, 4, 1e-14), r: 30, cut: true},
		{name: "tiny n=40 r=9", a: scaled(synth.RandomSym(40, rnd), 1e-200), r: 9},
		{name: "huge n=40 r=9", a: scaled(synth.RandomSym(40, rnd), 1e300), r: 9},
		{name: "subnormal entries n=40 r=6", a: subnormal, r: 6},
		{name: "small n=1 r=1", a: synth.RandomSym(1, rnd), r: 1},
		{name: "small n=2 r=1", a: synth.RandomSym(2, rnd), r: 1},
		{name: "small n=10 r=3", a: synth.RandomSym(10, rnd), r: 3},
	}
}

// TestEigenSymTop compares the partial solver with the full one (EigenSym) on each
// backend. With p(n) = n, the Householder reduction's backward error bound p(n)·ε·‖A‖
// (Wilkinson; observed 1e-15 to 1e-14 relative here):
//   - eigenvalues agree to 8·n·ε·‖A‖ (two solvers, each within p(n)·ε·‖A‖, times 4);
//   - each residual ‖Av − λv‖₂ is at most 8·n·ε·‖A‖, and ‖VᵀV − I‖_max at most 8·n·ε;
//   - when the r-th and (r+1)-th eigenvalues are separated by a gap δ, the kept subspace
//     agrees with the full solver's: ‖V_restᵀ·V‖_F = ‖sin Θ‖_F is at most
//     2·√r·8·n·ε·‖A‖/δ (Davis–Kahan's sin Θ theorem for either solver's residuals).
//
// Eigenvalue-only calls must return the same values as calls with vectors, to the
// same tolerance.
func TestEigenSymTop(t *testing.T) {
	cases := topCases()
	eachBackend(t, func(t *testing.T) {
		for _, c := range cases {
			n := c.a.SymmetricDim()
			var full mat.Dense
			want, err := native.EigenSym(nil, &full, c.a)
			if err != nil {
				t.Fatalf("%s: EigenSym: %v", c.name, err)
			}
			norm := max(math.Abs(want[0]), math.Abs(want[n-1]))
			if norm == 0 {
				norm = 1 // the zero matrix: absolute errors
			}
			var vecs mat.Dense
			fallbacks := native.TopFallbacks()
			got, err := native.EigenSymTop(nil, &vecs, c.a, c.r)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			if f := native.TopFallbacks() - fallbacks; f != 0 {
				t.Errorf("%s: inverse iteration failed its check and fell back to the full solve", c.name)
			}
			if r, k := vecs.Dims(); r != n || k != c.r || len(got) != c.r {
				t.Errorf("%s: %d values, vectors %d×%d, want %d and %d×%d", c.name, len(got), r, k, c.r, n, c.r)
				continue
			}
			tol := 8 * float64(n) * 0x1p-53
			if !slices.IsSorted(got) {
				t.Errorf("%s: values not ascending: %v", c.name, got)
			}
			for j, v := range got {
				if d := math.Abs(v - want[n-c.r+j]); !(d <= tol*norm) {
					t.Errorf("%s: eigenvalue %d = %v, full solver %v (|Δ|/‖A‖ = %.2g)", c.name, j, v, want[n-c.r+j], d/norm)
				}
			}
			only, err := native.EigenSymTop(make([]float64, c.r), nil, c.a, c.r)
			if err != nil {
				t.Errorf("%s values only: %v", c.name, err)
			}
			for j, v := range only {
				if d := math.Abs(v - got[j]); !(d <= tol*norm) {
					t.Errorf("%s: values only, eigenvalue %d = %v, with vectors %v", c.name, j, v, got[j])
				}
			}
			var av mat.Dense
			av.Mul(c.a, &vecs)
			for j := range c.r {
				var ss float64 // of the residual over ‖A‖, which may be near overflow
				for i := range n {
					d := av.At(i, j)/norm - got[j]/norm*vecs.At(i, j)
					ss += d * d
				}
				if res := math.Sqrt(ss); !(res <= tol) {
					t.Errorf("%s: residual of pair %d = %.3g·‖A‖ > %.3g", c.name, j, res, tol)
				}
			}
			if o := testmat.Orthogonality(&vecs); !(o <= tol) {
				t.Errorf("%s: ‖VᵀV − I‖_max = %.3g > %.3g", c.name, o, tol)
			}
			if c.cut || c.r == n {
				continue
			}
			gap := want[n-c.r] - want[n-c.r-1]
			var cross mat.Dense
			cross.Mul(full.Slice(0, n, 0, n-c.r).T(), &vecs)
			sin := mat.Norm(&cross, 2)
			if bound := 2 * math.Sqrt(float64(c.r)) * tol * norm / gap; !(sin <= bound) {
				t.Errorf("%s: ‖sin Θ‖_F = %.3g > %.3g (gap %.3g·‖A‖)", c.name, sin, bound, gap/norm)
			}
		}
	})
}

// TestEigenSymTopInPlace checks the in-place form's storage rules: strides, elements
// outside the blocks untouched, r = n equal to EigenSymInPlace, values only.
func TestEigenSymTopInPlace(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 17))
	eachBackend(t, func(t *testing.T) {
		for _, c := range []struct{ n, r int }{{50, 7}, {50, 50}, {5, 2}} {
			n, r := c.n, c.r
			const lda = 53
			ldz := r + 3
			sym := synth.RandomSym(n, rnd)
			a := make([]float64, (n-1)*lda+n+3)
			for i := range a {
				a[i] = -7 // sentinel outside the block
			}
			for i := range n {
				for j := range n {
					a[i*lda+j] = sym.At(i, j)
				}
			}
			z := make([]float64, (n-1)*ldz+r+2)
			for i := range z {
				z[i] = -9
			}
			w := make([]float64, r+1)
			w[r] = -5
			if err := native.EigenSymTopInPlace(n, r, a, lda, w, z, ldz); err != nil {
				t.Fatalf("n=%d r=%d: %v", n, r, err)
			}
			for i := range a {
				if (i%lda >= n || i/lda >= n) && a[i] != -7 {
					t.Fatalf("n=%d r=%d: a[%d] outside the block changed to %v", n, r, i, a[i])
				}
			}
			for i := range z {
				if (i%ldz >= r || i/ldz >= n) && z[i] != -9 {
					t.Fatalf("n=%d r=%d: z[%d] outside the block changed to %v", n, r, i, z[i])
				}
			}
			if w[r] != -5 {
				t.Errorf("n=%d r=%d: w[%d] changed", n, r, r)
			}
			all, err := native.EigenSym(nil, nil, sym)
			if err != nil {
				t.Fatal(err)
			}
			norm := max(math.Abs(all[0]), math.Abs(all[n-1]))
			for j := range r {
				if d := math.Abs(w[j] - all[n-r+j]); d > 8*float64(n)*0x1p-53*norm {
					t.Errorf("n=%d r=%d: eigenvalue %d = %v, want %v", n, r, j, w[j], all[n-r+j])
				}
			}
			v := mat.NewDense(n, r, nil)
			for i := range n {
				for j := range r {
					v.Set(i, j, z[i*ldz+j])
				}
			}
			if res := testmat.Residual(sym, w[:r], v); res > 8*float64(n)*0x1p-53 {
				t.Errorf("n=%d r=%d: residual %.3g", n, r, res)
			}
		}
	})
}

// TestEigenSymTopZero checks r = 0: nothing computed, nothing touched.
func TestEigenSymTopZero(t *testing.T) {
	a := []float64{1, 2, 2, 1}
	w := []float64{-1}
	if err := native.EigenSymTopInPlace(2, 0, a, 2, w, nil, 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, []float64{1, 2, 2, 1}) || w[0] != -1 {
		t.Errorf("r = 0 changed a = %v, w = %v", a, w)
	}
	var vecs mat.Dense
	vals, err := native.EigenSymTop(nil, &vecs, mat.NewSymDense(2, a), 0)
	if err != nil || len(vals) != 0 || !vecs.IsEmpty() {
		t.Errorf("EigenSymTop r = 0: %v, %v, empty vectors %v", vals, err, vecs.IsEmpty())
	}
	if vals, err := native.EigenSymTop(nil, nil, &mat.SymDense{}, 0); err != nil || len(vals) != 0 {
		t.Errorf("n = 0: %v, %v", vals, err)
	}
}

// TestEigenSymTopBadInput checks that bad sizes and non-finite entries are errors of
// the right kind, returned before anything is written.
func TestEigenSymTopBadInput(t *testing.T) {
	const n = 40
	sym := synth.RandomSym(n, rand.New(rand.NewPCG(1, 1)))
	fresh := func() []float64 { return slices.Clone(sym.RawSymmetric().Data) }
	w := make([]float64, n)
	z := make([]float64, n*n)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"n<0", native.EigenSymTopInPlace(-1, 1, fresh(), n, w, z, n), native.ErrArgument},
		{"r<0", native.EigenSymTopInPlace(n, -1, fresh(), n, w, z, n), native.ErrArgument},
		{"r>n", native.EigenSymTopInPlace(n, n+1, fresh(), n, w, z, n), native.ErrArgument},
		{"small lda", native.EigenSymTopInPlace(n, 3, fresh(), n-1, w, z, n), native.ErrArgument},
		{"short a", native.EigenSymTopInPlace(n, 3, fresh()[:n*n-1], n, w, z, n), native.ErrArgument},
		{"nil a", native.EigenSymTopInPlace(n, 3, nil, n, w, z, n), native.ErrArgument},
		{"short w", native.EigenSymTopInPlace(n, 3, fresh(), n, w[:2], z, n), native.ErrArgument},
		{"small ldz", native.EigenSymTopInPlace(n, 3, fresh(), n, w, z, 2), native.ErrArgument},
		{"short z", native.EigenSymTopInPlace(n, 3, fresh(), n, w, z[:(n-1)*3+2], 3), native.ErrArgument},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, c.err, c.want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		a := fresh()
		a[3*n+17] = bad // upper triangle
		before := slices.Clone(a)
		w := []float64{-1, -1, -1}
		z := make([]float64, n*3)
		err := native.EigenSymTopInPlace(n, 3, a, n, w, z, 3)
		if !errors.Is(err, native.ErrNonFinite) || !strings.Contains(err.Error(), "row 3, column 17") {
			t.Errorf("%v: error %v", bad, err)
		}
		sameBits := slices.EqualFunc(a, before, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
		if !sameBits || w[0] != -1 || slices.ContainsFunc(z, func(v float64) bool { return v != 0 }) {
			t.Errorf("%v: the arguments changed on error", bad)
		}
		// The strict lower triangle is never read.
		a = fresh()
		a[17*n+3] = bad
		if err := native.EigenSymTopInPlace(n, 3, a, n, w, z, 3); err != nil {
			t.Errorf("%v in the lower triangle: %v", bad, err)
		}
		s := mat.NewSymDense(n, fresh())
		s.SetSym(2, 30, bad)
		var vecs mat.Dense
		if _, err := native.EigenSymTop(nil, &vecs, s, 4); !errors.Is(err, native.ErrNonFinite) || !vecs.IsEmpty() {
			t.Errorf("EigenSymTop with %v: %v, vectors empty %v", bad, err, vecs.IsEmpty())
		}
	}
	for _, c := range []struct {
		name   string
		values []float64
		vecs   *mat.Dense
		a      mat.Symmetric
		r      int
	}{
		{"nil matrix", nil, nil, nil, 1},
		{"r > n", nil, nil, sym, n + 1},
		{"r < 0", nil, nil, sym, -2},
		{"short values", make([]float64, 2), nil, sym, 3},
		{"long values", make([]float64, 4), nil, sym, 3},
		{"n×n vectors", nil, mat.NewDense(n, n, nil), sym, 3},
		{"3×n vectors", nil, mat.NewDense(3, n, nil), sym, 3},
	} {
		var before []float64
		if c.vecs != nil {
			before = slices.Clone(c.vecs.RawMatrix().Data)
		}
		if _, err := native.EigenSymTop(c.values, c.vecs, c.a, c.r); !errors.Is(err, native.ErrArgument) {
			t.Errorf("EigenSymTop %s: error %v", c.name, err)
		}
		if c.vecs != nil && !slices.Equal(before, c.vecs.RawMatrix().Data) {
			t.Errorf("EigenSymTop %s: vectors changed", c.name)
		}
	}
}

// TestGonumGuard checks the two matrices on which gonum v0.17's eigensolver fails —
// a norm below about 1e-123 (Dsterf panics) and subnormal entries (Dsyev returns
// ±2.1e121) — on both backends, full and partial. Expected spectra: for 2⁻⁴⁰⁰·B the
// eigenvalues of B (computed in full precision) times 2⁻⁴⁰⁰, exactly representable
// scaling; for the 4×4 with A₀₂ = 4.3e-314 and A₁₃ = 0.506, ±0.506 and ±4.3e-314,
// which to ε·‖A‖ are ±0.506 and 0, 0.
func TestGonumGuard(t *testing.T) {
	rnd := rand.New(rand.NewPCG(30, 4))
	b := synth.RandomSym(40, rnd)
	want, err := native.EigenSym(nil, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	tiny := scaled(b, 0x1p-400)
	sub := mat.NewSymDense(4, nil)
	sub.SetSym(0, 2, 4.3e-314)
	sub.SetSym(1, 3, 0.506)
	eachBackend(t, func(t *testing.T) {
		for _, n := range []int{3, 40} {
			a := mat.NewSymDense(n, nil)
			for i := range n {
				for j := i; j < n; j++ {
					a.SetSym(i, j, tiny.At(i, j))
				}
			}
			ref, err := native.EigenSym(nil, nil, mat.NewSymDense(n, func() []float64 {
				s := make([]float64, n*n)
				for i := range n {
					for j := range n {
						s[i*n+j] = b.At(i, j)
					}
				}
				return s
			}()))
			if n == 40 {
				ref = want
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := native.EigenSym(nil, nil, a)
			if err != nil {
				t.Fatalf("tiny n=%d: %v", n, err)
			}
			norm := max(math.Abs(ref[0]), math.Abs(ref[n-1]))
			for i, v := range got {
				if d := math.Abs(math.Ldexp(v, 400) - ref[i]); d > 8*float64(n)*0x1p-53*norm {
					t.Errorf("tiny n=%d: eigenvalue %d = %v·2⁻⁴⁰⁰, want %v", n, i, math.Ldexp(v, 400), ref[i])
				}
			}
			top, err := native.EigenSymTop(nil, nil, a, 2)
			if err != nil {
				t.Fatalf("tiny n=%d top: %v", n, err)
			}
			for j, v := range top {
				if d := math.Abs(math.Ldexp(v, 400) - ref[n-2+j]); d > 8*float64(n)*0x1p-53*norm {
					t.Errorf("tiny n=%d: top eigenvalue %d = %v·2⁻⁴⁰⁰, want %v", n, j, math.Ldexp(v, 400), ref[n-2+j])
				}
			}
		}
		expect := []float64{-0.506, 0, 0, 0.506}
		var vecs mat.Dense
		got, err := native.EigenSym(nil, &vecs, sub)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if math.Abs(v-expect[i]) > 4*0x1p-53*0.506 {
				t.Errorf("subnormal: eigenvalues %v, want %v", got, expect)
				break
			}
		}
		if res := testmat.Residual(sub, got, &vecs); res > 4*0x1p-53 {
			t.Errorf("subnormal: residual %.3g", res)
		}
		if o := testmat.Orthogonality(&vecs); o > 4*0x1p-53*4 {
			t.Errorf("subnormal: orthogonality %.3g", o)
		}
	})
}

// TestTopNoRegistry checks that the partial solver reaches BLAS and LAPACK only through
// the compiled-in backend (in the pure-Go build, gonum's LAPACK called by native may use
// the registry).
func TestTopNoRegistry(t *testing.T) {
	a := synth.RandomSym(60, rand.New(rand.NewPCG(2, 2)))
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		var vecs mat.Dense
		if _, err := native.EigenSymTop(nil, &vecs, a, 5); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkEigenSymTop times the partial solver for the top r pairs of a kernel matrix
// and reports it as multiples of one n×n×n dgemm and of the full solver (EigenSymInPlace,
// dsyevd with OpenBLAS), both timed in the same run: "×dgemm" and "×full".
func BenchmarkEigenSymTop(b *testing.B) {
	n := 1000
	if native.Compiled == "gonum" {
		n = 500
	}
	if testing.Short() {
		n = 200
	}
	rnd := rand.New(rand.NewPCG(uint64(n), 1))
	k := rbfMatrix(rnd, n, 10).RawSymmetric().Data
	buf := make([]float64, n*n)
	for _, r := range []int{10, 50} {
		b.Run(fmt.Sprintf("n=%d/r=%d", n, r), func(b *testing.B) {
			w := make([]float64, n)
			z := make([]float64, n*r)
			for b.Loop() {
				copy(buf, k)
				if err := native.EigenSymTopInPlace(n, r, buf, n, w, z, r); err != nil {
					b.Fatal(err)
				}
			}
			per := b.Elapsed().Seconds() / float64(b.N)
			g := blas64.General{Rows: n, Cols: n, Stride: n, Data: buf}
			c := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
			start := time.Now()
			native.Gemm(blas.NoTrans, blas.NoTrans, 1, g, g, 0, c)
			gemm := time.Since(start).Seconds()
			copy(buf, k)
			start = time.Now()
			if err := native.EigenSymInPlace(n, buf, n, w, true); err != nil {
				b.Fatal(err)
			}
			full := time.Since(start).Seconds()
			b.ReportMetric(per/gemm, "×dgemm")
			b.ReportMetric(per/full, "×full")
		})
	}
}
