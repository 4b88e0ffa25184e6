package truncation

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/update"
)

// TestRange: for errors E = P − N built as the truncations build them — each step
// drops eigenpairs (θ, z) with orthonormal z, of either sign, and E gains θ·z·zᵀ — the
// ledger's bounds hold: below ≥ −λmin(E) and above ≥ λmax(E), from the exact trace of
// E, over random sequences of steps; and Nearest(trace E) is trace E itself.
func TestRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const n = 12
	for trial := range 200 {
		E := mat.NewSymDense(n, nil)
		var l Ledger
		for range 1 + rng.IntN(6) {
			// A step's dropped vectors: orthonormal columns of a random Q.
			var qr mat.QR
			A := mat.NewDense(n, n, nil)
			for i := range n {
				for j := range n {
					A.Set(i, j, rng.NormFloat64())
				}
			}
			qr.Factorize(A)
			var Q mat.Dense
			qr.QTo(&Q)
			drops := 1 + rng.IntN(3)
			theta := make([]float64, drops)
			for j := range theta {
				theta[j] = rng.NormFloat64()
				if trial%3 == 0 {
					theta[j] = math.Abs(theta[j]) // positive drops only, E ⪰ 0
				}
				z := Q.ColView(j)
				E.SymRankOne(E, theta[j], z)
			}
			l.Drop(update.DroppedOf(theta))
		}
		var eig mat.EigenSym
		if !eig.Factorize(E, false) {
			t.Fatal("no eigendecomposition")
		}
		values := eig.Values(nil)
		trE := mat.Trace(E)
		below, above := l.Range(trE, 1e-12)
		const tol = 1e-10
		if !(above >= values[n-1]-tol && below >= -values[0]-tol) {
			t.Fatalf("trial %d: λ(E) in [%g, %g], bounds −%g and %g", trial, values[0], values[n-1], below, above)
		}
		if got := l.Nearest(trE); math.Abs(got-trE) > 1e-12*(1+math.Abs(trE)) {
			t.Fatalf("trial %d: trace E %g outside [−%g, %g] (nearest %g)", trial, trE, l.NegTrace, l.PosTrace, got)
		}
	}
}

// TestDeflation: the slack a secular step adds, and Range's use of it on both sides.
func TestDeflation(t *testing.T) {
	var l Ledger
	l.Deflation(3, 2)
	if want := 64 * 0x1p-53 * 5 * 2.0; l.Slack != want {
		t.Fatalf("slack %g, want %g", l.Slack, want)
	}
	below, above := l.Range(0, 0)
	if below != l.Slack || above != l.Slack {
		t.Errorf("no drops: bounds %g and %g, want the slack %g", below, above, l.Slack)
	}
}

// TestIntervals: the intervals hold the eigenvalues of A = Ã + E for an explicit E
// within [−below, above], and the floor clamps only the lower ends.
func TestIntervals(t *testing.T) {
	values := []float64{5, 2, 0.5, 0.1}
	lo := append([]float64(nil), values...)
	hi := make([]float64, len(lo))
	Intervals(lo, hi, 0.3, 0.2, math.Inf(-1))
	for j, v := range values {
		if lo[j] != v-0.3 || hi[j] != v+0.2 {
			t.Errorf("value %g: [%g, %g], want [%g, %g]", v, lo[j], hi[j], v-0.3, v+0.2)
		}
	}
	lo = append(lo[:0], values...)
	Intervals(lo, hi, 0.3, 0.2, 0)
	// Compared with values computed at run time: Go folds constant expressions exactly.
	if lo[3] != 0 || lo[2] != values[2]-0.3 || hi[3] != values[3]+0.2 {
		t.Errorf("clamped at 0: lo %v, hi %v", lo, hi)
	}
}
