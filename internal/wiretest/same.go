package wiretest

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// SameModel fails unless a and b read the same, bit for bit: their values, sizes
// (Len, Dim), centring, and the scores of Y on every component.
func SameModel(t *testing.T, what string, a, b ikpca.Model, Y mat.Matrix) {
	t.Helper()
	va, vb := a.Values(nil), b.Values(nil)
	if len(va) != len(vb) || a.Len() != b.Len() || a.Dim() != b.Dim() || a.Centred() != b.Centred() {
		t.Fatalf("%s: %d and %d values, Len %d and %d, Dim %d and %d", what, len(va), len(vb), a.Len(), b.Len(), a.Dim(), b.Dim())
	}
	for i := range va {
		if math.Float64bits(va[i]) != math.Float64bits(vb[i]) {
			t.Fatalf("%s: λ%d = %v and %v", what, i, va[i], vb[i])
		}
	}
	if len(va) == 0 {
		return
	}
	var sa, sb mat.Dense
	if err := a.Transform(&sa, Y, len(va)); err != nil {
		t.Fatal(err)
	}
	if err := b.Transform(&sb, Y, len(vb)); err != nil {
		t.Fatal(err)
	}
	for i, v := range sa.RawMatrix().Data {
		if math.Float64bits(v) != math.Float64bits(sb.RawMatrix().Data[i]) {
			t.Fatalf("%s: scores differ", what)
		}
	}
}
