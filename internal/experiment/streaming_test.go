package experiment

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/features"
)

func TestStreaming(t *testing.T) {
	res, err := Streaming(context.Background(), StreamingOptions{Dataset: "cpu_act", N: 200, Test: 30, Features: 128,
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
		if r.Bytes <= 0 || r.Train <= 0 {
			t.Errorf("%s: bytes %d train %v", r.Method, r.Bytes, r.Train)
		}
	}
	var csvOut, md bytes.Buffer
	if err := WriteStreamingCSV(&csvOut, res); err != nil || strings.Count(csvOut.String(), "\n") != 9 {
		t.Errorf("CSV: %v\n%s", err, csvOut.String())
	}
	if err := WriteStreamingMarkdown(&md, res); err != nil || !strings.Contains(md.String(), "| Nystrom | 10 |") {
		t.Errorf("markdown: %v\n%s", err, md.String())
	}
	for _, x := range []string{"ell", "memory", "time"} {
		var b bytes.Buffer
		if err := PlotStreaming(&b, res, x); err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(&b); err != nil {
			t.Errorf("%s plot: %v", x, err)
		}
	}
	if _, err := Streaming(context.Background(), StreamingOptions{Dataset: "nosuch", N: 10, Test: 1, Features: 8, Ells: []int{2}}); err == nil {
		t.Error("unknown data set: no error")
	}
	if _, err := Streaming(context.Background(), StreamingOptions{Dataset: "cpu_act", N: 10, Test: 1, Features: 8, Ells: []int{10}}); err == nil {
		t.Error("ℓ ≥ n: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Streaming(ctx, StreamingOptions{Dataset: "cpu_act", N: 50, Test: 5, Features: 16, Ells: []int{2}, Exact: true}); err == nil {
		t.Error("cancelled: no error")
	}
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
	var b bytes.Buffer
	if err := WriteToyMarkdown(&b, res); err != nil || !strings.Contains(b.String(), "KRQA |error|") {
		t.Errorf("markdown: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WriteToyCSV(&b, res); err != nil || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("CSV: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WriteToyCurvesCSV(&b, res); err != nil || strings.Count(b.String(), "\n") != 41 {
		t.Errorf("curves: %v", err)
	}
	b.Reset()
	if err := PlotToy(&b, res); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&b); err != nil {
		t.Error(err)
	}
	if _, err := Toy(context.Background(), ToyOptions{Runs: 0, N: 60, Passes: 1}); err == nil {
		t.Error("no runs: no error")
	}
}

func TestRFFConvergence(t *testing.T) {
	res, err := RFFConvergence(context.Background(), "cpu_act", 60, 3, 11, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []features.Form{features.CosSin, features.RandomPhase} {
		if s := res.Slope[form]; s > -0.4 || s < -0.6 {
			t.Errorf("%v: error ∝ D^%.3f, want D^-0.5", form, s)
		}
	}
	var b bytes.Buffer
	if err := PlotRFF(&b, res); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&b); err != nil {
		t.Error(err)
	}
	b.Reset()
	if err := WriteRFFCSV(&b, res); err != nil || strings.Count(b.String(), "\n") != 1+2*len(res.Dims) {
		t.Errorf("CSV: %v", err)
	}
}
