package modeltest

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// persistent is a model the suite can feed, read and save.
type persistent interface {
	ikpca.Incremental
	ikpca.Persistent
}

// zeroOf returns a new zero value of m's type, for m a pointer to a struct, as a
// persistent model, or nil if it is not one.
func zeroOf(m ikpca.Model) persistent {
	t := reflect.TypeOf(m)
	if t.Kind() != reflect.Pointer {
		return nil
	}
	z, _ := reflect.New(t.Elem()).Interface().(persistent)
	return z
}

// checkPersistence: the model is an ikpca.Persistent whose encoding restores it exactly
// — into a zero value or over another model, from bytes or from a stream — and whose
// decoders refuse bad bytes of every kind without changing the receiver.
func checkPersistence(r reporter, s *Subject, m ikpca.Incremental, P *mat.Dense) {
	r.Helper()
	pm, ok := m.(persistent)
	if !ok || zeroOf(m) == nil {
		r.Errorf("%T is not an ikpca.Persistent (MarshalBinary, UnmarshalBinary, MarshalBinaryTo, UnmarshalBinaryFrom on a pointer)", m)
		return
	}
	X, _ := s.data()
	same := func(what string, a, b ikpca.Model) bool {
		r.Helper()
		for _, Y := range []*mat.Dense{X, P} {
			if diff := capture(a, Y).diff(capture(b, Y), false); diff != "" {
				r.Errorf("%s: %s", what, diff)
				return false
			}
		}
		return true
	}
	b, err := pm.MarshalBinary()
	if err != nil {
		r.Errorf("MarshalBinary: %v", err)
		return
	}

	// Into a zero value, then the same point added to both.
	z := zeroOf(m)
	if err := try(func() error { return z.UnmarshalBinary(b) }); err != nil {
		r.Errorf("UnmarshalBinary into a zero %T: %v", z, err)
		return
	}
	if !same("decoded into a zero value", pm, z) {
		return
	}
	p, _ := P.Dims()
	x := append([]float64(nil), P.RawRowView(min(1, p-1))...)
	e1, e2 := try(func() error { return pm.Add(x) }), try(func() error { return z.Add(x) })
	if (e1 == nil) != (e2 == nil) {
		r.Errorf("the same point added to the model and to its decoded copy: %v, then %v", e1, e2)
	}
	same("the model and its decoded copy after one more point", pm, z)

	// MarshalBinaryTo writes MarshalBinary's bytes and counts them.
	b, err = pm.MarshalBinary()
	if err != nil {
		r.Errorf("MarshalBinary: %v", err)
		return
	}
	var buf bytes.Buffer
	if n, err := pm.MarshalBinaryTo(&buf); err != nil || n != len(b) || !bytes.Equal(buf.Bytes(), b) {
		r.Errorf("MarshalBinaryTo: %d bytes, %v; equal to MarshalBinary's %d: %v", n, err, len(b), bytes.Equal(buf.Bytes(), b))
	}

	po, ob, ok := secondModel(r, s)
	if !ok {
		return
	}
	checkStreamOfTwo(r, m, pm, po, b, ob, same)
	// Over another model: it becomes the decoded one entirely.
	over := zeroOf(m)
	if err := over.UnmarshalBinary(ob); err != nil {
		r.Errorf("UnmarshalBinary: %v", err)
		return
	}
	if err := try(func() error { return over.UnmarshalBinary(b) }); err != nil {
		r.Errorf("UnmarshalBinary over another model: %v", err)
	} else {
		same("decoded over another model", pm, over)
	}
	checkRefusals(r, pm, po, P, b)
}

// secondModel returns the model of the subject's first Start points and its encoding:
// the second encoding of a stream, and a receiver with a state of its own.
func secondModel(r reporter, s *Subject) (persistent, []byte, bool) {
	r.Helper()
	X, start := s.data()
	_, d := X.Dims()
	other, err := s.New(mat.DenseCopyOf(X.Slice(0, start, 0, d)))
	if err != nil {
		r.Errorf("New of %d points: %v", start, err)
		return nil, nil, false
	}
	po, ok := other.(persistent)
	if !ok {
		r.Errorf("%T is not an ikpca.Persistent", other)
		return nil, nil, false
	}
	ob, err := po.MarshalBinary()
	if err != nil {
		r.Errorf("MarshalBinary of a second model: %v", err)
		return nil, nil, false
	}
	return po, ob, true
}

// checkStreamOfTwo: UnmarshalBinaryFrom reads pm's encoding b, then po's ob, from one
// stream, each exactly, into zero values of m's type, which are then the same models.
func checkStreamOfTwo(r reporter, m ikpca.Model, pm, po persistent, b, ob []byte, same func(string, ikpca.Model, ikpca.Model) bool) {
	r.Helper()
	stream := bytes.NewReader(append(append([]byte(nil), b...), ob...))
	for q, want := range []persistent{pm, po} {
		got, size := zeroOf(m), []int{len(b), len(ob)}[q]
		var n int
		if err := try(func() (err error) { n, err = got.UnmarshalBinaryFrom(stream); return err }); err != nil || n != size {
			r.Errorf("UnmarshalBinaryFrom, encoding %d of a stream of two: %d bytes, %v; want %d", q+1, n, err, size)
			return
		}
		same("encoding "+strconv.Itoa(q+1)+" of a stream of two", want, got)
	}
	if stream.Len() != 0 {
		r.Errorf("UnmarshalBinaryFrom left %d bytes of a stream of two encodings", stream.Len())
	}
}

// checkRefusals: bad bytes (cut, flipped, extended, another type's) are an ErrEncoding
// from UnmarshalBinary and UnmarshalBinaryFrom and leave po as it was; nil writers and
// readers are an ErrArgument; and a reader's own error comes back. b is pm's encoding.
func checkRefusals(r reporter, pm, po persistent, P *mat.Dense, b []byte) {
	r.Helper()
	// Bad bytes: ErrEncoding, and the receiver as it was.
	flip := func(i int) []byte {
		c := bytes.Clone(b)
		c[i] ^= 0x10
		return c
	}
	bad := []struct {
		what string
		data []byte
	}{
		{"no bytes", nil},
		{"the first byte flipped (another magic)", flip(0)},
		{"a byte of the body flipped", flip(len(b) / 2)},
		{"the last byte flipped (the checksum)", flip(len(b) - 1)},
		{"the last byte cut", b[:len(b)-1]},
		{"half of it", b[:len(b)/2]},
		{"a byte after it", append(bytes.Clone(b), 0)},
		{"another model's type", []byte("not a model of any kind, long enough to hold a header and more")},
	}
	for _, c := range bad {
		before := capture(po, P)
		if err := try(func() error { return po.UnmarshalBinary(c.data) }); !errors.Is(err, ikpca.ErrEncoding) {
			r.Errorf("UnmarshalBinary of %s: %v, want an error that wraps %v", c.what, err, ikpca.ErrEncoding)
		}
		if diff := before.diff(capture(po, P), true); diff != "" {
			r.Errorf("UnmarshalBinary of %s changed the receiver: %s", c.what, diff)
		}
		if c.what == "a byte after it" {
			continue // a stream may hold more after one encoding
		}
		if err := try(func() error { _, err := po.UnmarshalBinaryFrom(bytes.NewReader(c.data)); return err }); !errors.Is(err, ikpca.ErrEncoding) {
			r.Errorf("UnmarshalBinaryFrom of %s: %v, want an error that wraps %v", c.what, err, ikpca.ErrEncoding)
		}
		if diff := before.diff(capture(po, P), true); diff != "" {
			r.Errorf("UnmarshalBinaryFrom of %s changed the receiver: %s", c.what, diff)
		}
	}

	// nil writers and readers.
	if err := try(func() error { _, err := pm.MarshalBinaryTo(nil); return err }); !errors.Is(err, ikpca.ErrArgument) {
		r.Errorf("MarshalBinaryTo(nil): %v, want an error that wraps %v", err, ikpca.ErrArgument)
	}
	if err := try(func() error { _, err := po.UnmarshalBinaryFrom(nil); return err }); !errors.Is(err, ikpca.ErrArgument) {
		r.Errorf("UnmarshalBinaryFrom(nil): %v, want an error that wraps %v", err, ikpca.ErrArgument)
	}
	// A failing reader's error comes back.
	boom := errors.New("modeltest: read failed")
	if err := try(func() error {
		_, err := po.UnmarshalBinaryFrom(io.MultiReader(bytes.NewReader(b[:len(b)/2]), errReader{boom}))
		return err
	}); !errors.Is(err, boom) {
		r.Errorf("UnmarshalBinaryFrom of a reader that fails part-way: %v, want its error", err)
	}
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
