package testmat

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
)

// TestBlockData: BlockSets moves every coordinate by 1e4, and the second half by 1e3;
// NearPoints gives each row, its copies at distance δ·‖x‖ (to rounding, 1e-12
// relative) and one ulp away in one coordinate, then 3 far points; KernelValueSize is
// max(1, e)·v for RBF (by σ and by γ alike) and ‖x‖‖y‖ for the linear kernel.
func TestBlockData(t *testing.T) {
	base := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	sets := BlockSets("b", base)
	if len(sets) != 3 || sets["b"] != base {
		t.Fatalf("sets %v", sets)
	}
	for i := range 4 {
		if d := sets["b+1e4"].At(i, 1) - base.At(i, 1); d != 1e4 {
			t.Errorf("offset row %d by %v", i, d)
		}
		want := 0.0
		if i >= 2 {
			want = 1e3
		}
		if d := sets["two clusters"].At(i, 0) - base.At(i, 0); d != want {
			t.Errorf("two clusters: row %d moved by %v, want %v", i, d, want)
		}
	}
	if len(BlockKernels(2)) != 4 {
		t.Error("BlockKernels: not four kernels")
	}

	deltas := []float64{1e-6, 1}
	X := NearPoints(synth.Seeded(3), base, deltas, 100)
	per := len(deltas) + 2
	if r, c := X.Dims(); r != 4*per+3 || c != 2 {
		t.Fatalf("NearPoints: %d×%d", r, c)
	}
	for i := range 4 {
		x := base.RawRowView(i)
		if !mat.Equal(mat.NewVecDense(2, X.RawRowView(i*per)), mat.NewVecDense(2, x)) {
			t.Errorf("row %d is not x", i)
		}
		nrm := math.Sqrt(dot(x, x))
		for q, delta := range deltas {
			y := X.RawRowView(i*per + 1 + q)
			dist := math.Hypot(y[0]-x[0], y[1]-x[1])
			if math.Abs(dist-delta*nrm) > 1e-12*nrm {
				t.Errorf("row %d, δ = %v: distance %v, want %v", i, delta, dist, delta*nrm)
			}
		}
		// The copy one ulp up: x is positive, so its bits count up by one in one
		// coordinate, and not at all in the other.
		y := X.RawRowView(i*per + per - 1)
		steps := []uint64{math.Float64bits(y[0]) - math.Float64bits(x[0]), math.Float64bits(y[1]) - math.Float64bits(x[1])}
		if steps[0]+steps[1] != 1 {
			t.Errorf("row %d: the last copy is %v, %v ulps from %v", i, y, steps, x)
		}
	}

	x, y := []float64{3, 0}, []float64{0, 4}
	for _, k := range []kernel.RBF{{Sigma: 0.5}, {Gamma: 2}} { // e = 25/(2·0.25) = 2·25 = 50
		v := k.Eval(x, y)
		if got, want := KernelValueSize(k, x, y, v), 50*v+0x1p-1022; got != want {
			t.Errorf("%v: size %v, want %v", k, got, want)
		}
	}
	if got := KernelValueSize(kernel.Linear{}, x, y, 0); got != 12 {
		t.Errorf("linear: size %v, want 12", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("KernelValueSize of a Laplacian kernel does not panic")
		}
	}()
	KernelValueSize(kernel.Laplacian{Sigma: 1}, x, y, 1)
}
