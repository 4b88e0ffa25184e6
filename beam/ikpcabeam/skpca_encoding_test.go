package ikpcabeam

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// Offsets of the fields of the SKPCA encoding (skpca_encoding.go).
const (
	atVersion = 8
	atD       = 12
	atD2      = 20 // D, the features
	atForm    = 28
	atEll     = 44
	atBuffer  = 52
	atSigma   = 60
	atN       = 68
	atFrob2   = 76
	atShrink  = 84
	atK       = 92
	atRows    = 100
)

// encoded returns the encoding of a model of n curve points.
func encoded(t *testing.T, n int) []byte {
	t.Helper()
	m, err := NewSKPCA(3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	X := curve(n, 3, 1)
	for i := range n {
		if err := m.Add(X.RawRowView(i)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resum replaces the checksum of b by that of its body: a forged encoding that passes
// the checksum, so that the checks behind it are reached.
func resum(b []byte) []byte {
	body := b[:len(b)-sha256.Size]
	sum := sha256.Sum256(body)
	return append(append([]byte(nil), body...), sum[:]...)
}

// TestDecodeSKPCAErrors: truncated, corrupted, foreign and forged encodings are
// ErrModel errors, and leave the receiver unchanged.
func TestDecodeSKPCAErrors(t *testing.T) {
	good := encoded(t, 100)
	set := func(at int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[at:], v); return resum(b) }
	}
	setF := func(at int, v float64) func([]byte) []byte { return set(at, math.Float64bits(v)) }
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }},
		{"header only", func(b []byte) []byte { return b[:atRows] }},
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"version", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[atVersion:], 2); return resum(b) }},
		{"a flipped bit", func(b []byte) []byte { b[atRows+3] ^= 1; return b }},
		{"d = 0", set(atD, 0)},
		{"huge d", set(atD, 1<<40)},
		{"d·D above the limit", set(atD, skpcaLimit/64+1)},
		{"odd D", set(atD2, 63)},
		{"form 2", set(atForm, 2)},
		{"ℓ = 0", set(atEll, 0)},
		{"buffer ℓ", set(atBuffer, 8)},
		{"σ = 0", setF(atSigma, 0)},
		{"σ NaN", setF(atSigma, math.NaN())},
		{"fewer points than rows", set(atN, 3)},
		{"‖Z‖_F² negative", setF(atFrob2, -1)},
		{"Δ infinite", setF(atShrink, math.Inf(1))},
		{"k > ℓ", set(atK, 9)},
		{"k short of the rows", set(atK, 7)},
		{"a row entry NaN", setF(atRows, math.NaN())},
		{"a row off its eigenvalue", setF(atRows, 0.5)},
		{"an eigenvalue zero", setF(len(good)-sha256.Size-8, 0)},
		{"eigenvalues ascending", setF(len(good)-sha256.Size-8, 1e6)},
	} {
		b := c.edit(append([]byte(nil), good...))
		m, err := NewSKPCA(3, testOptions)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.UnmarshalBinary(b); !errors.Is(err, ErrModel) {
			t.Errorf("%s: error %v, want ErrModel", c.name, err)
		}
		if m.Len() != 0 || m.Dim() != 3 {
			t.Errorf("%s: the receiver changed", c.name)
		}
		if _, err := DecodeModel(b); err == nil {
			t.Errorf("%s: DecodeModel accepted it", c.name)
		}
	}
	var m SKPCA
	if err := m.UnmarshalBinary(good); err != nil {
		t.Errorf("the unedited encoding: %v", err)
	}
}

// FuzzDecodeSKPCA: no encoding makes the decoder panic or allocate beyond its limit,
// and one that decodes gives a model whose own encoding decodes to the same Values.
// The fuzzer's bytes get a valid checksum, so that the checks behind it are reached.
func FuzzDecodeSKPCA(f *testing.F) {
	m, err := NewSKPCA(2, testOptionsSmall)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(mustMarshal(f, m))
	for _, x := range [][]float64{{0, 1}, {1, 0}, {0.5, 0.5}} {
		if err := m.Add(x); err != nil {
			f.Fatal(err)
		}
		f.Add(mustMarshal(f, m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < sha256.Size {
			return
		}
		m, err := decodeSKPCA(resum(b), 1<<14)
		if err != nil {
			if !errors.Is(err, ErrModel) {
				t.Fatalf("error %v is not an ErrModel", err)
			}
			return
		}
		again, err := DecodeSummary(mustMarshal(t, m))
		if err != nil {
			t.Fatalf("a decoded model's encoding does not decode: %v", err)
		}
		if !sameBits(m.Values(nil), again.Values(nil)) {
			t.Fatalf("Values %v, after another round trip %v", m.Values(nil), again.Values(nil))
		}
	})
}

// testOptionsSmall keep the fuzzer's models small: D = 8, ℓ = 2.
var testOptionsSmall = testOptions

func init() { testOptionsSmall.Features, testOptionsSmall.Sketch = 8, 2 }

// mustMarshal encodes m.
func mustMarshal(tb testing.TB, m *SKPCA) []byte {
	tb.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
