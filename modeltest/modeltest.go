// Package modeltest checks that a model keeps the promises of ikpca.Model, in the
// style of gonum's lapack/testlapack: a model's package describes the model in a
// Subject — how to build it from points, how to add a point, and hooks that expose its
// own decomposition — and calls Run from one of its tests. Every model of this module
// passes it (kpca, chinsuter, stream); a user can check a model of their own the same
// way.
//
// The checks, each a subtest of Run:
//
//   - Values: finite, descending, non-negative up to rounding, the dst rule of
//     ikpca.Model.Values, and a length that is Transform's range of k;
//   - Consistency: Transform agrees with the model's own decomposition (the
//     TrainingScores and Project hooks) to a relative Tolerance;
//   - Signs: every component's sign is fixed as scikit-learn's svd_flip fixes it —
//     the first entry of the Signed vector whose magnitude is within a relative 1e-6
//     of the largest is positive (docs/design.md, "Signs");
//   - BadTransform and BadAdd: NaN, infinite, wrong-dimension, nil and empty input, k
//     out of range and a dst of the wrong shape give errors of the right ikpca kind,
//     and leave the model (its Values, Len, Dim, Bytes and the scores of probe points)
//     and dst exactly as they were;
//   - Growth: Len and Dim right after every added point (Len at most the Window of a
//     sliding-window model), Bytes positive and, unless the model bounds its memory,
//     never falling;
//   - Checkpoint: a model saved and loaded has the same Values and scores, bit for bit
//     (skipped, visibly, for a Subject without Save and Load).
package modeltest

import (
	"encoding"
	"fmt"
	"io"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// Subject describes a model to the suite. New and Add are required, and so are Signed
// and at least one of TrainingScores and Project: a check with nothing to check
// against fails rather than pass vacuously.
type Subject struct {
	// New returns a model of the rows of X. A model that starts empty adds them itself.
	New func(X *mat.Dense) (ikpca.Model, error)
	// Add adds the point x to m and returns the model's error.
	Add func(m ikpca.Model, x []float64) error
	// AddBatch, if not nil, adds the rows of X to m, all or nothing.
	AddBatch func(m ikpca.Model, X mat.Matrix) error

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

	// Save and Load, if both are not nil, write m as a checkpoint and read it back.
	Save func(m ikpca.Model, w io.Writer) error
	Load func(r io.Reader) (ikpca.Model, error)

	// Bounded reports a model whose memory is bounded — it compresses or forgets — so
	// that Bytes may fall as points are added; Growth then checks only that it stays
	// positive.
	Bounded bool
	// Window, if positive, is the size of the model's sliding window: it summarises the
	// last Window points it was given, so that Len is at most Window and the points seen
	// (TrainingScores, Project) are the last Window rows. It implies Bounded.
	Window int
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
	run  func(r reporter, s *Subject)
}{
	{"Values", checkValues},
	{"Consistency", checkConsistency},
	{"Signs", checkSigns},
	{"BadTransform", checkBadTransform},
	{"BadAdd", checkBadAdd},
	{"Growth", checkGrowth},
	{"Checkpoint", checkCheckpoint},
}

// Run checks the model s describes, each check a subtest.
func Run(t *testing.T, s Subject) {
	t.Helper()
	if s.New == nil || s.Add == nil {
		t.Fatal("modeltest: the Subject needs New and Add")
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, &s) })
	}
}

// SaveBinary is a Subject's Save for a model whose checkpoint is its binary encoding:
// it writes m.MarshalBinary(). A model that is not an encoding.BinaryMarshaler is an
// error.
func SaveBinary(m ikpca.Model, w io.Writer) error {
	bm, ok := m.(encoding.BinaryMarshaler)
	if !ok {
		return fmt.Errorf("modeltest: %T has no MarshalBinary", m)
	}
	b, err := bm.MarshalBinary()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// LoadBinary returns a Subject's Load for a model whose checkpoint is its binary
// encoding: it reads everything and decodes it with decode (for example a zero model's
// UnmarshalBinary).
func LoadBinary(decode func(b []byte) (ikpca.Model, error)) func(r io.Reader) (ikpca.Model, error) {
	return func(r io.Reader) (ikpca.Model, error) {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return decode(b)
	}
}
