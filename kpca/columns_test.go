package kpca

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/preimage"
)

// evalMatrix is K(X, Y) by Eval, entry by entry: the values a caller of a precomputed
// kernel computes itself.
func evalMatrix(k kernel.Kernel, X, Y *mat.Dense) *mat.Dense {
	r, _ := X.Dims()
	c, _ := Y.Dims()
	K := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			K.Set(i, j, k.Eval(X.RawRowView(i), Y.RawRowView(j)))
		}
	}
	return K
}

// TestColumnsEqualPoints is the requirement: a model built from a precomputed
// kernel matrix and streamed by columns equals one built from coordinates with the
// same kernel, to rounding — exact and at rank r, centred and uncentred, with points
// removed and a window slid by RemoveColumn(0)+AddColumn against a window model of
// points. The two see the same kernel values but for the batch start, which the model
// of points computes by kernel blocks (within (d+…)·ε of Eval per entry, docs/design.md,
// "Kernel blocks"), and the new points' kernel rows in Transform, likewise; everything
// else is the same arithmetic on the same values. Measured: eigenvalues within
// 8e-15·λ₁ and scores within 2e-14 of the largest, both backends. The tolerances,
// 1e-12·λ₁ and 1e-10, leave margins of 100 and 5000; a self-kernel off by 1e-9
// relative, or a row sum off by 1e-6, fails them.
func TestColumnsEqualPoints(t *testing.T) {
	X, k := sample(t, "yeast", 420)
	test := mat.DenseCopyOf(X.Slice(400, 420, 0, 8))
	for _, tc := range []struct {
		name   string
		opts   Options
		start  int // points fitted by Fit
		window int // slide a window of this many points by columns (0: none)
		remove bool
	}{
		{name: "exact centred", opts: Options{Components: All}, start: 100, remove: true},
		{name: "exact uncentred", opts: Options{Components: All, Uncentred: true}, start: 100, remove: true},
		{name: "rank 20 centred", opts: Options{Components: 5, Rank: 20}, start: 60, remove: true},
		{name: "rank 20 uncentred", opts: Options{Components: 5, Rank: 20, Uncentred: true}, start: 60},
		{name: "window 120 exact", opts: Options{Components: All}, start: 100, window: 120},
		{name: "window 150 rank 20", opts: Options{Components: 5, Rank: 20}, start: 100, window: 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 400
			popts := tc.opts
			popts.Window = tc.window
			// A window of points at rank r polishes itself (Options.WindowPolish), which
			// the model of columns, without a kernel, cannot: off, so that the two do the
			// same arithmetic.
			popts.WindowPolish.Every = -1
			pts := fitModel(t, k, X.Slice(0, tc.start, 0, 8), popts)
			K := evalMatrix(k, X.Slice(0, tc.start, 0, 8).(*mat.Dense), X.Slice(0, tc.start, 0, 8).(*mat.Dense))
			cols := fitModel(t, kernel.Precomputed{}, K, tc.opts)
			// held are the indices in X of the points both models hold, oldest first.
			var held []int
			for i := range tc.start {
				held = append(held, i)
			}
			colOf := func(x []float64) []float64 {
				col := make([]float64, len(held))
				for j, h := range held {
					col[j] = k.Eval(X.RawRowView(h), x)
				}
				return col
			}
			for i := tc.start; i < n; i++ {
				x := X.RawRowView(i)
				if err := pts.Add(x); err != nil {
					t.Fatal(err)
				}
				if tc.window > 0 && cols.Len() == tc.window {
					if err := cols.RemoveColumn(0, colOf(X.RawRowView(held[0]))); err != nil {
						t.Fatalf("point %d: %v", i, err)
					}
					held = held[1:]
				}
				if err := cols.AddColumn(colOf(x), k.Eval(x, x)); err != nil {
					t.Fatalf("point %d: %v", i, err)
				}
				held = append(held, i)
				if tc.remove && i%50 == 0 {
					// Remove the point in the middle from both.
					j := len(held) / 2
					if err := pts.Remove(j); err != nil {
						t.Fatal(err)
					}
					if err := cols.RemoveColumn(j, colOf(X.RawRowView(held[j]))); err != nil {
						t.Fatalf("point %d: %v", i, err)
					}
					held = append(held[:j], held[j+1:]...)
				}
			}
			compareModels(t, pts, cols, k, test)
		})
	}
}

// compareModels checks that the model of columns cols equals the model of points pts.
func compareModels(t *testing.T, pts, cols *Model, k kernel.Kernel, test *mat.Dense) {
	t.Helper()
	if pts.Len() != cols.Len() {
		t.Fatalf("points: %d of coordinates, %d of columns", pts.Len(), cols.Len())
	}
	a, b := pts.Values(nil), cols.Values(nil)
	if len(a) != len(b) {
		t.Fatalf("%d values of coordinates, %d of columns", len(a), len(b))
	}
	for j := range a {
		if d := math.Abs(a[j] - b[j]); d > 1e-12*a[0] {
			t.Errorf("λ%d: %g of coordinates, %g of columns, |Δ| = %.2g·λ₁", j, a[j], b[j], d/a[0])
		}
	}
	var held mat.Dense
	pts.Points(&held)
	Ktest := evalMatrix(k, test, &held)
	var sp, sc mat.Dense
	if err := pts.Transform(&sp, test, 3); err != nil {
		t.Fatal(err)
	}
	if err := cols.Transform(&sc, Ktest, 3); err != nil {
		t.Fatal(err)
	}
	if d, s := maxAbsDiff(&sp, &sc), mat.Norm(&sp, math.Inf(1)); d > 1e-10*s {
		t.Errorf("Transform: max |Δ| = %.2g of %.3g", d, s)
	}
	var tp, tc mat.Dense
	if err := pts.Scores(&tp, 3); err != nil {
		t.Fatal(err)
	}
	if err := cols.Scores(&tc, 3); err != nil {
		t.Fatal(err)
	}
	if d, s := maxAbsDiff(&tp, &tc), mat.Norm(&tp, math.Inf(1)); d > 1e-10*s {
		t.Errorf("Scores: max |Δ| = %.2g of %.3g", d, s)
	}
	if pb, cb := pts.ErrorBound(), cols.ErrorBound(); math.Abs(pb-cb) > 1e-8*math.Max(pb, a[0]*1e-12) {
		t.Errorf("ErrorBound: %g of coordinates, %g of columns", pb, cb)
	}
}

func maxAbsDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}

// TestColumnsErrors: a model of columns says, with an error and never a panic, what
// it cannot do without the kernel, refuses malformed columns and rows, and is then
// unchanged, bit for bit (its encoding).
func TestColumnsErrors(t *testing.T) {
	X, k := sample(t, "yeast", 60)
	K := evalMatrix(k, X, X)
	cols := fitModel(t, kernel.Precomputed{}, K.Slice(0, 50, 0, 50), Options{Components: 5, Window: 50})
	if cols.Dim() != 0 || cols.Len() != 50 {
		t.Fatalf("Dim %d, Len %d: want 0 and 50", cols.Dim(), cols.Len())
	}
	before := encode(t, cols)
	col := make([]float64, 50)
	copy(col, K.RawRowView(50)[:50])
	self := K.At(50, 50)
	nan := append([]float64(nil), col...)
	nan[7] = math.NaN()
	var dst mat.Dense
	for _, tc := range []struct {
		name string
		err  error
		op   func() error
	}{
		{"Remove", ErrNoKernel, func() error { return cols.Remove(3) }},
		{"Refresh", ErrNoKernel, cols.Refresh},
		{"Polish", ErrNoKernel, func() error { return cols.Polish(2) }},
		{"Certify", ErrNoKernel, func() error { _, err := cols.Certify(); return err }},
		{"Inverse", ErrNoKernel, func() error { _, err := cols.Inverse(2, 1); return err }},
		{"PreImage", ErrNoKernel, func() error {
			return cols.PreImage(&dst, X.Slice(0, 2, 0, 8), nil, 2, preimage.Options{})
		}},
		{"full window", ErrNoKernel, func() error { return cols.AddColumn(col, self) }},
		{"full window by Add", ErrNoKernel, func() error { return cols.Add(append(col, self)) }},
		{"full window by AddBatch", ErrNoKernel, func() error { return cols.AddBatch(K.Slice(50, 51, 0, 51)) }},
		{"short column", ErrDimension, func() error { return cols.AddColumn(col[:49], self) }},
		{"Add of coordinates", ErrDimension, func() error { return cols.Add(X.RawRowView(0)) }},
		{"AddBatch not b×(m+b)", ErrDimension, func() error { return cols.AddBatch(K.Slice(50, 52, 0, 51)) }},
		{"AddBatch nil", ErrArgument, func() error { return cols.AddBatch(nil) }},
		{"AddRows nil", ErrArgument, func() error { _, err := cols.AddRows(context.Background(), nil, nil); return err }},
		{"RemoveColumn index", ErrIndex, func() error { return cols.RemoveColumn(50, col) }},
		{"RemoveColumn length", ErrDimension, func() error { return cols.RemoveColumn(0, col[:3]) }},
		{"RemoveColumn NaN", ErrNonFinite, func() error { return cols.RemoveColumn(0, nan) }},
		// Point 50's column given as point 0's: its sum is not point 0's row sum.
		{"RemoveColumn of another point", ErrArgument, func() error { return cols.RemoveColumn(0, col) }},
		{"Transform of coordinates", ErrDimension, func() error { return cols.Transform(&dst, X, 2) }},
	} {
		err := tc.op()
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want an error wrapping %v", tc.name, err, tc.err)
		}
		if after := encode(t, cols); string(after) != string(before) {
			t.Fatalf("%s changed the model", tc.name)
		}
	}
	var p mat.Dense
	cols.Points(&p)
	if !p.IsEmpty() {
		t.Errorf("Points of a model of columns wrote %v", p.RawMatrix())
	}
	if d := cols.Drift(); !math.IsNaN(d.Residual) || d.Orthogonality > 1e-12 {
		t.Errorf("Drift %+v: want a NaN residual and the orthogonality", d)
	}
	// A non-finite value in a new column is refused, and nothing changes.
	if err := cols.RemoveColumn(0, K.RawRowView(0)[:50]); err != nil {
		t.Fatal(err)
	}
	before = encode(t, cols)
	nan = append([]float64(nil), K.RawRowView(50)[1:50]...)
	nan[3] = math.Inf(1)
	if err := cols.AddColumn(nan, self); !errors.Is(err, ErrNonFinite) {
		t.Errorf("AddColumn of +Inf: %v", err)
	}
	if err := cols.AddColumn(K.RawRowView(50)[1:50], math.NaN()); !errors.Is(err, ErrNonFinite) {
		t.Errorf("AddColumn of a NaN self-kernel: %v", err)
	}
	if after := encode(t, cols); string(after) != string(before) {
		t.Fatal("a refused column changed the model")
	}

	// Building one: the wrong shapes and options, and the column methods on a model of
	// points.
	for _, tc := range []struct {
		name string
		err  error
		op   func() error
	}{
		{"Fit not square", ErrDimension, func() error { _, err := Fit(kernel.Precomputed{}, X, Options{Components: 2}); return err }},
		{"New with d", ErrArgument, func() error { _, err := New(kernel.Precomputed{}, 3, Options{Components: 2}); return err }},
		{"drift control", ErrNoKernel, func() error {
			_, err := New(kernel.Precomputed{}, 0, Options{Components: 2, RefreshTolerance: 1e-6})
			return err
		}},
		{"AddColumn to points", ErrArgument, func() error {
			md := fitModel(t, k, X.Slice(0, 10, 0, 8), Options{Components: 2})
			return md.AddColumn(make([]float64, 10), 1)
		}},
		{"RemoveColumn of points", ErrArgument, func() error {
			md := fitModel(t, k, X.Slice(0, 10, 0, 8), Options{Components: 2})
			return md.RemoveColumn(0, make([]float64, 10))
		}},
		// What every other model checks its kernel with.
		{"kernel.Validate", kernel.ErrArgument, func() error { return kernel.Validate(kernel.Precomputed{}) }},
	} {
		if err := tc.op(); !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want an error wrapping %v", tc.name, err, tc.err)
		}
	}
}

// TestColumnsBatchAndEncoding: AddBatch and AddRows of kernel rows equal AddColumn a
// point at a time (the same arithmetic: bit for bit), an AddBatch with a bad row is all
// or nothing, and the encoding round-trips a model of columns, which then goes on as
// the original does.
func TestColumnsBatchAndEncoding(t *testing.T) {
	X, k := sample(t, "magic", 140)
	K := evalMatrix(k, X, X)
	for _, opts := range []Options{{Components: All}, {Components: 4, Rank: 12}, {Components: 4, Rank: 12, Uncentred: true}} {
		t.Run(name(opts), func(t *testing.T) {
			one := fitModel(t, kernel.Precomputed{}, K.Slice(0, 40, 0, 40), opts)
			for i := 40; i < 100; i++ {
				if err := one.AddColumn(K.RawRowView(i)[:i], K.At(i, i)); err != nil {
					t.Fatal(err)
				}
			}
			batch := fitModel(t, kernel.Precomputed{}, K.Slice(0, 40, 0, 40), opts)
			if err := batch.AddBatch(K.Slice(40, 70, 0, 70)); err != nil {
				t.Fatal(err)
			}
			n, err := batch.AddRows(context.Background(), K.Slice(70, 100, 0, 100), nil)
			if err != nil || n != 30 {
				t.Fatalf("AddRows: %d, %v", n, err)
			}
			if !capture(one).equal(capture(batch)) {
				t.Error("AddBatch and AddRows differ from AddColumn a point at a time")
			}
			// A NaN in the last row's self-kernel: nothing of the batch is added.
			bad := mat.DenseCopyOf(K.Slice(100, 110, 0, 110))
			bad.Set(9, 109, math.NaN())
			before := encode(t, batch)
			if err := batch.AddBatch(bad); !errors.Is(err, ErrNonFinite) {
				t.Errorf("AddBatch with a NaN: %v", err)
			}
			if string(encode(t, batch)) != string(before) {
				t.Error("a failed AddBatch changed the model")
			}
			back, err := decoded(encode(t, batch))
			if err != nil {
				t.Fatal(err)
			}
			if !capture(back).equal(capture(batch)) || back.Dim() != 0 {
				t.Fatal("the decoded model of columns differs")
			}
			for _, md := range []*Model{batch, back} {
				if err := md.AddColumn(K.RawRowView(100)[:100], K.At(100, 100)); err != nil {
					t.Fatal(err)
				}
				if err := md.RemoveColumn(5, columnOf(K, 5, 101)); err != nil {
					t.Fatal(err)
				}
			}
			if !capture(back).equal(capture(batch)) {
				t.Error("the decoded model went on differently")
			}
		})
	}
}

// columnOf is the kernel column of point j against points 0 to m−1 (K is symmetric).
func columnOf(K *mat.Dense, j, m int) []float64 {
	return append([]float64(nil), K.RawRowView(j)[:m]...)
}

// TestColumnsFit: Fit of a precomputed kernel matrix equals Fit of the points, exact
// (one batch decomposition each) and in a window (the last Window rows), and reads
// only the lower triangle: garbage above the diagonal changes nothing.
func TestColumnsFit(t *testing.T) {
	X, k := sample(t, "yeast", 320)
	train := mat.DenseCopyOf(X.Slice(0, 300, 0, 8))
	test := mat.DenseCopyOf(X.Slice(300, 320, 0, 8))
	K := evalMatrix(k, train, train)
	for i := range 300 {
		for j := i + 1; j < 300; j++ {
			K.Set(i, j, -7) // the upper triangle is not read
		}
	}
	for _, opts := range []Options{{Components: All}, {Components: All, Uncentred: true}, {Components: All, Window: 200}} {
		t.Run(name(opts), func(t *testing.T) {
			compareModels(t, fitModel(t, k, train, opts), fitModel(t, kernel.Precomputed{}, K, opts), k, test)
		})
	}
}

// TestIndefinitePrecomputed checks what Values' and Transform's docs promise for a
// precomputed matrix that is not positive semi-definite: the exact model reports its
// negative eigenvalues as they are (equal to a batch eigendecomposition of C·K·C), and
// the components of those values score zero, while the positive ones score as the
// training scores do.
func TestIndefinitePrecomputed(t *testing.T) {
	const m = 40
	rng := rand.New(rand.NewPCG(91, 92))
	// K = G·D·Gᵀ with D holding three negative weights among the positive ones: a
	// symmetric matrix with both signs in its centred spectrum, by construction.
	G := mat.NewDense(m, 8, nil)
	for i := range m {
		for j := range 8 {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	D := mat.NewDiagDense(8, []float64{9, 7, 5, 3, 2, -1, -4, -6})
	var GD, K mat.Dense
	GD.Mul(G, D)
	K.Mul(&GD, G.T())
	md := fitModel(t, kernel.Precomputed{}, &K, Options{Components: All})
	// The reference: the centred matrix's eigenvalues, descending, without the trivial
	// zero along 1 (Values' centred spectrum holds m−1).
	C := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			c := -1.0 / m
			if i == j {
				c += 1
			}
			C.Set(i, j, c)
		}
	}
	var CK, CKC mat.Dense
	CK.Mul(C, &K)
	CKC.Mul(&CK, C)
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(m, CKC.RawMatrix().Data), false) {
		t.Fatal("reference eigendecomposition failed")
	}
	ref := eig.Values(nil) // ascending
	got := md.Values(nil)
	if len(got) != m-1 {
		t.Fatalf("Values: %d values, want %d", len(got), m-1)
	}
	scale := math.Max(-ref[0], ref[m-1])
	// Both sides are backward stable eigensolvers of the same matrix: each value is off
	// by at most a small multiple of m·ε·‖K‖ (one product rounding each side).
	tol := 64 * m * 0x1p-52 * scale
	// Drop the reference's value closest to zero: the trivial one along 1.
	trivial := 0
	for i := range ref {
		if math.Abs(ref[i]) < math.Abs(ref[trivial]) {
			trivial = i
		}
	}
	want := make([]float64, 0, m-1)
	for i := m - 1; i >= 0; i-- {
		if i != trivial {
			want = append(want, ref[i])
		}
	}
	negative := 0
	for j := range got {
		if math.Abs(got[j]-want[j]) > tol {
			t.Errorf("value %d: %.17g, batch %.17g", j, got[j], want[j])
		}
		if want[j] < -tol {
			negative++
		}
	}
	if negative != 3 {
		t.Fatalf("%d negative values beyond rounding in the reference, want the 3 of D", negative)
	}
	// The training points' kernel rows, projected: each component of a negative value
	// scores zero exactly, and the others equal the training scores. The positive
	// values here are the five of D, of order 10²·m, so uⱼᵀk'ₓ/√λⱼ and √λⱼ·uⱼ agree to
	// about m·ε·‖K‖/√λⱼ ≈ 1e-12·√‖K‖; 1e-9 leaves room for any backend's rounding.
	var scores mat.Dense
	if err := md.Transform(&scores, &K, m-1); err != nil {
		t.Fatal(err)
	}
	var train mat.Dense
	if err := md.Scores(&train, m-1); err != nil {
		t.Fatal(err)
	}
	for j := range m - 1 {
		for i := range m {
			s := scores.At(i, j)
			switch {
			case got[j] < -tol:
				if s != 0 {
					t.Fatalf("point %d, component %d of value %.3g: score %.3g, want 0", i, j, got[j], s)
				}
			case got[j] > tol && math.Abs(s-train.At(i, j)) > 1e-9*math.Sqrt(scale):
				t.Fatalf("point %d, component %d: Transform %.17g, Scores %.17g", i, j, s, train.At(i, j))
			}
		}
	}
}
