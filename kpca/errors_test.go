package kpca_test

import (
	"bytes"
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/update"
)

// TestErrorKinds calls Fit, New and every method of Model that returns an error with
// zero-valued and hostile arguments — every bad kernel (testmat.BadKernels), every
// impossible option, nil, empty, NaN and misshapen matrices, bad dimensions, indices
// and destinations, bad bytes, a zero Model — and checks that nothing panics, that each
// error wraps exactly one ikpca kind, the one expected, and kpca's sentinel of that
// kind first, and that a model given bad input is unchanged.
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

	md, err := kpca.Fit(rbf, X, ok)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := kpca.FitRankOne(rbf, X, kpca.Options{Components: kpca.All})
	if err != nil {
		t.Fatal(err)
	}
	good := wiretest.Marshal(t, md)
	opaque, err := kpca.Fit(opaqueKernel{}, X, ok)
	if err != nil {
		t.Fatal(err)
	}
	noPoints, err := kpca.New(rbf, 2, ok)
	if err != nil {
		t.Fatal(err)
	}
	var zero kpca.Model
	var dst, wrongDst mat.Dense
	wrongDst.ReuseAs(2, 2)

	var cases errtest.Cases
	// Fit and New: kernels.
	for _, b := range testmat.BadKernels() {
		cases.Add("Fit: kernel "+b.Name, ikpca.ErrArgument, func() error { _, err := kpca.Fit(b.Kernel, X, ok); return err })
		cases.Add("New: kernel "+b.Name, ikpca.ErrArgument, func() error { _, err := kpca.New(b.Kernel, 2, ok); return err })
	}
	// Fit and New: options.
	cases.Add("Fit(Options{})", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{}); return err })
	cases.Add("New(Options{})", ikpca.ErrArgument, func() error { _, err := kpca.New(rbf, 2, kpca.Options{}); return err })
	cases.Add("Components −2", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: -2}); return err })
	cases.Add("Rank −1", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Rank: -1}); return err })
	cases.Add("Rank < Components", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 3, Rank: 2}); return err })
	cases.Add("Rank with All", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: kpca.All, Rank: 2}); return err })
	cases.Add("Rank beyond any array", ikpca.ErrArgument, func() error {
		_, err := kpca.New(rbf, 2, kpca.Options{Components: 2, Rank: math.MaxInt - 1})
		return err
	})
	cases.Add("Components beyond any array", ikpca.ErrArgument, func() error {
		_, err := kpca.New(rbf, 2, kpca.Options{Components: math.MaxInt})
		return err
	})
	cases.Add("FitRankOne with k", ikpca.ErrArgument, func() error {
		_, err := kpca.FitRankOne(rbf, X, kpca.Options{Components: 2})
		return err
	})
	cases.Add("NewRankOne in a window", ikpca.ErrArgument, func() error {
		_, err := kpca.NewRankOne(rbf, 2, kpca.Options{Components: kpca.All, Window: 10})
		return err
	})
	cases.Add("FitRankOne(nil X)", ikpca.ErrArgument, func() error { _, err := kpca.FitRankOne(rbf, nil, kpca.Options{Components: kpca.All}); return err })
	cases.Add("NewRankOne(d 0)", ikpca.ErrArgument, func() error { _, err := kpca.NewRankOne(rbf, 0, kpca.Options{Components: kpca.All}); return err })
	cases.Add("Window 1", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Window: 1}); return err })
	cases.Add("Window −1", ikpca.ErrArgument, func() error { _, err := kpca.New(rbf, 2, kpca.Options{Components: 2, Window: -1}); return err })
	cases.Add("Block −1", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Block: -1}); return err })
	cases.Add("BatchMax −1", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, BatchMax: -1}); return err })
	cases.Add("RefreshTolerance NaN", ikpca.ErrArgument, func() error {
		_, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, RefreshTolerance: math.NaN()})
		return err
	})
	cases.Add("RefreshTolerance −1", ikpca.ErrArgument, func() error {
		_, err := kpca.New(rbf, 2, kpca.Options{Components: 2, RefreshTolerance: -1})
		return err
	})
	cases.Add("RefreshTolerance +Inf", ikpca.ErrArgument, func() error {
		_, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, RefreshTolerance: math.Inf(1)})
		return err
	})
	cases.Add("CheckEvery −1", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, CheckEvery: -1}); return err })
	cases.Add("Update.Workers −1", ikpca.ErrArgument, func() error {
		_, err := kpca.Fit(rbf, X, kpca.Options{Components: 2, Update: update.Options{Workers: -1}})
		return err
	})
	cases.Add("Update.MaxIterations −1", ikpca.ErrArgument, func() error {
		_, err := kpca.New(rbf, 2, kpca.Options{Components: 2, Update: update.Options{MaxIterations: -1}})
		return err
	})
	// Fit and New: points and dimensions.
	cases.Add("Fit(nil X)", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, nil, ok); return err })
	cases.Add("Fit(typed-nil X)", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, nilDense, ok); return err })
	cases.Add("Fit(typed-nil SymDense)", ikpca.ErrArgument, func() error { _, err := kpca.Fit(rbf, (*mat.SymDense)(nil), ok); return err })
	cases.Add("Fit(empty X)", ikpca.ErrEmpty, func() error { _, err := kpca.Fit(rbf, empty, ok); return err })
	cases.Add("Fit(NaN X)", ikpca.ErrNonFinite, func() error { _, err := kpca.Fit(rbf, nan, ok); return err })
	cases.Add("Fit(−Inf X)", ikpca.ErrNonFinite, func() error { _, err := kpca.Fit(rbf, inf, kpca.Options{Components: kpca.All}); return err })
	cases.Add("Fit(overflowing kernel)", ikpca.ErrNonFinite, func() error {
		_, err := kpca.Fit(kernel.Linear{}, mat.NewDense(2, 1, []float64{1, 1e200}), ok)
		return err
	})
	cases.Add("New(d 0)", ikpca.ErrArgument, func() error { _, err := kpca.New(rbf, 0, ok); return err })
	cases.Add("New(d −3)", ikpca.ErrArgument, func() error { _, err := kpca.New(rbf, -3, ok); return err })
	cases.Add("New(d MaxInt)", ikpca.ErrArgument, func() error { _, err := kpca.New(rbf, math.MaxInt, ok); return err })
	// A model's methods.
	cases.Add("Add(nil)", ikpca.ErrDimension, func() error { return md.Add(nil) })
	cases.Add("Add(short)", ikpca.ErrDimension, func() error { return md.Add([]float64{1}) })
	cases.Add("Add(NaN)", ikpca.ErrNonFinite, func() error { return md.Add([]float64{1, math.NaN()}) })
	cases.Add("AddBatch(nil)", ikpca.ErrArgument, func() error { return md.AddBatch(nil) })
	cases.Add("AddBatch(typed nil)", ikpca.ErrArgument, func() error { return md.AddBatch(nilDense) })
	cases.Add("AddBatch(empty)", ikpca.ErrEmpty, func() error { return md.AddBatch(empty) })
	cases.Add("AddBatch(wide)", ikpca.ErrDimension, func() error { return md.AddBatch(wide) })
	cases.Add("AddBatch(NaN)", ikpca.ErrNonFinite, func() error { return md.AddBatch(nan) })
	cases.Add("AddRows(nil ctx)", ikpca.ErrArgument, func() error { _, err := md.AddRows(nil, X, nil); return err }) //nolint:staticcheck // a nil context on purpose
	cases.Add("AddRows(nil X)", ikpca.ErrArgument, func() error { _, err := md.AddRows(context.Background(), nil, nil); return err })
	cases.Add("AddRows(empty)", ikpca.ErrEmpty, func() error { _, err := md.AddRows(context.Background(), empty, nil); return err })
	cases.Add("AddRows(wide)", ikpca.ErrDimension, func() error { _, err := md.AddRows(context.Background(), wide, nil); return err })
	cases.Add("AddRows(NaN)", ikpca.ErrNonFinite, func() error { _, err := md.AddRows(context.Background(), nan, nil); return err })
	cases.Add("Remove(−1)", ikpca.ErrArgument, func() error { return md.Remove(-1) })
	cases.Add("Remove(Len)", ikpca.ErrArgument, func() error { return md.Remove(md.Len()) })
	cases.Add("Remove, a model without points", ikpca.ErrArgument, func() error { return noPoints.Remove(0) })
	cases.Add("Scores(nil, 1)", ikpca.ErrArgument, func() error { return md.Scores(nil, 1) })
	cases.Add("Scores(dst, 0)", ikpca.ErrArgument, func() error { return md.Scores(&dst, 0) })
	cases.Add("Scores(dst, 3)", ikpca.ErrArgument, func() error { return md.Scores(&dst, 3) })
	cases.Add("Scores(wrong dst, 1)", ikpca.ErrDimension, func() error { return md.Scores(&wrongDst, 1) })
	cases.Add("Transform(nil dst)", ikpca.ErrArgument, func() error { return md.Transform(nil, X, 1) })
	cases.Add("Transform(nil X)", ikpca.ErrArgument, func() error { return md.Transform(&dst, nil, 1) })
	cases.Add("Transform(typed-nil X)", ikpca.ErrArgument, func() error { return md.Transform(&dst, nilDense, 1) })
	cases.Add("Transform(empty X)", ikpca.ErrEmpty, func() error { return md.Transform(&dst, empty, 1) })
	cases.Add("Transform(wide X)", ikpca.ErrDimension, func() error { return md.Transform(&dst, wide, 1) })
	cases.Add("Transform(NaN X)", ikpca.ErrNonFinite, func() error { return md.Transform(&dst, nan, 1) })
	cases.Add("Transform(k 0)", ikpca.ErrArgument, func() error { return md.Transform(&dst, X, 0) })
	cases.Add("Transform(k 3)", ikpca.ErrArgument, func() error { return md.Transform(&dst, X, 3) })
	cases.Add("Transform(wrong dst)", ikpca.ErrDimension, func() error { return md.Transform(&wrongDst, X, 1) })
	cases.AddPersistent("Model", md, good)
	cases.Add("MarshalBinary, opaque kernel", ikpca.ErrArgument, func() error { _, err := opaque.MarshalBinary(); return err })
	cases.Add("UnmarshalBinary(junk)", ikpca.ErrEncoding, func() error { return md.UnmarshalBinary([]byte("junk, junk, junk, junk, junk, junk, junk, junk")) })
	cases.Add("UnmarshalBinary(cut)", ikpca.ErrEncoding, func() error { return md.UnmarshalBinary(good[:len(good)-1]) })
	cases.Add("UnmarshalBinaryFrom(typed nil)", ikpca.ErrArgument, func() error { _, err := md.UnmarshalBinaryFrom((*bytes.Reader)(nil)); return err })
	cases.Add("UnmarshalBinaryFrom(cut)", ikpca.ErrEncoding, func() error { _, err := md.UnmarshalBinaryFrom(bytes.NewReader(good[:30])); return err })
	// Sizes a caller chose beyond any array, and nothing to copy: the model (md, compared
	// below byte for byte) unchanged.
	cases.Add("Reserve(1<<62)", ikpca.ErrArgument, func() error { return md.Reserve(1 << 62) })
	cases.Add("Reserve(MaxInt)", ikpca.ErrArgument, func() error { return md.Reserve(math.MaxInt) })
	cases.Add("Reserve(-1)", ikpca.ErrArgument, func() error { return md.Reserve(-1) })
	cases.Add("Reserve(2¹⁶), exact: (2¹⁶+1)² numbers", ikpca.ErrArgument, func() error { return exact.Reserve(1 << 16) })
	cases.Add("Reserve(10)", nil, func() error { return md.Reserve(md.Len()) })
	cases.Add("CopyFrom(nil)", ikpca.ErrArgument, func() error { return md.CopyFrom(nil) })
	cases.Add("CopyFrom(a zero Model)", ikpca.ErrArgument, func() error { return md.CopyFrom(&zero) })
	cases.Add("CopyFrom(itself)", nil, func() error { return md.CopyFrom(md) })
	// A zero Model: only decoding makes it a model.
	cases.Add("zero: Reserve", ikpca.ErrArgument, func() error { return zero.Reserve(10) })
	cases.Add("zero: Add", ikpca.ErrArgument, func() error { return zero.Add(nil) })
	cases.Add("zero: AddBatch", ikpca.ErrArgument, func() error { return zero.AddBatch(X) })
	cases.Add("zero: AddRows", ikpca.ErrArgument, func() error { _, err := zero.AddRows(context.Background(), X, nil); return err })
	cases.Add("zero: Remove", ikpca.ErrArgument, func() error { return zero.Remove(0) })
	cases.Add("zero: Refresh", ikpca.ErrArgument, func() error { return zero.Refresh() })
	cases.Add("zero: Scores", ikpca.ErrArgument, func() error { return zero.Scores(&dst, 1) })
	cases.Add("zero: Transform", ikpca.ErrArgument, func() error { return zero.Transform(&dst, X, 1) })
	cases.AddZero("zero", &zero)
	cases.Add("zero: UnmarshalBinary(junk)", ikpca.ErrEncoding, func() error { return zero.UnmarshalBinary([]byte("junk")) })
	rankOneCases(&cases, exact, X, good)
	before := wiretest.Marshal(t, md)
	errtest.Of(kpca.ErrDimension, kpca.ErrNonFinite, kpca.ErrEmpty, kpca.ErrArgument, kpca.ErrEncoding, kpca.ErrNotConverged).Run(t, cases)
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

// rankOneCases adds TestErrorKinds' cases of a RankOneModel's methods: exact, of the
// points X, and its zero value; good is a Model's encoding, which it refuses.
func rankOneCases(cases *errtest.Cases, exact *kpca.RankOneModel, X mat.Matrix, good []byte) {
	var zero kpca.RankOneModel
	var dst mat.Dense
	enc, err := exact.MarshalBinary()
	if err != nil {
		panic(err)
	}
	cases.Add("RankOne: Add(short)", ikpca.ErrDimension, func() error { return exact.Add([]float64{1}) })
	cases.Add("RankOne: AddBatch(nil)", ikpca.ErrArgument, func() error { return exact.AddBatch(nil) })
	cases.Add("RankOne: AddRows(nil ctx)", ikpca.ErrArgument, func() error { _, err := exact.AddRows(nil, X, nil); return err }) //nolint:staticcheck // a nil context on purpose
	cases.Add("RankOne: Scores(nil, 1)", ikpca.ErrArgument, func() error { return exact.Scores(nil, 1) })
	cases.Add("RankOne: Transform(k 0)", ikpca.ErrArgument, func() error { return exact.Transform(&dst, X, 0) })
	cases.Add("RankOne: Reserve(-1)", ikpca.ErrArgument, func() error { return exact.Reserve(-1) })
	cases.Add("RankOne: CopyFrom(nil)", ikpca.ErrArgument, func() error { return exact.CopyFrom(nil) })
	cases.Add("RankOne: CopyFrom(a zero RankOneModel)", ikpca.ErrArgument, func() error { return exact.CopyFrom(&zero) })
	cases.Add("RankOne: UnmarshalBinary(a Model's encoding)", ikpca.ErrEncoding, func() error { return exact.UnmarshalBinary(good) })
	cases.Add("Model: UnmarshalBinary(a RankOneModel's encoding)", ikpca.ErrEncoding, func() error { var md kpca.Model; return md.UnmarshalBinary(enc) })
	cases.Add("UnmarshalFrom(nil)", ikpca.ErrArgument, func() error { _, _, err := kpca.UnmarshalFrom(nil); return err })
	cases.Add("UnmarshalFrom(cut)", ikpca.ErrEncoding, func() error { _, _, err := kpca.UnmarshalFrom(bytes.NewReader(enc[:30])); return err })
	cases.AddPersistent("RankOneModel", exact, enc)
	cases.Add("RankOne zero: Add", ikpca.ErrArgument, func() error { return zero.Add(nil) })
	cases.Add("RankOne zero: AddBatch", ikpca.ErrArgument, func() error { return zero.AddBatch(X) })
	cases.Add("RankOne zero: AddRows", ikpca.ErrArgument, func() error { _, err := zero.AddRows(context.Background(), X, nil); return err })
	cases.Add("RankOne zero: Refresh", ikpca.ErrArgument, func() error { return zero.Refresh() })
	cases.Add("RankOne zero: Reserve", ikpca.ErrArgument, func() error { return zero.Reserve(10) })
	cases.Add("RankOne zero: Scores", ikpca.ErrArgument, func() error { return zero.Scores(&dst, 1) })
	cases.Add("RankOne zero: Transform", ikpca.ErrArgument, func() error { return zero.Transform(&dst, X, 1) })
	cases.AddZero("RankOne zero", &zero)
}
