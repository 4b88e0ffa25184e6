package kpca

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// nystromStart returns the eigenvectors of a Nyström approximation on the first l of
// the points lifted to all of them, K_nL·W (W the top r eigenvectors of K_LL): up to the
// scale of its columns, what a Nyström model's scores of the points are, the start a
// merged Nyström model gives FitFrom (docs/design.md, "Starting subspaces").
func nystromStart(t *testing.T, k kernel.Kernel, x *mat.Dense, l, r int) *mat.Dense {
	t.Helper()
	n, d := x.Dims()
	L := x.Slice(0, l, 0, d).(*mat.Dense)
	var w mat.Dense
	if _, err := native.EigenSym(nil, &w, kernel.Matrix(k, L)); err != nil {
		t.Fatal(err)
	}
	knl := mat.NewDense(n, l, nil)
	for i := range n {
		for j := range l {
			knl.Set(i, j, k.Eval(x.RawRowView(i), x.RawRowView(j)))
		}
	}
	var s mat.Dense
	s.Mul(knl, w.Slice(0, l, l-r, l)) // EigenSym's ascending order: the top r are last
	return &s
}

// TestFitFrom: a model fitted from a starting subspace — random vectors, the tracked
// model's vectors, a Nyström model's lifted eigenvectors — converges to the batch
// decomposition of its points as the passes grow, and at every number of passes its
// certificate holds against the batch (certify): one pass from random vectors gives a
// wide bound that is true, never a narrow false one. The model then encodes (the
// decoder's check of its sums and pairs against its points passes), polishes and
// tracks as any other.
func TestFitFrom(t *testing.T) {
	n := 600
	const r, top = 20, 10
	for _, c := range []struct {
		set       string
		uncentred bool
	}{{"magic", false}, {"magic", true}, {"yeast", false}} {
		x := shuffled(t, c.set, n+100, 13)
		_, d := x.Dims()
		X := x.Slice(0, n, 0, d).(*mat.Dense)
		k := rbfMedian(t, X)
		// Components = Rank: certify compares the bounds with K′ less the reported pairs.
		opts := Options{Components: r, Rank: r, Uncentred: c.uncentred}
		trackedModel := fitModel(t, k, X, Options{Components: r, Rank: r, Uncentred: c.uncentred, BatchMax: 100})
		var tv mat.Dense
		trackedModel.VectorsTo(&tv)
		starts := map[string]Start{
			"random":  {Seed: 7},
			"tracked": {Vectors: &tv},
			"nystrom": {Vectors: nystromStart(t, k, X, 60, r)},
		}
		want, vecs := descendingPairs(t, trackedModel)
		for _, name := range []string{"random", "tracked", "nystrom"} {
			for _, passes := range []int{1, 2, 3, 4, 6, 8} {
				s := starts[name]
				s.Passes = passes
				what := fmt.Sprintf("%s %s, %s start, %d passes", c.set, modeName(c.uncentred), name, passes)
				md, err := FitFrom(k, X, s, opts)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				e, sin := topError(t, md, want, vecs, top)
				t.Logf("%s: top-%d %.2g·λ₁, sine %.2g, bound %.2g·λ₁", what, top, e, sin, md.ErrorBound()/want[0])
				certify(t, what, md)
				if passes == 8 && !(e <= 1e-12 && sin <= 1e-8) {
					t.Errorf("%s: top-%d eigenvalues %.3g·λ₁ off (limit 1e-12), sine %.3g (limit 1e-8)", what, top, e, sin)
				}
				if passes == 8 && name == "random" {
					continues(t, what, md, x.Slice(n, n+100, 0, d))
				}
			}
		}
	}
}

// continues checks that a model fitted from a start encodes and decodes (the decoder
// checks its sums and pairs against its points), polishes, and tracks more points with
// a certificate that holds.
func continues(t *testing.T, what string, md *Model, more mat.Matrix) {
	t.Helper()
	data, err := md.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Model
	if err := back.UnmarshalBinary(data); err != nil {
		t.Errorf("%s: decoding: %v", what, err)
	}
	if err := md.Polish(2); err != nil {
		t.Errorf("%s: Polish: %v", what, err)
	}
	if _, err := md.AddRows(context.Background(), more, nil); err != nil {
		t.Fatal(err)
	}
	certify(t, what+", then tracked", md)
}

// TestFitFromErrors: FitFrom's refusals, each with its kind.
func TestFitFromErrors(t *testing.T) {
	x := shuffled(t, "magic", 120, 3)
	k := rbfMedian(t, x)
	opts := Options{Components: 3, Rank: 8}
	good := Start{Passes: 2}
	nan := mat.NewDense(120, 4, nil)
	nan.Set(5, 1, math.NaN())
	ones := mat.NewDense(120, 4, nil)
	for i := range 120 {
		for j := range 4 {
			ones.Set(i, j, 1)
		}
	}
	X := mat.DenseCopyOf(x)
	X.Set(3, 2, math.Inf(1))
	for _, c := range []struct {
		what string
		err  error
		want error
	}{
		{"nil context", errOf(FitFromContext(nil, k, x, good, opts)), ErrArgument}, //nolint:staticcheck // the nil context is the case
		{"Components All", errOf(FitFrom(k, x, good, Options{Components: All})), ErrArgument},
		{"window", errOf(FitFrom(k, x, good, Options{Components: 3, Window: 50})), ErrArgument},
		{"sigmoid", errOf(FitFrom(kernel.Sigmoid{Gamma: 0.1}, x, good, opts)), ErrArgument},
		{"0 passes", errOf(FitFrom(k, x, Start{}, opts)), ErrArgument},
		{"too many passes", errOf(FitFrom(k, x, Start{Passes: MaxPolishPasses + 1}, opts)), ErrArgument},
		{"short start", errOf(FitFrom(k, x, Start{Passes: 2, Vectors: mat.NewDense(119, 4, nil)}, opts)), ErrDimension},
		{"narrow start", errOf(FitFrom(k, x, Start{Passes: 2, Vectors: mat.NewDense(120, 2, nil)}, opts)), ErrDimension},
		{"wide start", errOf(FitFrom(k, x, Start{Passes: 2, Vectors: mat.NewDense(120, 9, nil)}, opts)), ErrDimension},
		{"NaN start", errOf(FitFrom(k, x, Start{Passes: 2, Vectors: nan}, opts)), ErrNonFinite},
		{"start along 1", errOf(FitFrom(k, x, Start{Passes: 2, Vectors: ones}, opts)), ErrArgument},
		{"infinite point", errOf(FitFrom(k, X, good, opts)), ErrNonFinite},
		{"nil points", errOf(FitFrom(k, nil, good, opts)), ErrArgument},
		{"precomputed", errOf(FitFrom(kernel.Precomputed{}, mat.NewDense(4, 4, nil), good, opts)), ErrNoKernel},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.err, c.want)
		}
	}
	if _, err := FitFromContext(canceled(), k, x, good, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}

// errOf returns the error of a (model, error) pair.
func errOf(_ *Model, err error) error { return err }

// canceled returns a context already cancelled.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
