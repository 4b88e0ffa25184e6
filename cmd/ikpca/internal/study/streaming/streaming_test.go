package streaming

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/studytest"
	"github.com/ikpca/ikpca/features"
)

func TestApprox(t *testing.T) {
	res, err := Approx(context.Background(), ApproxOptions{Dataset: "cpu_act", N: 200, Test: 30, Features: 128,
		Ells: []int{2, 10}, Exact: true, ExactSteps: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 8 {
		t.Fatalf("%d rows, want 4 methods × 2 sizes", len(res.Rows))
	}
	best := map[int]float64{}
	for _, r := range res.Rows {
		if r.Method == "exact" {
			best[r.Ell] = r.Spectral
		}
	}
	for _, r := range res.Rows {
		if !(r.Spectral >= best[r.Ell]*(1-1e-9)) || math.IsInf(r.Spectral, 0) {
			t.Errorf("%s ℓ=%d: error %g, the best rank-ℓ error is %g", r.Method, r.Ell, r.Spectral, best[r.Ell])
		}
		if r.Method == "SKPCA" && r.Spectral > r.Bound*(1+1e-9) {
			t.Errorf("SKPCA ℓ=%d: error %g above its certificate %g", r.Ell, r.Spectral, r.Bound)
		}
		if r.Bytes <= 0 || r.Train <= 0 || len(r.Values) == 0 {
			t.Errorf("%s: bytes %d train %v values %v", r.Method, r.Bytes, r.Train, r.Values)
		}
	}
	out := res.output()
	if n := studytest.Lines(t, out.Table); n != 9 {
		t.Errorf("CSV: %d lines, want 9", n)
	}
	if !strings.Contains(out.Markdown, "| Nystrom | 10 |") {
		t.Errorf("markdown:\n%s", out.Markdown)
	}
	for _, x := range []string{"ell", "memory", "time"} {
		fig, err := drawApprox(out.Table, x)
		studytest.CheckPNG(t, fig, err)
	}
	for _, o := range []ApproxOptions{
		{Dataset: "nosuch", N: 10, Test: 1, Features: 8, Ells: []int{2}},
		{Dataset: "cpu_act", N: 10, Test: 1, Features: 8, Ells: []int{10}},
	} {
		_, err := Approx(context.Background(), o)
		studytest.Refused(t, fmt.Sprintf("%s, ℓ = %v", o.Dataset, o.Ells), err)
	}
	studytest.Cancelled(t, "Approx", func(ctx context.Context) error {
		_, err := Approx(ctx, ApproxOptions{Dataset: "cpu_act", N: 50, Test: 5, Features: 16, Ells: []int{2}, Exact: true})
		return err
	})
}

func TestToy(t *testing.T) {
	res, err := Toy(context.Background(), ToyOptions{Runs: 2, N: 60, Passes: 40, KHARate: 0.05, Tolerance: 1e-2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Runs {
		if len(r.KRQAErrors) != 40 || len(r.KHAErrors) != 40 {
			t.Fatalf("run %d: curves of %d and %d passes", i, len(r.KRQAErrors), len(r.KHAErrors))
		}
		if !(r.Exact[0] > r.Exact[1] && r.Exact[1] > r.Exact[2] && r.Exact[2] > 0) {
			t.Errorf("run %d: exact eigenvalues %v", i, r.Exact)
		}
		if last := r.KRQAErrors[39]; last > 0.05 {
			t.Errorf("run %d: KRQA error %g after 40 passes", i, last)
		}
	}
	outs := res.outputs()
	if len(outs) != 2 || !strings.Contains(outs[0].Markdown, "KRQA |error|") {
		t.Fatalf("outputs %d, markdown:\n%s", len(outs), outs[0].Markdown)
	}
	if n := studytest.Lines(t, outs[0].Table); n != 3 {
		t.Errorf("runs CSV: %d lines, want 3", n)
	}
	if n := studytest.Lines(t, outs[1].Table); n != 41 {
		t.Errorf("curves CSV: %d lines, want 41", n)
	}
	fig, err := drawToy(outs[1].Table, "")
	studytest.CheckPNG(t, fig, err)
	_, err = Toy(context.Background(), ToyOptions{Runs: 0, N: 60, Passes: 1})
	studytest.Refused(t, "no runs", err)
}

func TestRFF(t *testing.T) {
	res, err := RFF(context.Background(), RFFOptions{Dataset: "cpu_act", N: 60, Seeds: 3, MaxLog: 11, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []features.Form{features.CosSin, features.RandomPhase} {
		if s := res.Slope[form]; s > -0.4 || s < -0.6 {
			t.Errorf("%v: error ∝ D^%.3f, want D^-0.5", form, s)
		}
	}
	out := res.output()
	if n := studytest.Lines(t, out.Table); n != 1+2*len(res.Dims) {
		t.Errorf("CSV: %d lines", n)
	}
	fig, err := drawRFF(out.Table, "")
	studytest.CheckPNG(t, fig, err)
	if len(fig.Curves) != 5 {
		t.Errorf("%d curves, want RMS and largest for two forms and the reference", len(fig.Curves))
	}
}

// TestRun: the outputs of all three experiments, every figure drawn, and an unknown data
// set refused before anything runs.
func TestRun(t *testing.T) {
	o := Options{Datasets: []string{"cpu_act"},
		Approx:   ApproxOptions{N: 60, Test: 5, Features: 16, Ells: []int{2}, Seed: 1},
		Toy:      ToyOptions{Runs: 1, N: 20, Passes: 3, KHARate: 0.05, Tolerance: 1e-2},
		RFF:      RFFOptions{Dataset: "cpu_act", N: 20, Seeds: 1, MaxLog: 5},
		Progress: func(string, int, int) {}}
	checkRun(t, o, "rff.csv rff.png skpca-cpu_act.csv toy.csv toy.png toy-curves.csv skpca-cpu_act-ell.png skpca-cpu_act-memory.png skpca-cpu_act-time.png",
		func(o *Options) { o.Datasets = append(o.Datasets, "nosuch") })
}

// checkRun runs the study with o and checks that it writes the files want (in order);
// then that Run refuses o edited by unknown, which names a data set the study does not
// know, before anything runs.
func checkRun(t *testing.T, o Options, want string, unknown func(*Options)) {
	t.Helper()
	outs, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	studytest.Files(t, outs, want)
	unknown(&o)
	_, err = Run(context.Background(), o)
	studytest.Refused(t, "unknown data set", err)
}
