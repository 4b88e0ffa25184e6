package experiment

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"os"
	"strings"
	"testing"
)

// defaultKAF are the paper's settings (KAFOptions documents them).
func defaultKAF() KAFOptions {
	return KAFOptions{Trials: 100, Train: 2000, Test: 200, Gap: 200, Order: 7, Every: 20, Noise: 0.02,
		Eta: 0.1, KLMSEta: 0.2, Sigma: 1 / math.Sqrt2, Features: 330, Quantisation: 0.28, Threshold: 0.3,
		Seed100: 100, ISPEEDCap: 400, Seed: 1}
}

func TestKAF(t *testing.T) {
	o := defaultKAF()
	o.Trials, o.Train, o.Every, o.Seed100, o.ISPEEDCap = 1, 300, 100, 50, 150
	o.Threshold = 0.4 // calibrated for the [−1, 1] scale: about a third of the samples join
	if os.Getenv("IKPCA_KAF_FULL") != "" {
		o.Trials, o.Train, o.Every = 3, 2000, 100
	}
	res, err := KAF(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteKAFMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + md.String())
	for _, m := range KAFMethods {
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
	var b bytes.Buffer
	if err := WriteKAFCSV(&b, res); err != nil || !strings.HasPrefix(b.String(), "training_samples,LMS,") {
		t.Errorf("CSV: %v %q", err, b.String()[:40])
	}
	b.Reset()
	if err := PlotKAF(&b, res); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&b); err != nil {
		t.Error(err)
	}
}

func TestSPEEDBasis(t *testing.T) {
	res, err := SPEEDBasis(context.Background(), 300, 20, 50, 50, 1/math.Sqrt2)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(res.GramError); i++ {
		if res.GramError[i] > res.GramError[i-1]+1e-15 {
			t.Fatalf("reconstruction error grew at m = %d", res.Components[i])
		}
	}
	t.Logf("Gram error with 20 eigenfunctions %.3g; largest angle %.3g rad at n = %d", res.GramError[19], res.Angle[len(res.Angle)-1], res.Sizes[len(res.Sizes)-1])
	for i, a := range res.Angle {
		if !(a < 1e-6) {
			t.Errorf("iSPEED drifted from batch SPEED: angle %g at n = %d", a, res.Sizes[i])
		}
	}
	for _, which := range []string{"gram", "angle"} {
		var b bytes.Buffer
		if err := PlotSPEEDBasis(&b, res, which); err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(&b); err != nil {
			t.Error(err)
		}
	}
}
