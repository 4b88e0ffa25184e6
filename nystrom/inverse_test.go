package nystrom

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/preimage"
)

// TestInverseSklearn: with every training point a landmark, Nyström kernel PCA is
// kernel PCA (K̃ = K up to the pairs of K_LL below the tolerance, r·ε·σ₁), and its
// pre-image map scikit-learn's. The scores (up to sign) carry the rounding of the
// feature map and of the dropped pairs — measured ≤ 7.7e-14 relative (bound 1e-12),
// against 2.7e-14 for kpca's exact model — and the regression amplifies a perturbation
// of its matrix by its condition number, so the bound of the pre-images is
// (1e-12 + 4ε)/RCond(), and at most the 1e-8 asked. Measured: 1.5e-14 (magic), 1.1e-11
// (magica, α = 1e-3), 2.2e-12 (fashion).
func TestInverseSklearn(t *testing.T) {
	for _, c := range testmat.PreimageCases("../preimage/testdata") {
		t.Run(c.Name, func(t *testing.T) {
			train, fresh := c.Split(t)
			md := fit(t, kernel.RBF{Gamma: c.Gamma}, train, train, Options{})
			var S mat.Dense
			if err := md.Transform(&S, train, c.K); err != nil {
				t.Fatal(err)
			}
			// The model signs the direction in its feature space, not the column of
			// scores (docs/design.md, "Signs"): compare up to each column's sign. The
			// pre-images do not depend on it: an RBF of the score vectors sees only
			// their distances, which flipping a coordinate of all of them keeps.
			want := c.Read(t, "scores")
			for j := range c.K {
				if mat.Dot(S.ColView(j), want.ColView(j)) < 0 {
					for i := range c.M {
						S.Set(i, j, -S.At(i, j))
					}
				}
			}
			eScores := testmat.MaxRel(&S, want)
			inv, err := md.Inverse(train, c.K, c.Alpha)
			if err != nil {
				t.Fatal(err)
			}
			c.CheckInverse(t, inv, md.Transform, fresh, eScores, 1e-12)
		})
	}
}

// addInverseCases adds TestErrorKinds' cases of Inverse and PreImage on m, a model of
// points of dimension d fitted to X, whose kernel is an RBF, and on a zero Model. The
// test checks that none changes m.
func addInverseCases(add func(string, error, func() error), m *Model, X *mat.Dense) {
	_, d := X.Dims()
	var zero Model
	var nilDense *mat.Dense
	nan := mat.DenseCopyOf(X)
	nan.Set(1, 0, math.NaN())
	wide := mat.NewDense(2, d+1, nil)
	empty := mat.NewDense(1, d, nil).Slice(0, 0, 0, d)
	same := mat.NewDense(4, d, nil) // coinciding points: coinciding scores
	lap, err := New(kernel.Laplacian{Sigma: 1}, X.Slice(0, 5, 0, d), Options{})
	if err == nil {
		err = lap.AddBatch(X)
	}
	if err != nil {
		panic(err)
	}
	inv := func(X mat.Matrix, k int, alpha float64) func() error {
		return func() error { _, err := m.Inverse(X, k, alpha); return err }
	}
	add("Model.Inverse: nil X", ikpca.ErrArgument, inv(nil, 1, 1))
	add("Model.Inverse: (*mat.Dense)(nil)", ikpca.ErrArgument, inv(nilDense, 1, 1))
	add("Model.Inverse: no rows", ikpca.ErrEmpty, inv(empty, 1, 1))
	add("Model.Inverse: another dimension", ikpca.ErrDimension, inv(wide, 1, 1))
	add("Model.Inverse: a NaN", ikpca.ErrNonFinite, inv(nan, 1, 1))
	add("Model.Inverse: k 0", ikpca.ErrArgument, inv(X, 0, 1))
	add("Model.Inverse: k beyond", ikpca.ErrArgument, inv(X, 1000, 1))
	add("Model.Inverse: alpha −1", ikpca.ErrArgument, inv(X, 1, -1))
	add("Model.Inverse: alpha NaN", ikpca.ErrArgument, inv(X, 1, math.NaN()))
	add("Model.Inverse: alpha +Inf", ikpca.ErrArgument, inv(X, 1, math.Inf(1)))
	add("Model.Inverse: coinciding points, alpha 0", ikpca.ErrArgument, inv(same, 1, 0))
	add("Model.Inverse: a zero Model", ikpca.ErrArgument, func() error { _, err := zero.Inverse(X, 1, 1); return err })
	pre := func(dst *mat.Dense, X, start mat.Matrix, k int, o preimage.Options) func() error {
		return func() error { return m.PreImage(dst, X, start, k, o) }
	}
	var dst mat.Dense
	wrongDst := mat.NewDense(2, 2, nil)
	def := preimage.Options{MaxIter: 3}
	add("Model.PreImage: nil dst", ikpca.ErrArgument, pre(nil, X, nil, 1, def))
	add("Model.PreImage: nil X", ikpca.ErrArgument, pre(&dst, nil, nil, 1, def))
	add("Model.PreImage: no rows", ikpca.ErrEmpty, pre(&dst, empty, nil, 1, def))
	add("Model.PreImage: another dimension", ikpca.ErrDimension, pre(&dst, wide, nil, 1, def))
	add("Model.PreImage: a NaN", ikpca.ErrNonFinite, pre(&dst, nan, nil, 1, def))
	add("Model.PreImage: a NaN start", ikpca.ErrNonFinite, pre(&dst, X, nan, 1, def))
	add("Model.PreImage: fewer starts", ikpca.ErrDimension, pre(&dst, X, X.Slice(0, 2, 0, d), 1, def))
	add("Model.PreImage: wrong dst", ikpca.ErrDimension, pre(wrongDst, X, nil, 1, def))
	add("Model.PreImage: k 0", ikpca.ErrArgument, pre(&dst, X, nil, 0, def))
	add("Model.PreImage: MaxIter −1", ikpca.ErrArgument, pre(&dst, X, nil, 1, preimage.Options{MaxIter: -1}))
	add("Model.PreImage: Tol NaN", ikpca.ErrArgument, pre(&dst, X, nil, 1, preimage.Options{Tol: math.NaN()}))
	add("Model.PreImage: a Laplacian kernel", ikpca.ErrArgument, func() error { return lap.PreImage(&dst, X, nil, 1, def) })
	add("Model.PreImage: a zero Model", ikpca.ErrArgument, func() error { return zero.PreImage(&dst, X, nil, 1, def) })
	add("Model.PreImage: dst untouched", nil, func() error {
		if !dst.IsEmpty() || mat.Norm(wrongDst, 1) != 0 {
			return errors.New("a refused call wrote to dst")
		}
		return nil
	})
}

// TestPreImageCircle denoises points near a circle with Nyström kernel PCA: 400 training
// points on the unit circle with noise 0.05, 60 of them landmarks, an RBF of σ = 0.5 and
// the top 8 components. Points pushed off the circle by noise 0.2 must come back
// towards it: their mean distance to the circle must drop by at least half by the fixed
// point (measured: 0.152 to 0.017 centred, 0.025 uncentred), and drop by the KRR map
// fitted on the training points (Inverse, α = 0.01; measured 0.090 and 0.097).
func TestPreImageCircle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	off := testmat.OffCircle
	train, noisy := testmat.Circle(rng, 400, 0.05), testmat.Circle(rng, 100, 0.2)
	const k = 8
	for _, uncentred := range []bool{false, true} {
		md := fit(t, kernel.RBF{Sigma: 0.5}, rows(train, 0, 60), train, Options{Uncentred: uncentred})
		var Z mat.Dense
		if err := md.PreImage(&Z, noisy, nil, k, preimage.Options{}); err != nil {
			t.Fatal(err)
		}
		inv, err := md.Inverse(train, k, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		R := testmat.KRRImages(t, inv, md.Transform, noisy, k)
		t.Logf("uncentred %v: mean distance to the circle: noisy %.3f, fixed point %.3f, KRR %.3f", uncentred, off(noisy), off(&Z), off(R))
		if off(&Z) > off(noisy)/2 || off(R) > off(noisy) {
			t.Errorf("uncentred %v: the pre-images are %.3f (fixed point) and %.3f (KRR) from the circle, the noisy points %.3f",
				uncentred, off(&Z), off(R), off(noisy))
		}
	}
}
