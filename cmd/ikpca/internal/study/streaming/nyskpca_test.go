package streaming

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study/studytest"
	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// TestTopEigen: the Lanczos reference equals a full eigendecomposition (native.EigenSym)
// of a centred kernel matrix: values to 1e-12·λ₁ (it stops at residuals of 1e-12·λ₁,
// and a Ritz value errs by at most its residual) and vectors to 1e-9 (residual over a
// relative gap above 1e-3).
func TestTopEigen(t *testing.T) {
	X, err := loadNystrom("yeast", 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	K := kernel.Centre(kernel.Matrix(kernel.RBF{Sigma: 1}, X))
	vals, V, err := lanczos.Top(context.Background(), 300, 6, func(dst, x []float64) {
		for i := range dst {
			dst[i] = 0
			for j := range x {
				dst[i] += K.At(i, j) * x[j]
			}
		}
	}, 1e-12, 300, 3)
	if err != nil {
		t.Fatal(err)
	}
	want, err := native.EigenSym(nil, nil, K)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range vals {
		if w := want[len(want)-1-j]; math.Abs(v-w) > 1e-12*want[len(want)-1] {
			t.Errorf("λ%d = %.17g, want %.17g", j, v, w)
		}
	}
	// ‖KV − VΛ‖ column by column.
	for j := range 6 {
		var res float64
		for i := range 300 {
			var s float64
			for l := range 300 {
				s += K.At(i, l) * V.At(l, j)
			}
			res = math.Max(res, math.Abs(s-vals[j]*V.At(i, j)))
		}
		if res > 1e-9*vals[0] {
			t.Errorf("vector %d: residual %.3g", j, res)
		}
	}
}

// TestNystromKPCA: the study's rows, with landmarks at r = n as the known answer: every
// point a landmark makes Nyström kernel PCA exact (to the rounding of TestAllLandmarks
// in package nystrom, and the reference's 1e-12), so the measurement chain must report
// errors at rounding level there — and real ones at small r.
func TestNystromKPCA(t *testing.T) {
	const n = 250
	res, err := NystromKPCA(context.Background(), NystromOptions{Dataset: "yeast", N: n, Ranks: []int{12, n}, Components: 5, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 8 {
		t.Fatalf("%d rows, want (3 strategies + SKPCA) × 2 ranks", len(res.Rows))
	}
	for _, row := range res.Rows {
		if row.Bytes <= 0 || row.Time <= 0 || len(row.Values) != 5 || !(row.Sine >= 0 && row.Sine <= 1+1e-12) ||
			!(row.SineBest >= 0 && row.SineBest <= 1+1e-12) {
			t.Errorf("%s r=%d: bytes %d, time %v, values %v, sines %g, %g", row.Method, row.Rank, row.Bytes, row.Time, row.Values,
				row.Sine, row.SineBest)
		}
		switch {
		case row.Method == "skpca":
			if row.Bytes > res.Rows[0].Bytes && row.Rank == 12 {
				t.Errorf("SKPCA at r=12 holds %d bytes, more than Nyström's %d", row.Bytes, res.Rows[0].Bytes)
			}
			if row.KernelEvals != 0 || row.Features < 2 {
				t.Errorf("SKPCA: %g kernel values, D = %d", row.KernelEvals, row.Features)
			}
		case row.Rank == n && row.Method != "stream":
			// Stream and Greedy stop at the data's numerical rank (duplicates); uniform
			// takes every row.
			if row.EigenError > 1e-10 || row.Sine > 1e-7 || row.SineBest > 1e-7 {
				t.Errorf("%s with every point a landmark: eigenvalue error %.3g·λ₁, sines %.3g, %.3g", row.Method, row.EigenError,
					row.Sine, row.SineBest)
			}
		case row.Rank == 12:
			if !(row.EigenError > 1e-8 && row.Sine > 1e-6) {
				t.Errorf("%s with 12 landmarks: eigenvalue error %.3g·λ₁, sine %.3g: no approximation error?", row.Method, row.EigenError, row.Sine)
			}
			if !(row.KernelEvals >= 12*n) {
				t.Errorf("%s: %g kernel values", row.Method, row.KernelEvals)
			}
		}
	}
	out := res.output()
	if got := studytest.Lines(t, out.Table); got != 9 {
		t.Errorf("CSV: %d lines, want 9", got)
	}
	if res.Best < 1 || res.Best > 5 || res.BestUncentred < 1 || res.BestUncentred > 5 {
		t.Errorf("best-separated k* %d and %d, want them in [1, 5]", res.Best, res.BestUncentred)
	}
	if !strings.Contains(out.Markdown, "| greedy | 12 |") || out.Name != "nyskpca-yeast" {
		t.Errorf("output %q, markdown:\n%s", out.Name, out.Markdown)
	}
	for _, o := range []NystromOptions{
		{Dataset: "nosuch", Ranks: []int{20}},
		{Dataset: "yeast", N: 50, Ranks: []int{60}},
		{Dataset: "yeast", N: 50, Ranks: []int{5}, Components: 10},
		{Dataset: "yeast", N: 50},
	} {
		_, err := NystromKPCA(context.Background(), o)
		studytest.Refused(t, fmt.Sprintf("%+v", o), err)
	}
	studytest.Cancelled(t, "NystromKPCA", func(ctx context.Context) error {
		_, err := NystromKPCA(ctx, NystromOptions{Dataset: "yeast", N: 60, Ranks: []int{20}})
		return err
	})
}

// TestRunNystrom: Run runs the Nyström study for each of its data sets, and refuses an
// unknown one before anything runs.
func TestRunNystrom(t *testing.T) {
	o := Options{NystromDatasets: []string{"yeast"}, Nystrom: NystromOptions{N: 80, Ranks: []int{10}, Components: 3}}
	checkRun(t, o, "nyskpca-yeast.csv", func(o *Options) { o.NystromDatasets = append(o.NystromDatasets, "cpu_act") })
}
