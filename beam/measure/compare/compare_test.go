package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/stream"
)

// points writes n points near a curve in R³ to two CSV files (and a line that is not a
// point) and returns their glob and the points in file order.
func points(t *testing.T, n int) (string, *mat.Dense) {
	dir := t.TempDir()
	X := mat.NewDense(n, 3, nil)
	var files [2]strings.Builder
	for i := range n {
		s := float64(i) / float64(n) * 6
		X.SetRow(i, []float64{math.Sin(s), math.Cos(2 * s), s / 6})
	}
	// File order: the first file's points, then the second's.
	order := mat.NewDense(n, 3, nil)
	k := 0
	for f := range files {
		for i := f; i < n; i += 2 {
			fmt.Fprintf(&files[f], "%v,%v,%v\n", X.At(i, 0), X.At(i, 1), X.At(i, 2))
			order.SetRow(k, X.RawRowView(i))
			k++
		}
	}
	files[1].WriteString("1,x,2\n")
	for f := range files {
		beamtest.WriteFile(t, filepath.Join(dir, fmt.Sprintf("part-%d.csv", f)), []byte(files[f].String()))
	}
	return filepath.Join(dir, "part-*.csv"), order
}

// writeModel writes a model's encoding to a file and returns its name.
func writeModel(t *testing.T, m interface{ MarshalBinary() ([]byte, error) }) string {
	b := wiretest.Marshal(t, m)
	f := filepath.Join(t.TempDir(), "model")
	beamtest.WriteFile(t, f, b)
	return f
}

// TestCompareNystrom: a model of the same points, added in other blocks and two merged
// parts, passes; one without a point, or on other landmarks, fails.
func TestCompareNystrom(t *testing.T) {
	glob, X := points(t, 400)
	L := mat.DenseCopyOf(X.Slice(0, 30, 0, 3))
	m, err := nystrom.New(kernel.RBF{Sigma: 0.7}, L, nystrom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	part := m.Empty()
	for i := 0; i < 400; i += 37 {
		to := min(i+37, 400)
		dst := m
		if i >= 200 {
			dst = part
		}
		if err := dst.AddBatch(X.Slice(i, to, 0, 3)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Merge(part); err != nil {
		t.Fatal(err)
	}
	if err := compare(writeModel(t, m), glob, 50, 5); err != nil {
		t.Errorf("the same points: %v", err)
	}

	short, err := nystrom.New(kernel.RBF{Sigma: 0.7}, L, nystrom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := short.AddBatch(X.Slice(1, 400, 0, 3)); err != nil {
		t.Fatal(err)
	}
	if err := compare(writeModel(t, short), glob, 50, 5); err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("a point missing: error %v", err)
	}
}

// TestCompareNystromAccuracy: compare's checks see a change of the sums far below what a
// lost point makes: a model on points moved by 1e-6 fails on its eigenvalues.
func TestCompareNystromAccuracy(t *testing.T) {
	glob, X := points(t, 400)
	L := mat.DenseCopyOf(X.Slice(0, 30, 0, 3))
	moved := mat.DenseCopyOf(X)
	moved.Apply(func(i, j int, v float64) float64 { return v + 1e-6 }, moved)
	m, err := nystrom.New(kernel.RBF{Sigma: 0.7}, L, nystrom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBatch(moved); err != nil {
		t.Fatal(err)
	}
	if err := compare(writeModel(t, m), glob, 50, 5); err == nil || !strings.Contains(err.Error(), "eigenvalues") {
		t.Errorf("moved points: error %v", err)
	}
}

// TestCompareSKPCA: the sketch of the same points in blocks passes.
func TestCompareSKPCA(t *testing.T) {
	glob, X := points(t, 300)
	s, err := ikpcabeam.NewSKPCA(kernel.RBF{Sigma: 1}, 3, stream.SKPCAOptions{Features: 40, Form: features.CosSin, Seed: 1, Sketch: 6})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddBatch(X); err != nil {
		t.Fatal(err)
	}
	if err := compare(writeModel(t, s), glob, 1, 1); err != nil {
		t.Errorf("the same points: %v", err)
	}
	if err := compare(writeModel(t, s), filepath.Join(t.TempDir(), "none*.csv"), 1, 1); err == nil {
		t.Error("no input files: no error")
	}
}

// TestSinLargestAngle: the angle between two planes in R⁴ that share one direction and
// turn the other by θ.
func TestSinLargestAngle(t *testing.T) {
	const theta = 0.3
	V := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 0, 0, 0, 0})
	W := mat.NewDense(4, 2, []float64{1, 0, 0, math.Cos(theta), 0, math.Sin(theta), 0, 0})
	// A few ε: one product, one subtraction and an SVD of entries at most 1.
	if got := sinLargestAngle(V, W); math.Abs(got-math.Sin(theta)) > 1e-15 {
		t.Errorf("sin θ = %v, want %v", got, math.Sin(theta))
	}
}

// TestScoreDifference: a column of flipped sign is no difference; a changed score is,
// relative to the largest.
func TestScoreDifference(t *testing.T) {
	Z := mat.NewDense(2, 2, []float64{1, -4, 2, 3})
	Y := mat.NewDense(2, 2, []float64{1, 4, 2.5, -3})
	if got := scoreDifference(Y, Z); got != 0.5/4 {
		t.Errorf("difference %v, want %v", got, 0.5/4)
	}
}
