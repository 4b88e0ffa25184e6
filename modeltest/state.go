package modeltest

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/vec"
)

// state is what a failed call must leave as it was: the eigenvalues, the sizes, the
// memory and the scores of probe points on every component, compared bit for bit.
type state struct {
	values          []float64
	len, dim, bytes int
	scores          *mat.Dense
	err             error // of Transform of the probe points
}

// capture reads the state of m, with P as the probe points. Bytes is read last, after
// the reads that may settle a lazy decomposition or size scratch space.
func capture(m ikpca.Model, P *mat.Dense) state {
	s := state{values: m.Values(nil)}
	if len(s.values) > 0 {
		s.scores = &mat.Dense{}
		s.err = try(func() error { return m.Transform(s.scores, P, len(s.values)) })
	}
	s.len, s.dim, s.bytes = m.Len(), m.Dim(), m.Bytes()
	return s
}

// diff describes how b differs from a, or returns "" if it does not; withBytes says
// whether Bytes counts (a reloaded checkpoint may hold other capacities).
func (a state) diff(b state, withBytes bool) string {
	switch {
	case len(a.values) != len(b.values):
		return fmt.Sprintf("%d eigenvalues, then %d", len(a.values), len(b.values))
	case !vec.SameBits(a.values, b.values):
		i := 0
		for math.Float64bits(a.values[i]) == math.Float64bits(b.values[i]) {
			i++
		}
		return fmt.Sprintf("λ%d = %g, then %g", i, a.values[i], b.values[i])
	case a.len != b.len:
		return fmt.Sprintf("Len %d, then %d", a.len, b.len)
	case a.dim != b.dim:
		return fmt.Sprintf("Dim %d, then %d", a.dim, b.dim)
	case withBytes && a.bytes != b.bytes:
		return fmt.Sprintf("Bytes %d, then %d", a.bytes, b.bytes)
	case (a.err == nil) != (b.err == nil):
		return fmt.Sprintf("Transform of the probe points: error %v, then %v", a.err, b.err)
	case (a.scores == nil) != (b.scores == nil):
		return "Transform of the probe points: scores appeared or vanished"
	case a.scores != nil && !sameDense(a.scores, b.scores):
		return "Transform of the probe points changed"
	}
	return ""
}

// sameDense reports whether a and b have the same shape and entries, bit for bit (an
// empty matrix equals only an empty one).
func sameDense(a, b *mat.Dense) bool {
	if a.IsEmpty() || b.IsEmpty() {
		return a.IsEmpty() == b.IsEmpty()
	}
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := range ra {
		if !vec.SameBits(a.RawRowView(i), b.RawRowView(i)) {
			return false
		}
	}
	return true
}

// try calls f and turns a panic into an error, so that a model that panics on bad
// input fails the check that gave it instead of ending the test binary.
func try(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errPanic, p)
		}
	}()
	return f()
}

// errPanic marks an error that try made of a panic.
var errPanic = fmt.Errorf("modeltest: the model panicked")
