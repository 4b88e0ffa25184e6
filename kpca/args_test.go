package kpca

import (
	"errors"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// TestNilArguments: every exported entry point given nil or a typed nil returns a typed
// error instead of panicking, and a model is left as it was.
func TestNilArguments(t *testing.T) {
	x, k := sample(t, "yeast", 15)
	md := newModel(t, k, x, Options{})
	ny, err := NewNystrom(k, x, NystromOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ny.Grow(3); err != nil {
		t.Fatal(err)
	}
	before := md.Values(nil)
	var dst mat.Dense
	nilDense := (*mat.Dense)(nil)
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"New(nil, X)", func() error { _, err := New(nil, x, Options{}); return err }, ErrArgument},
		{"New((*kernel.RBF)(nil), X)", func() error { _, err := New((*kernel.RBF)(nil), x, Options{}); return err }, ErrArgument},
		{"NewNystrom((*kernel.RBF)(nil), X)", func() error { _, err := NewNystrom((*kernel.RBF)(nil), x, NystromOptions{}); return err }, ErrArgument},
		{"New(k, nil)", func() error { _, err := New(k, nil, Options{}); return err }, ErrArgument},
		{"New(k, (*mat.Dense)(nil))", func() error { _, err := New(k, nilDense, Options{}); return err }, ErrArgument},
		{"New(k, (*mat.SymDense)(nil))", func() error { _, err := New(k, (*mat.SymDense)(nil), Options{}); return err }, ErrArgument},
		{"AddBatch(nil)", func() error { return md.AddBatch(nil) }, ErrArgument},
		{"AddBatch((*mat.Dense)(nil))", func() error { return md.AddBatch(nilDense) }, ErrArgument},
		{"Add(nil)", func() error { return md.Add(nil) }, ErrDimension},
		{"Transform(dst, (*mat.Dense)(nil), 1)", func() error { return md.Transform(&dst, nilDense, 1) }, ErrArgument},
		{"Transform(nil, X, 1)", func() error { return md.Transform(nil, x, 1) }, ErrArgument},
		{"Scores(nil, 1)", func() error { return md.Scores(nil, 1) }, ErrArgument},
		{"Save(nil)", func() error { return md.Save(nil) }, ErrArgument},
		{"Load(nil)", func() error { _, err := Load(nil, nil); return err }, ErrArgument},
		{"NewNystrom(nil, X)", func() error { _, err := NewNystrom(nil, x, NystromOptions{}); return err }, ErrArgument},
		{"NewNystrom(k, (*mat.Dense)(nil))", func() error { _, err := NewNystrom(k, nilDense, NystromOptions{}); return err }, ErrArgument},
		{"Nystrom.Transform(dst, (*mat.Dense)(nil), 1)", func() error { return ny.Transform(&dst, nilDense, 1) }, ErrArgument},
		{"Nystrom.Transform(nil, X, 1)", func() error { return ny.Transform(nil, x, 1) }, ErrArgument},
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
		if !errors.Is(err, c.want) {
			t.Errorf("%s = %v, want %v", c.name, err, c.want)
		}
	}
	if md.Len() != 15 || !slices.Equal(md.Values(nil), before) {
		t.Error("a rejected call changed the model")
	}
}

// TestImpossibleOptions: negative or impossible options are ErrArgument errors, in New
// and NewNystrom alike.
func TestImpossibleOptions(t *testing.T) {
	x, k := sample(t, "yeast", 10)
	for _, o := range []Options{
		{Update: update.Options{Workers: -1}},
		{Update: update.Options{Serial: -1}},
		{Update: update.Options{MaxIterations: -1}},
		{Mode: 2}, {Method: -1},
		{RefreshTolerance: -1}, {CheckEvery: -1},
	} {
		if _, err := New(k, x, o); !errors.Is(err, ErrArgument) {
			t.Errorf("New with %+v: %v, want ErrArgument", o, err)
		}
	}
	for _, u := range []update.Options{{Workers: -1}, {Serial: -2}, {MaxIterations: -3}} {
		if _, err := NewNystrom(k, x, NystromOptions{Update: u}); !errors.Is(err, ErrArgument) {
			t.Errorf("NewNystrom with %+v: %v, want ErrArgument", u, err)
		}
	}
}
