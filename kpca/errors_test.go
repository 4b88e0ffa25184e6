package kpca_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/update"
)

// kindPairs pairs each ikpca kind with kpca's sentinel of the same name.
var kindPairs = []struct{ kind, own error }{
	{ikpca.ErrDimension, kpca.ErrDimension},
	{ikpca.ErrNonFinite, kpca.ErrNonFinite},
	{ikpca.ErrEmpty, kpca.ErrEmpty},
	{ikpca.ErrArgument, kpca.ErrArgument},
	{ikpca.ErrEncoding, kpca.ErrEncoding},
	{ikpca.ErrNotConverged, kpca.ErrNotConverged},
}

// TestErrorKinds calls Fit, New and every method of Model that returns an error with
// zero-valued and hostile arguments — nil and typed-nil kernels, kernels Validate
// refuses, every impossible option, nil, empty, NaN and misshapen matrices, bad
// dimensions, indices and destinations, bad bytes, a zero Model — and checks that
// nothing panics, that each error wraps exactly one ikpca kind, the one expected, and
// kpca's sentinel of that kind too, and that a model given bad input is unchanged.
func TestErrorKinds(t *testing.T) {
	X := mat.NewDense(6, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.25, 2, -1})
	rbf := kernel.RBF{Sigma: 1}
	ok := kpca.Options{Components: 2}
	nan := mat.DenseCopyOf(X)
	nan.Set(3, 1, math.NaN())
	inf := mat.DenseCopyOf(X)
	inf.Set(0, 0, math.Inf(-1))
	empty := mat.NewDense(1, 2, nil).Slice(0, 0, 0, 2)
	wide := mat.NewDense(3, 3, nil)
	var nilDense *mat.Dense
	var nilRBF *kernel.RBF

	md, err := kpca.Fit(rbf, X, ok)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := kpca.Fit(rbf, X, kpca.Options{Components: kpca.All, Method: kpca.RankOne})
	if err != nil {
		t.Fatal(err)
	}
	good, err := md.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	opaque, err := kpca.Fit(opaqueKernel{}, X, ok)
	if err != nil {
		t.Fatal(err)
	}
	var zero kpca.Model
	var dst, wrongDst mat.Dense
	wrongDst.ReuseAs(2, 2)

	cases := []struct {
		name string
		call func() error
		want error
	}{
		// Fit and New: kernels.
		{"Fit(nil kernel)", func() error { _, err := kpca.Fit(nil, X, ok); return err }, ikpca.ErrArgument},
		{"Fit(typed-nil kernel)", func() error { _, err := kpca.Fit(nilRBF, X, ok); return err }, ikpca.ErrArgument},
		{"Fit(RBF{})", func() error { _, err := kpca.Fit(kernel.RBF{}, X, ok); return err }, ikpca.ErrArgument},
		{"Fit(RBF{σ and γ})", func() error { _, err := kpca.Fit(kernel.RBF{Sigma: 1, Gamma: 1}, X, ok); return err }, ikpca.ErrArgument},
		{"Fit(Polynomial{Degree: 3})", func() error { _, err := kpca.Fit(kernel.Polynomial{Degree: 3}, X, ok); return err }, ikpca.ErrArgument},
		{"Fit(Laplacian{Sigma: NaN})", func() error { _, err := kpca.Fit(kernel.Laplacian{Sigma: math.NaN()}, X, ok); return err }, ikpca.ErrArgument},
		{"Fit(Func{})", func() error { _, err := kpca.Fit(kernel.Func{}, X, ok); return err }, ikpca.ErrArgument},
		{"New(nil kernel)", func() error { _, err := kpca.New(nil, 2, ok); return err }, ikpca.ErrArgument},
		{"New(typed-nil kernel)", func() error { _, err := kpca.New(nilRBF, 2, ok); return err }, ikpca.ErrArgument},
		{"New(RBF{})", func() error { _, err := kpca.New(kernel.RBF{}, 2, ok); return err }, ikpca.ErrArgument},
		{"New(Polynomial{Degree: 3})", func() error { _, err := kpca.New(kernel.Polynomial{Degree: 3}, 2, ok); return err }, ikpca.ErrArgument},
		// Fit and New: options.
		{"Fit(Options{})", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{}); return err }, ikpca.ErrArgument},
		{"New(Options{})", func() error { _, err := kpca.New(rbf, 2, kpca.Options{}); return err }, ikpca.ErrArgument},
		{"Components −2", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: -2}); return err }, ikpca.ErrArgument},
		{"Rank −1", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Rank: -1}); return err }, ikpca.ErrArgument},
		{"Rank < Components", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 3, Rank: 2}); return err }, ikpca.ErrArgument},
		{"Rank with All", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: kpca.All, Rank: 2}); return err }, ikpca.ErrArgument},
		{"Rank beyond any array", func() error {
			_, err := kpca.New(rbf, 2, kpca.Options{Components: 2, Rank: math.MaxInt - 1})
			return err
		}, ikpca.ErrArgument},
		{"Components beyond any array", func() error {
			_, err := kpca.New(rbf, 2, kpca.Options{Components: math.MaxInt})
			return err
		}, ikpca.ErrArgument},
		{"RankOne with k", func() error {
			_, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Method: kpca.RankOne})
			return err
		}, ikpca.ErrArgument},
		{"RankOne in a window", func() error {
			_, err := kpca.New(rbf, 2, kpca.Options{Components: kpca.All, Method: kpca.RankOne, Window: 10})
			return err
		}, ikpca.ErrArgument},
		{"Method 7", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Method: 7}); return err }, ikpca.ErrArgument},
		{"Window 1", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Window: 1}); return err }, ikpca.ErrArgument},
		{"Window −1", func() error { _, err := kpca.New(rbf, 2, kpca.Options{Components: 2, Window: -1}); return err }, ikpca.ErrArgument},
		{"Block −1", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Block: -1}); return err }, ikpca.ErrArgument},
		{"BatchMax −1", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, BatchMax: -1}); return err }, ikpca.ErrArgument},
		{"RefreshTolerance NaN", func() error {
			_, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, RefreshTolerance: math.NaN()})
			return err
		}, ikpca.ErrArgument},
		{"RefreshTolerance −1", func() error {
			_, err := kpca.New(rbf, 2, kpca.Options{Components: 2, RefreshTolerance: -1})
			return err
		}, ikpca.ErrArgument},
		{"RefreshTolerance +Inf", func() error {
			_, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, RefreshTolerance: math.Inf(1)})
			return err
		}, ikpca.ErrArgument},
		{"CheckEvery −1", func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, CheckEvery: -1}); return err }, ikpca.ErrArgument},
		{"Update.Workers −1", func() error {
			_, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Update: update.Options{Workers: -1}})
			return err
		}, ikpca.ErrArgument},
		{"Update.MaxIterations −1", func() error {
			_, err := kpca.New(rbf, 2, kpca.Options{Components: 2, Update: update.Options{MaxIterations: -1}})
			return err
		}, ikpca.ErrArgument},
		// Fit and New: points and dimensions.
		{"Fit(nil X)", func() error { _, err := kpca.Fit(rbf, nil, ok); return err }, ikpca.ErrArgument},
		{"Fit(typed-nil X)", func() error { _, err := kpca.Fit(rbf, nilDense, ok); return err }, ikpca.ErrArgument},
		{"Fit(typed-nil SymDense)", func() error { _, err := kpca.Fit(rbf, (*mat.SymDense)(nil), ok); return err }, ikpca.ErrArgument},
		{"Fit(empty X)", func() error { _, err := kpca.Fit(rbf, empty, ok); return err }, ikpca.ErrEmpty},
		{"Fit(NaN X)", func() error { _, err := kpca.Fit(rbf, nan, ok); return err }, ikpca.ErrNonFinite},
		{"Fit(−Inf X)", func() error { _, err := kpca.Fit(rbf, inf, kpca.Options{Components: kpca.All}); return err }, ikpca.ErrNonFinite},
		{"Fit(overflowing kernel)", func() error {
			_, err := kpca.Fit(kernel.Linear{}, mat.NewDense(2, 1, []float64{1, 1e200}), ok)
			return err
		}, ikpca.ErrNonFinite},
		{"New(d 0)", func() error { _, err := kpca.New(rbf, 0, ok); return err }, ikpca.ErrArgument},
		{"New(d −3)", func() error { _, err := kpca.New(rbf, -3, ok); return err }, ikpca.ErrArgument},
		{"New(d MaxInt)", func() error { _, err := kpca.New(rbf, math.MaxInt, ok); return err }, ikpca.ErrArgument},
		// A model's methods.
		{"Add(nil)", func() error { return md.Add(nil) }, ikpca.ErrDimension},
		{"Add(short)", func() error { return md.Add([]float64{1}) }, ikpca.ErrDimension},
		{"Add(NaN)", func() error { return md.Add([]float64{1, math.NaN()}) }, ikpca.ErrNonFinite},
		{"AddBatch(nil)", func() error { return md.AddBatch(nil) }, ikpca.ErrArgument},
		{"AddBatch(typed nil)", func() error { return md.AddBatch(nilDense) }, ikpca.ErrArgument},
		{"AddBatch(empty)", func() error { return md.AddBatch(empty) }, ikpca.ErrEmpty},
		{"AddBatch(wide)", func() error { return md.AddBatch(wide) }, ikpca.ErrDimension},
		{"AddBatch(NaN)", func() error { return md.AddBatch(nan) }, ikpca.ErrNonFinite},
		{"AddRows(nil ctx)", func() error { _, err := md.AddRows(nil, X, nil); return err }, ikpca.ErrArgument}, //nolint:staticcheck // a nil context on purpose
		{"AddRows(nil X)", func() error { _, err := md.AddRows(context.Background(), nil, nil); return err }, ikpca.ErrArgument},
		{"AddRows(empty)", func() error { _, err := md.AddRows(context.Background(), empty, nil); return err }, ikpca.ErrEmpty},
		{"AddRows(wide)", func() error { _, err := md.AddRows(context.Background(), wide, nil); return err }, ikpca.ErrDimension},
		{"AddRows(NaN)", func() error { _, err := md.AddRows(context.Background(), nan, nil); return err }, ikpca.ErrNonFinite},
		{"Remove(−1)", func() error { return md.Remove(-1) }, ikpca.ErrArgument},
		{"Remove(Len)", func() error { return md.Remove(md.Len()) }, ikpca.ErrArgument},
		{"Remove, method RankOne", func() error { return exact.Remove(0) }, ikpca.ErrArgument},
		{"Scores(nil, 1)", func() error { return md.Scores(nil, 1) }, ikpca.ErrArgument},
		{"Scores(dst, 0)", func() error { return md.Scores(&dst, 0) }, ikpca.ErrArgument},
		{"Scores(dst, 3)", func() error { return md.Scores(&dst, 3) }, ikpca.ErrArgument},
		{"Scores(wrong dst, 1)", func() error { return md.Scores(&wrongDst, 1) }, ikpca.ErrDimension},
		{"Transform(nil dst)", func() error { return md.Transform(nil, X, 1) }, ikpca.ErrArgument},
		{"Transform(nil X)", func() error { return md.Transform(&dst, nil, 1) }, ikpca.ErrArgument},
		{"Transform(typed-nil X)", func() error { return md.Transform(&dst, nilDense, 1) }, ikpca.ErrArgument},
		{"Transform(empty X)", func() error { return md.Transform(&dst, empty, 1) }, ikpca.ErrEmpty},
		{"Transform(wide X)", func() error { return md.Transform(&dst, wide, 1) }, ikpca.ErrDimension},
		{"Transform(NaN X)", func() error { return md.Transform(&dst, nan, 1) }, ikpca.ErrNonFinite},
		{"Transform(k 0)", func() error { return md.Transform(&dst, X, 0) }, ikpca.ErrArgument},
		{"Transform(k 3)", func() error { return md.Transform(&dst, X, 3) }, ikpca.ErrArgument},
		{"Transform(wrong dst)", func() error { return md.Transform(&wrongDst, X, 1) }, ikpca.ErrDimension},
		{"MarshalBinaryTo(nil)", func() error { _, err := md.MarshalBinaryTo(nil); return err }, ikpca.ErrArgument},
		{"MarshalBinaryTo(typed nil)", func() error { _, err := md.MarshalBinaryTo((*bytes.Buffer)(nil)); return err }, ikpca.ErrArgument},
		{"MarshalBinary, opaque kernel", func() error { _, err := opaque.MarshalBinary(); return err }, ikpca.ErrArgument},
		{"UnmarshalBinary(nil)", func() error { return md.UnmarshalBinary(nil) }, ikpca.ErrEncoding},
		{"UnmarshalBinary(junk)", func() error { return md.UnmarshalBinary([]byte("junk, junk, junk, junk, junk, junk, junk, junk")) }, ikpca.ErrEncoding},
		{"UnmarshalBinary(cut)", func() error { return md.UnmarshalBinary(good[:len(good)-1]) }, ikpca.ErrEncoding},
		{"UnmarshalBinaryFrom(nil)", func() error { _, err := md.UnmarshalBinaryFrom(nil); return err }, ikpca.ErrArgument},
		{"UnmarshalBinaryFrom(typed nil)", func() error { _, err := md.UnmarshalBinaryFrom((*bytes.Reader)(nil)); return err }, ikpca.ErrArgument},
		{"UnmarshalBinaryFrom(cut)", func() error { _, err := md.UnmarshalBinaryFrom(bytes.NewReader(good[:30])); return err }, ikpca.ErrEncoding},
		// A zero Model: only decoding makes it a model.
		{"zero: Add", func() error { return zero.Add(nil) }, ikpca.ErrArgument},
		{"zero: AddBatch", func() error { return zero.AddBatch(X) }, ikpca.ErrArgument},
		{"zero: AddRows", func() error { _, err := zero.AddRows(context.Background(), X, nil); return err }, ikpca.ErrArgument},
		{"zero: Remove", func() error { return zero.Remove(0) }, ikpca.ErrArgument},
		{"zero: Refresh", func() error { return zero.Refresh() }, ikpca.ErrArgument},
		{"zero: Scores", func() error { return zero.Scores(&dst, 1) }, ikpca.ErrEmpty},
		{"zero: Transform", func() error { return zero.Transform(&dst, X, 1) }, ikpca.ErrDimension},
		{"zero: MarshalBinary", func() error { _, err := zero.MarshalBinary(); return err }, ikpca.ErrArgument},
		{"zero: MarshalBinaryTo", func() error { _, err := zero.MarshalBinaryTo(new(bytes.Buffer)); return err }, ikpca.ErrArgument},
		{"zero: UnmarshalBinary(junk)", func() error { return zero.UnmarshalBinary([]byte("junk")) }, ikpca.ErrEncoding},
	}
	before, err := md.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", c.name, r)
					err = errors.New("panic")
				}
			}()
			return c.call()
		}()
		if err == nil {
			t.Errorf("%s: no error, want %v", c.name, c.want)
			continue
		}
		kinds := 0
		for _, k := range kindPairs {
			if errors.Is(err, k.kind) {
				kinds++
				if k.kind == c.want && !errors.Is(err, k.own) {
					t.Errorf("%s: %v wraps %v but not kpca's sentinel", c.name, err, k.kind)
				}
			}
		}
		if !errors.Is(err, c.want) || kinds != 1 {
			t.Errorf("%s: %v wraps %d kinds, want exactly %v", c.name, err, kinds, c.want)
		}
	}
	after, err := md.MarshalBinary()
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the rejected calls changed the model: %v", err)
	}
	if !dst.IsEmpty() {
		t.Error("a rejected call wrote to dst")
	}
	if r, c := wrongDst.Dims(); r != 2 || c != 2 || mat.Norm(&wrongDst, 1) != 0 {
		t.Error("a rejected call changed the misshapen dst")
	}
}

// opaqueKernel is a kernel that cannot describe itself (no Spec).
type opaqueKernel struct{}

func (opaqueKernel) Eval(x, y []float64) float64 {
	var s float64
	for i := range x {
		d := x[i] - y[i]
		s += d * d
	}
	return math.Exp(-s)
}
