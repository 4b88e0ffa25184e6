package sketch

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
)

// TestEncoding: a sketch encoded and decoded — empty, with a buffer part full, and
// compressed — has the same state and encodes to the same bytes, reads the same
// values, error bound and vectors bit for bit, and grows and merges the same; bytes
// that are not a sketch are an ErrEncoding that leaves the receiver as it was.
func TestEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	rows := testmat.Normal(57, 12, rng)
	f, err := New(4, 12, Options{Buffer: 7})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, a *FD) *FD {
		t.Helper()
		b, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back FD
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if again, _ := back.MarshalBinary(); !bytes.Equal(again, b) || back.Buffer() != a.Buffer() || back.Bytes() != a.Bytes() {
			t.Fatalf("%s: decoded to another sketch", what)
		}
		return &back
	}
	check("empty", f)
	if err := f.UpdateRows(rows.Slice(0, 33, 0, 12)); err != nil { // 33 = 4 compressions + 5 rows
		t.Fatal(err)
	}
	back := check("buffered", f)
	for _, g := range []*FD{f, back} {
		if err := g.UpdateRows(rows.Slice(33, 45, 0, 12)); err != nil {
			t.Fatal(err)
		}
	}
	same := func(what string, a, b *FD) {
		t.Helper()
		va, err := a.Values(nil)
		if err != nil {
			t.Fatal(err)
		}
		vb, _ := b.Values(nil)
		var wa, wb mat.Dense
		if err := a.VectorsTo(&wa); err != nil {
			t.Fatal(err)
		}
		if err := b.VectorsTo(&wb); err != nil {
			t.Fatal(err)
		}
		if len(va) != len(vb) || a.Count() != b.Count() || math.Float64bits(a.ErrorBound()) != math.Float64bits(b.ErrorBound()) ||
			!mat.Equal(&wa, &wb) {
			t.Fatalf("%s: the sketches differ", what)
		}
		for i := range va {
			if math.Float64bits(va[i]) != math.Float64bits(vb[i]) {
				t.Fatalf("%s: σ²%d = %v and %v", what, i, va[i], vb[i])
			}
		}
	}
	same("grown after decoding", f, back)
	compressed := check("compressed", f) // Values compressed both
	h, _ := New(4, 12, Options{Buffer: 7})
	if err := h.UpdateRows(rows.Slice(45, 57, 0, 12)); err != nil {
		t.Fatal(err)
	}
	if err := f.Merge(h); err != nil {
		t.Fatal(err)
	}
	if err := compressed.Merge(check("merged in", h)); err != nil {
		t.Fatal(err)
	}
	same("merged", f, compressed)

	good, _ := f.MarshalBinary()
	for _, bad := range [][]byte{nil, good[:len(good)-1], append(bytes.Clone(good), 0), []byte("IKPCAFDS")} {
		before, _ := f.MarshalBinary()
		if err := f.UnmarshalBinary(bad); !errors.Is(err, ErrEncoding) {
			t.Errorf("%d bytes: %v, want ErrEncoding", len(bad), err)
		}
		if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) {
			t.Error("a refused encoding changed the sketch")
		}
	}
}
