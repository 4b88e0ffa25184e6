package paper

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/studytest"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

func setup(t *testing.T, n int) (*mat.Dense, kernel.Kernel) {
	t.Helper()
	native.Use()
	y := data.Yeast().X
	s, err := kernel.MedianDistance(y, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return mat.DenseCopyOf(y.Slice(0, n, 0, 8)), kernel.RBF{Sigma: s}
}

// TestDrift: the curves have the right length, are tiny (the decomposition is exact to
// rounding), and the CSV and PNG are well formed.
func TestDrift(t *testing.T) {
	x, k := setup(t, 120)
	steps := 0
	r, err := Drift(context.Background(), DriftOptions{Data: x, Kernel: k, M0: 20, MMax: 60, Runs: 3, Seed: 1, Paper: true,
		Progress: func(done, total int) { steps = done }})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.M) != 40 || r.M[0] != 21 || r.M[39] != 60 || steps != 40*5 {
		t.Fatalf("sizes %d…%d (%d), %d steps reported", r.M[0], r.M[len(r.M)-1], len(r.M), steps)
	}
	for _, s := range []Series{r.Single, r.Mean, r.Paper} {
		for k := range 3 {
			if len(s[k]) != 40 {
				t.Fatalf("curve of length %d", len(s[k]))
			}
			for _, v := range s[k] {
				if !(v >= 0 && v < 1e-10) {
					t.Fatalf("drift %g", v)
				}
			}
		}
	}
	// Norm inequalities: spectral ≤ Frobenius ≤ trace.
	for i := range r.M {
		if r.Single[Spectral][i] > r.Single[Frobenius][i]*(1+1e-9) || r.Single[Frobenius][i] > r.Single[Trace][i]*(1+1e-9) {
			t.Fatalf("m = %d: norms %g %g %g out of order", r.M[i], r.Single[0][i], r.Single[1][i], r.Single[2][i])
		}
	}
	tab := r.Table()
	rows, err := csv.NewReader(strings.NewReader(studytest.CSV(t, tab))).ReadAll()
	if err != nil || len(rows) != 41 || len(rows[0]) != 10 || rows[1][0] != "21" {
		t.Fatalf("CSV: %v, %d rows", err, len(rows))
	}
	fig, err := drawDrift(tab, "yeast")
	studytest.CheckPNG(t, fig, err)
	if len(fig.Curves) != 9 || len(fig.Keys) != 6 {
		t.Errorf("Figure 1: %d curves and %d keys, want 9 and 6", len(fig.Curves), len(fig.Keys))
	}
}

// TestNystrom: the error decreases overall and vanishes when every point is a landmark.
func TestNystrom(t *testing.T) {
	x, k := setup(t, 60)
	r, err := Nystrom(context.Background(), NystromOptions{Data: x, Kernel: k, MMax: 60, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.M) != 60 {
		t.Fatalf("%d sizes", len(r.M))
	}
	first, last := r.Errors[Frobenius][0], r.Errors[Frobenius][59]
	if !(last < 1e-10*r.Norm && first > 100*last) {
		t.Errorf("Frobenius error %g at m = 1, %g at m = n", first, last)
	}
	if csv := studytest.CSV(t, r.Table()); !strings.HasPrefix(csv, "m,Frobenius,spectral,trace,Frobenius_relative") {
		t.Errorf("CSV header %q", strings.SplitN(csv, "\n", 2)[0])
	}
	fig, err := drawNystrom(r.Table(), "yeast")
	studytest.CheckPNG(t, fig, err)
}

// TestCancel: a cancelled context stops the experiments with its error; options out of
// range are refused.
func TestCancel(t *testing.T) {
	x, k := setup(t, 80)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Drift(ctx, DriftOptions{Data: x, Kernel: k, M0: 5, MMax: 80, Runs: 2,
		Progress: func(done, total int) {
			if n++; n == 10 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || n != 10 {
		t.Errorf("Drift: %v after %d steps", err, n)
	}
	if _, err := Nystrom(ctx, NystromOptions{Data: x, Kernel: k, MMax: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("Nystrom: %v", err)
	}
	for _, o := range []DriftOptions{{}, {Data: x, Kernel: k, M0: 5, MMax: 5}, {Data: x, Kernel: k, M0: 5, MMax: 500}} {
		_, err := Drift(context.Background(), o)
		studytest.Refused(t, fmt.Sprintf("Drift(mmax %d)", o.MMax), err)
	}
}

// TestRun: both figures per data set, each a table and the figure drawn from it, and the
// redrawn figures are those of the run; a bad data set or size is refused.
func TestRun(t *testing.T) {
	o := Options{Datasets: []string{"yeast"}, M0: 20, MMax: 30, Runs: 1, NystromN: 40, NystromMMax: 10, Seed: 1}
	var stages []string
	o.Progress = func(stage string, done, total int) {
		if len(stages) == 0 || stages[len(stages)-1] != stage {
			stages = append(stages, stage)
		}
	}
	outs, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	studytest.Files(t, outs, "fig1-yeast.csv fig1-yeast.png fig2-yeast.csv fig2-yeast.png")
	if strings.Join(stages, "|") != "yeast: Figure 1|yeast: Figure 2" {
		t.Errorf("stages %q", stages)
	}
	if !strings.Contains(study.Summary(outs), "Figure 2 (the first 40 points)") {
		t.Errorf("summary:\n%s", study.Summary(outs))
	}
	redrawn, err := study.Redraw(map[string]*study.Table{"fig1-yeast": outs[0].Table, "fig2-yeast": outs[1].Table}, Plots)
	if err != nil || len(redrawn) != 2 {
		t.Fatalf("redrawn %d figures: %v", len(redrawn), err)
	}
	for _, bad := range []Options{{Datasets: []string{"iris"}, M0: 20, MMax: 30, NystromN: 40, NystromMMax: 10},
		{Datasets: []string{"yeast"}, M0: 20, MMax: 3000, NystromN: 40, NystromMMax: 10}} {
		_, err := Run(context.Background(), bad)
		studytest.Refused(t, fmt.Sprint(bad.Datasets), err)
	}
}
