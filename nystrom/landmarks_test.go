package nystrom

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// rowIndex returns the index of the first row of X equal to x, or −1.
func rowIndex(X *mat.Dense, x []float64) int {
	n, _ := X.Dims()
	for i := range n {
		if slices.Equal(X.RawRowView(i), x) {
			return i
		}
	}
	return -1
}

// TestChooseUniform: r distinct rows of X, the same for the same seed and others for
// another.
func TestChooseUniform(t *testing.T) {
	X := points(t, "magic", 300, 1)
	k := rbfMedian(t, X)
	choose := func(seed uint64) []int {
		L, err := Choose(k, X, Options{Landmarks: 40, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var idx []int
		for i := range 40 {
			j := rowIndex(X, L.RawRowView(i))
			if j < 0 || slices.Contains(idx, j) {
				t.Fatalf("landmark %d is row %d, twice or not of X", i, j)
			}
			idx = append(idx, j)
		}
		return idx
	}
	a, b, c := choose(1), choose(1), choose(2)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Errorf("seed 1 twice: %v, %v; seed 2: %v", a[:5], b[:5], c[:5])
	}
}

// TestChooseStream: Stream keeps rows in their order, skips duplicates of rows kept
// (here every row comes three times), and stops at the data's rank: a linear kernel in
// three dimensions has three directions, whatever Options.Landmarks asks.
func TestChooseStream(t *testing.T) {
	base := points(t, "yeast", 60, 2)
	n, d := base.Dims()
	X := mat.NewDense(3*n, d, nil)
	for i := range n {
		for c := range 3 {
			X.SetRow(3*i+c, base.RawRowView(i))
		}
	}
	L, err := Choose(rbfMedian(t, base), X, Options{Landmarks: 30, Strategy: Stream})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := L.Dims(); r != 30 {
		t.Fatalf("%d landmarks, want 30", r)
	}
	for i := range 30 {
		// Yeast has duplicate rows of its own: the i-th landmark is the i-th distinct
		// row at the latest.
		if j := rowIndex(base, L.RawRowView(i)); j < i || j > i+2 || i > 0 && j <= rowIndex(base, L.RawRowView(i-1)) {
			t.Fatalf("landmark %d is row %d of the data, after %d", i, j, rowIndex(base, L.RawRowView(max(i-1, 0))))
		}
	}
	lin := rows(points(t, "magic", 50, 3), 0, 50).Slice(0, 50, 0, 3).(*mat.Dense)
	for _, s := range []Strategy{Stream, Greedy} {
		L, err := Choose(kernel.Linear{}, mat.DenseCopyOf(lin), Options{Landmarks: 6, Strategy: s})
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := L.Dims(); r != 3 {
			t.Errorf("%v: %d landmarks for a linear kernel in three dimensions, want 3", s, r)
		}
	}
	// Uniform takes 6 anyway; the model keeps the 3 directions.
	m, err := Fit(kernel.Linear{}, mat.DenseCopyOf(lin), Options{Landmarks: 6})
	if err != nil {
		t.Fatal(err)
	}
	if m.Options().Landmarks != 6 || m.Features() != 3 {
		t.Errorf("uniform, linear kernel: %d landmarks, %d features; want 6 and 3", m.Options().Landmarks, m.Features())
	}
}

// TestChooseGreedy: each landmark Greedy picks has the largest Nyström error among the
// rows given the landmarks before it, as an oracle computes it from scratch (the
// diagonal of K − K_{:,S}·K_SS⁻¹·K_{S,:}, with gonum's Cholesky) — up to rounding: the
// pick's error is within 1e-9·max k(x, x) of the largest, a property that near-ties
// cannot break; and the trace of K − K̃ falls with every landmark.
func TestChooseGreedy(t *testing.T) {
	X := points(t, "magic", 120, 4)
	k := rbfMedian(t, X)
	L, err := Choose(k, X, Options{Landmarks: 15, Strategy: Greedy})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := X.Dims()
	K := kernel.Matrix(k, X)
	var S []int
	prev := math.Inf(1)
	for step := range 15 {
		// The oracle's errors given S.
		e := make([]float64, n)
		for i := range n {
			e[i] = K.At(i, i)
		}
		if len(S) > 0 {
			kss := mat.NewSymDense(len(S), nil)
			for a, i := range S {
				for b, j := range S {
					kss.SetSym(a, b, K.At(i, j))
				}
			}
			var ch mat.Cholesky
			if !ch.Factorize(kss) {
				t.Fatal("K_SS is not positive definite")
			}
			for i := range n {
				ks := mat.NewVecDense(len(S), nil)
				for a, j := range S {
					ks.SetVec(a, K.At(i, j))
				}
				var sol mat.VecDense
				if err := ch.SolveVecTo(&sol, ks); err != nil {
					t.Fatal(err)
				}
				e[i] -= mat.Dot(ks, &sol)
			}
		}
		var trace float64
		for _, v := range e {
			trace += v
		}
		if !(trace < prev) {
			t.Errorf("step %d: trace error %g after %g", step, trace, prev)
		}
		prev = trace
		pick := rowIndex(X, L.RawRowView(step))
		if best := slices.Max(e); e[pick] < best-1e-9 {
			t.Errorf("step %d: picked row %d of error %g, the largest is %g", step, pick, e[pick], best)
		}
		S = append(S, pick)
	}
}
