package ikpcabeam

import (
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"gonum.org/v1/gonum/mat"
)

// checkGlobal refuses, with an ErrArgument, a PCollection that is not in the global
// window. The package's DoFns emit in FinishBundle — a fold's partial model, a block's
// last scores, a shard's name — and an element emitted there has no window of its own
// in the Go SDK: it goes to the global window, so that per-window results would be
// merged across windows, or dropped by a runner that holds the windows apart
// (docs/design.md, "Beyond one machine", Windows). A pipeline with windowed points
// windows them back into the global window (beam.WindowInto with
// window.NewGlobalWindows()) before the package's transforms, for one model of all.
func checkGlobal(what string, pcs ...beam.PCollection) error {
	for _, pc := range pcs {
		if !pc.IsValid() {
			return fmt.Errorf("%w: %s: an invalid PCollection", ErrArgument, what)
		}
		if ws := pc.WindowingStrategy(); ws != nil && ws.Fn != nil && ws.Fn.Kind != window.GlobalWindows {
			return fmt.Errorf("%w: %s: the input is in %s windows; the package's transforms take globally windowed input only (window it into the global window first)", ErrArgument, what, ws.Fn)
		}
	}
	return nil
}

// checkPoint reports a point whose length is not d (ErrDimension) or with a NaN or
// infinite coordinate (ErrNonFinite), in the words of the core's checks.
func checkPoint(x []float64, d int) error {
	if len(x) != d {
		return fmt.Errorf("%w: point has dimension %d, the model %d", ErrDimension, len(x), d)
	}
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: coordinate %d is %g", ErrNonFinite, j, v)
		}
	}
	return nil
}

// checkTransform makes the checks of ikpca.Model.Transform in the core's order — the
// points X (nil: ErrArgument; no rows: ErrEmpty; columns other than d: ErrDimension; a
// NaN or infinity: ErrNonFinite), the number k of the have components (none:
// ErrEmpty; k outside [1, have]: ErrArgument), the destination (nil: ErrArgument; not
// empty and not rows×k: ErrDimension) — and returns X's number of rows.
func checkTransform(dst *mat.Dense, X mat.Matrix, d, k, have int) (int, error) {
	if X == nil || reflect.ValueOf(X).Kind() == reflect.Pointer && reflect.ValueOf(X).IsNil() {
		return 0, fmt.Errorf("%w: nil points", ErrArgument)
	}
	r, c := X.Dims()
	if r == 0 {
		return 0, fmt.Errorf("%w: no points", ErrEmpty)
	}
	if c != d {
		return 0, fmt.Errorf("%w: points have dimension %d, the model %d", ErrDimension, c, d)
	}
	for i := range r {
		for j := range c {
			if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: point %d, coordinate %d is %g", ErrNonFinite, i, j, v)
			}
		}
	}
	if have == 0 {
		return 0, fmt.Errorf("%w: the model has no components yet", ErrEmpty)
	}
	if k < 1 || k > have {
		return 0, fmt.Errorf("%w: %d components requested of %d", ErrArgument, k, have)
	}
	if dst == nil {
		return 0, fmt.Errorf("%w: nil destination", ErrArgument)
	}
	if rr, cc := dst.Dims(); !dst.IsEmpty() && (rr != r || cc != k) {
		return 0, fmt.Errorf("%w: destination is %d×%d, want %d×%d", ErrDimension, rr, cc, r, k)
	}
	return r, nil
}
