package preimage_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/preimage"
)

// TestKRRInterpolates: without a ridge the map interpolates, mapping each training score
// vector to its own point, to the solve's accuracy: 4·ε/RCond() relative (the backward
// error of Cholesky or LU times the condition number). Once by Cholesky (an RBF on
// distinct scores, positive definite) and once by the LU fallback (−‖x − y‖, the
// distance kernel, conditionally negative definite: its matrix is indefinite but
// nonsingular for distinct points, and Cholesky fails at the first pivot, 0).
func TestKRRInterpolates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	S := synth.Normal(30, 2, rng)
	X := synth.Normal(30, 4, rng)
	dist := kernel.Func{Name: "distance", F: func(x, y []float64) float64 {
		return -math.Sqrt((x[0]-y[0])*(x[0]-y[0]) + (x[1]-y[1])*(x[1]-y[1]))
	}}
	for _, k := range []kernel.Kernel{kernel.RBF{Gamma: 2}, dist} {
		inv, err := preimage.FitKRR(k, S, X, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got mat.Dense
		if err := inv.InverseTransform(&got, S); err != nil {
			t.Fatal(err)
		}
		e, tol := testmat.MaxRel(&got, X), 4*0x1p-53/inv.RCond()
		t.Logf("%v: rcond %.3g, relative error %.3g, bound %.3g", k, inv.RCond(), e, tol)
		if e > tol {
			t.Errorf("%v: the training scores map to their points within %.3g, bound %.3g", k, e, tol)
		}
		if inv.Len() != 30 || inv.Components() != 2 || inv.Dim() != 4 || inv.Alpha() != 0 || inv.Kernel() == nil {
			t.Errorf("%v: Len %d, Components %d, Dim %d, Alpha %g", k, inv.Len(), inv.Components(), inv.Dim(), inv.Alpha())
		}
	}
}

// TestFixedPointSpan: the pre-image of one feature vector φ(p) is p (k(z, p) is largest
// at z = p alone), and of the symmetric expansion (φ(p) + φ(q))/2 of two points nearer
// than σ√2 the midpoint (f is then unimodal on the segment and symmetric about it). The
// iteration is started 0.5σ away; it converges linearly, so that the last step, at most
// 1e-9·σ, bounds the error to a small multiple of it, far below the 1e-7·σ asserted
// (measured: 0 and 2.3e-9·σ).
func TestFixedPointSpan(t *testing.T) {
	k := kernel.RBF{Sigma: 2}
	p := []float64{1, -2, 0.5}
	q := []float64{2, -1.5, 0}
	for _, c := range []struct {
		name string
		P    *mat.Dense
		c    []float64
		want []float64
	}{
		{"one point", mat.NewDense(1, 3, p), []float64{1}, p},
		{"two points", mat.NewDense(2, 3, append(append([]float64(nil), p...), q...)), []float64{0.5, 0.5},
			[]float64{(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2}},
	} {
		z := []float64{c.want[0] + 1, c.want[1], c.want[2] - 0.3}
		res, err := preimage.FixedPoint(z, k, c.P, c.c, preimage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var e float64
		for j := range z {
			e = math.Max(e, math.Abs(z[j]-c.want[j]))
		}
		t.Logf("%s: %d iterations, converged %v, error %.3g·σ, value %.15g", c.name, res.Iterations, res.Converged, e/k.Sigma, res.Value)
		if !res.Converged || e > 1e-7*k.Sigma {
			t.Errorf("%s: pre-image %v, want %v (converged %v)", c.name, z, c.want, res.Converged)
		}
	}
}

// TestFixedPointHostile: expansions for which the plain iteration runs away — a
// difference of two near-equal Gaussians, whose denominator f(z) is tiny and changes
// sign between them, so that a step divides by almost zero (for c = (1, −0.999) from
// z = 0.5 the first step lands near −1000, where every kernel value underflows) — must
// end on a finite point no worse than the start (the best point visited is kept),
// maximising f or |f|, within MaxIter iterations, and without panicking; and Value must
// be f at the point returned.
func TestFixedPointHostile(t *testing.T) {
	k := kernel.RBF{Sigma: 1}
	P := mat.NewDense(2, 1, []float64{0, 1})
	for _, c := range [][]float64{{1, -0.999}, {1, -1}, {-1, 1e-300}, {1e300, -1e300}} {
		for _, magnitude := range []bool{false, true} {
			f := func(z float64) float64 {
				return c[0]*math.Exp(-z*z/2) + c[1]*math.Exp(-(z-1)*(z-1)/2)
			}
			start := 0.5
			z := []float64{start}
			res, err := preimage.FixedPoint(z, k, P, c, preimage.Options{MaxIter: 50, Magnitude: magnitude})
			if err != nil {
				t.Fatal(err)
			}
			worse := res.Value < f(start)
			if magnitude {
				worse = math.Abs(res.Value) < math.Abs(f(start))
			}
			t.Logf("c %v, magnitude %v: z %.6g after %d iterations, value %.6g (start %.6g)", c, magnitude, z[0], res.Iterations, res.Value, f(start))
			if math.IsNaN(z[0]) || math.IsInf(z[0], 0) || worse || res.Iterations > 50 {
				t.Errorf("c %v, magnitude %v: z %g, value %g, start's %g, %d iterations", c, magnitude, z[0], res.Value, f(start), res.Iterations)
			}
			if d := math.Abs(res.Value - f(z[0])); d > 1e-12*math.Max(math.Abs(c[0]), math.Abs(c[1])) {
				t.Errorf("c %v: Value %g is not f(z) = %g", c, res.Value, f(z[0]))
			}
		}
	}
}

// TestKRRSklearn fits the map on scikit-learn's own training scores and compares the
// dual coefficients (magic's) and the pre-images of the training and the new scores
// with scikit-learn's: the same system solved by the same method (Cholesky), so that the
// two differ by the rounding of K_S + α·I (kernel blocks against numpy's rbf_kernel,
// each within a few ε of k) amplified by its condition number (docs/design.md,
// "Pre-images"): the bound is 4·ε/RCond(), ε = 2⁻⁵³. Measured: 2e-14 (bound 3e-13) for
// magic, 1e-11 (5e-10) for magica's α = 1e-3, 2e-12 (4e-11) for fashion.
func TestKRRSklearn(t *testing.T) {
	for _, c := range testmat.PreimageCases("testdata") {
		t.Run(c.Name, func(t *testing.T) {
			train, _ := c.Split(t)
			S := c.Read(t, "scores")
			inv, err := preimage.FitKRR(kernel.RBF{Gamma: c.Gamma}, S, train, c.Alpha)
			if err != nil {
				t.Fatal(err)
			}
			var got mat.Dense
			if err := inv.InverseTransform(&got, c.Read(t, "new")); err != nil {
				t.Fatal(err)
			}
			eNew := testmat.MaxRel(&got, c.Read(t, "inv_new"))
			want := c.Read(t, "inv_train")
			rows, _ := want.Dims()
			got.Reset()
			if err := inv.InverseTransform(&got, S.Slice(0, rows, 0, c.K)); err != nil {
				t.Fatal(err)
			}
			eTrain := testmat.MaxRel(&got, want)
			tol := 4 * 0x1p-53 / inv.RCond()
			t.Logf("%s: rcond %.3g, pre-images of new scores %.3g, of training scores %.3g, bound %.3g", c.Name, inv.RCond(), eNew, eTrain, tol)
			if eNew > tol || eTrain > tol {
				t.Errorf("relative error %.3g, %.3g > %.3g", eNew, eTrain, tol)
			}
			if c.Name == "magic" {
				var dual mat.Dense
				inv.DualCoefTo(&dual)
				if e := testmat.MaxRel(&dual, c.Read(t, "dual")); e > tol {
					t.Errorf("dual coefficients: relative error %.3g > %.3g", e, tol)
				}
			}
		})
	}
}

// TestErrorKinds: every function and method of the package that returns an error,
// given zero-valued and hostile arguments, returns an error of the right kind, the
// package's sentinel first, without panicking; a refused call leaves z and dst as they
// were.
func TestErrorKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	S := synth.Normal(6, 2, rng)
	X := synth.Normal(6, 3, rng)
	rbf := kernel.RBF{Sigma: 1}
	inv, err := preimage.FitKRR(rbf, S, X, 1)
	if err != nil {
		t.Fatal(err)
	}
	var zero preimage.KRR
	var nilDense *mat.Dense
	withNaN := mat.DenseCopyOf(S)
	withNaN.Set(2, 1, math.NaN())
	none := mat.NewDense(1, 2, nil).Slice(0, 0, 0, 2)
	var dst mat.Dense
	wrongDst := mat.NewDense(2, 2, nil)
	fit := func(k kernel.Kernel, S, X mat.Matrix, alpha float64) func() error {
		return func() error { _, err := preimage.FitKRR(k, S, X, alpha); return err }
	}
	var cases errtest.Cases
	add := cases.Add
	for _, b := range testmat.BadKernels() {
		add("FitKRR: kernel "+b.Name, ikpca.ErrArgument, fit(b.Kernel, S, X, 1))
	}
	add("FitKRR: alpha −1", ikpca.ErrArgument, fit(rbf, S, X, -1))
	add("FitKRR: alpha NaN", ikpca.ErrArgument, fit(rbf, S, X, math.NaN()))
	add("FitKRR: alpha +Inf", ikpca.ErrArgument, fit(rbf, S, X, math.Inf(1)))
	add("FitKRR: nil scores", ikpca.ErrArgument, fit(rbf, nil, X, 1))
	add("FitKRR: typed-nil X", ikpca.ErrArgument, fit(rbf, S, nilDense, 1))
	add("FitKRR: no scores", ikpca.ErrEmpty, fit(rbf, none, X, 1))
	add("FitKRR: NaN score", ikpca.ErrNonFinite, fit(rbf, withNaN, X, 1))
	add("FitKRR: fewer points", ikpca.ErrDimension, fit(rbf, S, X.Slice(0, 5, 0, 3), 1))
	add("FitKRR: coinciding scores, alpha 0", ikpca.ErrArgument, fit(rbf, mat.NewDense(6, 2, nil), X, 0))
	add("FitKRR: an overflowing kernel", ikpca.ErrNonFinite, fit(kernel.Polynomial{Degree: 9, Gamma: 1}, mat.NewDense(6, 2, []float64{1e40, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}), X, 1))
	add("FitKRR: n beyond 2¹⁵", ikpca.ErrArgument, fit(rbf, mat.NewDense(1<<15+1, 1, nil), mat.NewDense(1<<15+1, 1, nil), 1))
	add("KRR.InverseTransform: nil dst", ikpca.ErrArgument, func() error { return inv.InverseTransform(nil, S) })
	add("KRR.InverseTransform: nil Y", ikpca.ErrArgument, func() error { return inv.InverseTransform(&dst, nil) })
	add("KRR.InverseTransform: no rows", ikpca.ErrEmpty, func() error { return inv.InverseTransform(&dst, none) })
	add("KRR.InverseTransform: 3 components", ikpca.ErrDimension, func() error { return inv.InverseTransform(&dst, X) })
	add("KRR.InverseTransform: NaN", ikpca.ErrNonFinite, func() error { return inv.InverseTransform(&dst, withNaN) })
	add("KRR.InverseTransform: wrong dst", ikpca.ErrDimension, func() error { return inv.InverseTransform(wrongDst, S) })
	add("KRR.InverseTransform: a zero KRR", ikpca.ErrArgument, func() error { return zero.InverseTransform(&dst, S) })
	z := []float64{0.5, 0.5, 0.5}
	P := X
	c := []float64{1, 2, 3, 4, 5, 6}
	fp := func(z []float64, k kernel.RBF, P *mat.Dense, c []float64, o preimage.Options) func() error {
		return func() error { _, err := preimage.FixedPoint(z, k, P, c, o); return err }
	}
	for _, b := range testmat.BadRBFs() {
		add("FixedPoint: kernel "+b.Name, ikpca.ErrArgument, fp(z, b.Kernel.(kernel.RBF), P, c, preimage.Options{}))
	}
	add("FixedPoint: MaxIter −1", ikpca.ErrArgument, fp(z, rbf, P, c, preimage.Options{MaxIter: -1}))
	add("FixedPoint: Tol −1", ikpca.ErrArgument, fp(z, rbf, P, c, preimage.Options{Tol: -1}))
	add("FixedPoint: Tol NaN", ikpca.ErrArgument, fp(z, rbf, P, c, preimage.Options{Tol: math.NaN()}))
	add("FixedPoint: nil P", ikpca.ErrArgument, fp(z, rbf, nil, c, preimage.Options{}))
	add("FixedPoint: short z", ikpca.ErrDimension, fp(z[:2], rbf, P, c, preimage.Options{}))
	add("FixedPoint: NaN z", ikpca.ErrNonFinite, fp([]float64{0, math.NaN(), 0}, rbf, P, c, preimage.Options{}))
	add("FixedPoint: short c", ikpca.ErrDimension, fp(z, rbf, P, c[:5], preimage.Options{}))
	add("FixedPoint: Inf c", ikpca.ErrNonFinite, fp(z, rbf, P, []float64{1, 2, 3, 4, 5, math.Inf(1)}, preimage.Options{}))
	add("FixedPoint: NaN P", ikpca.ErrNonFinite, fp(z, rbf, withNaN, c, preimage.Options{}))
	gammaOf := func(_ int, g []float64) { copy(g, c) }
	ex := func(dst *mat.Dense, start mat.Matrix, rows int, P *mat.Dense, coef func(int, []float64)) func() error {
		return func() error {
			_, err := preimage.Expansions(dst, start, rows, rbf, P, coef, preimage.Options{})
			return err
		}
	}
	starts := mat.NewDense(2, 3, []float64{0.5, 0.5, 0.5, 0, 0, 0})
	add("Expansions: nil dst", ikpca.ErrArgument, ex(nil, starts, 2, P, gammaOf))
	add("Expansions: nil start", ikpca.ErrArgument, ex(&dst, nil, 2, P, gammaOf))
	add("Expansions: nil P", ikpca.ErrArgument, ex(&dst, starts, 2, nil, gammaOf))
	add("Expansions: nil coefficients", ikpca.ErrArgument, ex(&dst, starts, 2, P, nil))
	add("Expansions: no points", ikpca.ErrEmpty, ex(&dst, starts, 0, P, gammaOf))
	add("Expansions: start of 1 row", ikpca.ErrDimension, ex(&dst, starts.Slice(0, 1, 0, 3), 2, P, gammaOf))
	add("Expansions: wrong dst", ikpca.ErrDimension, ex(wrongDst, starts, 2, P, gammaOf))
	add("Expansions: NaN start", ikpca.ErrNonFinite, ex(&dst, mat.NewDense(2, 3, []float64{0, 0, 0, math.NaN(), 0, 0}), 2, P, gammaOf))
	add("Expansions: NaN coefficient", ikpca.ErrNonFinite, ex(&dst, starts, 2, P, func(_ int, g []float64) { g[0] = math.NaN() }))
	add("Options.Validate: MaxIter −1", ikpca.ErrArgument, func() error { return preimage.Options{MaxIter: -1}.Validate() })
	errtest.Of(preimage.ErrDimension, preimage.ErrNonFinite, preimage.ErrEmpty, preimage.ErrArgument).Run(t, cases)
	cases.Cover(t, 3)
	if z[0] != 0.5 || z[1] != 0.5 || z[2] != 0.5 || !dst.IsEmpty() || mat.Norm(wrongDst, 1) != 0 {
		t.Error("a refused call wrote to z or dst")
	}
}
