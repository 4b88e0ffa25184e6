package wiretest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/wire"
)

// errToy is the toy's ErrEncoding.
var errToy = fmt.Errorf("toy: %w", ikpca.ErrEncoding)

// defect is the fault the toy is built with, for a child process of TestCatches.
var defect = os.Getenv("WIRETEST_DEFECT")

// toy is a model of one value v in [0, 100): its encoding is v, its one eigenvalue v,
// its scores x·v. defect breaks it as its name says.
type toy struct {
	set bool
	v   float64
}

var toyFormat = wire.Format{Magic: "TOYMODEL", Version: 1, What: "toy", Argument: ikpca.ErrArgument, Encoding: errToy}

func (m *toy) body() (wire.Body, error) {
	v := m.v
	if defect == "non-canonical" {
		v = math.Copysign(v, -1) // −0 for the decoded +0 of the seeds
	}
	return wire.Body{Len: 8, Write: func(f *wire.Fields) { f.F64(v) }}, nil
}

func (m *toy) MarshalBinary() ([]byte, error)           { return toyFormat.Marshal(m.body) }
func (m *toy) MarshalBinaryTo(w io.Writer) (int, error) { return toyFormat.MarshalTo(w, m.body) }

func (m *toy) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	if defect == "lenient stream" {
		return len(toyEncoding(1)), nil
	}
	return toyFormat.UnmarshalFrom(r, m.UnmarshalBinary)
}

func (m *toy) UnmarshalBinary(data []byte) error {
	if defect == "accepts all" {
		m.set, m.v = true, 1
		return nil
	}
	err := wire.Unmarshal(toyFormat, m, data, func(body []byte) (*toy, error) {
		if len(body) != 8 {
			return nil, fmt.Errorf("%w: %d bytes", errToy, len(body))
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(body))
		if !(v >= 0 && v < 100) {
			return nil, fmt.Errorf("%w: value %g", errToy, v)
		}
		return &toy{set: true, v: v}, nil
	})
	switch {
	case err != nil && defect == "dirty refusal":
		m.set, m.v = true, 7
	case err != nil && defect == "wrong kind":
		err = fmt.Errorf("%w (%w)", err, ikpca.ErrArgument)
	}
	return err
}

func (m *toy) Values(dst []float64) []float64 {
	if !m.set {
		return dst[:0]
	}
	return append(dst[:0], m.v)
}

func (m *toy) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	r, _ := X.Dims()
	dst.ReuseAs(r, 1)
	for i := range r {
		dst.Set(i, 0, X.At(i, 0)*m.v)
	}
	return nil
}

func (m *toy) Len() int      { return 1 }
func (m *toy) Dim() int      { return 1 }
func (m *toy) Centred() bool { return false }
func (m *toy) Bytes() int    { return 8 }

// toyEncoding returns the encoding of a toy of value v, whatever v.
func toyEncoding(v float64) []byte {
	return wire.Frame(toyFormat.Magic, toyFormat.Version, wire.AppendFloats(nil, v))
}

func newToy() *toy          { return new(toy) }
func toyIsZero(m *toy) bool { return !m.set && m.v == 0 }
func decodedToy(t *testing.T, in []byte) (*toy, bool) {
	return Decoded(t, in, newToy, toyIsZero, errToy)
}

// TestFrameHelpers: Unsealed and Reseal undo each other on an encoding, and Reseal
// makes an edited frame valid (its stated length and checksum); Body is the body;
// AfterName finds the Spec's numbers after a kernel's name; PutU64 and PutF64 write
// in place.
func TestFrameHelpers(t *testing.T) {
	enc := toyEncoding(3)
	if !bytes.Equal(Reseal(Unsealed(enc)), enc) || !bytes.Equal(Body(enc), wire.AppendFloats(nil, 3)) {
		t.Fatal("Reseal, Unsealed or Body")
	}
	longer := append(bytes.Clone(Unsealed(enc)), 1, 2, 3)
	if _, body, err := wire.OpenFrame(Reseal(longer), toyFormat.Magic, errToy, "toy", 1); err != nil || len(body) != 11 {
		t.Errorf("a lengthened frame resealed: %d bytes of body, %v", len(body), err)
	}
	spec := wire.Frame("TESTSPEC", 1, append(binary.LittleEndian.AppendUint32(nil, 3), "rbf"...))
	if at := AfterName(spec); at != wire.PrefixSize+4+3 {
		t.Errorf("AfterName = %d", at)
	}
	b := make([]byte, 16)
	PutU64(8, 1<<60)(b)
	PutF64(0, math.Pi)(b)
	if binary.LittleEndian.Uint64(b[8:]) != 1<<60 || math.Float64frombits(binary.LittleEndian.Uint64(b)) != math.Pi {
		t.Errorf("PutU64, PutF64 wrote % x", b)
	}
}

// TestPasses: a sound decoder passes every check — Decoded accepts its encodings
// (framed whole, and as a body reframed) and refuses bytes of every kind (garbage, a
// value out of range, an encoding with a byte more, cut short); Refuses holds for each
// refusal, the model restored after a stream whose first encoding is good; SameModel
// holds for a model and its decoded copy.
func TestPasses(t *testing.T) {
	if defect != "" {
		t.Skip("a child process of TestCatches")
	}
	good := toyEncoding(3)
	m, ok := decodedToy(t, good)
	if !ok || m.v != 3 {
		t.Fatalf("a good encoding: %v, %v", m, ok)
	}
	if _, ok := decodedToy(t, Reseal(Unsealed(good))); !ok {
		t.Error("a good encoding resealed refused")
	}
	for _, in := range [][]byte{nil, []byte("garbage"), toyEncoding(-1), toyEncoding(math.NaN()), append(bytes.Clone(good), 0), good[:len(good)-1]} {
		if _, ok := decodedToy(t, in); ok {
			t.Errorf("% x accepted", in)
		}
		Refuses(t, fmt.Sprintf("% x", in), m, in, errToy)
	}
	if m.v != 3 {
		t.Errorf("the model is %v after the refusals", m.v)
	}
	SameModel(t, "decoded", &toy{set: true, v: 3}, m, mat.NewDense(2, 1, []float64{1, -2}))
}

// TestCatches: each check fails on the defect it is there for, in a child process
// (TestDefect) whose failure, and message, is the verdict.
func TestCatches(t *testing.T) {
	if defect != "" {
		t.Skip("a child process of TestCatches")
	}
	for name, want := range map[string]string{
		"non-canonical":  "encodes to other bytes",
		"lenient stream": "UnmarshalBinaryFrom accepts what UnmarshalBinary refuses",
		"dirty refusal":  "or the receiver changed",
		"wrong kind":     "refused with",
		"accepts all":    "want an error of",
		"other values":   "λ0 = 3 and 4",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDefect$", "-test.count=1")
		cmd.Env = append(os.Environ(), "WIRETEST_DEFECT="+name)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: the child process (%v) did not fail with %q:\n%s", name, err, want, out)
		}
	}
}

// TestDefect runs the checks on a toy with the defect of its environment: each must
// fail.
func TestDefect(t *testing.T) {
	switch defect {
	case "":
		t.Skip("run by TestCatches")
	case "accepts all":
		Refuses(t, "garbage", &toy{set: true, v: 3}, []byte("garbage"), errToy)
	case "other values":
		SameModel(t, "other values", &toy{set: true, v: 3}, &toy{set: true, v: 4}, mat.NewDense(1, 1, []float64{1}))
	case "lenient stream", "dirty refusal", "wrong kind":
		decodedToy(t, toyEncoding(-1))
	default:
		decodedToy(t, toyEncoding(0))
	}
}
