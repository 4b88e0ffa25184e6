package stream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"testing/iotest"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// decoded encodes m (MarshalBinary and MarshalBinaryTo, the same bytes), decodes it into
// the zero value zero (UnmarshalBinary) and checks that it encodes back to the same bytes.
func decoded[M persistent](t *testing.T, m M, zero M) M {
	t.Helper()
	b := wiretest.Marshal(t, m)
	var buf bytes.Buffer
	if n, err := m.MarshalBinaryTo(&buf); err != nil || n != len(b) || !bytes.Equal(buf.Bytes(), b) {
		t.Fatalf("MarshalBinaryTo: %d bytes, %v, or not MarshalBinary's %d", n, err, len(b))
	}
	if err := zero.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if again, err := zero.MarshalBinary(); err != nil || !bytes.Equal(again, b) {
		t.Fatalf("encoded again: not the same bytes (%v)", err)
	}
	return zero
}

// TestOnlineEncoding: a KRQA or KHA encoded and decoded — before the iteration starts,
// right after it, after passes, centred and not, with an RBF, a polynomial, the sigmoid
// (not positive semi-definite: its sums are bounded by |k| ≤ 1, not by Cauchy–Schwarz),
// the cosine and a registered kernel.Func — reads the same, bit for bit, and continues exactly as the
// original: more points, batches and passes give the same values and scores bit for
// bit. The seeded initial directions are drawn afresh from the seed at the start, so a
// model decoded before its start starts as the original would.
func TestOnlineEncoding(t *testing.T) {
	const name = "stream-test-cubic"
	cubic := kernel.Func{Name: name, F: func(x, y []float64) float64 {
		var s float64
		for i := range x {
			s += x[i] * y[i]
		}
		return (s + 1) * (s + 1) * (s + 1)
	}}
	if err := kernel.Register(cubic); err != nil {
		t.Fatal(err)
	}
	X := toy(60, 11)
	Y := X.Slice(50, 60, 0, 2)
	for _, c := range []struct {
		name string
		new  func() (onlineModel, onlineModel, error)
	}{
		{"KRQA, RBF", func() (onlineModel, onlineModel, error) {
			m, err := NewKRQA(kernel.RBF{Sigma: 0.7}, 2, KRQAOptions{Components: 3, Seed: 4})
			return m, new(KRQA), err
		}},
		{"KRQA, polynomial, uncentred", func() (onlineModel, onlineModel, error) {
			m, err := NewKRQA(kernel.Polynomial{Degree: 2, Gamma: 1}, 2, KRQAOptions{Components: 2, Seed: 5, Uncentred: true})
			return m, new(KRQA), err
		}},
		{"KRQA, a registered Func", func() (onlineModel, onlineModel, error) {
			m, err := NewKRQA(cubic, 2, KRQAOptions{Components: 2, Seed: 6})
			return m, new(KRQA), err
		}},
		{"KHA, RBF by γ", func() (onlineModel, onlineModel, error) {
			m, err := NewKHA(kernel.RBF{Gamma: 1}, 2, KHAOptions{Components: 3, Rate: 0.05, Decay: 20, Seed: 4})
			return m, new(KHA), err
		}},
		{"KHA, Laplacian, uncentred", func() (onlineModel, onlineModel, error) {
			m, err := NewKHA(kernel.Laplacian{Sigma: 1}, 2, KHAOptions{Components: 2, Rate: 0.1, Seed: 5, Uncentred: true})
			return m, new(KHA), err
		}},
		{"KRQA, sigmoid (not positive semi-definite)", func() (onlineModel, onlineModel, error) {
			m, err := NewKRQA(kernel.Sigmoid{Gamma: 0.3, Coef0: -0.5}, 2, KRQAOptions{Components: 2, Seed: 7})
			return m, new(KRQA), err
		}},
		{"KHA, sigmoid, uncentred", func() (onlineModel, onlineModel, error) {
			m, err := NewKHA(kernel.Sigmoid{Gamma: 1, Coef0: -2}, 2, KHAOptions{Components: 2, Rate: 0.05, Seed: 7, Uncentred: true})
			return m, new(KHA), err
		}},
		{"KHA, cosine", func() (onlineModel, onlineModel, error) {
			m, err := NewKHA(kernel.Cosine{}, 2, KHAOptions{Components: 2, Rate: 0.05, Seed: 8})
			return m, new(KHA), err
		}},
		{"KHA, a registered Func", func() (onlineModel, onlineModel, error) {
			m, err := NewKHA(cubic, 2, KHAOptions{Components: 2, Rate: 0.01, Seed: 6})
			return m, new(KHA), err
		}},
	} {
		for _, start := range []int{0, 2, 3, 4, 20} {
			m, zero, err := c.new()
			if err != nil {
				t.Fatal(err)
			}
			testmat.AddRows(t, m, X, 0, start)
			if start == 20 {
				if err := m.Pass(); err != nil {
					t.Fatal(err)
				}
			}
			back := decoded(t, m, zero)
			wiretest.SameModel(t, c.name+", decoded", m, back, Y)
			for _, model := range []onlineModel{m, back} {
				testmat.AddRows(t, model, X, start, 30)
				batchPass(t, model, X.Slice(30, 50, 0, 2))
			}
			wiretest.SameModel(t, c.name+", continued", m, back, Y)
		}
	}
}

// TestRNCAEncoding: an RNCA encoded and decoded — empty, fed, read (its decomposition
// cached), centred and not — reads the same bit for bit and continues exactly as the
// original; the bytes of a large model (D = 512: 1 MiB of sums) are streamed by
// MarshalBinaryTo, identical to MarshalBinary's.
func TestRNCAEncoding(t *testing.T) {
	X, sigma := standardised(t, data.Magic().X, 300)
	Y := X.Slice(200, 300, 0, 10)
	for _, c := range []struct {
		k    kernel.RBF
		opts RNCAOptions
	}{
		{kernel.RBF{Sigma: sigma}, RNCAOptions{Features: 64, Seed: 2}},
		{kernel.RBF{Gamma: 1 / (2 * sigma * sigma)}, RNCAOptions{Features: 31, Seed: 3, Uncentred: true, Form: 1}},
		{kernel.RBF{Sigma: sigma}, RNCAOptions{Features: 512, Seed: 4}},
	} {
		r, err := NewRNCA(c.k, 10, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		wiretest.SameModel(t, "empty", r, decoded(t, r, new(RNCA)), Y)
		if err := r.AddBatch(X.Slice(0, 100, 0, 10)); err != nil {
			t.Fatal(err)
		}
		back := decoded(t, r, new(RNCA))
		wiretest.SameModel(t, "fed", r, back, Y) // both read now
		for _, m := range []*RNCA{r, back} {
			testmat.AddRows(t, m, X, 100, 150)
			if err := m.AddBatch(X.Slice(150, 200, 0, 10)); err != nil {
				t.Fatal(err)
			}
		}
		wiretest.SameModel(t, "continued", r, back, Y)
		if r.Kernel() != c.k || back.Kernel() != c.k {
			t.Errorf("kernels %v, %v; want %v", r.Kernel(), back.Kernel(), c.k)
		}
	}
}

// countingWriter counts the writes it gets.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) { w.writes++; return w.Buffer.Write(p) }

// TestMarshalBinaryToStreams: MarshalBinaryTo writes a large encoding in pieces of the
// encoder's buffer (64 KiB), not as one slice of the whole; a writer that fails gets
// its error back; UnmarshalBinaryFrom reads a stream of several encodings one at a
// time, and a reader's own error comes back.
func TestMarshalBinaryToStreams(t *testing.T) {
	X := toy(2000, 3)
	m, err := NewKHA(kernel.RBF{Sigma: 1}, 2, KHAOptions{Components: 2, Rate: 0.01, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBatch(X); err != nil { // 2000·(2 + 2 + 1) floats: 78 KiB
		t.Fatal(err)
	}
	var w countingWriter
	n, err := m.MarshalBinaryTo(&w)
	if err != nil {
		t.Fatal(err)
	}
	if w.writes < 3 || n != w.Len() {
		t.Errorf("%d bytes in %d writes", n, w.writes)
	}
	boom := errors.New("write failed")
	if _, err := m.MarshalBinaryTo(failWriter{boom}); !errors.Is(err, boom) {
		t.Errorf("a failing writer: %v", err)
	}
	r, _ := NewRNCA(kernel.RBF{Sigma: 1}, 2, RNCAOptions{Features: 8, Seed: 1})
	_ = r.AddBatch(X.Slice(0, 10, 0, 2))
	rb, _ := r.MarshalBinary()
	stream := bytes.NewReader(append(append(bytes.Clone(w.Bytes()), rb...), w.Bytes()...))
	var a, c KHA
	var b RNCA
	if n, err := a.UnmarshalBinaryFrom(stream); err != nil || n != w.Len() {
		t.Fatalf("first: %d bytes, %v", n, err)
	}
	if n, err := b.UnmarshalBinaryFrom(stream); err != nil || n != len(rb) {
		t.Fatalf("second: %d bytes, %v", n, err)
	}
	if n, err := c.UnmarshalBinaryFrom(stream); err != nil || n != w.Len() || stream.Len() != 0 {
		t.Fatalf("third: %d bytes, %v, %d left", n, err, stream.Len())
	}
	var d KHA
	if _, err := d.UnmarshalBinaryFrom(iotest.DataErrReader(iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("a failing reader: %v", err)
	}
	if _, err := d.UnmarshalBinaryFrom(bytes.NewReader(rb)); !errors.Is(err, ErrEncoding) || d.s != nil {
		t.Errorf("an RNCA read as a KHA: %v", err)
	}
}

// failWriter fails every write.
type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// TestEncodingRefused: under valid checksums, encodings of RNCA, KRQA and KHA that
// describe a model that cannot exist — version 2, an unregistered kernel.Func, a kernel
// not as it describes itself, options the constructor refuses, sizes beyond the bytes
// present, a NaN, a flag not 0 or 1, states no model reaches, sums no features give —
// are ErrEncoding errors (and of no other kind), and leave the receiver as it was,
// through UnmarshalBinary and UnmarshalBinaryFrom (wiretest.Refuses).
func TestEncodingRefused(t *testing.T) {
	X := toy(30, 12)
	krqa, _ := NewKRQA(kernel.RBF{Sigma: 1}, 2, KRQAOptions{Components: 2, Seed: 1})
	kha, _ := NewKHA(kernel.RBF{Sigma: 1}, 2, KHAOptions{Components: 2, Rate: 0.1, Seed: 1})
	rnca, _ := NewRNCA(kernel.RBF{Sigma: 1}, 2, RNCAOptions{Features: 4, Seed: 1})
	for _, m := range []persistent{krqa, kha, rnca} {
		if err := m.AddBatch(X.Slice(0, 10, 0, 2)); err != nil {
			t.Fatal(err)
		}
	}
	u64 := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return b }
	}
	f64 := func(off int, v float64) func([]byte) []byte { return u64(off, math.Float64bits(v)) }
	u8 := func(off int, v byte) func([]byte) []byte { return func(b []byte) []byte { b[off] = v; return b } }
	kernelAs := func(s kernel.Spec) func([]byte) []byte {
		return func(b []byte) []byte { return append(kernelwire.Append(nil, s), b[39:]...) }
	}
	cut := func(n int) func([]byte) []byte { return func(b []byte) []byte { return b[:len(b)-n] } }
	// Bodies: the Spec ("rbf": 39 bytes), d at 39, then
	//   KRQA: r 47, seed 55, Uncentred 63, n 64, started 72, t 73, samples 81…
	//   KHA:  r 47, rate 55, decay 63, seed 71, Uncentred 79, n 80, started 88, t 89, samples 97…
	//   RNCA: D 47, form 55, seed 59, Uncentred 67, n 68, sums 76…
	common := []struct {
		what string
		edit func([]byte) []byte
	}{
		{"an unregistered Func", kernelAs(kernel.Spec{Name: "stream-test-unregistered"})},
		{"a kernel name not UTF-8", kernelAs(kernel.Spec{Name: "\xff\xfe"})},
		{"σ = 0", f64(7, 0)},
		{"a degree for the RBF", u64(23, 3)},
		{"d = 0", u64(39, 0)},
		{"d = 2⁶²", u64(39, 1<<62)},
		{"cut short", cut(9)},
		{"a byte more", func(b []byte) []byte { return append(b, 0) }},
	}
	for _, c := range []struct {
		name  string
		model persistent
		zero  func() persistent
		magic string
		cases []struct {
			what string
			edit func([]byte) []byte
		}
	}{
		{"KRQA", krqa, func() persistent { return new(KRQA) }, krqaMagic, []struct {
			what string
			edit func([]byte) []byte
		}{
			{"r = 0", u64(47, 0)},
			{"r = 2⁴⁰", u64(47, 1<<40)},
			{"Uncentred 2", u8(63, 2)},
			{"n = 2⁶⁰", u64(64, 1<<60)},
			{"started with 2 samples", u64(64, 2)},
			{"started 3", u8(72, 3)},
			{"not started, with presentations", u8(72, 0)},
			{"a NaN sample", f64(81, math.NaN())},
			{"an infinite sample", f64(89, math.Inf(-1))},
			{"a negative estimate", func(b []byte) []byte { return f64(len(b)-8, -1)(b) }},
			{"a NaN estimate", func(b []byte) []byte { return f64(len(b)-8, math.NaN())(b) }},
		}},
		{"KHA", kha, func() persistent { return new(KHA) }, khaMagic, []struct {
			what string
			edit func([]byte) []byte
		}{
			{"r = 0", u64(47, 0)},
			{"rate 0", f64(55, 0)},
			{"rate NaN", f64(55, math.NaN())},
			{"decay −1", f64(63, -1)},
			{"Uncentred 7", u8(79, 7)},
			{"n = 2⁶³ − 1", u64(80, 1<<63-1)},
			{"n = 11", u64(80, 11)},
			{"not started, with presentations", u8(88, 0)},
			{"a NaN sample", f64(97, math.NaN())},
			{"a NaN coefficient", func(b []byte) []byte { return f64(len(b)-8, math.NaN())(b) }},
		}},
		{"RNCA", rnca, func() persistent { return new(RNCA) }, rncaMagic, []struct {
			what string
			edit func([]byte) []byte
		}{
			{"a Laplacian", kernelAs(kernel.Spec{Name: "laplacian", Sigma: 1})},
			{"D = 0", u64(47, 0)},
			{"D = 2¹⁴ + 1", u64(47, 1<<14+1)},
			{"D = 5", u64(47, 5)},
			{"form 9", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[55:], 9); return b }},
			{"Uncentred 2", u8(67, 2)},
			{"no points, with sums", u64(68, 0)},
			{"a NaN sum", f64(76, math.NaN())},
			{"a sum beyond Cauchy–Schwarz", f64(76, 100)},
			{"a negative diagonal", f64(76+4*8, -1)},
			{"a diagonal beyond n·2/D", f64(76+4*8, 1e3)},
			{"an entry beyond Cauchy–Schwarz", func(b []byte) []byte {
				d := math.Float64frombits(binary.LittleEndian.Uint64(b[76+4*8:]))
				return f64(76+5*8, 2*d)(b)
			}},
		}},
	} {
		good := wiretest.Marshal(t, c.model)
		body := wiretest.Body(good)
		cases := append(c.cases, common...)
		cases = append(cases, struct {
			what string
			edit func([]byte) []byte
		}{"version 2", nil})
		for _, e := range cases {
			version := uint32(1) // of all three
			b := bytes.Clone(body)
			if e.edit != nil {
				b = e.edit(b)
			} else {
				version = 2
			}
			wiretest.Refuses(t, c.name+", "+e.what, c.model, wire.Frame(c.magic, version, b), ErrEncoding)
		}
		z := c.zero()
		if err := z.UnmarshalBinary(wire.Frame(c.magic, 1, body)); err != nil {
			t.Errorf("%s: the good body framed again: %v", c.name, err)
		}
	}
}

// opaque is a kernel that cannot describe itself (no Spec).
type opaque struct{}

func (opaque) Eval(x, y []float64) float64 { return math.Exp(-math.Abs(x[0] - y[0])) }

// TestEncodingArguments: a model whose kernel cannot describe itself cannot be encoded
// (ErrArgument, and the model unchanged), nor can a zero model; nil writers and readers
// are ErrArgument, and so are typed nils, whose methods would panic.
func TestEncodingArguments(t *testing.T) {
	m, err := NewKRQA(opaque{}, 1, KRQAOptions{Components: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.MarshalBinary(); !errors.Is(err, ErrArgument) {
		t.Errorf("MarshalBinary with a kernel of no Spec: %v", err)
	}
	if _, err := m.MarshalBinaryTo(new(bytes.Buffer)); !errors.Is(err, ErrArgument) {
		t.Errorf("MarshalBinaryTo with a kernel of no Spec: %v", err)
	}
	for _, z := range []persistent{new(SKPCA), new(RNCA), new(KRQA), new(KHA)} {
		if _, err := z.MarshalBinary(); !errors.Is(err, ErrArgument) {
			t.Errorf("MarshalBinary of a zero %T: %v", z, err)
		}
		if _, err := z.MarshalBinaryTo(new(bytes.Buffer)); !errors.Is(err, ErrArgument) {
			t.Errorf("MarshalBinaryTo of a zero %T: %v", z, err)
		}
		if _, err := z.MarshalBinaryTo(nil); !errors.Is(err, ErrArgument) {
			t.Errorf("MarshalBinaryTo(nil) of a zero %T: %v", z, err)
		}
		if _, err := z.UnmarshalBinaryFrom(nil); !errors.Is(err, ErrArgument) {
			t.Errorf("UnmarshalBinaryFrom(nil) of a zero %T: %v", z, err)
		}
	}
	k := kernel.RBF{Sigma: 1}
	skpca, _ := NewSKPCA(k, 2, SKPCAOptions{Features: 4, Sketch: 2})
	rnca, _ := NewRNCA(k, 2, RNCAOptions{Features: 4})
	krqa, _ := NewKRQA(k, 2, KRQAOptions{Components: 1})
	kha, _ := NewKHA(k, 2, KHAOptions{Components: 1, Rate: 0.1})
	for _, m := range []persistent{skpca, rnca, krqa, kha} {
		if _, err := m.MarshalBinaryTo((*bytes.Buffer)(nil)); !errors.Is(err, ErrArgument) {
			t.Errorf("%T.MarshalBinaryTo of a nil *bytes.Buffer: %v", m, err)
		}
		if _, err := m.UnmarshalBinaryFrom((*bytes.Reader)(nil)); !errors.Is(err, ErrArgument) {
			t.Errorf("%T.UnmarshalBinaryFrom of a nil *bytes.Reader: %v", m, err)
		}
	}
}
