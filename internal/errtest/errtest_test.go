package errtest

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
)

// pkg are the sentinels of a package "pkg" that has no encoding.
var (
	kinds = check.NewKinds("pkg")
	pkg   = Of(kinds.Dimension, kinds.NonFinite, kinds.Empty, kinds.Argument, kinds.NotConverged)
)

// TestCheck: Check passes an error of the package's sentinel and finds each way an
// error can break the contract.
func TestCheck(t *testing.T) {
	other := check.NewKinds("other")
	for _, c := range []struct {
		what      string
		err, kind error
		want      string // a part of the problem, or "" for none
	}{
		{"the sentinel's error", fmt.Errorf("%w: row 3", kinds.Argument), ikpca.ErrArgument, ""},
		{"any kind", fmt.Errorf("%w: row 3", kinds.Empty), nil, ""},
		{"a sub-sentinel", fmt.Errorf("%w: index", kinds.Argument), ikpca.ErrArgument, ""},
		{"no error", nil, ikpca.ErrArgument, "no error"},
		{"no error, any kind", nil, nil, "one ikpca kind"},
		{"another kind", fmt.Errorf("%w: row 3", kinds.Empty), ikpca.ErrArgument, "want exactly"},
		{"two kinds", fmt.Errorf("%w: %w", kinds.Argument, ikpca.ErrEmpty), ikpca.ErrArgument, "want exactly"},
		{"two kinds, any kind", fmt.Errorf("%w: %w", kinds.Argument, ikpca.ErrEmpty), nil, "want exactly"},
		{"no kind", errors.New("pkg: plain"), ikpca.ErrArgument, "want exactly"},
		{"the kind alone", fmt.Errorf("pkg: %w", ikpca.ErrArgument), ikpca.ErrArgument, "not the package's sentinel"},
		{"another package's sentinel", fmt.Errorf("%w", other.Argument), ikpca.ErrArgument, "not the package's sentinel"},
		{"a kind the package has no sentinel of", fmt.Errorf("%w", kinds.Encoding), ikpca.ErrEncoding, "no sentinel"},
		{"the sentinel not first", fmt.Errorf("Factorize: %w", kinds.Argument), ikpca.ErrArgument, "does not begin"},
	} {
		got := pkg.Check(c.err, c.kind)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: Check says %q, want %q", c.what, got, c.want)
		}
	}
}

// TestOf: a sentinel of no kind, or two of the same kind, is a mistake of the test.
func TestOf(t *testing.T) {
	for _, c := range [][]error{
		{errors.New("no kind")},
		{fmt.Errorf("%w, %w", ikpca.ErrArgument, ikpca.ErrEmpty)},
		{kinds.Argument, fmt.Errorf("%w: index", kinds.Argument)},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Of(%v) did not panic", c)
				}
			}()
			Of(c...)
		}()
	}
}

// recorder is a testing.TB that records the failures of the test it runs.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// TestTry: a panic is a failure, its error ErrPanicked; an error is returned as it is.
func TestTry(t *testing.T) {
	r := &recorder{TB: t}
	if err := Try(r, "boom", func() error { panic("boom") }); err != ErrPanicked || len(r.failures) != 1 ||
		!strings.Contains(r.failures[0], "boom panics: boom") {
		t.Errorf("Try of a panic: %v, failures %q", err, r.failures)
	}
	r.failures = nil
	if err := Try(r, "fails", Returns(kinds.Empty)); err != kinds.Empty || r.failures != nil {
		t.Errorf("Try of an error: %v, failures %q", err, r.failures)
	}
}

// TestRun: Run fails a case that panics, succeeds where it must fail, fails where it
// must succeed or fails with the wrong kind, once each, in order, and no other.
func TestRun(t *testing.T) {
	var cases Cases
	cases.Add("good", ikpca.ErrEmpty, Returns(kinds.Empty))
	cases.Add("succeeds", nil, Returns(nil))
	cases.Add("panics", ikpca.ErrEmpty, func() error { panic("boom") })
	cases.Add("no error", ikpca.ErrEmpty, Returns(nil))
	cases.Add("an error where none is due", nil, Returns(kinds.Empty))
	cases.Add("the wrong kind", ikpca.ErrEmpty, Returns(kinds.Argument))
	r := &recorder{TB: t}
	pkg.Run(r, cases)
	failures := r.failures
	want := []string{"panics panics", "no error: no error", "an error where none is due: ", "the wrong kind: "}
	if len(failures) != len(want) {
		t.Fatalf("failures %q, want %d", failures, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(failures[i], w) {
			t.Errorf("failure %d: %q, want it to begin with %q", i, failures[i], w)
		}
	}
}

// TestFuncs: the exported functions and methods that return an error, and no other.
func TestFuncs(t *testing.T) {
	name, funcs := Funcs(t, "testdata/sample")
	if want := []string{"New", "T.Add", "g.Put"}; name != "sample" || !slices.Equal(funcs, want) {
		t.Errorf("Funcs: package %s, %v; want sample, %v", name, funcs, want)
	}
	for name, want := range map[string]string{
		"Model.Add: nil": "Model.Add", "Fit(nil kernel)": "Fit", "NewSKPCA, d ≤ 0": "NewSKPCA", "Remove": "Remove",
	} {
		if got := called(name); got != want {
			t.Errorf("called(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestCover: a function no case calls is a failure, and only that one.
func TestCover(t *testing.T) {
	var cases Cases
	cases.Add("New: a case", ikpca.ErrEmpty, Returns(kinds.Empty))
	cases.Add("T.Add(nil)", ikpca.ErrEmpty, Returns(kinds.Empty))
	cases.Add("Put: not g's", ikpca.ErrEmpty, Returns(kinds.Empty))
	r := &recorder{TB: t}
	cases.cover(r, "testdata/sample", 3)
	if len(r.failures) != 1 || r.failures[0] != "g.Put returns an error but no case calls it" {
		t.Errorf("failures %q, want g.Put's", r.failures)
	}
}

// TestAddSentinels: a case a sentinel, in the order of their text, each failing as the
// sentinel does.
func TestAddSentinels(t *testing.T) {
	sub := fmt.Errorf("%w: poles not sorted", kinds.Argument)
	var cases Cases
	cases.AddSentinels(map[error]error{kinds.NotConverged: ikpca.ErrNotConverged, sub: ikpca.ErrArgument,
		kinds.Argument: ikpca.ErrArgument, kinds.Empty: ikpca.ErrArgument})
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
	}
	want := []string{"pkg: invalid argument", "pkg: invalid argument: poles not sorted", "pkg: no points", "pkg: not converged"}
	if !slices.Equal(names, want) {
		t.Errorf("cases %q, want %q", names, want)
	}
	r := &recorder{TB: t}
	pkg.Run(r, cases)
	if len(r.failures) != 1 || !strings.HasPrefix(r.failures[0], "pkg: no points: ") {
		t.Errorf("failures %q, want pkg.Empty's (not an ErrArgument)", r.failures)
	}
}

// model is an ikpca.Persistent that refuses what a model must, or, careless, refuses
// a nil writer or reader but panics on a typed-nil one.
type model struct{ careless bool }

func (m model) MarshalBinary() ([]byte, error) { return []byte("model"), nil }

func (m model) UnmarshalBinary(b []byte) error {
	return fmt.Errorf("%w: %d bytes", kinds.Encoding, len(b))
}

func (m model) MarshalBinaryTo(w io.Writer) (int, error) {
	if w == nil || !m.careless && check.IsNil(w) {
		return 0, fmt.Errorf("%w: nil writer", kinds.Argument)
	}
	return w.Write([]byte("model"))
}

func (m model) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	if r == nil || !m.careless && check.IsNil(r) {
		return 0, fmt.Errorf("%w: nil reader", kinds.Argument)
	}
	n, _ := r.Read(make([]byte, 8))
	return n, fmt.Errorf("%w: %d bytes", kinds.Encoding, n)
}

// TestAddPersistent: the cases pass on a model that refuses them as it must, and a
// model that panics on typed-nil writers and readers fails the two that give it them.
func TestAddPersistent(t *testing.T) {
	sentinels := Of(kinds.Argument, kinds.Encoding)
	var cases Cases
	cases.AddPersistent("Model", model{}, []byte("an encoding"))
	if len(cases) != 10 {
		t.Errorf("%d cases, want 10", len(cases))
	}
	sentinels.Run(t, cases)
	cases = nil
	cases.AddPersistent("Model", model{careless: true}, []byte("an encoding"))
	r := &recorder{TB: t}
	sentinels.Run(r, cases)
	want := []string{"Model.MarshalBinaryTo((*bytes.Buffer)(nil)) panics", "Model.UnmarshalBinaryFrom((*bytes.Buffer)(nil)) panics"}
	if len(r.failures) != len(want) {
		t.Fatalf("failures %q, want %q", r.failures, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(r.failures[i], w) {
			t.Errorf("failure %q, want %q", r.failures[i], w)
		}
	}
}
