package chinsuter

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// TestErrorKinds: every exported function and method of the package that returns an
// error, given zero-valued and hostile arguments — every bad kernel
// (testmat.BadKernels), zero, negative and NaN options, nil, empty and non-finite
// points, points of another dimension, nil writers and readers, zero receivers —
// returns an error that wraps the right ikpca kind and the package's sentinel of it,
// first, and no other kind, without panicking, and leaves the model as it was. The
// table calls every exported function and method that returns an error (Cover reads the
// source).
func TestErrorKinds(t *testing.T) {
	X := toy(12, 5)
	rbf := kernel.RBF{Sigma: 1}
	withNaN := mat.DenseCopyOf(X)
	withNaN.Set(3, 1, math.NaN())
	badOpts := []struct {
		name string
		k    kernel.Kernel
		o    Options
	}{
		{"Components −1", rbf, Options{Components: -1}},
		{"compression without a cap", rbf, Options{Compression: &Compression{PreImages: 2}}},
		{"compression of a Laplacian kernel", kernel.Laplacian{Sigma: 1}, Options{Components: 2, Compression: &Compression{PreImages: 2}}},
		{"zero compression", rbf, Options{Components: 2, Compression: &Compression{}}},
		{"PreImages −1", rbf, Options{Components: 2, Compression: &Compression{PreImages: -1}}},
		{"MaxIter −1", rbf, Options{Components: 2, Compression: &Compression{PreImages: 2, MaxIter: -1}}},
		{"Tol NaN", rbf, Options{Components: 2, Compression: &Compression{PreImages: 2, Tol: math.NaN()}}},
		{"Tol −1", rbf, Options{Components: 2, Compression: &Compression{PreImages: 2, Tol: -1}}},
		{"Tol +Inf", rbf, Options{Components: 2, Compression: &Compression{PreImages: 2, Tol: math.Inf(1)}}},
		{"pre-images of 2³² numbers", rbf, Options{Components: 1 << 8, Compression: &Compression{PreImages: 1 << 8}}},
	}
	md, err := Fit(rbf, X, Options{Components: 4})
	if err != nil {
		t.Fatal(err)
	}
	enc := wiretest.Marshal(t, md)
	empty, err := New(rbf, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var zero Model
	var cases errtest.Cases
	add := cases.Add
	for _, b := range testmat.BadKernels() {
		add("Fit: kernel "+b.Name, ikpca.ErrArgument, func() error { _, err := Fit(b.Kernel, X, Options{}); return err })
		add("New: kernel "+b.Name, ikpca.ErrArgument, func() error { _, err := New(b.Kernel, 2, Options{}); return err })
	}
	for _, o := range badOpts {
		add("Fit: "+o.name, ikpca.ErrArgument, func() error { _, err := Fit(o.k, X, o.o); return err })
		add("New: "+o.name, ikpca.ErrArgument, func() error { _, err := New(o.k, 2, o.o); return err })
	}
	for _, c := range errtest.BadPoints(withNaN) {
		add("Fit: points "+c.What, c.Kind, func() error { _, err := Fit(rbf, c.X, Options{}); return err })
		add("Model.AddBatch: "+c.What, c.Kind, func() error { return md.AddBatch(c.X) })
		add("New's Model.AddBatch: "+c.What, c.Kind, func() error { return empty.AddBatch(c.X) })
		add("Model.Transform: "+c.What, c.Kind, func() error { return md.Transform(&mat.Dense{}, c.X, 1) })
	}
	add("New: dimension 0", ikpca.ErrArgument, func() error { _, err := New(rbf, 0, Options{}); return err })
	add("New: dimension −1", ikpca.ErrArgument, func() error { _, err := New(rbf, -1, Options{}); return err })
	add("New: dimension MaxInt", ikpca.ErrArgument, func() error { _, err := New(rbf, math.MaxInt, Options{}); return err })
	add("Fit: an overflowing kernel", ikpca.ErrNonFinite, func() error {
		_, err := Fit(kernel.Polynomial{Degree: 40, Gamma: 1, Coef0: 1}, mat.NewDense(2, 1, []float64{1e10, 1}), Options{})
		return err
	})
	add("Model.Add(nil)", ikpca.ErrDimension, func() error { return md.Add(nil) })
	add("Model.Add: another dimension", ikpca.ErrDimension, func() error { return md.Add([]float64{1, 2, 3}) })
	add("Model.Add: a NaN coordinate", ikpca.ErrNonFinite, func() error { return md.Add([]float64{math.NaN(), 0}) })
	add("Model.Add: an infinite coordinate", ikpca.ErrNonFinite, func() error { return md.Add([]float64{0, math.Inf(-1)}) })
	add("Model.AddBatch: another dimension", ikpca.ErrDimension, func() error { return md.AddBatch(mat.NewDense(2, 3, nil)) })
	add("Model.Transform: nil dst", ikpca.ErrArgument, func() error { return md.Transform(nil, X, 1) })
	add("Model.Transform: k = 0", ikpca.ErrArgument, func() error { return md.Transform(&mat.Dense{}, X, 0) })
	add("Model.Transform: k above the components", ikpca.ErrArgument, func() error { return md.Transform(&mat.Dense{}, X, 5) })
	add("Model.Transform: another dimension", ikpca.ErrDimension, func() error { return md.Transform(&mat.Dense{}, mat.NewDense(1, 3, nil), 1) })
	add("Model.Transform: a dst of another shape", ikpca.ErrDimension, func() error { return md.Transform(mat.NewDense(2, 2, nil), X, 1) })
	add("New's Model.Transform", ikpca.ErrEmpty, func() error { return empty.Transform(&mat.Dense{}, X, 1) })
	add("New's Model.Add: another dimension", ikpca.ErrDimension, func() error { return empty.Add([]float64{1}) })
	add("Model.MarshalBinary: a kernel without a Spec", ikpca.ErrArgument, func() error {
		m, err := Fit(opaqueKernel{}, X, Options{})
		if err != nil {
			return err
		}
		_, err = m.MarshalBinary()
		return err
	})
	cases.AddPersistent("Model", md, enc)
	add("zero Model: Add", ikpca.ErrArgument, func() error { return zero.Add(nil) })
	add("zero Model: AddBatch", ikpca.ErrArgument, func() error { return zero.AddBatch(X) })
	add("zero Model: Transform", ikpca.ErrArgument, func() error { return zero.Transform(&mat.Dense{}, X, 1) })
	cases.AddZero("zero Model", &zero)
	add("Model.Orthogonality: a zero Model", nil, func() error { _, err := zero.Orthogonality(); return err })

	before, beforeEmpty := snap(md), snap(empty)
	errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument, ErrEncoding, ErrNotConverged).Run(t, cases)
	cases.Cover(t, 3)
	if !sameSnapshot(before, snap(md)) || !sameSnapshot(beforeEmpty, snap(empty)) {
		t.Error("a refused call changed a model")
	}
}
