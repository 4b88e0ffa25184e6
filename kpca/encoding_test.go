package kpca

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"testing"

	"github.com/ikpca/ikpca/kernel"
)

// TestEncodingRoundTrip: MarshalBinary then UnmarshalBinary gives the same model bit for
// bit, into a zero Model and over another model (of other options, points and
// dimension), and both continue identically; at rank r and in a window too (the format
// records both); MarshalBinaryTo writes MarshalBinary's bytes and UnmarshalBinaryFrom
// reads them back, one encoding after another from one stream.
func TestEncodingRoundTrip(t *testing.T) {
	x, k := sample(t, "yeast", 90)
	y := points(t, "magic", 20)
	for _, opts := range append(slices.Clone(allOptions), streamOptions...) {
		opts.RefreshTolerance, opts.CheckEvery = 1e-9, 7
		md := fitModel(t, k, x.Slice(0, 30, 0, 8), opts)
		if err := md.AddBatch(x.Slice(30, 60, 0, 8)); err != nil {
			t.Fatal(err)
		}
		b := encode(t, md)
		back, err := decoded(b)
		if err != nil {
			t.Fatalf("%s: %v", name(opts), err)
		}
		over := fitModel(t, rbfMedian(t, y), y, Options{Components: 3, Uncentred: !opts.Uncentred})
		if err := over.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: over another model: %v", name(opts), err)
		}
		for _, got := range []*Model{back, over} {
			if !capture(got).equal(capture(md)) || got.Options() != md.Options() || got.since != md.since || got.Rank() != md.Rank() {
				t.Fatalf("%s: decoded model differs", name(opts))
			}
			if !sameVectors(md, got) {
				t.Fatalf("%s: vectors differ", name(opts))
			}
		}
		var stream bytes.Buffer
		for range 2 {
			if n, err := md.MarshalBinaryTo(&stream); err != nil || n != len(b) {
				t.Fatalf("%s: MarshalBinaryTo: %d bytes, %v; MarshalBinary %d", name(opts), n, err, len(b))
			}
		}
		if !bytes.Equal(stream.Bytes()[:len(b)], b) {
			t.Fatalf("%s: MarshalBinaryTo and MarshalBinary differ", name(opts))
		}
		for q := range 2 {
			var from Model
			if n, err := from.UnmarshalBinaryFrom(&stream); err != nil || n != len(b) || !capture(&from).equal(capture(md)) {
				t.Fatalf("%s: UnmarshalBinaryFrom, encoding %d of 2: %d bytes, %v", name(opts), q+1, n, err)
			}
		}
		for _, m := range []*Model{md, back, over} {
			if err := m.AddBatch(x.Slice(60, 90, 0, 8)); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(md.Values(nil), back.Values(nil)) || !slices.Equal(md.Values(nil), over.Values(nil)) {
			t.Errorf("%s: continued models differ", name(opts))
		}
	}
}

// TestEncodingBuiltinKernels: every built-in kernel, RBF and Laplacian given by σ and
// by γ, the sigmoid (not positive semi-definite: the model has negative eigenvalues)
// and the cosine, is encoded and decoded exactly: the same kernel (==), the same Spec, the same
// model.
func TestEncodingBuiltinKernels(t *testing.T) {
	x := points(t, "yeast", 15)
	med := rbfMedian(t, x).Sigma
	for _, k := range []kernel.Kernel{
		kernel.RBF{Sigma: med}, kernel.RBF{Gamma: 1 / (2 * med * med)},
		kernel.Laplacian{Sigma: 3 * med}, kernel.Laplacian{Gamma: 1 / (3 * med)},
		kernel.Polynomial{Degree: 2, Gamma: 0.3, Coef0: 0.7}, kernel.Linear{},
		kernel.Sigmoid{Gamma: 0.3, Coef0: -0.5}, kernel.Cosine{},
	} {
		md := fitModel(t, k, x, Options{Components: All})
		back, err := decoded(encode(t, md))
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if back.Kernel() != k || back.Kernel().(kernel.Specified).Spec() != k.(kernel.Specified).Spec() {
			t.Errorf("%v: decoded with kernel %#v", k, back.Kernel())
		}
		if !capture(back).equal(capture(md)) {
			t.Errorf("%v: the decoded model differs", k)
		}
	}
}

// TestEncodingCorruption: truncations and bit flips anywhere are reported as ErrEncoding,
// as are foreign data and bytes after the encoding, and leave the receiver unchanged;
// from a stream, a truncation is ErrEncoding and io.ErrUnexpectedEOF, and a reader's own
// error comes back as it is.
func TestEncodingCorruption(t *testing.T) {
	x := points(t, "yeast", 25)
	md := fitModel(t, rbfMedian(t, x), x, Options{Components: All})
	good := encode(t, md)
	recv := fitModel(t, rbfMedian(t, x), x.Slice(0, 10, 0, 8), Options{Components: 3})
	before := capture(recv)
	check := func(what string, b []byte) {
		t.Helper()
		if err := recv.UnmarshalBinary(b); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: got %v", what, err)
		}
		if !capture(recv).equal(before) || recv.Options().Components != 3 {
			t.Errorf("%s: the receiver changed", what)
		}
	}
	for _, n := range []int{0, 5, 8, 20, 100, len(good) / 2, len(good) - 33, len(good) - 1} {
		check("truncated", good[:n])
		if _, err := recv.UnmarshalBinaryFrom(bytes.NewReader(good[:n])); !errors.Is(err, ErrEncoding) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("truncated to %d bytes, from a stream: got %v", n, err)
		}
	}
	for _, pos := range []int{0, 9, 14, 40, len(good) / 3, len(good) / 2, len(good) - 40, len(good) - 1} {
		bad := slices.Clone(good)
		bad[pos] ^= 0x10
		check("a bit flipped", bad)
	}
	check("foreign data", []byte("this is not an encoding at all, not at all, not at all"))
	check("a byte after it", append(slices.Clone(good), 0))
	boom := errors.New("read failed")
	if _, err := recv.UnmarshalBinaryFrom(io.MultiReader(bytes.NewReader(good[:100]), failing{boom})); !errors.Is(err, boom) {
		t.Errorf("a reader that fails: %v", err)
	}
	if !capture(recv).equal(before) {
		t.Error("a failed read changed the receiver")
	}
}

// failing is a reader that fails.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// TestEncodingKernels: a user kernel (kernel.Func) is encoded by name and decoded once
// it is registered (kernel.Register), as the registered function; unregistered, the
// decoder says so (ErrArgument) and changes nothing; a kernel that cannot describe
// itself cannot be encoded.
func TestEncodingKernels(t *testing.T) {
	x := points(t, "yeast", 20)
	gauss := func(a, b []float64) float64 {
		var s float64
		for i := range a {
			d := a[i] - b[i]
			s += d * d
		}
		return math.Exp(-s)
	}
	custom := kernel.Func{Name: "kpca-test-gauss", F: gauss}
	md := fitModel(t, custom, x, Options{Components: All})
	saved := encode(t, md)
	var recv Model
	if err := recv.UnmarshalBinary(saved); !errors.Is(err, ErrArgument) || recv.kern != nil {
		t.Errorf("an unregistered kernel: %v", err)
	}
	if err := kernel.Register(custom); err != nil {
		t.Fatal(err)
	}
	back, err := decoded(saved)
	if err != nil {
		t.Fatal(err)
	}
	if back.Kernel().(kernel.Func).Name != custom.Name || !slices.Equal(back.Values(nil), md.Values(nil)) {
		t.Error("the custom kernel's model differs after decoding")
	}
	if err := back.Add(x.RawRowView(0)); err != nil {
		t.Errorf("the decoded model with a registered kernel: %v", err)
	}
	opaque := fitModel(t, plainKernel{}, x, Options{Components: All})
	if _, err := opaque.MarshalBinary(); !errors.Is(err, ErrArgument) {
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

// TestCopyFrom checks that a copy is the same model: equal state, the same next step
// bit for bit, and an original untouched by what is done to the copy. The destination
// starts as a model of other data, of another dimension and options.
func TestCopyFrom(t *testing.T) {
	x, k := sample(t, "magic", 61)
	y := points(t, "yeast", 30)
	for _, opts := range allOptions {
		src := fitModel(t, k, x.Slice(0, 60, 0, 10), opts)
		other := Options{Components: All, Uncentred: !opts.Uncentred, Method: 1 - opts.Method}
		dst := fitModel(t, rbfMedian(t, y), y, other)
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
		base := fitModel(t, k, x.Slice(0, 80, 0, 10), opts)
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
