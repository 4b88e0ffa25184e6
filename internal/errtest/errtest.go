// Package errtest holds what the error tests of the module's packages share: a table of
// calls, each with the ikpca kind its error must wrap, run with panics recovered and
// every error held to the contract of package ikpca (errors.go) — exactly one kind, and
// the package's sentinel of it, whose text begins the error's — and a check, from the
// package's source, that the table calls every exported function and method that
// returns an error. Only test files import it.
package errtest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ikpca/ikpca"
)

// Kinds are the six kinds of package ikpca, in the order of errors.go.
var Kinds = [...]error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument,
	ikpca.ErrEncoding, ikpca.ErrNotConverged}

// KindsOf returns the ikpca kinds err wraps.
func KindsOf(err error) []error {
	var out []error
	for _, k := range Kinds {
		if errors.Is(err, k) {
			out = append(out, k)
		}
	}
	return out
}

// Sentinels are one package's sentinel errors, by the ikpca kind each wraps.
type Sentinels map[error]error

// Of returns the sentinels of a package: its ErrDimension, ErrNonFinite, ErrEmpty,
// ErrArgument, ErrEncoding and ErrNotConverged, those it exports. It panics if one of
// them wraps no ikpca kind or several, or two wrap the same: the test is wrong.
func Of(sentinels ...error) Sentinels {
	s := make(Sentinels, len(sentinels))
	for _, e := range sentinels {
		ks := KindsOf(e)
		if len(ks) != 1 || s[ks[0]] != nil {
			panic(fmt.Sprintf("errtest: %v is not a sentinel of one kind the package has no other of", e))
		}
		s[ks[0]] = e
	}
	return s
}

// Check returns what is wrong with err, the error of a call that must fail with the
// ikpca kind (or with any one kind if kind is nil), and "" if nothing is: err must wrap
// exactly one ikpca kind, that one, and the package's sentinel of it, and its text must
// begin with the sentinel's ("kpca: invalid argument: …").
func (s Sentinels) Check(err, kind error) string {
	if err == nil {
		return fmt.Sprintf("no error, want one wrapping %v", orAnyKind(kind))
	}
	ks := KindsOf(err)
	if len(ks) != 1 || kind != nil && ks[0] != kind {
		return fmt.Sprintf("%v wraps %v, want exactly %v", err, ks, orAnyKind(kind))
	}
	own := s[ks[0]]
	switch {
	case own == nil:
		return fmt.Sprintf("%v wraps %v, of which the package has no sentinel", err, ks[0])
	case !errors.Is(err, own):
		return fmt.Sprintf("%v wraps %v but not the package's sentinel of it, %q", err, ks[0], own)
	case !strings.HasPrefix(err.Error(), own.Error()):
		return fmt.Sprintf("%q does not begin with the package's sentinel, %q", err, own)
	}
	return ""
}

// orAnyKind names kind, or any ikpca kind if kind is nil.
func orAnyKind(kind error) any {
	if kind == nil {
		return "one ikpca kind"
	}
	return kind
}

// Case is one call and the ikpca kind its error must wrap; a nil Kind: the call must
// succeed.
type Case struct {
	Name string
	Kind error
	Call func() error
}

// Cases is a table of calls, run in order (a case may change what the next ones see).
type Cases []Case

// Add appends a case. Its name begins with the function or method it calls ("Fit: nil
// kernel", "Model.Add(nil)") where Cover checks the table.
func (c *Cases) Add(name string, kind error, call func() error) {
	*c = append(*c, Case{Name: name, Kind: kind, Call: call})
}

// Returns returns a call that returns err: a case of a sentinel error itself, which
// must wrap its kind and the package's sentinel of it like any error of the package.
func Returns(err error) func() error { return func() error { return err } }

// Run runs the cases in order and fails t for each call that panics (Try), returns an
// error where it must succeed, or returns an error that Check finds wrong.
func (s Sentinels) Run(t testing.TB, cases Cases) {
	t.Helper()
	for _, c := range cases {
		err := Try(t, c.Name, c.Call)
		switch {
		case err == ErrPanicked:
		case c.Kind == nil && err != nil:
			t.Errorf("%s: %v, want no error", c.Name, err)
		case c.Kind != nil:
			if p := s.Check(err, c.Kind); p != "" {
				t.Errorf("%s: %s", c.Name, p)
			}
		}
	}
}

// ErrPanicked stands for the error of a call that panicked (Try reports the panic).
var ErrPanicked = errors.New("panicked")

// Try returns f's error, or, if f panics, fails t saying so and returns ErrPanicked: no
// function of the module may panic on a user's input.
func Try(t testing.TB, what string, f func() error) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panics: %v", what, r)
			err = ErrPanicked
		}
	}()
	return f()
}

// AddPersistent appends the hostile calls of the methods of ikpca.Persistent on m, a
// model of the type name ("Model"): nil and typed-nil writers and readers (ErrArgument),
// and nil, bytes that are no encoding, and the first half of enc — an encoding of m —
// given to UnmarshalBinary and read from a stream by UnmarshalBinaryFrom (ErrEncoding).
// Each leaves m as it was, which the caller checks.
func (c *Cases) AddPersistent(name string, m ikpca.Persistent, enc []byte) {
	var nilBuf *bytes.Buffer
	junk := bytes.Repeat([]byte("not a model "), 10)
	half := enc[:len(enc)/2]
	c.Add(name+".MarshalBinaryTo(nil)", ikpca.ErrArgument, func() error { _, err := m.MarshalBinaryTo(nil); return err })
	c.Add(name+".MarshalBinaryTo((*bytes.Buffer)(nil))", ikpca.ErrArgument, func() error {
		_, err := m.MarshalBinaryTo(nilBuf)
		return err
	})
	c.Add(name+".UnmarshalBinary(nil)", ikpca.ErrEncoding, func() error { return m.UnmarshalBinary(nil) })
	c.Add(name+".UnmarshalBinary: bytes that are no encoding", ikpca.ErrEncoding, func() error { return m.UnmarshalBinary(junk) })
	c.Add(name+".UnmarshalBinary: half an encoding", ikpca.ErrEncoding, func() error { return m.UnmarshalBinary(half) })
	c.Add(name+".UnmarshalBinaryFrom(nil)", ikpca.ErrArgument, func() error { _, err := m.UnmarshalBinaryFrom(nil); return err })
	c.Add(name+".UnmarshalBinaryFrom((*bytes.Buffer)(nil))", ikpca.ErrArgument, func() error {
		_, err := m.UnmarshalBinaryFrom(nilBuf)
		return err
	})
	streams := []string{"an empty stream", "bytes that are no encoding", "half an encoding"}
	for i, b := range [][]byte{nil, junk, half} {
		c.Add(name+".UnmarshalBinaryFrom: "+streams[i], ikpca.ErrEncoding, func() error {
			_, err := m.UnmarshalBinaryFrom(bytes.NewReader(b))
			return err
		})
	}
}

// AddZero appends the calls of MarshalBinary and MarshalBinaryTo (to a buffer) on zero,
// a zero value of a model's type named name ("zero Model"): each must be an
// ErrArgument, as every method of a zero model is.
func (c *Cases) AddZero(name string, zero ikpca.Persistent) {
	c.Add(name+": MarshalBinary", ikpca.ErrArgument, func() error { _, err := zero.MarshalBinary(); return err })
	c.Add(name+": MarshalBinaryTo", ikpca.ErrArgument, func() error { _, err := zero.MarshalBinaryTo(&bytes.Buffer{}); return err })
}

// AddSentinels appends a case of each sentinel error of a package in want, with the
// ikpca kind it must wrap: the sentinel must wrap that kind and no other, and the
// package's sentinel of it first, like every error of the package (a sentinel of the
// six kinds is its own). The cases go in the order of their text.
func (c *Cases) AddSentinels(want map[error]error) {
	var sentinels []error
	for e := range want {
		sentinels = append(sentinels, e)
	}
	slices.SortFunc(sentinels, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	for _, e := range sentinels {
		c.Add(e.Error(), want[e], Returns(e))
	}
}
