package wiretest

import (
	"bytes"
	"encoding"
	"errors"
	"testing"

	"github.com/ikpca/ikpca"
)

// others are the kinds of package ikpca other than ErrEncoding: a refused encoding
// wraps none of them.
var others = []error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument, ikpca.ErrNotConverged}

// onlyEncoding reports whether err wraps kind (a package's ErrEncoding), and
// ikpca.ErrEncoding, and no other kind of package ikpca.
func onlyEncoding(err, kind error) bool {
	if !errors.Is(err, kind) || !errors.Is(err, ikpca.ErrEncoding) {
		return false
	}
	for _, o := range others {
		if errors.Is(err, o) {
			return false
		}
	}
	return true
}

// Decoded runs the checks every fuzz target of a decoder makes on its input in, and
// returns the model decoded into zero() and whether in was accepted. Nothing may panic.
// UnmarshalBinary and UnmarshalBinaryFrom (from a stream of in) agree: both accept in,
// the stream reading all of it, or both refuse it — but for a stream that begins with a
// whole encoding and goes on, whose first encoding alone UnmarshalBinaryFrom reads and
// UnmarshalBinary must then accept too. A refusal wraps kind, the package's ErrEncoding,
// and no other kind of package ikpca, and leaves the zero receiver zero (isZero). What
// is accepted encodes back to in, the very same bytes, by MarshalBinary and
// MarshalBinaryTo: the encoding is canonical.
func Decoded[M ikpca.Persistent](t *testing.T, in []byte, zero func() M, isZero func(M) bool, kind error) (M, bool) {
	t.Helper()
	m, s := zero(), zero()
	err := m.UnmarshalBinary(in)
	n, serr := s.UnmarshalBinaryFrom(bytes.NewReader(in))
	switch {
	case err == nil && (serr != nil || n != len(in)):
		t.Fatalf("UnmarshalBinary accepts, UnmarshalBinaryFrom reads %d of %d bytes: %v", n, len(in), serr)
	case err != nil && serr == nil && n == len(in):
		t.Fatalf("UnmarshalBinaryFrom accepts what UnmarshalBinary refuses (%v)", err)
	case err != nil && serr == nil:
		if ferr := zero().UnmarshalBinary(in[:n]); ferr != nil {
			t.Fatalf("UnmarshalBinaryFrom accepts the first %d bytes, UnmarshalBinary refuses them: %v", n, ferr)
		}
	case serr != nil && (!onlyEncoding(serr, kind) || !isZero(s)):
		t.Fatalf("UnmarshalBinaryFrom refused with %v, or the receiver changed", serr)
	}
	if err != nil {
		if !onlyEncoding(err, kind) || !isZero(m) {
			t.Fatalf("refused with %v, or the receiver changed", err)
		}
		return m, false
	}
	out, err := m.MarshalBinary()
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("a decoded model encodes to other bytes (%v)", err)
	}
	var buf bytes.Buffer
	if k, err := m.MarshalBinaryTo(&buf); err != nil || k != len(in) || !bytes.Equal(buf.Bytes(), in) {
		t.Fatalf("MarshalBinaryTo of a decoded model: %d bytes, %v; not MarshalBinary's", k, err)
	}
	return m, true
}

// Refuses checks that m refuses the encoding in — UnmarshalBinary returns an error that
// wraps kind (the package's ErrEncoding) and no other kind of package ikpca — and is left
// as it was, its encoding the same bytes; and that UnmarshalBinaryFrom refuses in read
// from a stream alike, unless in is a whole encoding followed by more bytes (a stream
// may go on after an encoding): then it reads only that encoding, and m is restored.
func Refuses(t testing.TB, what string, m ikpca.Persistent, in []byte, kind error) {
	t.Helper()
	before, err := m.MarshalBinary()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	unchanged := func(how string) {
		t.Helper()
		if after, err := m.MarshalBinary(); err != nil || !bytes.Equal(before, after) {
			t.Errorf("%s: the refused encoding changed the model (%s, %v)", what, how, err)
		}
	}
	if err := m.UnmarshalBinary(in); !onlyEncoding(err, kind) {
		t.Errorf("%s: %v, want an error of %v only", what, err, kind)
	}
	unchanged("UnmarshalBinary")
	n, err := m.UnmarshalBinaryFrom(bytes.NewReader(in))
	if err == nil {
		if n >= len(in) {
			t.Errorf("%s: UnmarshalBinaryFrom accepts all %d bytes", what, n)
		}
		if err := m.UnmarshalBinary(before); err != nil {
			t.Fatalf("%s: the model's own encoding: %v", what, err)
		}
		return
	}
	if !onlyEncoding(err, kind) {
		t.Errorf("%s: UnmarshalBinaryFrom: %v, want an error of %v only", what, err, kind)
	}
	unchanged("UnmarshalBinaryFrom")
}

// Fuzz runs the fuzz target of a decoder (after the seeds are added): each input is
// tried as it is and as frame makes it — a valid frame around it (Reseal, or wire.Frame
// of a body), so that the fuzzer reaches the checks behind the frame's — through
// Decoded, and check is given every model accepted.
func Fuzz[M ikpca.Persistent](f *testing.F, frame func([]byte) []byte, zero func() M, isZero func(M) bool, kind error,
	check func(*testing.T, M)) {
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, frame(data)} {
			if m, ok := Decoded(t, in, zero, isZero, kind); ok {
				check(t, m)
			}
		}
	})
}

// Marshal returns m's encoding (MarshalBinary), failing the test on an error.
func Marshal(tb testing.TB, m encoding.BinaryMarshaler) []byte {
	tb.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
