package chinsuter

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/kernelwire"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// offsets of an encoding's fields after the kernel's name (see encoding.go), after the
// Spec's numbers (wiretest.SigmaAt to wiretest.SpecNumbers).
const (
	offComponents = wiretest.SpecNumbers
	offCompressed = 40 // uint8
	offPreImages  = 41
	offMaxIter    = 49
	offTol        = 57
	offD          = 65
	offN          = 73
	offExpansion  = 81
	offR          = 89
	offTrace      = 97
	offDirections = 105
	offLast       = 113 // uint8
	offResComp    = 114
	offFloats     = 138
)

// encodingKernel is a kernel.Func registered for the encoding tests.
var encodingKernel = kernel.Func{Name: "chinsuter-test-laplace", F: func(x, y []float64) float64 {
	return kernel.Laplacian{Sigma: 2}.Eval(x, y)
}}

// encodingModels returns models of every form and kernel: exact, truncated and
// compressed (its last update a compression, and not), every built-in kernel, RBF by σ
// and by γ, a registered Func, and a model without points.
func encodingModels(t testing.TB) map[string]*Model {
	t.Helper()
	X := toy(60, 31)
	out := map[string]*Model{}
	add := func(name string, k kernel.Kernel, n0, n int, opts Options) {
		md, err := Fit(k, X.Slice(0, n0, 0, 2), opts)
		if err != nil {
			t.Fatal(name, err)
		}
		for i := n0; i < n; i += 3 {
			if err := md.AddBatch(X.Slice(i, min(i+3, n), 0, 2)); err != nil {
				t.Fatal(name, err)
			}
		}
		out[name] = md
	}
	compressed := Options{Components: 3, Compression: &Compression{PreImages: 4, MaxIter: 50, Tol: 1e-8}}
	add("exact", kernel.RBF{Sigma: 1}, 10, 40, Options{})
	add("truncated", kernel.RBF{Gamma: 0.5}, 10, 40, Options{Components: 4})
	add("compressed", kernel.RBF{Sigma: 1}, 10, 40, compressed)
	add("compressed, γ", kernel.RBF{Gamma: 0.7}, 10, 41, compressed)
	add("compressed, not yet", kernel.RBF{Sigma: 1}, 5, 11, compressed)
	add("polynomial", kernel.Polynomial{Degree: 2, Gamma: 0.5, Coef0: 1}, 4, 20, Options{})
	add("laplacian", kernel.Laplacian{Gamma: 0.5}, 4, 20, Options{})
	add("linear", kernel.Linear{}, 4, 20, Options{})
	add("sigmoid", kernel.Sigmoid{Gamma: 0.3, Coef0: -0.5}, 4, 20, Options{})
	add("cosine", kernel.Cosine{}, 4, 20, Options{})
	add("registered Func", encodingKernel, 4, 20, Options{})
	empty, err := New(kernel.RBF{Sigma: 1}, 2, compressed)
	if err != nil {
		t.Fatal(err)
	}
	out["no points"] = empty
	one, err := New(kernel.RBF{Sigma: 1}, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := one.Add([]float64{0.5, 0.25}); err != nil {
		t.Fatal(err)
	}
	out["one point"] = one
	return out
}

// TestEncoding: every model is decoded, into a zero Model and over another model,
// to the same state bit for bit (points, kernel matrix, coefficients, singular values,
// mean, trace, stats), encodes to the same bytes, and continues identically: the same
// points added to the original and to the copy leave the same state, compressions
// included.
func TestEncoding(t *testing.T) {
	if err := kernel.Register(encodingKernel); err != nil {
		t.Fatal(err)
	}
	X := toy(80, 32)
	for name, md := range encodingModels(t) {
		data, err := md.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := wire.Overhead + kernelwire.Len(md.kern.(kernel.Specified).Spec()) + md.bodyLength(); len(data) != want {
			t.Errorf("%s: %d bytes, want %d", name, len(data), want)
		}
		var buf bytes.Buffer
		if n, err := md.MarshalBinaryTo(&buf); err != nil || n != len(data) || !bytes.Equal(buf.Bytes(), data) {
			t.Errorf("%s: MarshalBinaryTo wrote %d bytes (%v), not MarshalBinary's", name, n, err)
		}
		var back Model
		if err := back.UnmarshalBinary(data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		over, err := Fit(kernel.Laplacian{Sigma: 3}, X.Slice(0, 5, 0, 2), Options{Components: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := over.UnmarshalBinary(data); err != nil {
			t.Fatalf("%s, over another model: %v", name, err)
		}
		for _, got := range []*Model{&back, over} {
			spec := func(m *Model) kernel.Spec { return m.Kernel().(kernel.Specified).Spec() }
			if !sameSnapshot(snap(md), snap(got)) || spec(got) != spec(md) ||
				got.Options().Components != md.Options().Components || (got.Options().Compression == nil) != (md.Options().Compression == nil) {
				t.Fatalf("%s: decoded to another model", name)
			}
			if again, err := got.MarshalBinary(); err != nil || !bytes.Equal(again, data) {
				t.Fatalf("%s: encoded again: %v, not the same bytes", name, err)
			}
		}
		for i := 40; i < 52; i += 4 {
			chunk := X.Slice(i, i+4, 0, 2)
			e1, e2 := md.AddBatch(chunk), back.AddBatch(chunk)
			if (e1 == nil) != (e2 == nil) || !sameSnapshot(snap(md), snap(&back)) {
				t.Fatalf("%s: after %d more points the model and its copy differ (%v, %v)", name, i-36, e1, e2)
			}
		}
		if md.Components() > 0 {
			var a, b mat.Dense
			if err := md.Transform(&a, X, md.Components()); err != nil {
				t.Fatal(err)
			}
			if err := back.Transform(&b, X, md.Components()); err != nil {
				t.Fatal(err)
			}
			if !vec.SameBits(a.RawMatrix().Data, b.RawMatrix().Data) {
				t.Errorf("%s: scores differ", name)
			}
		}
	}
}

// TestEncodingRefused: every defect of an encoding is an ErrEncoding (of no other kind)
// and leaves the receiver unchanged, its state and its encoding, through UnmarshalBinary
// and UnmarshalBinaryFrom (wiretest.Refuses): damage the frame catches (a flipped bit,
// truncation, an extra byte, another magic or version) and, under a valid frame, every
// field out of its domain — a kernel neither built in nor registered, options Fit
// refuses, sizes that disagree with the data or with the form, non-finite numbers,
// singular values not positive or not descending, a kernel matrix that is not the
// points', axes that are not a basis, stats no update gives.
func TestEncodingRefused(t *testing.T) {
	models := encodingModels(t)
	for _, name := range []string{"exact", "compressed"} {
		md := models[name]
		good := wiretest.Marshal(t, md)
		body := wiretest.Unsealed(good)
		h := wiretest.AfterName(body)
		N, d, r := md.Expansion(), md.Dim(), md.Components()
		pts := h + offFloats
		ka := pts + 8*N*d
		alpha := ka + 8*N*(N+1)/2
		sv := alpha + 8*N*r
		edits := []struct {
			what string
			edit func([]byte) // of a copy of the body, then sealed
			raw  []byte       // used as it is instead, if not nil
		}{
			{"nothing", nil, []byte{}},
			{"a flipped bit", nil, func() []byte { b := bytes.Clone(good); b[len(b)/2] ^= 4; return b }()},
			{"truncated", nil, good[:len(good)-1]},
			{"an extra byte", nil, append(bytes.Clone(good), 0)},
			{"another magic", func(b []byte) { b[0] = 'J' }, nil},
			{"version 1", func(b []byte) { b[8] = 1 }, nil},
			{"version 3", func(b []byte) { b[8] = 3 }, nil},
			{"a name longer than the data", func(b []byte) { binary.LittleEndian.PutUint32(b[wiretest.NameAt:], 1<<20) }, nil},
			{"a kernel neither built in nor registered", func(b []byte) { copy(b[wiretest.NameAt+4:], "xyz") }, nil},
			{"a non-canonical kernel name", func(b []byte) { copy(b[wiretest.NameAt+4:], "RBF") }, nil},
			{"σ = 0", wiretest.PutF64(h+wiretest.SigmaAt, 0), nil},
			{"σ = NaN", wiretest.PutF64(h+wiretest.SigmaAt, math.NaN()), nil},
			{"a degree for rbf", wiretest.PutU64(h+wiretest.DegreeAt, 3), nil},
			{"−1 components", wiretest.PutU64(h+offComponents, math.MaxUint64), nil},
			{"a compression flag of 2", func(b []byte) { b[h+offCompressed] = 2 }, nil},
			{"pre-images without compression, or none with", wiretest.PutU64(h+offPreImages, 0x1p40), nil},
			{"a max-iteration count of 2⁶³", wiretest.PutU64(h+offMaxIter, 1<<63), nil},
			{"a NaN tolerance", wiretest.PutF64(h+offTol, math.NaN()), nil},
			{"dimension 0", wiretest.PutU64(h+offD, 0), nil},
			{"dimension 2⁶²", wiretest.PutU64(h+offD, 1<<62), nil},
			{"2⁵³+1 points", wiretest.PutU64(h+offN, 1<<53+1), nil},
			{"no points but an expansion", wiretest.PutU64(h+offN, 0), nil},
			{"an expansion of 2⁶²", wiretest.PutU64(h+offExpansion, 1<<62), nil},
			{"one expansion point fewer", wiretest.PutU64(h+offExpansion, uint64(N-1)), nil},
			{"more components than expansion points", wiretest.PutU64(h+offR, uint64(N+1)), nil},
			{"a NaN trace", wiretest.PutF64(h+offTrace, math.NaN()), nil},
			{"new directions beyond the points", wiretest.PutU64(h+offDirections, 1<<40), nil},
			{"a last-compressed flag of 2", func(b []byte) { b[h+offLast] = 2 }, nil},
			{"a negative residual", wiretest.PutF64(h+offResComp, -1), nil},
			{"a NaN point", wiretest.PutF64(pts, math.NaN()), nil},
			{"a point moved", wiretest.PutF64(pts, 7), nil},
			{"a kernel entry off", wiretest.PutF64(ka+8, 0.123), nil},
			{"an infinite coefficient", wiretest.PutF64(alpha, math.Inf(1)), nil},
			{"coefficients scaled", func(b []byte) {
				for i := range N * r {
					v := math.Float64frombits(binary.LittleEndian.Uint64(b[alpha+8*i:]))
					binary.LittleEndian.PutUint64(b[alpha+8*i:], math.Float64bits(3*v))
				}
			}, nil},
			{"a negative singular value", wiretest.PutF64(sv, -1), nil},
			{"singular values ascending", wiretest.PutF64(sv+8, 1e300), nil},
			{"a NaN mean coefficient", wiretest.PutF64(sv+8*r, math.NaN()), nil},
		}
		if name == "exact" {
			edits = append(edits, struct {
				what string
				edit func([]byte)
				raw  []byte
			}{"a trace off", wiretest.PutF64(h+offTrace, 1e6), nil}, struct {
				what string
				edit func([]byte)
				raw  []byte
			}{"a last update compressed without compression", func(b []byte) { b[h+offLast] = 1 }, nil})
		}
		for _, c := range edits {
			in := c.raw
			if in == nil {
				b := bytes.Clone(body)
				c.edit(b)
				in = wiretest.Reseal(b)
			}
			before := snap(md)
			wiretest.Refuses(t, name+", "+c.what, md, in, ErrEncoding)
			if !sameSnapshot(before, snap(md)) {
				t.Errorf("%s, %s: the refused encoding changed the model", name, c.what)
			}
		}
		if err := md.UnmarshalBinary(good); err != nil {
			t.Errorf("%s: the good encoding after the bad ones: %v", name, err)
		}
	}
}

// TestEncodingUnregistered: a model of a kernel.Func encodes its name only, and decodes
// only where a Func of that name is registered (ErrEncoding otherwise); a kernel that
// cannot describe itself cannot be encoded (ErrArgument).
func TestEncodingUnregistered(t *testing.T) {
	f := kernel.Func{Name: "chinsuter-test-unregistered", F: kernel.RBF{Sigma: 1}.Eval}
	md, err := Fit(f, toy(10, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := wiretest.Marshal(t, md)
	var back Model
	if err := back.UnmarshalBinary(data); !errors.Is(err, ErrEncoding) || back.kern != nil {
		t.Errorf("an unregistered Func: %v, want ErrEncoding", err)
	}
	if err := kernel.Register(f); err != nil {
		t.Fatal(err)
	}
	if err := back.UnmarshalBinary(data); err != nil || !sameSnapshot(snap(md), snap(&back)) {
		t.Errorf("the Func registered: %v", err)
	}
	opaque, err := Fit(opaqueKernel{}, toy(10, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := opaque.MarshalBinary(); !errors.Is(err, ErrArgument) {
		t.Errorf("a kernel without a Spec: %v, want ErrArgument", err)
	}
}

// opaqueKernel is a kernel that cannot describe itself.
type opaqueKernel struct{}

func (opaqueKernel) Eval(x, y []float64) float64 { return kernel.RBF{Sigma: 1}.Eval(x, y) }
