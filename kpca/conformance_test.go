package kpca_test

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/modeltest"
)

// TestConformance: every mode and method of Model passes the ikpca.Model suite, with
// its checkpoint; so do the bordered models at rank r, in a sliding window, and both.
func TestConformance(t *testing.T) {
	for _, opts := range []kpca.Options{
		{},
		{Mode: kpca.Uncentred},
		{Method: kpca.RankOne},
		{Mode: kpca.Uncentred, Method: kpca.RankOne},
		{Window: 30},
		{Mode: kpca.Uncentred, Window: 25},
		{Rank: 12},
		{Mode: kpca.Uncentred, Rank: 12},
		{Rank: 12, Window: 30},
		{Mode: kpca.Uncentred, Rank: 12, Window: 25},
	} {
		what := opts.Mode.String() + "/" + opts.Method.String()
		if opts.Rank > 0 {
			what += fmt.Sprintf("/rank %d", opts.Rank)
		}
		if opts.Window > 0 {
			what += fmt.Sprintf("/window %d", opts.Window)
		}
		t.Run(what, func(t *testing.T) {
			modeltest.Run(t, subject(t, opts))
		})
	}
}

// subject describes a Model with a Gaussian kernel (σ = 1, suited to the suite's
// points) to the suite.
//
// At rank r the subject's points lie closer to their curve (modeltest.Curve(0.001), the
// default points with less noise), so that the spectrum decays fast enough for r = 12
// to leave a small truncation error E = K′ − K̃,
// and the tolerance follows from it: Transform of a point seen and its training score
// differ by uⱼᵀ·E·eᵢ/√λⱼ (Model.Transform), at most ‖E‖/√λₖ for the components the suite
// compares (k by its rule: λₖ ≥ 1e-3·λ₁, k ≤ 5), and the suite measures errors relative
// to the largest score, at least √λ₁·max|u₁|. The tolerance is twice
// ‖E‖/(√λₖ·√λ₁·max|u₁|), with ErrorBound() for ‖E‖ on a model built as the suite builds
// it, and never below the suite's default of 1e-8; a defect (a wrong centring, scale or
// component) is of order one.
func subject(t *testing.T, opts kpca.Options) modeltest.Subject {
	model := func(m ikpca.Model) *kpca.Model { return m.(*kpca.Model) }
	var tol float64
	var data *mat.Dense
	if opts.Rank > 0 {
		data = modeltest.Curve(0.001)
		n, d := data.Dims()
		md, err := kpca.New(kernel.RBF{Sigma: 1}, data.Slice(0, n/2, 0, d), opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := n / 2; i < n; i++ {
			if err := md.Add(data.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		v := md.Values(nil)
		k := 1
		for k < min(len(v), 5) && v[k] >= 1e-3*v[0] {
			k++
		}
		var u mat.Dense
		md.VectorsTo(&u)
		var umax float64
		for i := range md.Len() {
			umax = math.Max(umax, math.Abs(u.At(i, 0)))
		}
		tol = math.Max(1e-8, 2*md.ErrorBound()/(math.Sqrt(v[k-1]*v[0])*umax))
		t.Logf("tolerance %.3g (ErrorBound %.3g, λ₁ %.3g, λ%d %.3g)", tol, md.ErrorBound(), v[0], k, v[k-1])
	}
	return modeltest.Subject{
		Data:      data,
		Window:    opts.Window,
		Tolerance: tol,
		Uncentred: opts.Mode == kpca.Uncentred,
		New:       func(X *mat.Dense) (ikpca.Incremental, error) { return kpca.New(kernel.RBF{Sigma: 1}, X, opts) },
		TrainingScores: func(m ikpca.Model, k int) (*mat.Dense, error) {
			var s mat.Dense
			return &s, model(m).Scores(&s, k)
		},
		Project: func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) { return project(model(m), X, k), nil },
		Signed: func(m ikpca.Model) (*mat.Dense, error) {
			var v mat.Dense
			model(m).VectorsTo(&v)
			return &v, nil
		},
		Skip: map[string]string{
			"Persistence": "TRANSITIONAL: kpca saves with Save/Load until it adopts ikpca.Persistent",
			"Remove":      "TRANSITIONAL: kpca.Model.Remove is checked once Subject.RemoveTolerance is set per rank",
		},
	}
}

// project computes the scores of the rows of X from the model's eigenvectors in point
// coordinates (VectorsTo), its points and its kernel, by the textbook formula
// uⱼᵀk'ₓ/√λⱼ with k'ₓ the kernel column centred from scratch (testmat.Centring) or kₓ.
func project(md *kpca.Model, X mat.Matrix, k int) *mat.Dense {
	var pts, u mat.Dense
	md.Points(&pts)
	md.VectorsTo(&u)
	vals := md.Values(nil)
	scale := make([]float64, k)
	for j := range k {
		scale[j] = 1 / math.Sqrt(vals[j])
	}
	return testmat.NewCentring(md.Kernel(), &pts).Scores(X, &u, k, scale, md.Options().Mode == kpca.Centred)
}
