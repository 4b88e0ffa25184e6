// Package modeltest checks that a model keeps the promises of package ikpca — the read
// side (ikpca.Model), the write side (ikpca.Incremental, ikpca.Decremental), the
// persistence form (ikpca.Persistent) and the centring default — in the style of gonum's
// lapack/testlapack: a model's package describes the model in a Subject — how to build
// it from points, and hooks that expose its own decomposition — and calls Run from one
// of its tests. Every model of this module passes it; a user can check a model of their
// own the same way.
//
// The checks, each a subtest of Run:
//
//   - Values: finite, descending, non-negative up to rounding, the dst rule of
//     ikpca.Model.Values, and a length that is Transform's range of k;
//   - Destinations: the module's rule for destinations (package ikpca) in
//     ExplainedVariance and VectorsTo, where the model has them — in place, resized,
//     or replaced with the old storage untouched, never a panic;
//   - Consistency: Transform agrees with the model's own decomposition (the
//     TrainingScores and Project hooks) to a relative Tolerance;
//   - Signs: every component's sign is fixed as scikit-learn's svd_flip fixes it —
//     the first entry of the Signed vector whose magnitude is within a relative 1e-6
//     of the largest is positive (docs/design.md, "Signs");
//   - Centring: Centred reports what the Subject says the options ask for (centred
//     unless Uncentred: one default for every model), and a centring model's scores of
//     the points it has seen sum to zero on every component — ⟨vⱼ, Σᵢ(φ(xᵢ) − μ)⟩ = 0,
//     whatever the components, when μ is the mean of those points;
//   - BadTransform and BadAdd: NaN, infinite, wrong-dimension, nil and empty input, k
//     out of range and a dst of the wrong shape give errors of the right ikpca kind,
//     and leave the model (its Values, Len, Dim, Bytes and the scores of probe points)
//     and dst exactly as they were;
//   - Growth: Len and Dim right after every added point and after AddBatch (Len at most
//     the Window of a sliding-window model), Bytes positive and, unless the model
//     bounds its memory, never falling;
//   - Remove, for an ikpca.Decremental model: removing a point gives the model of the
//     others (its Values within RemoveTolerance of a model built from them), an index
//     out of range is an ErrArgument that changes nothing, and the model takes points
//     again after removals;
//   - Persistence: the model is an ikpca.Persistent; decoded into a zero value of its
//     type, or over another model, it has the same Values and scores bit for bit and
//     continues identically; MarshalBinaryTo writes MarshalBinary's bytes;
//     UnmarshalBinaryFrom reads exactly one encoding from a stream; truncated,
//     corrupted, empty and foreign bytes are ErrEncoding and leave the receiver as it
//     was; nil writers and readers are ErrArgument.
//
// A Subject opts out of a check only with a reason (Subject.Skip), which the suite
// reports as the check's skip message.
package modeltest

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// Subject describes a model to the suite. New is required, and so are Signed and at
// least one of TrainingScores and Project: a check with nothing to check against fails
// rather than pass vacuously.
type Subject struct {
	// New returns a model of the rows of X: a batch fit, or an empty model that adds
	// them itself.
	New func(X *mat.Dense) (ikpca.Incremental, error)

	// Data, if not nil, are the points: New gets the first Start rows, and the rest are
	// added one at a time. The default is 40 points in 3 dimensions near a curve, whose
	// kernel matrices have well-separated leading eigenvalues; kernels with a bandwidth
	// suit them at σ ≈ 1.
	Data *mat.Dense
	// Start is the number of rows New gets; zero means half of Data.
	Start int

	// TrainingScores, if not nil, returns the scores of the points the model has seen
	// (Len()×k, in the order they were added) on its top k components, from its own
	// decomposition: for an exact model, Transform of those points must give them.
	TrainingScores func(m ikpca.Model, k int) (*mat.Dense, error)
	// Project, if not nil, returns the scores of the rows of X on the top k components
	// computed from the model's own decomposition by another route than Transform:
	// z(x)ᵀW with W from VectorsTo for a random-feature model, the kernel expansion of
	// the components for an online one.
	Project func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error)
	// Signed returns the vectors whose signs the model fixes, one column per component
	// in the order of Values: the coefficient vectors in point coordinates (the
	// training scores' columns) for a kernel model, the feature-space directions for a
	// random-feature model.
	Signed func(m ikpca.Model) (*mat.Dense, error)
	// Tolerance is the relative tolerance of Consistency: |Transform − reference| ≤
	// Tolerance·max|reference| entrywise. Zero means 1e-8: the two routes differ by
	// rounding, about m·ε·√(λ₁/λₖ) relative (the components checked have λₖ ≥ 1e-3·λ₁),
	// below 1e-11 for the suite's sizes, and a real defect (a wrong centring, scale or
	// component) is of order one.
	Tolerance float64

	// Uncentred says that New builds the model with its options' Uncentred set: Centred
	// must then report false, and true otherwise.
	Uncentred bool
	// CentringTolerance bounds the sum of a centring model's scores of the points it has
	// seen, relative to the sum of their magnitudes: |Σᵢ sᵢⱼ| ≤ CentringTolerance·Σᵢ|sᵢⱼ|
	// for each component j checked. Zero means 1e-10: the sum cancels exactly in exact
	// arithmetic, and rounding leaves about n·ε of the terms' magnitude (n ≤ 100 points
	// here); a model that does not centre misses by the mean score, of order one.
	CentringTolerance float64

	// RemoveTolerance bounds, for a Decremental model, how far the Values after
	// Remove(i) may be from those of a model New builds from the other points:
	// |λⱼ − λⱼ′| ≤ RemoveTolerance·λ₁. Zero means 1e-8, rounding for an exact removal; a
	// model that tracks the top of the spectrum approximately sets its own, with the
	// reason.
	RemoveTolerance float64

	// Bounded reports a model whose memory is bounded — it compresses or forgets — so
	// that Bytes may fall as points are added; Growth then checks only that it stays
	// positive.
	Bounded bool
	// Window, if positive, is the size of the model's sliding window: it summarises the
	// last Window points it was given, so that Len is at most Window and the points seen
	// (TrainingScores, Project) are the last Window rows. It implies Bounded.
	Window int

	// Skip maps the name of a check ("Persistence", "Remove", …) to the reason the model
	// cannot pass it; Run skips the check with that reason. A check skipped without a
	// reason fails.
	Skip map[string]string
}

// reporter is what the checks need of a *testing.T; modeltest's own tests pass a
// recorder, to show that each check fails on a model with the defect it looks for.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Skipf(format string, args ...any)
}

// checks are the suite, in the order Run runs them.
var checks = []struct {
	name string
	run  func(r reporter, s *Subject, m ikpca.Incremental, P *mat.Dense)
	// own marks a check that builds its models itself: it is given none (nil m and P).
	// Every other is given a model of the Subject's data, fitted for it alone, and P,
	// points the model has not seen (Subject.model).
	own bool
}{
	{"Values", checkValues, false},
	{"Destinations", checkDestinations, false},
	{"Consistency", checkConsistency, false},
	{"Signs", checkSigns, false},
	{"Centring", checkCentring, false},
	{"BadTransform", checkBadTransform, false},
	{"BadAdd", checkBadAdd, false},
	{"Growth", checkGrowth, true},
	{"Remove", checkRemove, false},
	{"Persistence", checkPersistence, false},
}

// Run checks the model s describes, each check a subtest.
func Run(t *testing.T, s Subject) {
	t.Helper()
	if s.New == nil {
		t.Fatal("modeltest: the Subject needs New")
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { runCheck(t, &s, c.name, c.run, c.own) })
	}
}

// runCheck runs one check on a model of the Subject's data (s.model) — or, for a check
// that builds its own (own), on none — or skips it with the Subject's reason.
func runCheck(r reporter, s *Subject, name string, run func(reporter, *Subject, ikpca.Incremental, *mat.Dense), own bool) {
	r.Helper()
	if reason, ok := s.Skip[name]; ok {
		if reason == "" {
			r.Errorf("the Subject skips %s without a reason", name)
			return
		}
		r.Skipf("%s", reason)
		return
	}
	if own {
		run(r, s, nil, nil)
		return
	}
	m, P, ok := s.model(r)
	if !ok {
		return
	}
	run(r, s, m, P)
}
