package modeltest

import (
	"fmt"
	"strings"
	"testing"

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
		runCheck(rec, &s, c.name, c.run, c.own)
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
		{"VectorsTo panics on another shape", "Destinations"},
		{"VectorsTo writes into another shape", "Destinations"},
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
		{"Centred reports false", "Centring"},
		{"scores not centred", "Centring"},
		{"Remove accepts an index out of range", "Remove"},
		{"Remove drops another point", "Remove"},
		{"lossy encoding", "Persistence"},
		{"MarshalBinaryTo writes another encoding", "Persistence"},
		{"UnmarshalBinaryFrom reads the whole stream", "Persistence"},
		{"bad bytes accepted", "Persistence"},
		{"failed decoding changes the receiver", "Persistence"},
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

// TestMissingHooks: a Subject without what a check needs fails that check rather than
// pass it, and a check skipped without a reason fails too.
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
	s.Skip = map[string]string{"Persistence": "the test says so", "Remove": ""}
	if rec := runAll(s)["Persistence"]; !rec.skipped || len(rec.errors) > 0 {
		t.Errorf("Persistence skipped with a reason: skipped %v, errors %q", rec.skipped, rec.errors)
	}
	if rec := runAll(s)["Remove"]; rec.skipped || len(rec.errors) == 0 {
		t.Errorf("Remove skipped without a reason: skipped %v, errors %q", rec.skipped, rec.errors)
	}
}

// TestNotPersistent: a model without the persistence methods fails Persistence, and one
// that is not Decremental skips Remove, saying why.
func TestNotPersistent(t *testing.T) {
	s := subject("")
	s.New = func(X *mat.Dense) (ikpca.Incremental, error) {
		m, err := newReference(X, 1, "")
		return readOnly{m}, err
	}
	recs := runAll(s)
	if rec := recs["Persistence"]; len(rec.errors) == 0 {
		t.Error("Persistence passed for a model without the persistence methods")
	}
	if rec := recs["Remove"]; !rec.skipped {
		t.Errorf("Remove of a model without Remove: skipped %v, errors %q", rec.skipped, rec.errors)
	}
}

// readOnly hides everything of a reference but ikpca.Incremental.
type readOnly struct{ ikpca.Incremental }

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
