package kpca_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/nystrom"
)

// Kernel PCA of the first 1000 Yeast points with a Gaussian kernel whose bandwidth σ is
// their median distance (kernel.DefaultBandwidth): the top 3 eigenvalues of the centred
// kernel matrix and the points' own scores, Scores — scikit-learn's
// KernelPCA(n_components=3, kernel="rbf", gamma=1/(2σ²)).fit_transform(X).
func ExampleFit() {
	X := data.Yeast().X.Slice(0, 1000, 0, 8)
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		fmt.Println(err)
		return
	}
	model, err := kpca.Fit(kernel.RBF{Sigma: sigma}, X, kpca.Options{Components: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	var fitted mat.Dense
	if err := model.Scores(&fitted, 3); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("σ = %.4f\n", sigma)
	fmt.Printf("eigenvalues %.2f\n", model.Values(nil))
	fmt.Printf("the first two points' scores\n%.4f\n", mat.Formatted(fitted.Slice(0, 2, 0, 3)))
	// Output:
	// σ = 0.3413
	// eigenvalues [101.97 71.32 43.48]
	// the first two points' scores
	// ⎡ 0.0741  -0.4635  -0.0518⎤
	// ⎣ 0.0930  -0.1052  -0.0650⎦
}

// A model fed one point at a time from empty, the stream's first 30 points: New, then
// Add. With Components All it is the exact kernel PCA of the points so far.
func ExampleNew() {
	X := data.Yeast().X
	model, err := kpca.New(kernel.RBF{Gamma: 4}, 8, kpca.Options{Components: kpca.All})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 30 {
		if err := model.Add(X.RawRowView(i)); err != nil {
			fmt.Println(err)
			return
		}
	}
	batch, err := kpca.Fit(kernel.RBF{Gamma: 4}, X.Slice(0, 30, 0, 8), kpca.Options{Components: kpca.All})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, w := model.Values(nil), batch.Values(nil)
	fmt.Printf("%d points, %d components, λ₁ = %.4f\n", model.Len(), model.Components(), v[0])
	fmt.Println("as a batch fit, to 1e-10 of λ₁:", math.Abs(v[len(v)-1]-w[len(w)-1]) < 1e-10*w[0] && math.Abs(v[0]-w[0]) < 1e-10*w[0])
	// Output:
	// 30 points, 29 components, λ₁ = 2.9959
	// as a batch fit, to 1e-10 of λ₁: true
}

// A sliding window over a stream: the top 2 components of the last 200 points of a
// MAGIC stream, updated as each point arrives and the oldest leaves. A window of at most
// DefaultExactWindow = 256 points keeps every pair by default (Rank() = 0): it is the
// batch kernel PCA of the window's points to rounding, which a fresh Fit of them shows,
// and its ErrorBound is zero. A larger window is tracked at Options.Rank and polishes
// itself from its points every Window steps (Options.WindowPolish), so that its
// ErrorBound stays within a constant of the true error however long the stream.
func ExampleModel_window() {
	X := data.Magic().X // 19,020 points, 10 features
	model, err := kpca.New(kernel.RBF{Sigma: 110}, 10, kpca.Options{Components: 2, Window: 200})
	if err != nil {
		log.Fatal(err)
	}
	for i := range 600 {
		if err := model.Add(X.RawRowView(i)); err != nil {
			log.Fatal(err)
		}
	}
	var window mat.Dense
	model.Points(&window) // the last 200 points, oldest first
	batch, err := kpca.Fit(kernel.RBF{Sigma: 110}, &window, kpca.Options{Components: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d points, rank %d (every pair), ErrorBound %g\n", model.Len(), model.Rank(), model.ErrorBound())
	for j, v := range model.Values(nil) {
		fmt.Printf("λ%d = %.6f, batch %.6f\n", j+1, v, batch.Values(nil)[j])
	}
	// Output:
	// 200 points, rank 0 (every pair), ErrorBound 0
	// λ1 = 30.845177, batch 30.845177
	// λ2 = 15.024055, batch 15.024055
}

// Components k tracked at a rank: the top 3 components of 3000 MAGIC points, of which
// Fit decomposes the first 1000 (BatchMax) and tracks the others at rank 20, never
// forming the 3000×3000 kernel matrix. ErrorBound certifies what the truncations lost,
// and ValueBounds brackets each eigenvalue of the points' centred kernel matrix.
func ExampleModel_rank() {
	X := data.Magic().X.Slice(0, 3000, 0, 10)
	model, err := kpca.Fit(kernel.RBF{Sigma: 110}, X, kpca.Options{Components: 3, Rank: 20, BatchMax: 1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := model.Values(nil)
	lo, hi := model.ValueBounds(nil, nil)
	fmt.Printf("%d points, %d components of the %d tracked; ‖K′ − K̃‖₂ ≤ %.1g·λ₁\n", model.Len(), model.Components(), model.Rank(), model.ErrorBound()/v[0])
	for j := range v {
		fmt.Printf("λ%d = %.2f in [%.2f, %.2f]\n", j+1, v[j], lo[j], hi[j])
	}
	// Output:
	// 3000 points, 3 components of the 20 tracked; ‖K′ − K̃‖₂ ≤ 0.06·λ₁
	// λ1 = 447.19 in [432.23, 472.00]
	// λ2 = 220.53 in [205.57, 245.34]
	// λ3 = 172.19 in [157.22, 197.00]
}

// Polish and Certify: the model of ExampleModel_rank, tracked at rank 20, polished by
// four passes over its 3000 points (block Krylov from the tracked vectors, never
// forming the kernel matrix), then certified from the true kernel matrix in two more
// passes: intervals a few 1e-12 of λ₁ wide (twice the worst-case rounding allowance),
// and sines of the top vectors, each failing with probability below 1e-9 — where
// ValueBounds, free at every step, allowed ±15.
func ExampleModel_Polish() {
	X := data.Magic().X.Slice(0, 3000, 0, 10)
	model, err := kpca.Fit(kernel.RBF{Sigma: 110}, X, kpca.Options{Components: 3, Rank: 20, BatchMax: 1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := model.Polish(4); err != nil {
		fmt.Println(err)
		return
	}
	c, err := model.Certify()
	if err != nil {
		fmt.Println(err)
		return
	}
	v := model.Values(nil)
	fmt.Printf("failure probability ≤ %.0e\n", c.Failure)
	for j := range v {
		fmt.Printf("λ%d = %.6f, interval narrower than 1e-11·λ₁: %v, top-%d sine below 1e-10: %v\n",
			j+1, v[j], c.Upper[j]-c.Lower[j] < 1e-11*v[0], j+1, c.Sine[j] < 1e-10)
	}
	// Output:
	// failure probability ≤ 9e-10
	// λ1 = 447.189380, interval narrower than 1e-11·λ₁: true, top-1 sine below 1e-10: true
	// λ2 = 220.527568, interval narrower than 1e-11·λ₁: true, top-2 sine below 1e-10: true
	// λ3 = 172.186051, interval narrower than 1e-11·λ₁: true, top-3 sine below 1e-10: true
}

// A model fitted from a starting subspace, without tracking the points: the scores of a
// Nyström model of 200 landmarks lifted to the 3000 points, refined by six passes over
// them; its values agree with the batch's and its certificate holds, whatever the start
// (docs/design.md, "Starting subspaces").
func ExampleFitFrom() {
	X := data.Magic().X.Slice(0, 3000, 0, 10)
	k := kernel.RBF{Sigma: 110}
	nys, err := nystrom.Fit(k, X, nystrom.Options{Landmarks: 200, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	var lifted mat.Dense
	if err := nys.Transform(&lifted, X, 20); err != nil {
		log.Fatal(err)
	}
	model, err := kpca.FitFrom(k, X, kpca.Start{Vectors: &lifted, Passes: 6}, kpca.Options{Components: 3, Rank: 20})
	if err != nil {
		log.Fatal(err)
	}
	c, err := model.Certify()
	if err != nil {
		log.Fatal(err)
	}
	v := model.Values(nil)
	for j := range v {
		fmt.Printf("λ%d = %.6f, interval narrower than 1e-11·λ₁: %v\n", j+1, v[j], c.Upper[j]-c.Lower[j] < 1e-11*v[0])
	}
	// Output:
	// λ1 = 447.189380, interval narrower than 1e-11·λ₁: true
	// λ2 = 220.527568, interval narrower than 1e-11·λ₁: true
	// λ3 = 172.186051, interval narrower than 1e-11·λ₁: true
}

// Removing a point gives the model of the others: the exact model (Components All)
// agrees with a batch fit of the points left to rounding.
func ExampleModel_Remove() {
	X := data.Yeast().X
	opts := kpca.Options{Components: kpca.All}
	model, err := kpca.Fit(kernel.RBF{Gamma: 4}, X.Slice(0, 100, 0, 8), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := model.Remove(0); err != nil { // the oldest point
		fmt.Println(err)
		return
	}
	others, err := kpca.Fit(kernel.RBF{Gamma: 4}, X.Slice(1, 100, 0, 8), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	got, want := model.Values(nil), others.Values(nil)
	var worst float64
	for j := range want {
		worst = math.Max(worst, math.Abs(got[j]-want[j])/want[0])
	}
	fmt.Printf("%d points; a fit of the other points to 1e-12·λ₁: %v\n", model.Len(), worst < 1e-12)
	// Output:
	// 99 points; a fit of the other points to 1e-12·λ₁: true
}

// A model saved and restored through bytes continues exactly as the original: the
// same eigenvalues after the same next point, bit for bit. MarshalBinaryTo and
// UnmarshalBinaryFrom do the same through an io.Writer and an io.Reader.
func ExampleModel_MarshalBinary() {
	X := data.Yeast().X
	model, err := kpca.Fit(kernel.RBF{Gamma: 4}, X.Slice(0, 200, 0, 8), kpca.Options{Components: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := model.MarshalBinary()
	if err != nil {
		fmt.Println(err)
		return
	}
	var restored kpca.Model
	if err := restored.UnmarshalBinary(b); err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	if _, err := model.MarshalBinaryTo(&buf); err != nil {
		fmt.Println(err)
		return
	}
	var streamed kpca.Model
	if _, err := streamed.UnmarshalBinaryFrom(&buf); err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range []*kpca.Model{model, &restored, &streamed} {
		if err := m.Add(X.RawRowView(200)); err != nil {
			fmt.Println(err)
			return
		}
	}
	same := func(a, b []float64) bool { return fmt.Sprint(a) == fmt.Sprint(b) }
	v := model.Values(nil)
	fmt.Printf("%d points; the same next step: %v, %v\n", restored.Len(), same(v, restored.Values(nil)), same(v, streamed.Values(nil)))
	// Output:
	// 201 points; the same next step: true, true
}

// AddRows adds rows one at a time with progress and can be stopped between two points:
// the model then holds the points added so far, as valid as after as many calls of Add.
func ExampleModel_AddRows() {
	X := data.Yeast().X
	model, err := kpca.New(kernel.RBF{Gamma: 4}, 8, kpca.Options{Components: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	added, err := model.AddRows(ctx, X.Slice(0, 1000, 0, 8), func(added, total int) {
		if added%100 == 0 {
			fmt.Printf("%d of %d\n", added, total)
		}
		if added == 250 {
			cancel() // a user's Ctrl-C, say
		}
	})
	fmt.Println(added, "added;", model.Len(), "points; cancelled:", errors.Is(err, context.Canceled))
	// Output:
	// 100 of 1000
	// 200 of 1000
	// 250 added; 250 points; cancelled: true
}

// A tracked fit that a Polish will follow computes its kernel values once: KeepKernel,
// before the rows are added, keeps the triangle of K for the block steps and the passes
// (here 2000 points of 64 coordinates in four clusters, whose values a pass keeps).
func ExampleModel_KeepKernel() {
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(2000, 64, nil)
	for i := range 2000 {
		c := float64(i % 4)
		for j := range 64 {
			X.Set(i, j, c*float64(j%3)+rng.NormFloat64())
		}
	}
	model, err := kpca.Fit(kernel.RBF{Sigma: 12}, X.Slice(0, 500, 0, 64), kpca.Options{Components: 3, Rank: 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	rest := X.Slice(500, 2000, 0, 64)
	if err := model.KeepKernel(rest); err != nil {
		fmt.Println(err)
		return
	}
	if err := model.AddBatch(rest); err != nil { // the block steps read their columns
		fmt.Println(err)
		return
	}
	if err := model.Polish(3); err != nil { // and so does every pass
		fmt.Println(err)
		return
	}
	for j, v := range model.Values(nil) {
		fmt.Printf("λ%d = %.6f\n", j+1, v)
	}
	// Output:
	// λ1 = 387.960926
	// λ2 = 144.308511
	// λ3 = 23.415247
}
