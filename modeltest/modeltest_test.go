package modeltest

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// recorder stands in for a *testing.T, to see what a check reports.
type recorder struct {
	errors  []string
	skipped bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Skipf(format string, args ...any) { r.skipped = true }

// runAll runs every check on s with recorders, by name.
func runAll(s Subject) map[string]*recorder {
	out := make(map[string]*recorder)
	for _, c := range checks {
		rec := &recorder{}
		c.run(rec, &s)
		out[c.name] = rec
	}
	return out
}

// TestReference: the suite's reference model (plain batch kernel PCA) passes it, every
// check run and none skipped.
func TestReference(t *testing.T) {
	Run(t, subject(""))
	for name, rec := range runAll(subject("")) {
		if rec.skipped || len(rec.errors) > 0 {
			t.Errorf("%s: skipped %v, errors %q", name, rec.skipped, rec.errors)
		}
	}
}

// TestDefectsCaught: each check fails on a model with the defect it looks for — the
// suite is not vacuous.
func TestDefectsCaught(t *testing.T) {
	for _, c := range []struct{ defect, check string }{
		{"scaled Transform", "Consistency"},
		{"flipped signs", "Signs"},
		{"ascending Values", "Values"},
		{"a negative eigenvalue", "Values"},
		{"a NaN eigenvalue", "Values"},
		{"Values ignores dst", "Values"},
		{"k beyond len(Values)", "Values"},
		{"k beyond len(Values)", "BadTransform"},
		{"NaN accepted", "BadTransform"},
		{"wrong error kind", "BadTransform"},
		{"dst written on error", "BadTransform"},
		{"failed Transform changes the model", "BadTransform"},
		{"Add stores a bad point", "BadAdd"},
		{"AddBatch adds rows before a bad one", "BadAdd"},
		{"wrong Len", "Growth"},
		{"wrong Dim", "Growth"},
		{"shrinking Bytes", "Growth"},
		{"zero Bytes", "Growth"},
		{"lossy checkpoint", "Checkpoint"},
	} {
		recs := runAll(subject(c.defect))
		rec := recs[c.check]
		if len(rec.errors) == 0 {
			t.Errorf("%s: the %s check did not fail", c.defect, c.check)
			continue
		}
		var also []string
		for name, r := range recs {
			if name != c.check && len(r.errors) > 0 {
				also = append(also, name)
			}
		}
		t.Logf("%s: %s failed (%d reports, first: %s); also failed: %v", c.defect, c.check, len(rec.errors), rec.errors[0], also)
	}
}

// TestMissingHooks: a Subject without what a check needs fails that check (or, for
// the optional checkpoint, skips it visibly) rather than pass it.
func TestMissingHooks(t *testing.T) {
	s := subject("")
	s.Signed = nil
	if rec := runAll(s)["Signs"]; len(rec.errors) == 0 {
		t.Error("Signs passed without a Signed hook")
	}
	s = subject("")
	s.TrainingScores, s.Project = nil, nil
	if rec := runAll(s)["Consistency"]; len(rec.errors) == 0 {
		t.Error("Consistency passed without TrainingScores or Project")
	}
	s = subject("")
	s.Save = nil
	if rec := runAll(s)["Checkpoint"]; !rec.skipped || len(rec.errors) > 0 {
		t.Errorf("Checkpoint without Save: skipped %v, errors %q", rec.skipped, rec.errors)
	}
}

// TestCompareTolerance: compare passes rounding and reports a difference beyond it.
func TestCompareTolerance(t *testing.T) {
	a := defaultData()
	b := with(a, 3, 1, a.At(3, 1)*(1+1e-12))
	rec := &recorder{}
	compare(rec, "rounding", b, a, 1e-8)
	if len(rec.errors) > 0 {
		t.Errorf("rounding reported: %v", rec.errors)
	}
	c := with(a, 3, 1, a.At(3, 1)+1e-3)
	compare(rec, "defect", c, a, 1e-8)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "point 3") {
		t.Errorf("a difference of 1e-3: %v", rec.errors)
	}
}

// TestBinaryCheckpoint: SaveBinary refuses a model without MarshalBinary, and
// LoadBinary passes the bytes written to its decoder and the reader's errors back.
func TestBinaryCheckpoint(t *testing.T) {
	m, err := newReference(mat.NewDense(2, 1, []float64{1, 2}), 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := SaveBinary(m, io.Discard); err == nil {
		t.Error("SaveBinary of a model without MarshalBinary: no error")
	}
	var got []byte
	load := LoadBinary(func(b []byte) (ikpca.Model, error) { got = b; return m, nil })
	if back, err := load(strings.NewReader("encoded")); err != nil || back != m || string(got) != "encoded" {
		t.Errorf("LoadBinary: %v, %v, decoded %q", back, err, got)
	}
	boom := errors.New("boom")
	if _, err := load(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Errorf("LoadBinary of a failing reader: %v", err)
	}
}
