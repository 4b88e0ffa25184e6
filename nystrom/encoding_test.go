package nystrom

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// offsets of an encoding's fields after the kernel's name (see encoding.go), after the
// Spec's numbers (wiretest.SigmaAt to wiretest.SpecNumbers).
const (
	offStrategy  = wiretest.SpecNumbers // uint32, then the uint64 seed
	offTolerance = 44
	offFlags     = 52 // uint8
	offR         = 53
	offD         = 61
	offP         = 69
	offN         = 77
	offFloats    = 85
)

// opaque is a kernel that cannot describe itself.
type opaque struct{ k kernel.RBF }

func (o opaque) Eval(x, y []float64) float64 { return o.k.Eval(x, y) }

// sameModel reports how b differs from a: values, sizes, centring and scores of Y
// (wiretest.SameModel), memory, options and landmarks, bit for bit.
func sameModel(t *testing.T, what string, a, b *Model, Y *mat.Dense) {
	t.Helper()
	if a.Bytes() != b.Bytes() || a.Options() != b.Options() || a.Features() != b.Features() {
		t.Fatalf("%s: memory, options or features differ", what)
	}
	var la, lb mat.Dense
	a.Landmarks(&la)
	b.Landmarks(&lb)
	if !mat.Equal(&la, &lb) {
		t.Fatalf("%s: landmarks differ", what)
	}
	wiretest.SameModel(t, what, a, b, Y)
}

// TestEncodingKernels: every built-in kernel, RBF and Laplacian given by σ and by γ,
// the sigmoid and the cosine included, is encoded and decoded exactly — the same kernel (==), the same Spec bit for bit, the
// same bytes when encoded again — and the kernel's slots in the encoding hold σ, γ,
// the degree and c as the Spec gives them.
func TestEncodingKernels(t *testing.T) {
	X := points(t, "magic", 120, 8)
	med := rbfMedian(t, X).Sigma
	for _, k := range testmat.BuiltinKernels(med) {
		m := fit(t, k, rows(X, 0, 20), rows(X, 20, 120), Options{})
		data := wiretest.Marshal(t, m)
		spec := k.(kernel.Specified).Spec()
		at := wiretest.NameAt + 4 + len(spec.Name)
		slot := func(i int) uint64 { return binary.LittleEndian.Uint64(data[at+8*i:]) }
		if slot(0) != math.Float64bits(spec.Sigma) || slot(1) != math.Float64bits(spec.Gamma) ||
			slot(2) != uint64(spec.Degree) || slot(3) != math.Float64bits(spec.Coef0) {
			t.Errorf("%v: the kernel's slots hold %x, %x, %x, %x", k, slot(0), slot(1), slot(2), slot(3))
		}
		var back Model
		if err := back.UnmarshalBinary(data); err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if back.Kernel() != k || back.Kernel().(kernel.Specified).Spec() != spec {
			t.Errorf("%v: decoded with kernel %#v", k, back.Kernel())
		}
		if again, err := back.MarshalBinary(); err != nil || !bytes.Equal(again, data) {
			t.Errorf("%v: encoded again: %v, not the same bytes", k, err)
		}
	}
}

// TestEncoding: a model encoded and decoded is the same model bit for bit — values,
// scores, sizes, memory, options — encodes to the same bytes, and merges with the
// original's Empty (the feature map travels with it); a model without points and one
// with a custom kernel too.
func TestEncoding(t *testing.T) {
	X := points(t, "magic", 400, 8)
	k := rbfMedian(t, X)
	m, err := Fit(k, rows(X, 0, 300), Options{Landmarks: 30, Strategy: Greedy, Tolerance: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	Y := rows(X, 300, 400)
	data := wiretest.Marshal(t, m)
	p, r, d := m.Features(), m.Options().Landmarks, m.Dim()
	if want := wire.Overhead + 4 + 3 + offFloats + 8*(r*d+r*p+p*p+5*p); len(data) != want {
		t.Errorf("%d bytes, want %d", len(data), want)
	}
	var back Model
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	sameModel(t, "decoded", m, &back, Y)
	again, err := back.MarshalBinary()
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("encoded again: %d bytes (%v), not the same", len(again), err)
	}

	// A partial accumulator shipped and merged: the same as adding its points here.
	part := m.Empty()
	if err := part.AddBatch(Y); err != nil {
		t.Fatal(err)
	}
	if data, err = part.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	var shipped Model
	if err := shipped.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	direct := fit(t, k, landmarks(m), rows(X, 0, 300), Options{Tolerance: 1e-12})
	if err := direct.AddBatch(Y); err != nil {
		t.Fatal(err)
	}
	if err := m.Merge(&shipped); err != nil {
		t.Fatal(err)
	}
	if d := maxRelDiff(m.Values(nil), direct.Values(nil), direct.Values(nil)[0]); d > 1e-12 {
		t.Errorf("merged with a decoded accumulator: eigenvalues differ by %.3g·λ₁", d)
	}

	// No points.
	empty := m.Empty()
	if data, err = empty.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	var e Model
	if err := e.UnmarshalBinary(data); err != nil || e.Len() != 0 || len(e.Values(nil)) != 0 {
		t.Fatalf("a model without points: %v, Len %d", err, e.Len())
	}

	// A custom kernel decodes once registered under its name (kernel.Register), and
	// not before.
	f := kernel.Func{Name: "nystrom-test-gauss", F: func(x, y []float64) float64 { return k.Eval(x, y) }}
	cm := fit(t, f, landmarks(m), rows(X, 0, 50), Options{})
	if data, err = cm.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	var zero Model
	if err := zero.UnmarshalBinary(data); !errors.Is(err, ErrEncoding) || !errors.Is(err, ikpca.ErrEncoding) {
		t.Errorf("a custom kernel not registered: %v, want ErrEncoding", err)
	}
	if err := kernel.Register(f); err != nil {
		t.Fatal(err)
	}
	if err := zero.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	sameModel(t, "custom kernel", cm, &zero, Y)
	if _, err := fit(t, opaque{k}, landmarks(m), rows(X, 0, 5), Options{}).MarshalBinary(); !errors.Is(err, ikpca.ErrArgument) {
		t.Errorf("a kernel without a Spec: %v, want ErrArgument", err)
	}
}

// TestEncodingUncentred: an uncentred model encodes its flag and a zero shift, decodes
// to the same model (Centred false, the same values and scores bit for bit), and does
// not merge with a centred one; a flag the format does not define, or an uncentred
// model's shift other than +0, is refused.
func TestEncodingUncentred(t *testing.T) {
	X := points(t, "yeast", 200, 3)
	k := rbfMedian(t, X)
	u, err := Fit(k, rows(X, 0, 150), Options{Landmarks: 20, Seed: 4, Uncentred: true})
	if err != nil {
		t.Fatal(err)
	}
	data := wiretest.Marshal(t, u)
	h := wiretest.AfterName(data)
	if data[h+offFlags] != 1 {
		t.Errorf("flags %#x, want 1", data[h+offFlags])
	}
	var back Model
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if back.Centred() {
		t.Error("an uncentred model decodes as a centred one")
	}
	sameModel(t, "uncentred", u, &back, rows(X, 150, 200))
	c := fit(t, k, landmarks(u), rows(X, 150, 200), Options{})
	if err := c.Merge(&back); !errors.Is(err, ErrArgument) {
		t.Errorf("a centred model merged with an uncentred one: %v, want ErrArgument", err)
	}
	body := bytes.Clone(wiretest.Unsealed(data))
	body[h+offFlags] = 3
	wiretest.Refuses(t, "flags 3", &back, wiretest.Reseal(body), ErrEncoding)
	body[h+offFlags] = 1
	r, d, p := u.Options().Landmarks, u.Dim(), u.Features()
	binary.LittleEndian.PutUint64(body[h+offFloats+8*(r*d+p+r*p):], math.Float64bits(math.Copysign(0, -1)))
	wiretest.Refuses(t, "an uncentred model's shift −0", &back, wiretest.Reseal(body), ErrEncoding)
}

func landmarks(m *Model) *mat.Dense {
	var L mat.Dense
	m.Landmarks(&L)
	return &L
}

// TestEncodingRefused: every defect of an encoding is an ErrEncoding (an unknown kernel
// name included), of no other kind, and leaves the receiver unchanged, through
// UnmarshalBinary and UnmarshalBinaryFrom (wiretest.Refuses): damage the checksum
// catches (a flipped bit, truncation, an extra byte) and, under a valid checksum, every
// field out of its domain.
func TestEncodingRefused(t *testing.T) {
	X := points(t, "yeast", 100, 9)
	k := rbfMedian(t, X)
	m, err := Fit(k, X, Options{Landmarks: 6, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	good := wiretest.Marshal(t, m)
	body := wiretest.Unsealed(good)
	h := wiretest.AfterName(body)
	p := m.Features()
	r, d := m.Options().Landmarks, m.Dim()
	floats := h + offFloats
	sums := floats + 8*(r*d+p+r*p+p) // Σ(φ − c), hi
	squares := sums + 16*p           // Σ(φ − c)(φ − c)ᵀ, hi, upper triangle row by row
	edits := []struct {
		what string
		edit func([]byte) // of a copy of the body, then sealed
		raw  []byte       // used as it is instead, if not nil
		want error
	}{
		{"nothing", nil, []byte{}, ErrEncoding},
		{"a flipped bit", nil, func() []byte { b := bytes.Clone(good); b[len(b)/2] ^= 4; return b }(), ErrEncoding},
		{"truncated", nil, good[:len(good)-1], ErrEncoding},
		{"an extra byte", nil, append(bytes.Clone(good), 0), ErrEncoding},
		{"another magic", func(b []byte) { b[0] = 'J' }, nil, ErrEncoding},
		{"version 1", func(b []byte) { b[8] = 1 }, nil, ErrEncoding},
		{"version 2", func(b []byte) { b[8] = 2 }, nil, ErrEncoding},
		{"version 4", func(b []byte) { b[8] = 4 }, nil, ErrEncoding},
		{"a name longer than the data", func(b []byte) { binary.LittleEndian.PutUint32(b[wiretest.NameAt:], 1<<20) }, nil, ErrEncoding},
		{"σ = 0", wiretest.PutF64(h+wiretest.SigmaAt, 0), nil, ErrEncoding},
		{"σ = NaN", wiretest.PutF64(h+wiretest.SigmaAt, math.NaN()), nil, ErrEncoding},
		{"a degree for rbf", wiretest.PutU64(h+wiretest.DegreeAt, 3), nil, ErrEncoding},
		{"strategy 7", func(b []byte) { binary.LittleEndian.PutUint32(b[h+offStrategy:], 7) }, nil, ErrEncoding},
		{"tolerance 1", wiretest.PutF64(h+offTolerance, 1), nil, ErrEncoding},
		{"tolerance −1", wiretest.PutF64(h+offTolerance, -1), nil, ErrEncoding},
		{"an unknown flag", func(b []byte) { b[h+offFlags] = 2 }, nil, ErrEncoding},
		{"no landmarks", wiretest.PutU64(h+offR, 0), nil, ErrEncoding},
		{"2⁶² landmarks", wiretest.PutU64(h+offR, 1<<62), nil, ErrEncoding},
		{"dimension 2⁶²", wiretest.PutU64(h+offD, 1<<62), nil, ErrEncoding},
		{"more features than landmarks", wiretest.PutU64(h+offP, uint64(r+1)), nil, ErrEncoding},
		{"one feature fewer", wiretest.PutU64(h+offP, uint64(p-1)), nil, ErrEncoding},
		{"2⁵³+1 points", wiretest.PutU64(h+offN, 1<<53+1), nil, ErrEncoding},
		{"no points but sums", wiretest.PutU64(h+offN, 0), nil, ErrEncoding},
		{"a NaN landmark", wiretest.PutF64(floats, math.NaN()), nil, ErrEncoding},
		{"an infinite map entry", wiretest.PutF64(floats+8*(r*d+p), math.Inf(1)), nil, ErrEncoding},
		{"a negative eigenvalue", wiretest.PutF64(floats+8*(r*d), -1), nil, ErrEncoding},
		{"eigenvalues ascending", wiretest.PutF64(floats+8*(r*d+1), 1e300), nil, ErrEncoding},
		{"a negative sum of squares", wiretest.PutF64(squares, -1), nil, ErrEncoding},
		{"a sum of squares of 2¹⁰⁰²", wiretest.PutF64(squares, 0x1p1002), nil, ErrEncoding},
		{"a sum beyond Cauchy–Schwarz", wiretest.PutF64(sums, 1e6), nil, ErrEncoding},
		{"a product beyond Cauchy–Schwarz", wiretest.PutF64(squares+8, 1e6), nil, ErrEncoding},
		{"a compensation of 2¹⁰⁰²", wiretest.PutF64(sums+8*p, 0x1p1002), nil, ErrEncoding},
		{"a kernel neither built in nor registered", func(b []byte) { copy(b[wiretest.NameAt+4:], "xyz") }, nil, ErrEncoding},
		{"a non-canonical kernel name", func(b []byte) { copy(b[wiretest.NameAt+4:], "RBF") }, nil, ErrEncoding},
	}
	for _, c := range edits {
		in := c.raw
		if in == nil {
			b := bytes.Clone(body)
			c.edit(b)
			in = wiretest.Reseal(b)
		}
		wiretest.Refuses(t, c.what, m, in, c.want)
	}
	if err := m.UnmarshalBinary(good); err != nil {
		t.Errorf("the good encoding after the bad ones: %v", err)
	}
}
