package nystrom

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// sentinels are the package's.
var sentinels = errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument, ErrEncoding, ErrNotConverged)

// TestErrorKinds: every exported function and method of the package that returns an
// error, given zero-valued and hostile arguments — every bad kernel
// (testmat.BadKernels), zero, negative and NaN options, nil, empty and non-finite
// points, landmarks of another dimension, zero receivers — returns an error that wraps
// the right ikpca kind and the package's sentinel of it, first, and no other kind,
// without panicking. The table calls every exported function and method that returns an
// error (Cover reads the source).
func TestErrorKinds(t *testing.T) {
	X := points(t, "yeast", 40, 1)
	L := rows(X, 0, 5)
	rbf := kernel.RBF{Sigma: 1}
	nanK := kernel.Func{Name: "nan", F: func(x, y []float64) float64 { return math.NaN() }}
	withNaN := mat.DenseCopyOf(L)
	withNaN.Set(2, 3, math.NaN())
	var nilDense *mat.Dense
	badOpts := []Options{
		{Landmarks: -1}, {Strategy: 3}, {Strategy: -1}, {Tolerance: math.NaN()}, {Tolerance: 1},
		{Tolerance: -1e-3}, {Tolerance: math.Inf(1)},
	}
	m, err := Fit(rbf, X, Options{Landmarks: 6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(rbf, mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1}), Options{}) // landmarks of dimension 2
	if err != nil {
		t.Fatal(err)
	}
	enc := wiretest.Marshal(t, m)
	var zero Model
	var cases errtest.Cases
	add := cases.Add
	for _, b := range testmat.BadKernels() {
		add("New: kernel "+b.Name, ikpca.ErrArgument, func() error { _, err := New(b.Kernel, L, Options{}); return err })
		add("Fit: kernel "+b.Name, ikpca.ErrArgument, func() error { _, err := Fit(b.Kernel, X, Options{Landmarks: 3}); return err })
		add("Choose: kernel "+b.Name, ikpca.ErrArgument, func() error { _, err := Choose(b.Kernel, X, Options{Landmarks: 3}); return err })
		add("NewApproximation: kernel "+b.Name, ikpca.ErrArgument, func() error {
			_, err := NewApproximation(b.Kernel, X, ApproximationOptions{})
			return err
		})
	}
	for _, o := range badOpts {
		what := fmt.Sprintf("%+v", o)
		add("New: options "+what, ikpca.ErrArgument, func() error { _, err := New(rbf, L, o); return err })
		add("Fit: options "+what, ikpca.ErrArgument, func() error { _, err := Fit(rbf, X, o); return err })
		add("Choose: options "+what, ikpca.ErrArgument, func() error { _, err := Choose(rbf, X, o); return err })
	}
	for _, c := range errtest.BadPoints(withNaN) {
		add("New: landmarks "+c.What, c.Kind, func() error { _, err := New(rbf, c.X, Options{}); return err })
		add("Fit: points "+c.What, c.Kind, func() error { _, err := Fit(rbf, c.X, Options{Landmarks: 3}); return err })
		add("Choose: points "+c.What, c.Kind, func() error { _, err := Choose(rbf, c.X, Options{Landmarks: 3}); return err })
		add("NewApproximation: points "+c.What, c.Kind, func() error {
			_, err := NewApproximation(rbf, c.X, ApproximationOptions{})
			return err
		})
		add("Model.AddBatch: "+c.What, c.Kind, func() error { return m.AddBatch(c.X) })
		add("Model.Transform: "+c.What, c.Kind, func() error { return m.Transform(&mat.Dense{}, c.X, 1) })
	}
	add("New: Options.Landmarks 4 for 5 landmarks", ikpca.ErrArgument, func() error { _, err := New(rbf, L, Options{Landmarks: 4}); return err })
	add("New: a NaN kernel", ikpca.ErrNonFinite, func() error { _, err := New(nanK, L, Options{}); return err })
	add("New: a zero kernel matrix", ikpca.ErrArgument, func() error {
		_, err := New(kernel.Linear{}, mat.NewDense(3, 2, nil), Options{})
		return err
	})
	add("New: 2¹⁶ landmarks (a kernel matrix of 2³² numbers)", ikpca.ErrArgument, func() error {
		_, err := New(rbf, mat.NewDense(1<<16, 1, nil), Options{})
		return err
	})
	add("Fit: zero options (no landmarks)", ikpca.ErrArgument, func() error { _, err := Fit(rbf, X, Options{}); return err })
	add("Fit: a NaN kernel", ikpca.ErrNonFinite, func() error { _, err := Fit(nanK, X, Options{Landmarks: 3}); return err })
	add("Choose: zero options", ikpca.ErrArgument, func() error { _, err := Choose(rbf, X, Options{}); return err })
	add("Choose: more landmarks than points", ikpca.ErrArgument, func() error { _, err := Choose(rbf, X, Options{Landmarks: 41}); return err })
	add("Choose, stream: a NaN kernel", ikpca.ErrNonFinite, func() error {
		_, err := Choose(nanK, X, Options{Landmarks: 3, Strategy: Stream})
		return err
	})
	add("Choose, greedy: a NaN kernel", ikpca.ErrNonFinite, func() error {
		_, err := Choose(nanK, X, Options{Landmarks: 3, Strategy: Greedy})
		return err
	})
	// 2¹⁶ one-dimensional points and 2¹⁵ landmarks: Greedy's n×r factor would hold 2³¹
	// numbers, beyond the 2³⁰ a constructor allocates.
	add("Choose, greedy: a factor too large", ikpca.ErrArgument, func() error {
		_, err := Choose(rbf, mat.NewDense(1<<16, 1, nil), Options{Landmarks: 1 << 15, Strategy: Greedy})
		return err
	})

	// The model's methods.
	add("Model.Add(nil)", ikpca.ErrDimension, func() error { return m.Add(nil) })
	add("Model.Add: another dimension", ikpca.ErrDimension, func() error { return m.Add([]float64{1, 2}) })
	add("Model.Add: a NaN coordinate", ikpca.ErrNonFinite, func() error { return m.Add(withNaN.RawRowView(2)) })
	add("Model.AddBatch: another dimension", ikpca.ErrDimension, func() error { return m.AddBatch(mat.NewDense(2, 2, nil)) })
	add("Model.Merge(nil)", ikpca.ErrArgument, func() error { return m.Merge(nil) })
	add("Model.Merge: itself", ikpca.ErrArgument, func() error { return m.Merge(m) })
	add("Model.Merge: landmarks of another dimension", ikpca.ErrArgument, func() error { return m.Merge(other) })
	add("Model.Merge: a zero Model", ikpca.ErrArgument, func() error { return m.Merge(&Model{}) })
	add("Model.Transform: nil dst", ikpca.ErrArgument, func() error { return m.Transform(nil, X, 1) })
	add("Model.Transform: k = 0", ikpca.ErrArgument, func() error { return m.Transform(&mat.Dense{}, X, 0) })
	add("Model.Transform: k = −1", ikpca.ErrArgument, func() error { return m.Transform(&mat.Dense{}, X, -1) })
	add("Model.Transform: k above the components", ikpca.ErrArgument, func() error { return m.Transform(&mat.Dense{}, X, 7) })
	add("Model.Transform: another dimension", ikpca.ErrDimension, func() error { return m.Transform(&mat.Dense{}, mat.NewDense(2, 2, nil), 1) })
	add("Model.Transform: a dst of another shape", ikpca.ErrDimension, func() error { return m.Transform(mat.NewDense(2, 2, nil), X, 1) })
	add("Model.Map(nil, nil)", ikpca.ErrDimension, func() error { _, err := m.Map(nil, nil); return err })
	add("Model.Map: a NaN coordinate", ikpca.ErrNonFinite, func() error { _, err := m.Map(nil, withNaN.RawRowView(2)); return err })
	add("Model.MarshalBinary: a kernel without a Spec", ikpca.ErrArgument, func() error {
		_, err := fit(t, opaque{rbf}, L, X, Options{}).MarshalBinary()
		return err
	})
	cases.AddPersistent("Model", m, enc)

	// Sums: a model's points without its map.
	var sums, zeroSums Sums
	if err := m.SumsTo(&sums); err != nil {
		t.Fatal(err)
	}
	sumsEnc := wiretest.Marshal(t, &sums)
	var otherSums Sums
	if err := other.SumsTo(&otherSums); err != nil {
		t.Fatal(err)
	}
	add("Model.SumsTo(nil)", ikpca.ErrArgument, func() error { return m.SumsTo(nil) })
	add("zero Model: SumsTo", ikpca.ErrArgument, func() error { return zero.SumsTo(&Sums{}) })
	add("Model.AddSums(nil)", ikpca.ErrArgument, func() error { return m.AddSums(nil) })
	add("Model.AddSums: zero Sums", ikpca.ErrArgument, func() error { return m.AddSums(&zeroSums) })
	add("Model.AddSums: another map's", ikpca.ErrArgument, func() error { return m.AddSums(&otherSums) })
	add("zero Model: AddSums", ikpca.ErrArgument, func() error { return zero.AddSums(&sums) })
	add("Sums.Merge(nil)", ikpca.ErrArgument, func() error { return sums.Merge(nil) })
	add("Sums.Merge: itself", ikpca.ErrArgument, func() error { return sums.Merge(&sums) })
	add("Sums.Merge: another map's", ikpca.ErrArgument, func() error { return sums.Merge(&otherSums) })
	add("zero Sums: Merge", ikpca.ErrArgument, func() error { return zeroSums.Merge(&sums) })
	add("Sums.MarshalBinary: zero Sums", ikpca.ErrArgument, func() error { _, err := zeroSums.MarshalBinary(); return err })
	add("Sums.UnmarshalBinary(nil)", ikpca.ErrEncoding, func() error { return new(Sums).UnmarshalBinary(nil) })
	add("Sums.UnmarshalBinary: truncated", ikpca.ErrEncoding, func() error { return new(Sums).UnmarshalBinary(sumsEnc[:len(sumsEnc)-1]) })
	add("Sums.UnmarshalBinary: a model's encoding", ikpca.ErrEncoding, func() error { return new(Sums).UnmarshalBinary(enc) })

	// A zero Model: its methods report it rather than panic.
	add("zero Model: Add", ikpca.ErrArgument, func() error { return zero.Add(nil) })
	add("zero Model: AddBatch", ikpca.ErrArgument, func() error { return zero.AddBatch(X) })
	add("zero Model: Merge", ikpca.ErrArgument, func() error { return zero.Merge(m) })
	add("zero Model: Map", ikpca.ErrArgument, func() error { _, err := zero.Map(nil, nil); return err })
	add("zero Model: Transform", ikpca.ErrArgument, func() error { return zero.Transform(&mat.Dense{}, X, 1) })
	cases.AddZero("zero Model", &zero)
	add("zero Model: Empty().Add", ikpca.ErrArgument, func() error { return zero.Empty().Add(nil) })

	// The approximation's.
	ap, err := NewApproximation(rbf, X, ApproximationOptions{Order: []int{3, 4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	var zeroAp Approximation
	add("NewApproximation: Order with a row out of range", ikpca.ErrArgument, func() error {
		_, err := NewApproximation(rbf, X, ApproximationOptions{Order: []int{0, 40}})
		return err
	})
	add("NewApproximation: Order with a negative row", ikpca.ErrArgument, func() error {
		_, err := NewApproximation(rbf, X, ApproximationOptions{Order: []int{-1}})
		return err
	})
	add("NewApproximation: Order with a row twice", ikpca.ErrArgument, func() error {
		_, err := NewApproximation(rbf, X, ApproximationOptions{Order: []int{1, 1}})
		return err
	})
	for _, u := range []struct {
		what string
		o    ApproximationOptions
	}{
		{"Workers −1", ApproximationOptions{Update: update.Options{Workers: -1}}},
		{"Serial −2", ApproximationOptions{Update: update.Options{Serial: -2}}},
		{"MaxIterations −3", ApproximationOptions{Update: update.Options{MaxIterations: -3}}},
	} {
		add("NewApproximation: "+u.what, ikpca.ErrArgument, func() error { _, err := NewApproximation(rbf, X, u.o); return err })
	}
	add("Approximation.Transform before a landmark", ikpca.ErrEmpty, func() error { return ap.Transform(&mat.Dense{}, X, 1) })
	add("Approximation.Grow beyond the order", ikpca.ErrArgument, func() error { return ap.Grow(4) })
	add("Approximation.Grow(3)", nil, func() error { return ap.Grow(3) })
	add("Approximation.Add after the last landmark", ikpca.ErrArgument, func() error { return ap.Add() })
	add("Approximation.Transform: k above the landmarks", ikpca.ErrArgument, func() error { return ap.Transform(&mat.Dense{}, X, 4) })
	add("Approximation.Transform: nil dst", ikpca.ErrArgument, func() error { return ap.Transform(nil, X, 1) })
	add("Approximation.Transform: nil X", ikpca.ErrArgument, func() error { return ap.Transform(&mat.Dense{}, nil, 1) })
	add("Approximation.Transform: (*mat.Dense)(nil)", ikpca.ErrArgument, func() error { return ap.Transform(&mat.Dense{}, nilDense, 1) })
	add("Approximation.Transform: another dimension", ikpca.ErrDimension, func() error { return ap.Transform(&mat.Dense{}, mat.NewDense(1, 2, nil), 1) })
	add("Approximation.Transform: a NaN entry", ikpca.ErrNonFinite, func() error { return ap.Transform(&mat.Dense{}, withNaN, 1) })
	add("zero Approximation: Add", ikpca.ErrArgument, func() error { return zeroAp.Add() })
	add("zero Approximation: Grow", ikpca.ErrArgument, func() error { return zeroAp.Grow(1) })
	add("Approximation.Errors: a zero Approximation", ikpca.ErrArgument, func() error { _, err := zeroAp.Errors(); return err })
	add("zero Approximation: Transform", ikpca.ErrArgument, func() error { return zeroAp.Transform(&mat.Dense{}, X, 1) })

	addInverseCases(add, m, X)

	before, _ := m.MarshalBinary()
	sentinels.Run(t, cases)
	cases.Cover(t, 3)
	if after, _ := m.MarshalBinary(); !bytes.Equal(before, after) {
		t.Error("a refused call changed the model")
	}
}

// TestOverflow: points whose kernel values overflow — a polynomial kernel of degree 40
// on points of norm 3e10, (γ·xᵀy + 1)⁴⁰ ≈ 1e339 — or whose features would take the
// sums beyond 2¹⁰⁰⁰ — norm 3e7, kernel values near 1e219 — are an ErrNonFinite from Add,
// AddBatch (the bad row after two full blocks) and Transform (kernel overflow only:
// scores are not summed), and leave the model and dst unchanged.
func TestOverflow(t *testing.T) {
	X := points(t, "magic", 300, 2)
	k := kernel.Polynomial{Degree: 40, Gamma: 1e-2, Coef0: 1}
	m := fit(t, k, rows(X, 0, 10), rows(X, 10, 200), Options{})
	for _, scale := range []float64{1e10, 1e7} {
		big := make([]float64, 10)
		for i := range big {
			big[i] = scale
		}
		batch := mat.DenseCopyOf(rows(X, 100, 300))
		batch.SetRow(149, big)
		before, _ := m.MarshalBinary()
		dst := mat.NewDense(1, 1, []float64{7})
		calls := map[string]error{"Add": m.Add(big), "AddBatch": m.AddBatch(batch)}
		if scale == 1e10 {
			calls["Transform"] = m.Transform(dst, mat.NewDense(1, 10, big), 1)
		}
		for what, err := range calls {
			if !errors.Is(err, ikpca.ErrNonFinite) {
				t.Errorf("%s of a point of norm %g: %v, want ErrNonFinite", what, 3*scale, err)
			}
		}
		after, _ := m.MarshalBinary()
		if string(before) != string(after) || dst.At(0, 0) != 7 {
			t.Errorf("a refused point of norm %g changed the model or dst", 3*scale)
		}
	}
}

// TestSmallModels: no values before the second point, then one; ExplainedVariance
// sums to one; VectorsTo leaves an empty dst empty when there is nothing to write.
func TestSmallModels(t *testing.T) {
	X := points(t, "yeast", 20, 1)
	m, err := New(kernel.RBF{Sigma: 1}, rows(X, 0, 5), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var v mat.Dense
	for i := range 3 {
		if got := len(m.Values(nil)); got != max(i-1, 0) {
			t.Errorf("%d points: %d values, want %d", i, got, max(i-1, 0))
		}
		if i < 2 {
			m.VectorsTo(&v)
			if !v.IsEmpty() {
				t.Errorf("%d points: VectorsTo wrote a %d×%d matrix", i, v.RawMatrix().Rows, v.RawMatrix().Cols)
			}
			if err := m.Transform(&mat.Dense{}, rows(X, 0, 2), 1); !errors.Is(err, ikpca.ErrEmpty) {
				t.Errorf("%d points: Transform: %v, want ErrEmpty", i, err)
			}
		}
		if err := m.Add(X.RawRowView(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.AddBatch(rows(X, 3, 20)); err != nil {
		t.Fatal(err)
	}
	var sum float64
	ev := m.ExplainedVariance(nil)
	for _, s := range ev {
		sum += s
	}
	if len(ev) != 5 || math.Abs(sum-1) > 1e-12 || !(ev[0] >= ev[4]) {
		t.Errorf("explained variance %v (sum %g)", ev, sum)
	}
}
