package kpca

import (
	"bytes"
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

// TestInverseSklearn fits exact and rank-r models to the points of each reference and
// compares their training scores and the pre-images of new points — Transform, then
// the map of Inverse — with scikit-learn's fit_transform and inverse_transform(transform)
// (same signs: both follow svd_flip). The scores of the two eigensolvers differ by
// rounding amplified by the eigengaps (measured ≤ 2.7e-14 relative, bound 1e-13); the
// ridge regression amplifies a perturbation of its matrix by its condition number
// (4·ε/RCond() is the bound of the solve alone, preimage.TestKRRSklearn), so the bound
// of the pre-images is (1e-13 + 4ε)/RCond(), and at most the 1e-8 asked. Measured:
// 1.7e-14 (magic), 8e-12 (magica, α = 1e-3), 2.8e-12 (fashion).
func TestInverseSklearn(t *testing.T) {
	for _, c := range testmat.PreimageCases("../preimage/testdata") {
		train, fresh := c.Split(t)
		for _, opts := range []Options{{Components: All}, {Components: c.K}} {
			t.Run(c.Name+"/"+name(opts), func(t *testing.T) {
				md := fitModel(t, kernel.RBF{Gamma: c.Gamma}, train, opts)
				var S mat.Dense
				if err := md.Scores(&S, c.K); err != nil {
					t.Fatal(err)
				}
				eScores := testmat.MaxRel(&S, c.Read(t, "scores"))
				inv, err := md.Inverse(c.K, c.Alpha)
				if err != nil {
					t.Fatal(err)
				}
				c.CheckInverse(t, inv, md.Transform, fresh, eScores, 1e-13)
			})
		}
	}
}

// TestInverseErrors: Inverse and PreImage given zero-valued and hostile arguments return
// an error of the right kind, kpca's sentinel first, without panicking, and leave the
// model (its encoding) and dst as they were.
func TestInverseErrors(t *testing.T) {
	X := mat.NewDense(6, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.25, 2, -1})
	md := fitModel(t, kernel.RBF{Sigma: 1}, X, Options{Components: 2})
	lap := fitModel(t, kernel.Laplacian{Sigma: 1}, X, Options{Components: 2})
	empty, err := New(kernel.RBF{Sigma: 1}, 2, Options{Components: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Coinciding points: their scores coincide, and without a ridge K_S is singular.
	same := fitModel(t, kernel.RBF{Sigma: 1}, mat.NewDense(5, 2, []float64{0, 0, 0, 0, 1, 1, 1, 1, 2, 0}), Options{Components: 2})
	var zero Model
	var nilDense *mat.Dense
	nan := mat.DenseCopyOf(X)
	nan.Set(1, 0, math.NaN())
	wide := mat.NewDense(2, 3, nil)
	none := mat.NewDense(1, 2, nil).Slice(0, 0, 0, 2)
	var dst mat.Dense
	wrongDst := mat.NewDense(2, 2, nil)
	def := preimage.Options{MaxIter: 3}
	var cases errtest.Cases
	add := cases.Add
	inv := func(md *Model, k int, alpha float64) func() error {
		return func() error { _, err := md.Inverse(k, alpha); return err }
	}
	add("Inverse: k 0", ikpca.ErrArgument, inv(md, 0, 1))
	add("Inverse: k 3", ikpca.ErrArgument, inv(md, 3, 1))
	add("Inverse: alpha −1", ikpca.ErrArgument, inv(md, 1, -1))
	add("Inverse: alpha NaN", ikpca.ErrArgument, inv(md, 1, math.NaN()))
	add("Inverse: alpha −Inf", ikpca.ErrArgument, inv(md, 1, math.Inf(-1)))
	add("Inverse: coinciding points, alpha 0", ikpca.ErrArgument, inv(same, 2, 0))
	add("Inverse: no points", ikpca.ErrEmpty, inv(empty, 1, 1))
	add("Inverse: a zero Model", ikpca.ErrArgument, inv(&zero, 1, 1))
	pre := func(dst *mat.Dense, X, start mat.Matrix, k int, o preimage.Options) func() error {
		return func() error { return md.PreImage(dst, X, start, k, o) }
	}
	add("PreImage: nil dst", ikpca.ErrArgument, pre(nil, X, nil, 1, def))
	add("PreImage: nil X", ikpca.ErrArgument, pre(&dst, nil, nil, 1, def))
	add("PreImage: typed-nil X", ikpca.ErrArgument, pre(&dst, nilDense, nil, 1, def))
	add("PreImage: no rows", ikpca.ErrEmpty, pre(&dst, none, nil, 1, def))
	add("PreImage: wide X", ikpca.ErrDimension, pre(&dst, wide, nil, 1, def))
	add("PreImage: NaN X", ikpca.ErrNonFinite, pre(&dst, nan, nil, 1, def))
	add("PreImage: NaN start", ikpca.ErrNonFinite, pre(&dst, X, nan, 1, def))
	add("PreImage: fewer starts", ikpca.ErrDimension, pre(&dst, X, X.Slice(0, 2, 0, 2), 1, def))
	add("PreImage: wide start", ikpca.ErrDimension, pre(&dst, X.Slice(0, 2, 0, 2), wide, 1, def))
	add("PreImage: wrong dst", ikpca.ErrDimension, pre(wrongDst, X, nil, 1, def))
	add("PreImage: k 0", ikpca.ErrArgument, pre(&dst, X, nil, 0, def))
	add("PreImage: k 3", ikpca.ErrArgument, pre(&dst, X, nil, 3, def))
	add("PreImage: MaxIter −1", ikpca.ErrArgument, pre(&dst, X, nil, 1, preimage.Options{MaxIter: -1}))
	add("PreImage: Tol +Inf", ikpca.ErrArgument, pre(&dst, X, nil, 1, preimage.Options{Tol: math.Inf(1)}))
	add("PreImage: a Laplacian kernel", ikpca.ErrArgument, func() error { return lap.PreImage(&dst, X, nil, 1, def) })
	add("PreImage: no points", ikpca.ErrEmpty, func() error { return empty.PreImage(&dst, X, nil, 1, def) })
	add("PreImage: a zero Model", ikpca.ErrArgument, func() error { return zero.PreImage(&dst, X, nil, 1, def) })
	before := encode(t, md)
	errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument, ErrEncoding, ErrNotConverged).Run(t, cases)
	if !bytes.Equal(before, encode(t, md)) {
		t.Error("a refused call changed the model")
	}
	if !dst.IsEmpty() || mat.Norm(wrongDst, 1) != 0 {
		t.Error("a refused call wrote to dst")
	}
	// The calls that succeed change nothing either.
	if _, err := md.Inverse(2, 1); err != nil {
		t.Fatal(err)
	}
	if err := md.PreImage(&dst, X, nil, 2, def); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, encode(t, md)) {
		t.Error("Inverse or PreImage changed the model")
	}
}

// TestPreImageSpan: with every component, the projection of a training point is its
// own feature vector (φ(xᵢ) − μ lies in the span of the centred training features), so
// that its exact pre-image is the point itself, the maximum of ⟨Pφ(xᵢ), φ(z)⟩ = k(xᵢ, z)
// (for the RBF, 1 at z = xᵢ alone). The iteration, started 0.3σ away, must converge to
// it: the fixed point z = xᵢ is attracting, and the step tolerance 1e-9·σ with the
// projection's rounding (about m·ε relative in γ) leaves an error far below the 1e-6·σ
// asserted (measured: 3e-14·σ). Centred and uncentred.
func TestPreImageSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	X := synth.Normal(40, 3, rng)
	k := kernel.RBF{Sigma: 1.5}
	for _, opts := range []Options{{Components: All}, {Components: All, Uncentred: true}} {
		md := fitModel(t, k, X, opts)
		comps := md.Components()
		start := mat.DenseCopyOf(X)
		for i := range 40 {
			for j := range 3 {
				start.Set(i, j, start.At(i, j)+0.1*k.Sigma*rng.NormFloat64())
			}
		}
		var Z mat.Dense
		if err := md.PreImage(&Z, X, start, comps, preimage.Options{MaxIter: 500}); err != nil {
			t.Fatal(err)
		}
		var diff mat.Dense
		diff.Sub(&Z, X)
		e := mat.Norm(&diff, math.Inf(1)) / k.Sigma
		t.Logf("%s: %d components, max |z − x|/σ = %.3g", name(opts), comps, e)
		if e > 1e-6 {
			t.Errorf("%s: pre-images of training points off by %.3g·σ", name(opts), e)
		}
	}
}

// TestPreImageCircle denoises points near a circle: 200 training points on the unit
// circle with noise 0.05, an RBF of σ = 0.5 and the top 8 components, as in Mika et
// al.'s toy experiments. Points pushed off the circle by noise 0.2 must come back
// towards it: their mean distance to the circle must drop by at least half (measured:
// from 0.174 to 0.022, exact and rank 50), and the KRR pre-images (Inverse, α = 0.01)
// must do better than the noisy points too (measured 0.087; the fixed point started
// from them, 0.022).
func TestPreImageCircle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	off := testmat.OffCircle
	train, noisy := testmat.Circle(rng, 200, 0.05), testmat.Circle(rng, 100, 0.2)
	const k = 8
	for _, opts := range []Options{{Components: All}, {Components: k}} {
		md := fitModel(t, kernel.RBF{Sigma: 0.5}, train, opts)
		var Z mat.Dense
		if err := md.PreImage(&Z, noisy, nil, k, preimage.Options{}); err != nil {
			t.Fatal(err)
		}
		inv, err := md.Inverse(k, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		R := testmat.KRRImages(t, inv, md.Transform, noisy, k)
		var ZR mat.Dense
		if err := md.PreImage(&ZR, noisy, R, k, preimage.Options{}); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: mean distance to the circle: noisy %.3f, fixed point %.3f, KRR %.3f, fixed point from KRR %.3f",
			name(opts), off(noisy), off(&Z), off(R), off(&ZR))
		if off(&Z) > off(noisy)/2 {
			t.Errorf("%s: the fixed point left the points %.3f from the circle, the noisy ones %.3f", name(opts), off(&Z), off(noisy))
		}
		if off(R) > off(noisy) {
			t.Errorf("%s: the KRR pre-images are %.3f from the circle, the noisy points %.3f", name(opts), off(R), off(noisy))
		}
	}
}
