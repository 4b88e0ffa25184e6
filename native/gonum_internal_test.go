package native

import (
	"math"
	"testing"
)

// TestGonumDsterfTinyBlock runs the pure-Go eigensolver on a matrix that FuzzThin found
// to crash gonum v0.17's Dsterf (eigenvalues only): nearly of rank one, entries from
// 6e-32 to 5.2, whose reduction leaves a tridiagonal block of norm below √safmin/ε²,
// which Dsterf rescales with a wrong stride. gonumEigenSym must then compute the values
// by the vector path: they must agree with the values computed with vectors, whose
// residual is checked, and sum to the trace.
func TestGonumDsterfTinyBlock(t *testing.T) {
	upper := [][]float64{
		{8.427538417429372e-31, 6.974514552355342e-31, 4.3590715952220885e-31, 6.974514552355342e-31, 2.0940280759385072e-15, 2.2957777068169665e-30, 2.3248381841184473e-31},
		{5.772012043328559e-31, 3.607507527080349e-31, 5.772012043328559e-31, 1.7329887525008334e-15, 1.8999539642623172e-30, 1.924004014442853e-31},
		{2.254692204425218e-31, 3.607507527080349e-31, 1.083117970313021e-15, 1.1874712276639483e-30, 1.202502509026783e-31},
		{5.772012043328559e-31, 1.7329887525008334e-15, 1.8999539642623172e-30, 1.924004014442853e-31},
		{5.203125000000008, 5.704421310315244e-15, 5.776629175002778e-16},
		{6.254015132363461e-30, 6.333179880874391e-31},
		{6.41334671480951e-32},
	}
	n := len(upper)
	full := make([]float64, n*n)
	var trace float64
	for i, row := range upper {
		for j, v := range row {
			full[i*n+i+j] = v
			full[(i+j)*n+i] = v
		}
		trace += row[0]
	}
	a := append([]float64(nil), full...)
	w := make([]float64, n)
	if err := gonumEigenSym(n, a, n, w, false); err != nil {
		t.Fatalf("eigenvalues: %v", err)
	}
	v := append([]float64(nil), full...)
	wv := make([]float64, n)
	if err := gonumEigenSym(n, v, n, wv, true); err != nil {
		t.Fatalf("eigenvectors: %v", err)
	}
	const norm = 5.203125000000008
	tol := 8 * float64(n) * 0x1p-53 * norm
	var sum float64
	for j := range n {
		if d := math.Abs(w[j] - wv[j]); !(d <= tol) {
			t.Errorf("λ%d = %g alone, %g with vectors", j, w[j], wv[j])
		}
		sum += w[j]
		// ‖A·vⱼ − λⱼ·vⱼ‖∞ for the vector path.
		for i := range n {
			var r float64
			for k := range n {
				r += full[i*n+k] * v[k*n+j]
			}
			if d := math.Abs(r - wv[j]*v[i*n+j]); !(d <= tol) {
				t.Errorf("residual of pair %d, row %d: %g", j, i, d)
			}
		}
	}
	if d := math.Abs(sum - trace); !(d <= tol) {
		t.Errorf("Σλ = %g, trace %g", sum, trace)
	}
}
