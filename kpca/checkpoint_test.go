package kpca

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// TestCheckpointRoundTrip: Save then Load gives the same model bit for bit, and both
// continue identically.
func TestCheckpointRoundTrip(t *testing.T) {
	x := points(t, "yeast", 90)
	k := rbfMedian(t, x)
	for _, opts := range allOptions {
		opts.RefreshTolerance, opts.CheckEvery = 1e-9, 7
		md, err := New(k, x.Slice(0, 30, 0, 8), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := md.AddBatch(x.Slice(30, 60, 0, 8)); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := md.Save(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := Load(bytes.NewReader(buf.Bytes()), nil)
		if err != nil {
			t.Fatalf("%s: %v", name(opts), err)
		}
		if !capture(back).equal(capture(md)) || back.Options() != md.Options() || back.since != md.since {
			t.Fatalf("%s: loaded model differs", name(opts))
		}
		var v1, v2 mat.Dense
		md.VectorsTo(&v1)
		back.VectorsTo(&v2)
		if !mat.Equal(&v1, &v2) {
			t.Fatalf("%s: vectors differ", name(opts))
		}
		if err := md.AddBatch(x.Slice(60, 90, 0, 8)); err != nil {
			t.Fatal(err)
		}
		if err := back.AddBatch(x.Slice(60, 90, 0, 8)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(md.Values(nil), back.Values(nil)) {
			t.Errorf("%s: continued models differ", name(opts))
		}
	}
}

// TestCheckpointCorruption: truncations and bit flips anywhere are reported as
// ErrCheckpoint, as are foreign data and a future version.
func TestCheckpointCorruption(t *testing.T) {
	x := points(t, "yeast", 25)
	md, err := New(rbfMedian(t, x), x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := md.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for _, n := range []int{0, 5, 8, 20, 100, len(good) / 2, len(good) - 33, len(good) - 1} {
		if _, err := Load(bytes.NewReader(good[:n]), nil); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("truncated to %d bytes: got %v", n, err)
		}
	}
	for _, pos := range []int{0, 9, 14, 40, len(good) / 3, len(good) / 2, len(good) - 40, len(good) - 1} {
		bad := slices.Clone(good)
		bad[pos] ^= 0x10
		if _, err := Load(bytes.NewReader(bad), nil); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("bit flipped at byte %d: got %v", pos, err)
		}
	}
	if _, err := Load(bytes.NewReader([]byte("this is not a checkpoint at all, not at all")), nil); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("foreign data: %v", err)
	}
}

// TestCheckpointKernels: a user kernel is saved by name and must be supplied to Load; a
// kernel that cannot describe itself cannot be saved.
func TestCheckpointKernels(t *testing.T) {
	x := points(t, "yeast", 20)
	gauss := func(a, b []float64) float64 {
		var s float64
		for i := range a {
			d := a[i] - b[i]
			s += d * d
		}
		return math.Exp(-s)
	}
	custom := kernel.Func{Name: "my-gauss", F: gauss}
	md, err := New(custom, x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := md.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bytes.NewReader(buf.Bytes()), nil); !errors.Is(err, ErrArgument) {
		t.Errorf("custom kernel not supplied: %v", err)
	}
	if _, err := Load(bytes.NewReader(buf.Bytes()), kernel.Func{Name: "other", F: gauss}); !errors.Is(err, ErrArgument) {
		t.Errorf("custom kernel with the wrong name: %v", err)
	}
	back, err := Load(bytes.NewReader(buf.Bytes()), custom)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Values(nil), md.Values(nil)) {
		t.Error("custom kernel model differs after Load")
	}
	opaque, err := New(plainKernel{}, x, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := opaque.Save(&buf); !errors.Is(err, ErrArgument) {
		t.Errorf("kernel without a Spec: %v", err)
	}
}

// plainKernel implements kernel.Kernel only.
type plainKernel struct{}

func (plainKernel) Eval(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}
