package chinsuter

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// checkAgainstBatch compares the model with batch kernel PCA of the first n rows of X:
// every eigenvalue above the numerical-zero level, the top-k subspace and projections
// of test points.
func checkAgainstBatch(t *testing.T, md *Model, X *mat.Dense, n, k int, test *mat.Dense) {
	t.Helper()
	Xn := mat.DenseCopyOf(X.Slice(0, n, 0, X.RawMatrix().Cols))
	b := newBatch(t, md.kern, Xn)
	got := md.Values(nil)
	lmax := b.values[0]
	// The model drops eigenvalues below n·ε·max(λmax, tr K) (numerical zero); the
	// batch values clearly above that line must all be there, and none clearly below.
	var trace float64
	for i := range n {
		trace += md.kern.Eval(Xn.RawRowView(i), Xn.RawRowView(i))
	}
	zero := float64(n) * 0x1p-52 * math.Max(lmax, trace)
	above, notBelow := 0, 0
	for _, v := range b.values {
		if v > 100*zero {
			above++
		}
		if v > zero/100 {
			notBelow++
		}
	}
	if len(got) < above || len(got) > notBelow {
		t.Fatalf("n=%d: %d components, batch has %d above the zero level and %d near it", n, len(got), above, notBelow)
	}
	for j := range min(len(got), notBelow) {
		if d := math.Abs(got[j] - b.values[j]); d > 1e-10*math.Max(lmax, trace) {
			t.Fatalf("n=%d: λ_%d = %.17g, batch %.17g (|Δ| = %.3g·λmax)", n, j, got[j], b.values[j], d/lmax)
		}
	}
	// The subspace of the top k axes (the largest k ≤ the one asked for after which
	// the spectrum has a clear gap) must agree. Each update drops the part h of the
	// new data below the zero level (‖h‖² ≤ zero), which perturbs the covariance by
	// up to ‖h‖·‖Ẽ‖ through the cross terms: after n updates the sine is at most
	// about √(zero·tr K)/gap.
	for k > 0 && b.values[k-1]-b.values[k] < 1e-6*lmax {
		k--
	}
	if k > 0 {
		gap := b.values[k-1] - b.values[k]
		if s := angles(t, md, b, k); s > math.Sqrt(zero*trace)/gap+1e-10 {
			t.Fatalf("n=%d: largest principal angle sine of the top %d = %.3g (gap %.3g·λmax)", n, k, s, gap/lmax)
		}
	}
	// Orthonormality in feature space, measured in explicit coordinates, of the axes
	// with λ ≥ 1e-6·λmax. An axis of eigenvalue λ is determined to about zero/λ (its
	// coefficients are of size 1/√λ), so that is the scale of the bound.
	top := 0
	for _, v := range got {
		if v >= 1e-6*lmax {
			top++
		}
	}
	if top > 0 {
		if o := orthTop(t, md, b, top); o > 1e4*zero/got[top-1]+1e-10 {
			t.Fatalf("n=%d: the top %d axes are orthonormal to %.3g only", n, top, o)
		}
	}
	if test != nil && k > 0 {
		// Projections of new points: the batch score is u_jᵀ(k_x − K1/n)/√λ_j.
		var got mat.Dense
		if err := md.Transform(&got, test, k); err != nil {
			t.Fatal(err)
		}
		K := kernel.Matrix(md.kern, Xn)
		rows := test.RawMatrix().Rows
		kx := make([]float64, n)
		for i := range rows {
			kernel.Column(kx, md.kern, Xn, test.RawRowView(i))
			for l := range n {
				var s float64
				for m := range n {
					s += K.At(l, m)
				}
				kx[l] -= s / float64(n)
			}
			for j := range k {
				var s float64
				for l := range n {
					s += b.u.At(l, j) * kx[l]
				}
				s /= math.Sqrt(b.values[j])
				g := got.At(i, j)
				if math.Abs(math.Abs(g)-math.Abs(s)) > 1e-7*(1+math.Abs(s)) {
					t.Fatalf("n=%d: projection of test point %d on axis %d = %.12g, batch ±%.12g", n, i, j, g, s)
				}
			}
		}
	}
}

func TestExactEqualsBatchAfterEveryUpdate(t *testing.T) {
	cases := []struct {
		name   string
		k      kernel.Kernel
		X      *mat.Dense
		n0, c  int
		topK   int
		stride int // check every stride-th update (all in the long run)
	}{
		{"toy rbf σ=1, c=1", kernel.RBF{Sigma: 1}, toy(90, 1), 1, 1, 4, 1},
		{"toy rbf σ=1, c=4", kernel.RBF{Sigma: 1}, toy(90, 2), 6, 4, 4, 1},
		{"gaussian 5-D rbf σ=2, c=1", kernel.RBF{Sigma: 2}, gaussian(80, 5, 3), 3, 1, 8, 1},
		{"gaussian 5-D rbf σ=2, c=7", kernel.RBF{Sigma: 2}, gaussian(80, 5, 4), 2, 7, 8, 1},
		{"polynomial degree 2 (rank 5 centred)", kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, gaussian(60, 2, 5), 2, 1, 5, 1},
		{"laplacian, c=3", kernel.Laplacian{Sigma: 1.5}, gaussian(70, 3, 6), 4, 3, 6, 1},
	}
	if testing.Short() {
		cases = cases[:3]
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			test := gaussian(5, tc.X.RawMatrix().Cols, 99)
			md, err := Fit(tc.k, tc.X.Slice(0, tc.n0, 0, tc.X.RawMatrix().Cols), Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := tc.n0
			total := tc.X.RawMatrix().Rows
			for step := 0; n < total; step++ {
				c := min(tc.c, total-n)
				if err := md.AddBatch(tc.X.Slice(n, n+c, 0, tc.X.RawMatrix().Cols)); err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
				n += c
				if md.Len() != n {
					t.Fatalf("Len = %d, want %d", md.Len(), n)
				}
				k := min(tc.topK, md.Components())
				checkAgainstBatch(t, md, tc.X, n, k, test)
			}
		})
	}
}

// TestNewStartsEmpty: a model made by New has no points, values or expansion; its
// first Add is the model Fit makes of that point, bit for bit (the first chunk's update
// is the batch kernel PCA of the chunk); points added one at a time, and a first chunk
// of many, equal batch kernel PCA (checkAgainstBatch's tolerances), compressed models
// stay within their budget.
func TestNewStartsEmpty(t *testing.T) {
	X := toy(40, 21)
	k := kernel.RBF{Sigma: 1}
	md, err := New(k, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if md.Len() != 0 || md.Dim() != 2 || len(md.Values(nil)) != 0 || md.Components() != 0 || md.Expansion() != 0 {
		t.Fatalf("New: %d points of dimension %d, %d values", md.Len(), md.Dim(), len(md.Values(nil)))
	}
	if A, alpha, nu := md.Expansions(); A != nil || alpha != nil || nu != nil {
		t.Error("New: an expansion without points")
	}
	var v mat.Dense
	md.VectorsTo(&v)
	if !v.IsEmpty() {
		t.Error("New: VectorsTo wrote vectors")
	}
	if err := md.Transform(&mat.Dense{}, X, 1); !errors.Is(err, ErrEmpty) {
		t.Errorf("New: Transform = %v, want ErrEmpty", err)
	}
	if err := md.Add(X.RawRowView(0)); err != nil {
		t.Fatal(err)
	}
	one, err := Fit(k, X.Slice(0, 1, 0, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameSnapshot(snap(md), snap(one)) {
		t.Errorf("New and one Add: %+v, Fit of the point: %+v", snap(md), snap(one))
	}
	for n := 1; n < 40; n++ {
		if err := md.Add(X.RawRowView(n)); err != nil {
			t.Fatal(err)
		}
		checkAgainstBatch(t, md, X, n+1, min(4, md.Components()), nil)
	}
	chunk, err := New(k, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := chunk.AddBatch(X); err != nil {
		t.Fatal(err)
	}
	checkAgainstBatch(t, chunk, X, 40, 4, nil)

	c, err := New(k, 2, Options{Components: 3, Compression: &Compression{PreImages: 4}})
	if err != nil {
		t.Fatal(err)
	}
	for n := range 40 {
		if err := c.Add(X.RawRowView(n)); err != nil {
			t.Fatal(err)
		}
		if c.Expansion() > 16 || c.Components() > 3 {
			t.Fatalf("compressed, %d points: %d expansion points, %d components", n+1, c.Expansion(), c.Components())
		}
	}
}

func TestExactDuplicatesAndRepeats(t *testing.T) {
	// Duplicated points, a point repeated many times, and a chunk of identical points:
	// H is then (numerically) zero and no direction must be invented.
	X := toy(30, 8)
	rows := [][]float64{}
	for i := range 30 {
		rows = append(rows, X.RawRowView(i))
	}
	for range 10 {
		rows = append(rows, X.RawRowView(3))
	}
	for i := range 10 {
		rows = append(rows, X.RawRowView(i))
	}
	Y := mat.NewDense(len(rows), 2, nil)
	for i, r := range rows {
		Y.SetRow(i, r)
	}
	md, err := Fit(kernel.RBF{Sigma: 1}, Y.Slice(0, 1, 0, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if md.Components() != 0 {
		t.Fatalf("one point: %d components, want 0", md.Components())
	}
	for n := 1; n < len(rows); n++ {
		if err := md.Add(rows[n]); err != nil {
			t.Fatal(err)
		}
		checkAgainstBatch(t, md, Y, n+1, min(3, md.Components()), nil)
	}
	// A chunk of five copies of one point.
	Z := mat.NewDense(5, 2, nil)
	for i := range 5 {
		Z.SetRow(i, rows[0])
	}
	if err := md.AddBatch(Z); err != nil {
		t.Fatal(err)
	}
	all := mat.NewDense(len(rows)+5, 2, nil)
	all.Slice(0, len(rows), 0, 2).(*mat.Dense).Copy(Y)
	all.Slice(len(rows), len(rows)+5, 0, 2).(*mat.Dense).Copy(Z)
	checkAgainstBatch(t, md, all, len(rows)+5, 3, nil)
}

func TestSameModelWhateverTheChunking(t *testing.T) {
	// Chunk sizes change the path, not the result (exact form).
	X := gaussian(40, 4, 12)
	var ref []float64
	for _, c := range []int{1, 2, 5, 13, 36} {
		md, err := Fit(kernel.RBF{Sigma: 2}, X.Slice(0, 4, 0, 4), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for n := 4; n < 40; n += c {
			if err := md.AddBatch(X.Slice(n, min(n+c, 40), 0, 4)); err != nil {
				t.Fatal(err)
			}
		}
		v := md.Values(nil)
		if ref == nil {
			ref = v
			continue
		}
		if len(v) != len(ref) {
			t.Fatalf("chunk %d: %d components, chunk 1 %d", c, len(v), len(ref))
		}
		for j := range v {
			if math.Abs(v[j]-ref[j]) > 1e-10*ref[0] {
				t.Fatalf("chunk %d: λ_%d = %v, chunk 1 %v", c, j, v[j], ref[j])
			}
		}
	}
}

func TestTruncatedIsCloseOnFastDecay(t *testing.T) {
	// With a cap on r, the update is Lim et al.'s truncated one: an approximation, good
	// when the spectrum decays fast (the toy with σ = 1). The error is measured, and
	// the top axes must stay close to batch.
	X := toy(300, 21)
	for _, r := range []int{8, 15} {
		md, err := Fit(kernel.RBF{Sigma: 1}, X.Slice(0, 10, 0, 2), Options{Components: r})
		if err != nil {
			t.Fatal(err)
		}
		for n := 10; n < 300; n++ {
			if err := md.Add(X.RawRowView(n)); err != nil {
				t.Fatal(err)
			}
			if md.Components() > r {
				t.Fatalf("%d components, cap %d", md.Components(), r)
			}
		}
		b := newBatch(t, md.kern, X)
		s := angles(t, md, b, 3)
		got := md.Values(nil)
		rel := math.Abs(got[0]-b.values[0]) / b.values[0]
		t.Logf("r = %d: top-3 principal angle sine %.2g, relative error of λ₁ %.2g", r, s, rel)
		if s > 1e-3 || rel > 1e-4 {
			t.Fatalf("r = %d: top-3 sine %.3g, λ₁ error %.3g", r, s, rel)
		}
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	X := toy(20, 3)
	md, err := Fit(kernel.RBF{Sigma: 1}, X.Slice(0, 10, 0, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := snap(md)
	bad := []struct {
		name string
		call func() error
	}{
		{"NaN", func() error { return md.Add([]float64{math.NaN(), 0}) }},
		{"Inf in a batch", func() error {
			return md.AddBatch(mat.NewDense(2, 2, []float64{0, 1, math.Inf(1), 0}))
		}},
		{"wrong dimension", func() error { return md.Add([]float64{1, 2, 3}) }},
		{"wrong batch dimension", func() error { return md.AddBatch(mat.NewDense(1, 3, nil)) }},
		{"nil batch", func() error { return md.AddBatch(nil) }},
		{"transform NaN", func() error {
			var d mat.Dense
			return md.Transform(&d, mat.NewDense(1, 2, []float64{math.NaN(), 1}), 1)
		}},
		{"transform k=0", func() error {
			var d mat.Dense
			return md.Transform(&d, mat.NewDense(1, 2, nil), 0)
		}},
		{"transform too many", func() error {
			var d mat.Dense
			return md.Transform(&d, mat.NewDense(1, 2, nil), md.Components()+1)
		}},
		{"transform wrong dst", func() error {
			d := mat.NewDense(3, 3, nil)
			return md.Transform(d, mat.NewDense(1, 2, nil), 1)
		}},
	}
	for _, tc := range bad {
		if err := tc.call(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
		if !sameSnapshot(before, snap(md)) {
			t.Fatalf("%s: the model changed", tc.name)
		}
	}
	// An overflowing polynomial kernel value is an error that changes nothing.
	pm, err := Fit(kernel.Polynomial{Degree: 40, Gamma: 1, Coef0: 1}, mat.NewDense(2, 1, []float64{0.1, 0.2}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	pb := snap(pm)
	if err := pm.Add([]float64{1e10}); err == nil {
		t.Error("overflowing kernel: no error")
	}
	if !sameSnapshot(pb, snap(pm)) {
		t.Fatal("overflowing kernel: the model changed")
	}

	// Constructor errors.
	for i, f := range []func() (*Model, error){
		func() (*Model, error) { return Fit(nil, X, Options{}) },
		func() (*Model, error) { return Fit(kernel.RBF{Sigma: 0}, X, Options{}) },
		func() (*Model, error) { return Fit(kernel.RBF{Sigma: 1}, nil, Options{}) },
		func() (*Model, error) {
			return Fit(kernel.RBF{Sigma: 1}, mat.NewDense(1, 2, []float64{math.NaN(), 0}), Options{})
		},
		func() (*Model, error) { return Fit(kernel.RBF{Sigma: 1}, X, Options{Components: -1}) },
		func() (*Model, error) {
			return Fit(kernel.Linear{}, X, Options{Components: 2, Compression: &Compression{PreImages: 2}})
		},
		func() (*Model, error) {
			return Fit(kernel.RBF{Sigma: 1}, X, Options{Compression: &Compression{PreImages: 2}})
		},
		func() (*Model, error) {
			return Fit(kernel.RBF{Sigma: 1}, X, Options{Components: 2, Compression: &Compression{}})
		},
		func() (*Model, error) {
			return Fit(kernel.RBF{Sigma: 1}, X, Options{Components: 2, Compression: &Compression{PreImages: 2, Tol: math.NaN()}})
		},
	} {
		if md, err := f(); err == nil || md != nil {
			t.Errorf("constructor case %d: model %v, error %v", i, md, err)
		}
	}
}

func ExampleModel() {
	X := toy(200, 1)
	md, err := Fit(kernel.RBF{Sigma: 1}, X.Slice(0, 10, 0, 2), Options{})
	if err != nil {
		panic(err)
	}
	for i := 10; i < 200; i++ {
		if err := md.Add(X.RawRowView(i)); err != nil {
			panic(err)
		}
	}
	v := md.Values(nil)
	fmt.Printf("%d points, top eigenvalues of the centred kernel matrix: %.4f %.4f %.4f\n",
		md.Len(), v[0], v[1], v[2])
	var scores mat.Dense
	if err := md.Transform(&scores, mat.NewDense(1, 2, []float64{0, 0}), 2); err != nil {
		panic(err)
	}
	fmt.Printf("projection of the origin has %d coordinates\n", scores.RawMatrix().Cols)
	// Output:
	// 200 points, top eigenvalues of the centred kernel matrix: 34.8469 17.7046 3.6412
	// projection of the origin has 2 coordinates
}
