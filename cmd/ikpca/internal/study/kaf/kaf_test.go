package kaf

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/studytest"
)

// defaults are the paper's settings (PredictOptions documents them).
func defaults() PredictOptions {
	return PredictOptions{Trials: 100, Train: 2000, Test: 200, Gap: 200, Order: 7, Every: 20, Noise: 0.02,
		Eta: 0.1, KLMSEta: 0.2, Sigma: 1 / math.Sqrt2, Features: 330, Quantisation: 0.28, Threshold: 0.3,
		Seed100: 100, ISPEEDCap: 400, Seed: 1}
}

func TestPredict(t *testing.T) {
	o := defaults()
	o.Trials, o.Train, o.Every, o.Seed100, o.ISPEEDCap = 1, 300, 100, 50, 150
	o.Threshold = 0.4 // calibrated for the [−1, 1] scale: about a third of the samples join
	if os.Getenv("IKPCA_KAF_FULL") != "" {
		o.Trials, o.Train, o.Every = 3, 2000, 100
	}
	res, err := Predict(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	out := res.output()
	t.Log("\n" + out.Markdown)
	for _, m := range Methods {
		c := res.Curves[m]
		if len(c) != len(res.Steps) {
			t.Fatalf("%s: %d points on the curve", m, len(c))
		}
		if last := res.Final[m][0]; !(last > 0) || last > 0.1 {
			t.Errorf("%s: final test MSE %g", m, last)
		}
	}
	for _, m := range []string{"iSPEED", "siSPEED"} {
		for i, v := range res.Curves[m] {
			if !(v > 0) {
				t.Errorf("%s: no test MSE at step %d", m, res.Steps[i])
			}
		}
	}
	// Learning happens: the KLMS anchor improves along its curve.
	if c := res.Curves["KLMS η=0.2"]; c[len(c)-1] >= c[0] {
		t.Errorf("KLMS did not improve: %v", c)
	}
	if !strings.Contains(out.Markdown, "| siSPEED |") {
		t.Errorf("markdown lacks siSPEED:\n%s", out.Markdown)
	}
	if csv := studytest.CSV(t, out.Table); !strings.HasPrefix(csv, "training_samples,LMS,") {
		t.Errorf("CSV: %q", csv[:40])
	}
	fig, err := drawCurves(out.Table, "")
	studytest.CheckPNG(t, fig, err)
	// Two columns: the MSE above, relative to KLMS's below. Every method has a legend
	// key (KLMS twice, as the reference on the right), and no two keys of a panel look
	// alike: the curves that nearly coincide are told apart by colour, dash and marker.
	if len(fig.Panels) != 4 || fig.Columns != 2 || len(fig.Panels[0].Keys)+len(fig.Panels[1].Keys) != len(Methods)+1 {
		t.Fatalf("learning curves: %d panels, %d columns", len(fig.Panels), fig.Columns)
	}
	for i, p := range fig.Panels[:2] {
		seen := map[study.Style]string{}
		for _, k := range p.Keys {
			if other, ok := seen[k.Style]; ok {
				t.Errorf("panel %d: %s and %s are drawn alike (%+v)", i, other, k.Label, k.Style)
			}
			seen[k.Style] = k.Label
		}
		if below := fig.Panels[i+2]; len(below.Curves) != len(p.Curves) || len(below.Keys) != 0 {
			t.Errorf("panel %d: %d curves, %d relative to KLMS's below (with %d keys)", i, len(p.Curves), len(below.Curves), len(below.Keys))
		}
	}
	bad := o
	bad.Methods = []string{"nosuch"}
	_, err = Predict(context.Background(), bad)
	studytest.Refused(t, "unknown method", err)
}

func TestBasis(t *testing.T) {
	res, err := Basis(context.Background(), BasisOptions{N: 300, M: 20, Seed: 50, Every: 50, Sigma: 1 / math.Sqrt2})
	if err != nil {
		t.Fatal(err)
	}
	// Keeping one more eigenfunction cannot increase the reconstruction error; each value
	// is a relative Frobenius norm computed with a rounding error of about n·ε (300 points:
	// 7e-14), so a rise within 1e-12 of the previous value is rounding, not growth.
	for i := 1; i < len(res.GramError); i++ {
		if res.GramError[i] > res.GramError[i-1]*(1+1e-12)+1e-15 {
			t.Fatalf("reconstruction error grew at m = %d", res.Components[i])
		}
	}
	t.Logf("Gram error with 20 eigenfunctions %.3g; largest angle %.3g rad at n = %d", res.GramError[19], res.Angle[len(res.Angle)-1], res.Sizes[len(res.Sizes)-1])
	for i, a := range res.Angle {
		if !(a < 1e-6) {
			t.Errorf("iSPEED drifted from batch SPEED: angle %g at n = %d", a, res.Sizes[i])
		}
	}
	out := res.output()
	if !strings.Contains(out.Markdown, "(m = 20)") {
		t.Errorf("markdown: %s", out.Markdown)
	}
	for _, which := range []string{"gram", "angle"} {
		fig, err := drawBasis(out.Table, which)
		studytest.CheckPNG(t, fig, err)
	}
	_, err = Basis(context.Background(), BasisOptions{N: 300, M: 300, Seed: 50, Every: 50, Sigma: 1})
	studytest.Refused(t, "m = n", err)
}
