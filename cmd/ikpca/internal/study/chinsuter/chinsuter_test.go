package chinsuter

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/studytest"
)

func TestChinSuterSmall(t *testing.T) {
	o := Options{Sizes: []int{40, 70}, Components: 3, PreImages: 3, Chunk: 5, KHAPasses: 2, KHARate: 0.05,
		ExactMax: 70, StreamN: 120, StreamEvery: 60, CostSizes: []int{30}, CostSteps: 2, Seed: 1}
	r, err := run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Timing) != 2*5 {
		t.Fatalf("%d timing rows, want 10", len(r.Timing))
	}
	for _, row := range r.Timing {
		if !(row.Seconds > 0) {
			t.Fatalf("row %+v", row)
		}
	}
	if len(r.Exponents) != 5 || r.ProjN != 40 || len(r.Projections) != 3 {
		t.Fatalf("exponents %v, projections at n=%d: %d", r.Exponents, r.ProjN, len(r.Projections))
	}
	for _, s := range r.Projections {
		if len(s.X) != 40 || math.IsNaN(s.RelRMS[methodCS]) || math.IsNaN(s.RelRMS[methodKHA]) {
			t.Fatalf("projection series %d: %d points, %v", s.Component, len(s.X), s.RelRMS)
		}
	}
	if len(r.Exact) != 2 {
		t.Fatalf("%d exact rows, want 2", len(r.Exact))
	}
	for _, e := range r.Exact {
		if e.MaxEigenError > 1e-9 || e.TopK < 1 || e.Sine > 1e-5 || e.Orthogonality > 1e-8 {
			t.Fatalf("exact Chin–Suter against batch: %+v", e)
		}
	}
	// Stream: chunk 1 and 5, checkpoints at 60 and 120.
	if len(r.Stream) != 4 {
		t.Fatalf("%d stream rows, want 4", len(r.Stream))
	}
	for _, s := range r.Stream {
		if s.Expansion > s.PreImagesBudget || s.Orthogonality > 1e-10 || math.IsNaN(s.Sine1) || s.Sine1 > 1 {
			t.Fatalf("stream row %+v", s)
		}
	}
	// 30 points in general position in 10-D: the centred RBF kernel matrix has rank 29,
	// every eigenvalue far above the zero level (m·ε·tr K), so exact Chin–Suter keeps all
	// 29 components whatever the rounding.
	if len(r.Cost) != 1 || !(r.Cost[0].ChinSuter > 0 && r.Cost[0].Bordered > 0 && r.Cost[0].Paper > 0 && r.Cost[0].Dgemm > 0) ||
		r.Cost[0].CSComponents != 29 {
		t.Fatalf("cost %+v", r.Cost)
	}
	outs, err := study.Draw(r.outputs(), Plots)
	if err != nil {
		t.Fatal(err)
	}
	md := study.Summary(outs)
	for _, want := range []string{"Training time on the toy", "fitted exponent", "Compressed Chin–Suter over a stream", "Per-point cost"} {
		if !strings.Contains(md, want) {
			t.Fatalf("markdown lacks %q", want)
		}
	}
	studytest.Files(t, outs, "timing.csv timing.png projections.csv projections.png stream.csv stream.png cost.csv")
	for _, o := range outs {
		if o.Table != nil && studytest.Lines(t, o.Table) < 2 {
			t.Errorf("%s.csv has no rows", o.Name)
		}
		if o.Figure != nil {
			studytest.CheckPNG(t, o.Figure, nil)
		}
	}
	_, err = Run(context.Background(), Options{})
	studytest.Refused(t, "empty options", err)
	studytest.Cancelled(t, "Run", func(ctx context.Context) error { _, err := Run(ctx, o); return err })
}
