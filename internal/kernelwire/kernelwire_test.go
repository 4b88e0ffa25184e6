package kernelwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
)

// errKind stands for a model package's ErrArgument or ErrEncoding.
var errKind = errors.New("kind")

// registered is a kernel.Func the tests register.
var registered = kernel.Func{Name: "kernelwire-test", F: kernel.RBF{Sigma: 1}.Eval}

func init() {
	if err := kernel.Register(registered); err != nil {
		panic(err)
	}
}

// kernels are every built-in kernel, RBF and Laplacian given by σ and by γ, a
// polynomial of a degree beyond 2³¹ (an int64 of the encoding that a 64-bit int holds),
// and a registered Func.
func kernels() []kernel.Kernel {
	ks := []kernel.Kernel{kernel.RBF{Sigma: 1.5}, kernel.RBF{Gamma: 0.25}, kernel.Laplacian{Sigma: 3}, kernel.Laplacian{Gamma: 0.5},
		kernel.Polynomial{Degree: 3, Gamma: 0.5, Coef0: 1}, kernel.Linear{}, registered}
	if math.MaxInt > math.MaxInt32 {
		ks = append(ks, kernel.Polynomial{Degree: 1 << 40, Gamma: 1})
	}
	return ks
}

// TestRoundTrip: every kernel's Spec is written in the layout of the package doc —
// the name's length and the name, then σ, γ, the degree and c bit for bit — of Len
// bytes, and Read takes exactly those bytes back to the same kernel (==), leaving what
// follows.
func TestRoundTrip(t *testing.T) {
	for _, k := range kernels() {
		s, err := Of(k, errKind)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		b := Append([]byte{7}, s)[1:]
		if len(b) != Len(s) {
			t.Errorf("%v: %d bytes, Len %d", k, len(b), Len(s))
		}
		at := 4 + len(s.Name)
		u64 := func(i int) uint64 { return binary.LittleEndian.Uint64(b[at+8*i:]) }
		if binary.LittleEndian.Uint32(b) != uint32(len(s.Name)) || string(b[4:at]) != s.Name ||
			u64(0) != math.Float64bits(s.Sigma) || u64(1) != math.Float64bits(s.Gamma) ||
			u64(2) != uint64(int64(s.Degree)) || u64(3) != math.Float64bits(s.Coef0) {
			t.Errorf("%v: laid out as % x", k, b)
		}
		r := wire.NewReader(append(bytes.Clone(b), 1, 2, 3))
		got, err := Read(r, errKind)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if f, ok := k.(kernel.Func); ok {
			if g, ok := got.(kernel.Func); !ok || g.Name != f.Name {
				t.Errorf("%v: read back as %v", k, got)
			}
		} else if got != k {
			t.Errorf("%v: read back as %v", k, got)
		}
		if r.Len() != 3 {
			t.Errorf("%v: %d bytes left, want the 3 that follow", k, r.Len())
		}
	}
}

// opaque is a kernel that cannot describe itself.
type opaque struct{}

func (opaque) Eval(x, y []float64) float64 { return 1 }

// TestOfRefuses: a kernel that cannot describe itself (nil included), or whose name is
// longer than MaxName bytes or not UTF-8, is refused with an error of the caller's kind;
// a name of MaxName bytes is not.
func TestOfRefuses(t *testing.T) {
	f := func(name string) kernel.Func { return kernel.Func{Name: name, F: registered.F} }
	for _, c := range []struct {
		what string
		k    kernel.Kernel
	}{
		{"nil", nil},
		{"no Spec", opaque{}},
		{"a name of 256 bytes", f(strings.Repeat("a", MaxName+1))},
		{"a name not UTF-8", f("\xff\xfe")},
	} {
		if _, err := Of(c.k, errKind); !errors.Is(err, errKind) {
			t.Errorf("%s: %v, want the caller's kind", c.what, err)
		}
	}
	if s, err := Of(f(strings.Repeat("a", MaxName)), errKind); err != nil || len(s.Name) != MaxName {
		t.Errorf("a name of %d bytes: %v", MaxName, err)
	}
}

// TestReadRefuses: every prefix of a good encoding (truncated), and every encoding of a
// Spec no kernel reports as its own — a name too long for the bytes or beyond MaxName,
// not UTF-8, neither built in nor registered, a built-in name not in its own case,
// invalid parameters, a parameter the kernel does not use, a −0 where it reports 0 — is
// an error of the caller's kind, and of no other: kernel.New's ErrArgument is not
// wrapped.
func TestReadRefuses(t *testing.T) {
	good := Append(nil, kernel.RBF{Sigma: 1}.Spec())
	bad := [][]byte{
		binary.LittleEndian.AppendUint32(nil, 1<<20),
		append(binary.LittleEndian.AppendUint32(nil, MaxName+1), make([]byte, MaxName+1+numbers)...),
		Append(nil, kernel.Spec{Name: "\xff\xfe"}),
		Append(nil, kernel.Spec{Name: "kernelwire-unregistered"}),
		Append(nil, kernel.Spec{Name: ""}),
		Append(nil, kernel.Spec{Name: "RBF", Sigma: 1}),
		Append(nil, kernel.Spec{Name: "rbf"}),
		Append(nil, kernel.Spec{Name: "rbf", Sigma: -1}),
		Append(nil, kernel.Spec{Name: "rbf", Sigma: math.NaN()}),
		Append(nil, kernel.Spec{Name: "rbf", Sigma: 1, Gamma: 0.5}),
		Append(nil, kernel.Spec{Name: "rbf", Sigma: 1, Degree: 2}),
		Append(nil, kernel.Spec{Name: "rbf", Sigma: 1, Coef0: math.Copysign(0, -1)}),
		Append(nil, kernel.Spec{Name: "polynomial", Degree: 0, Gamma: 1}),
		Append(nil, kernel.Spec{Name: "kernelwire-test", Sigma: 1}),
	}
	for n := range len(good) {
		bad = append(bad, good[:n])
	}
	for _, b := range bad {
		_, err := Read(wire.NewReader(b), errKind)
		if !errors.Is(err, errKind) || errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("% x: %v, want the caller's kind only", b, err)
		}
	}
}

// FuzzRead: no input makes Read panic or read past its bytes; what it accepts is the
// encoding of the kernel it returns, bit for bit, and an input it refuses is an error
// of the caller's kind. The seeds are the encodings of TestRoundTrip's kernels.
func FuzzRead(f *testing.F) {
	for _, k := range kernels() {
		s, err := Of(k, errKind)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(Append(nil, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := wire.NewReader(data)
		k, err := Read(r, errKind)
		if err != nil {
			if !errors.Is(err, errKind) {
				t.Fatalf("refused with %v, not the caller's kind", err)
			}
			return
		}
		s, err := Of(k, errKind)
		if err != nil {
			t.Fatalf("a kernel read back cannot be encoded: %v", err)
		}
		if used := len(data) - r.Len(); !bytes.Equal(Append(nil, s), data[:used]) {
			t.Fatalf("%v encodes to other bytes than the %d read", k, used)
		}
	})
}
