package kpca

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// TestCheckpointRoundTrip: Save then Load gives the same model bit for bit, and both
// continue identically; at rank r and in a window too (the format records both).
func TestCheckpointRoundTrip(t *testing.T) {
	x, k := sample(t, "yeast", 90)
	for _, opts := range append(slices.Clone(allOptions), streamOptions...) {
		opts.RefreshTolerance, opts.CheckEvery = 1e-9, 7
		md := newModel(t, k, x.Slice(0, 30, 0, 8), opts)
		if err := md.AddBatch(x.Slice(30, 60, 0, 8)); err != nil {
			t.Fatal(err)
		}
		back, err := Load(bytes.NewReader(checkpoint(t, md)), nil)
		if err != nil {
			t.Fatalf("%s: %v", name(opts), err)
		}
		if !capture(back).equal(capture(md)) || back.Options() != md.Options() || back.since != md.since {
			t.Fatalf("%s: loaded model differs", name(opts))
		}
		if !sameVectors(md, back) {
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

// TestCheckpointBuiltinKernels: every built-in kernel, RBF and Laplacian given by σ and
// by γ, is saved and loaded back exactly: the same kernel (==), the same Spec, the same
// model.
func TestCheckpointBuiltinKernels(t *testing.T) {
	x := points(t, "yeast", 15)
	med := rbfMedian(t, x).Sigma
	for _, k := range []kernel.Kernel{
		kernel.RBF{Sigma: med}, kernel.RBF{Gamma: 1 / (2 * med * med)},
		kernel.Laplacian{Sigma: 3 * med}, kernel.Laplacian{Gamma: 1 / (3 * med)},
		kernel.Polynomial{Degree: 2, Gamma: 0.3, Coef0: 0.7}, kernel.Linear{},
	} {
		md := newModel(t, k, x, Options{})
		back, err := Load(bytes.NewReader(checkpoint(t, md)), nil)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if back.Kernel() != k || back.Kernel().(kernel.Specified).Spec() != k.(kernel.Specified).Spec() {
			t.Errorf("%v: loaded with kernel %#v", k, back.Kernel())
		}
		if !capture(back).equal(capture(md)) {
			t.Errorf("%v: the loaded model differs", k)
		}
	}
}

// TestCheckpointCorruption: truncations and bit flips anywhere are reported as
// ErrCheckpoint, as are foreign data and a future version.
func TestCheckpointCorruption(t *testing.T) {
	x := points(t, "yeast", 25)
	md := newModel(t, rbfMedian(t, x), x, Options{})
	good := checkpoint(t, md)
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
	md := newModel(t, custom, x, Options{})
	saved := checkpoint(t, md)
	if _, err := Load(bytes.NewReader(saved), nil); !errors.Is(err, ErrArgument) {
		t.Errorf("custom kernel not supplied: %v", err)
	}
	if _, err := Load(bytes.NewReader(saved), kernel.Func{Name: "other", F: gauss}); !errors.Is(err, ErrArgument) {
		t.Errorf("custom kernel with the wrong name: %v", err)
	}
	back, err := Load(bytes.NewReader(saved), custom)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Values(nil), md.Values(nil)) {
		t.Error("custom kernel model differs after Load")
	}
	opaque := newModel(t, plainKernel{}, x, Options{})
	if err := opaque.Save(new(bytes.Buffer)); !errors.Is(err, ErrArgument) {
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

// TestCheckpointVersion1 loads the version-1 checkpoints in testdata/v1 — written by the
// code before version 2 (main at 424eb806), of 30 Yeast points (20 by New, 10 added),
// RBF with the median distance, in every mode and method — and checks them against a
// model built now from the same points: the same eigenvalues and vectors to 1e-12
// (the centred bordered file stores Helmert coordinates, converted on load, V = Q·W),
// the same scores, and a model that continues, saves in the current version and loads back.
func TestCheckpointVersion1(t *testing.T) {
	x := points(t, "yeast", 31)
	k := rbfMedian(t, x.Slice(0, 30, 0, 8).(*mat.Dense))
	for _, opts := range allOptions {
		path := "testdata/v1/v1-" + opts.Mode.String() + "-" + opts.Method.String() + ".ckpt"
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(raw[len(checkpointMagic):]); v != 1 {
			t.Fatalf("%s is version %d", path, v)
		}
		old, err := Load(bytes.NewReader(raw), nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		now := newModel(t, k, x.Slice(0, 20, 0, 8), opts)
		for i := 20; i < 30; i++ {
			if err := now.Add(x.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		if old.Len() != 30 || old.Options() != opts {
			t.Fatalf("%s: %d points, options %+v", path, old.Len(), old.Options())
		}
		if d := maxRelDiff(old.Values(nil), now.Values(nil)); d > 1e-12 {
			t.Errorf("%s: eigenvalues differ by %.3g·λmax", path, d)
		}
		var a, b mat.Dense
		old.VectorsTo(&a)
		now.VectorsTo(&b)
		comps := old.Components()
		for j := range min(comps, 10) { // the well-separated leading components
			for i := range 30 {
				if d := math.Abs(a.At(i, j) - b.At(i, j)); d > 1e-10 {
					t.Errorf("%s: vector %d differs at %d by %.3g", path, j, i, d)
					break
				}
			}
		}
		if old.self == 0 || math.Abs(old.self-now.self) > 1e-12*now.self {
			t.Errorf("%s: trace %.17g, want %.17g", path, old.self, now.self)
		}
		if err := old.Add(x.RawRowView(30)); err != nil {
			t.Fatalf("%s: continuing: %v", path, err)
		}
		checkExact(t, path, old, 1e-10)
		back, err := Load(bytes.NewReader(checkpoint(t, old)), nil)
		if err != nil || !capture(back).equal(capture(old)) {
			t.Errorf("%s: saved in the current version and loaded back: %v", path, err)
		}
	}
}

// TestCopyFrom checks that a copy is the same model: equal state, the same next step
// bit for bit, and an original untouched by what is done to the copy. The destination
// starts as a model of other data, of another dimension and options.
func TestCopyFrom(t *testing.T) {
	x, k := sample(t, "magic", 61)
	y := points(t, "yeast", 30)
	for _, opts := range allOptions {
		src := newModel(t, k, x.Slice(0, 60, 0, 10), opts)
		other := Options{Mode: 1 - opts.Mode, Method: 1 - opts.Method}
		dst := newModel(t, rbfMedian(t, y), y, other)
		before := capture(src)
		dst.CopyFrom(src)
		if !capture(dst).equal(before) || dst.Dim() != 10 || dst.Options() != opts || dst.Kernel() != src.Kernel() {
			t.Fatalf("%s: copy differs from its source", name(opts))
		}
		next := x.RawRowView(60)
		if err := dst.Add(next); err != nil {
			t.Fatal(err)
		}
		if !capture(src).equal(before) {
			t.Fatalf("%s: adding to the copy changed the source", name(opts))
		}
		if err := src.Add(next); err != nil {
			t.Fatal(err)
		}
		if !capture(dst).equal(capture(src)) || dst.Stats().Deflated != src.Stats().Deflated {
			t.Errorf("%s: the copy's step differs from the source's", name(opts))
		}
		if !sameVectors(src, dst) {
			t.Errorf("%s: eigenvectors differ after the same step", name(opts))
		}
		dst.CopyFrom(dst) // a no-op
		if !capture(dst).equal(capture(src)) {
			t.Errorf("%s: self-copy changed the model", name(opts))
		}
	}
}

// TestCopyFromNoGarbage checks that restoring a saved state into a model with enough
// room allocates nothing, and that Reserve gives that room up front.
func TestCopyFromNoGarbage(t *testing.T) {
	x, k := sample(t, "magic", 81)
	for _, opts := range allOptions {
		base := newModel(t, k, x.Slice(0, 80, 0, 10), opts)
		var work Model
		work.Reserve(0) // a zero Model: nothing to do
		work.CopyFrom(base)
		work.Reserve(81)
		if err := work.Add(x.RawRowView(80)); err != nil {
			t.Fatal(err)
		}
		if allocs := testing.AllocsPerRun(20, func() { work.CopyFrom(base) }); allocs != 0 {
			t.Errorf("%s: CopyFrom allocates %v times", name(opts), allocs)
		}
		if work.Len() != 80 || !slices.Equal(work.Values(nil), base.Values(nil)) {
			t.Errorf("%s: restored model differs", name(opts))
		}
	}
}
