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

// TestConformance: every choice of Model's options passes the ikpca suite (modeltest),
// Remove and Persistence included: exact models of either method and centring, in a
// sliding window or not; models of Components k tracked at rank 12, in a window or
// not; k reported of a larger rank; the default rank (50, above the suite's 40 points:
// exact while it grows); and a window no larger than the rank (the exact model).
func TestConformance(t *testing.T) {
	for _, opts := range []kpca.Options{
		{Components: kpca.All},
		{Components: kpca.All, Uncentred: true},
		{Components: kpca.All, Window: 30},
		{Components: kpca.All, Uncentred: true, Window: 25},
		{Components: 12, Rank: 12},
		{Components: 12, Rank: 12, Uncentred: true},
		{Components: 12, Rank: 12, Window: 30},
		{Components: 12, Rank: 12, Uncentred: true, Window: 25},
		{Components: 3, Rank: 12},
		{Components: 3},
		{Components: 3, Uncentred: true, Window: 30},
	} {
		t.Run(optionsName(opts), func(t *testing.T) {
			modeltest.Run(t, subject(t, opts))
		})
	}
}

// subject describes a Model with a Gaussian kernel (σ = 1, suited to the suite's
// points) to the suite.
//
// A model that tracks a rank (Model.Rank() > 0) is given points closer to their curve
// (modeltest.Curve(0.001), the default points with less noise), so that the spectrum
// decays fast enough for r = 12 to leave a small truncation error E = K′ − K̃, and its
// tolerances follow from ErrorBound() ≥ ‖E‖₂ on a model built as the suite builds it
// (Fit of the first half, then Add of the others), never below the suite's default of
// 1e-8; a defect (a wrong centring, scale or component) is of order one.
//
// Consistency: Transform of a point seen and its training score differ by uⱼᵀ·E·eᵢ/√λⱼ
// (Model.Transform), at most ‖E‖/√λₖ for the components the suite compares (k by its
// rule: λₖ ≥ 1e-3·λ₁, k ≤ 5), and the suite measures errors relative to the largest
// score, at least √λ₁·max|u₁|: the tolerance is twice ‖E‖/(√λₖ·√λ₁·max|u₁|).
//
// Remove: the suite compares the Values after Remove(i) with those of Fit of the points
// left, whose top pairs are exact eigenpairs of K′ (a batch decomposition) to rounding.
// By Weyl's inequality each λⱼ(K̃) is within ‖E‖₂ ≤ ErrorBound() of λⱼ(K′), E the
// error after the removal (the certificate follows deletions: docs/design.md, "Rank-r
// tracking"), and the suite measures |Δλⱼ| against λ₁: the tolerance is twice
// ErrorBound()/λ₁ after the suite's removal.
func subject(t *testing.T, opts kpca.Options) modeltest.Subject {
	fit := func(X mat.Matrix) (*kpca.Model, error) { return kpca.Fit(kernel.RBF{Sigma: 1}, X, opts) }
	var tol, removeTol float64
	var data *mat.Dense
	if probe, err := fit(modeltest.Curve(0.001)); err != nil {
		t.Fatal(err)
	} else if probe.Rank() > 0 {
		data = modeltest.Curve(0.001)
		n, d := data.Dims()
		md, err := fit(data.Slice(0, n/2, 0, d))
		if err != nil {
			t.Fatal(err)
		}
		testmat.AddRows(t, md, data, n/2, n)
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
		if err := md.Remove(md.Len() / 3); err != nil {
			t.Fatal(err)
		}
		removeTol = math.Max(1e-8, 2*md.ErrorBound()/md.Values(nil)[0])
		t.Logf("tolerances: Consistency %.3g (ErrorBound %.3g, λ₁ %.3g, λ%d %.3g), Remove %.3g", tol, md.ErrorBound(), v[0], k, v[k-1], removeTol)
	}
	s := readers(opts)
	s.Data, s.Window, s.Tolerance, s.RemoveTolerance = data, opts.Window, tol, removeTol
	s.New = func(X *mat.Dense) (ikpca.Incremental, error) { return fit(X) }
	return s
}

// TestConformanceFitFrom: a Model fitted from random vectors (FitFrom, six passes)
// passes the ikpca suite with the tolerances of the tracked model of the same options
// (subject): its truncation error, that of the top Rank pairs to rounding, is at most
// the tracked one's.
func TestConformanceFitFrom(t *testing.T) {
	for _, opts := range []kpca.Options{{Components: 12, Rank: 12}, {Components: 3, Rank: 12, Uncentred: true}} {
		t.Run(optionsName(opts), func(t *testing.T) {
			s := subject(t, opts)
			s.New = func(X *mat.Dense) (ikpca.Incremental, error) {
				return kpca.FitFrom(kernel.RBF{Sigma: 1}, X, kpca.Start{Seed: 1, Passes: 6}, opts)
			}
			modeltest.Run(t, s)
		})
	}
}

// TestConformanceRankOne: the RankOneModel of either centring passes the ikpca suite
// (modeltest), Persistence included; it has no Remove.
func TestConformanceRankOne(t *testing.T) {
	for _, uncentred := range []bool{false, true} {
		opts := kpca.Options{Components: kpca.All, Uncentred: uncentred}
		t.Run(optionsName(opts), func(t *testing.T) {
			s := readers(opts)
			s.New = func(X *mat.Dense) (ikpca.Incremental, error) { return kpca.FitRankOne(kernel.RBF{Sigma: 1}, X, opts) }
			modeltest.Run(t, s)
		})
	}
}

// reader is what the suite reads of a Model or a RankOneModel beyond ikpca.Model.
type reader interface {
	ikpca.Model
	Scores(dst *mat.Dense, k int) error
	VectorsTo(dst *mat.Dense)
	Points(dst *mat.Dense)
	Kernel() kernel.Kernel
	Options() kpca.Options
}

// readers describes to the suite how a model of the options is read: its training
// scores, its projections by the textbook formula (project), its signed vectors.
func readers(opts kpca.Options) modeltest.Subject {
	model := func(m ikpca.Model) reader { return m.(reader) }
	return modeltest.Subject{
		Uncentred: opts.Uncentred,
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
	}
}

// optionsName names the options that differ from the zero value.
func optionsName(o kpca.Options) string {
	s := "all"
	if o.Components != kpca.All {
		s = fmt.Sprintf("k=%d", o.Components)
	}
	if o.Rank > 0 {
		s += fmt.Sprintf("/rank=%d", o.Rank)
	}
	if o.Uncentred {
		s += "/uncentred"
	}
	if o.Window > 0 {
		s += fmt.Sprintf("/window=%d", o.Window)
	}
	return s
}

// project computes the scores of the rows of X from the model's eigenvectors in point
// coordinates (VectorsTo), its points and its kernel, by the textbook formula
// uⱼᵀk'ₓ/√λⱼ with k'ₓ the kernel column centred from scratch (testmat.Centring) or kₓ.
func project(md reader, X mat.Matrix, k int) *mat.Dense {
	var pts, u mat.Dense
	md.Points(&pts)
	md.VectorsTo(&u)
	vals := md.Values(nil)
	scale := make([]float64, k)
	for j := range k {
		scale[j] = 1 / math.Sqrt(vals[j])
	}
	return testmat.NewCentring(md.Kernel(), &pts).Scores(X, &u, k, scale, !md.Options().Uncentred)
}
