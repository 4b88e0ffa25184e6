package kpca

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// clusters returns n points of dimension d around a few random centres: a spectrum that
// decays, as images' does, and a dimension at which a pass keeps its kernel values
// (passMemoryDim).
func clusters(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	centres := mat.NewDense(6, d, nil)
	for i := range 6 {
		for j := range d {
			centres.Set(i, j, 3*rng.NormFloat64())
		}
	}
	X := mat.NewDense(n, d, nil)
	for i := range n {
		c := rng.IntN(6)
		for j := range d {
			X.Set(i, j, centres.At(c, j)+rng.NormFloat64())
		}
	}
	return X
}

// keptFit returns a model tracked at rank r over the rows of X from a batch start of
// its first start rows, the others added by one AddBatch — after KeepKernel if keep.
func keptFit(t *testing.T, k kernel.Kernel, X *mat.Dense, start int, opts Options, keep bool) *Model {
	t.Helper()
	n, d := X.Dims()
	md := fitModel(t, k, X.Slice(0, start, 0, d), opts)
	rest := X.Slice(start, n, 0, d)
	if keep {
		if err := md.KeepKernel(rest); err != nil {
			t.Fatal(err)
		}
		if md.kept == nil {
			t.Fatal("KeepKernel kept nothing")
		}
	}
	if err := md.AddBatch(rest); err != nil {
		t.Fatal(err)
	}
	return md
}

// TestKeepKernelPolish: a Polish that reads the values KeepKernel kept gives the pairs a
// Polish of the same model computes from its points, bit for bit (the same values, in
// the same tiles: a copy of the model, which does not share them, is polished beside
// it); and the block steps that read them track the same model as steps that compute
// their own, to rounding — after a Polish of 3 passes both are at batch accuracy, and
// their values agree within 1e-12·λ₁ (the polish's own error is below 1e-14·λ₁ on
// these points; tracking's is 1e-7). Tiles of 97 points and a start of 150 make blocks
// of 64 straddle tiles, and a short last tile; an odd and an even number of blocks.
func TestKeepKernelPolish(t *testing.T) {
	for _, tc := range []struct {
		n, tile   int
		uncentred bool
	}{{600, 97, false}, {520, 130, true}, {300, 256, false}} {
		withPassTile(t, tc.tile)
		X := clusters(tc.n, 70, uint64(tc.n))
		k := rbfMedian(t, X)
		opts := Options{Components: 5, Rank: 20, BatchMax: 150, Uncentred: tc.uncentred}
		kept := keptFit(t, k, X, 150, opts, true)
		plain := keptFit(t, k, X, 150, opts, false)
		if kept.kept == nil {
			t.Fatal("the kept values were dropped by the block steps")
		}
		var copied Model
		if err := copied.CopyFrom(kept); err != nil {
			t.Fatal(err)
		}
		if d := maxRelDiff(kept.Values(nil), plain.Values(nil)); d > 1e-9 {
			t.Errorf("n=%d: tracked with kept values: values differ by %.1e from tracked without", tc.n, d)
		}
		for _, md := range []*Model{kept, &copied, plain} {
			if err := md.Polish(3); err != nil {
				t.Fatal(err)
			}
		}
		if kept.kept == nil {
			t.Error("the kept values did not outlive the Polish, for a Certify")
		}
		if !sameVectors(kept, &copied) || !vec.SameBits(kept.Values(nil), copied.Values(nil)) {
			t.Errorf("n=%d: a Polish reading the kept values differs from one computing them", tc.n)
		}
		v, w := kept.Values(nil), plain.Values(nil)
		for i := range v {
			if math.Abs(v[i]-w[i]) > 1e-12*v[0] {
				t.Errorf("n=%d: polished value %d: %.17g with kept values, %.17g without", tc.n, i, v[i], w[i])
			}
		}
		checkSums(t, "kept", kept)
	}
}

// TestKeepKernelCertify: a Certify after a Polish that read the values KeepKernel kept
// reads them too — less its offset, the values its own passes compute — and gives the
// certificate of a copy of the model that computes them, bit for bit; it uses them up.
// DropKernel gives them back at once.
func TestKeepKernelCertify(t *testing.T) {
	for _, tc := range []struct {
		n, tile   int
		uncentred bool
	}{{600, 97, false}, {520, 130, true}} {
		withPassTile(t, tc.tile)
		X := clusters(tc.n, 70, uint64(tc.n))
		opts := Options{Components: 5, Rank: 20, BatchMax: 150, Uncentred: tc.uncentred}
		kept := keptFit(t, rbfMedian(t, X), X, 150, opts, true)
		var copied Model
		if err := copied.CopyFrom(kept); err != nil {
			t.Fatal(err)
		}
		for _, md := range []*Model{kept, &copied} {
			if err := md.Polish(2); err != nil {
				t.Fatal(err)
			}
		}
		if kept.kept == nil || copied.kept != nil {
			t.Fatalf("n=%d: after the Polish, kept values %v and %v, want the first only", tc.n, kept.kept != nil, copied.kept != nil)
		}
		got, err := kept.CertifyContext(context.Background(), CertifyOptions{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		want, err := copied.CertifyContext(context.Background(), CertifyOptions{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("n=%d: a Certify reading the kept values differs from one computing them:\n%+v\n%+v", tc.n, got, want)
		}
		if kept.kept != nil {
			t.Errorf("n=%d: the kept values outlived the Certify", tc.n)
		}
	}
	X := clusters(300, 70, 5)
	md := keptFit(t, rbfMedian(t, X), X, 150, Options{Components: 4, Rank: 12, BatchMax: 150}, true)
	md.DropKernel()
	if md.kept != nil {
		t.Error("DropKernel left the kept values")
	}
	var zero Model
	zero.DropKernel()
	(*Model)(nil).DropKernel()
}

// TestKeepKernelDropped: the kept values are given back as soon as the points change
// otherwise than by block steps of the rows given (a row added alone, other rows, a
// removal, a decoding into the model), or a Polish starts before they are all added —
// and a Polish then computes its own, to the same result.
func TestKeepKernelDropped(t *testing.T) {
	withPassTile(t, 97)
	X := clusters(400, 70, 3)
	k := rbfMedian(t, X)
	opts := Options{Components: 4, Rank: 12, BatchMax: 150}
	rest := X.Slice(150, 400, 0, 70).(*mat.Dense)
	fresh := func() *Model {
		md := fitModel(t, k, X.Slice(0, 150, 0, 70), opts)
		if err := md.KeepKernel(rest); err != nil {
			t.Fatal(err)
		}
		if md.kept == nil {
			t.Fatal("nothing kept")
		}
		return md
	}
	other := clusters(64, 70, 4)
	for name, change := range map[string]func(md *Model) error{
		"Add":               func(md *Model) error { return md.Add(rest.RawRowView(0)) },
		"other rows":        func(md *Model) error { return md.AddBatch(other) },
		"Remove":            func(md *Model) error { return md.Remove(3) },
		"rows out of order": func(md *Model) error { return md.AddBatch(rest.Slice(64, 128, 0, 70)) },
		"decoding": func(md *Model) error {
			return md.UnmarshalBinary(encode(t, fitModel(t, k, X.Slice(0, 150, 0, 70), opts)))
		},
		"Polish before all": func(md *Model) error {
			if err := md.AddBatch(rest.Slice(0, 100, 0, 70)); err != nil {
				return err
			}
			if md.kept == nil {
				t.Error("Polish before all: dropped by the block steps of the rows given")
			}
			return md.Polish(2)
		},
	} {
		md := fresh()
		if err := change(md); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if md.kept != nil {
			t.Errorf("%s: the kept values were not dropped", name)
		}
	}
}

// TestKeepKernelKeepsNothing: where a Polish would not keep the whole triangle — points
// of few coordinates (cheap values), a PassMemory that holds less, the exact model, a
// window — KeepKernel keeps nothing, returns nil and changes nothing.
func TestKeepKernelKeepsNothing(t *testing.T) {
	X := clusters(300, 70, 5)
	k := rbfMedian(t, X)
	low := clusters(300, 10, 5)
	cases := map[string]struct {
		X    *mat.Dense
		opts Options
	}{
		"d = 10":      {low, Options{Components: 3, Rank: 10, BatchMax: 100}},
		"pass memory": {X, Options{Components: 3, Rank: 10, BatchMax: 100, PassMemory: 1 << 20}},
		"exact":       {X, Options{Components: All}},
		"window":      {X, Options{Components: 3, Rank: 10, Window: 200}},
	}
	for name, c := range cases {
		md := fitModel(t, k, c.X.Slice(0, 100, 0, c.X.RawMatrix().Cols), c.opts)
		before := capture(md)
		if err := md.KeepKernel(c.X.Slice(100, 300, 0, c.X.RawMatrix().Cols)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if md.kept != nil {
			t.Errorf("%s: kept values", name)
		}
		if !capture(md).equal(before) {
			t.Errorf("%s: the model changed", name)
		}
	}
}

// TestKeepKernelErrors: bad arguments, a cancelled context and a kernel value that is
// not finite are errors of their kinds, keep nothing, and leave the model as it was.
func TestKeepKernelErrors(t *testing.T) {
	withPassTile(t, 64)
	X := clusters(300, 70, 6)
	k := rbfMedian(t, X)
	opts := Options{Components: 3, Rank: 10, BatchMax: 100}
	rest := X.Slice(100, 300, 0, 70)
	nan := mat.DenseCopyOf(rest)
	nan.Set(7, 3, math.NaN())
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	// (x·y/70 + 1)² overflows for a point of coordinates 1e160, finite as it is.
	poly := kernel.Polynomial{Degree: 2, Gamma: 1.0 / 70, Coef0: 1}
	huge := mat.DenseCopyOf(rest)
	for j := range 70 {
		huge.Set(150, j, 1e160)
	}
	for name, c := range map[string]struct {
		k    kernel.Kernel
		call func(md *Model) error
		want error
	}{
		"nil context": {k, func(md *Model) error { return md.KeepKernelContext(nil, rest) }, ErrArgument}, //nolint:staticcheck // the nil context is the test
		"dimension":   {k, func(md *Model) error { return md.KeepKernel(X.Slice(0, 5, 0, 20)) }, ErrDimension},
		"NaN":         {k, func(md *Model) error { return md.KeepKernel(nan) }, ErrNonFinite},
		"cancelled":   {k, func(md *Model) error { return md.KeepKernelContext(cancelled, rest) }, context.Canceled},
		"overflow":    {poly, func(md *Model) error { return md.KeepKernel(huge) }, ErrNonFinite},
	} {
		md := fitModel(t, c.k, X.Slice(0, 100, 0, 70), opts)
		before := capture(md)
		if err := c.call(md); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
		if md.kept != nil {
			t.Errorf("%s: kept values", name)
		}
		if !capture(md).equal(before) {
			t.Errorf("%s: the model changed", name)
		}
	}
	var zero Model
	if err := zero.KeepKernel(rest); !errors.Is(err, ErrArgument) {
		t.Errorf("zero Model: %v", err)
	}
}

// BenchmarkKeepKernel times a tracked fit of the first -ikpca.pass-n Fashion-MNIST
// images (MAGIC's points if the data are not installed: d = 10, where nothing is kept)
// at rank 50 from a batch start of 1000, followed by a Polish of 4 passes: "plain",
// every block step and pass computing its kernel values, and "kept", KeepKernel first.
// Each iteration runs both, so that a machine's changing load falls on both; it reports
// their median seconds and the median ratio kept ÷ plain of a round.
func BenchmarkKeepKernel(b *testing.B) {
	X, sigma := benchImages(b)
	m, d := X.Dims()
	k := kernel.RBF{Sigma: sigma}
	opts := Options{Components: 10, Rank: 50}
	run := func(keep bool) time.Duration {
		t := time.Now()
		md := fitModel(b, k, X.Slice(0, 1000, 0, d), opts)
		rest := X.Slice(1000, m, 0, d)
		if err := md.Reserve(m); err != nil {
			b.Fatal(err)
		}
		if keep {
			if err := md.KeepKernel(rest); err != nil {
				b.Fatal(err)
			}
		}
		if err := md.AddBatch(rest); err != nil {
			b.Fatal(err)
		}
		if err := md.Polish(4); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	var plain, kept, ratio []float64
	for b.Loop() {
		p, q := run(false), run(true)
		plain, kept = append(plain, p.Seconds()), append(kept, q.Seconds())
		ratio = append(ratio, q.Seconds()/p.Seconds())
	}
	b.ReportMetric(vec.Median(plain), "plain-s")
	b.ReportMetric(vec.Median(kept), "kept-s")
	b.ReportMetric(vec.Median(ratio), "kept/plain")
}
