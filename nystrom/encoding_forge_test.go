package nystrom

import (
	"testing"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
)

// TestEncodingForgery: single-byte forgeries of every float of a model's landmarks,
// eigenvalues, feature map and shift, framed with a valid checksum, are refused with
// ErrEncoding or give a model whose values and scores are the original's within 1e-6 of
// their scale: what verifyMap lets through is within 1e-8 of σ₁ (the pairs' residual
// and orthonormality) and 1e-9 (the shift), moved by the relative gaps of these
// models' top components. The sums of the points' features are the points' own (not
// stored), and are not forged here. Before, 5,382 of these forgeries were accepted and
// moved values or scores further.
func TestEncodingForgery(t *testing.T) {
	X := points(t, "magic", 260, 8)
	Y := rows(X, 240, 260)
	k := rbfMedian(t, X)
	for _, opts := range []Options{{Landmarks: 12}, {Landmarks: 12, Uncentred: true}} {
		m, err := Fit(k, rows(X, 0, 200), opts)
		if err != nil {
			t.Fatal(err)
		}
		b := wiretest.Marshal(t, m)
		r, d, p := m.r, m.d, m.p
		tri := p * (p + 1) / 2
		start := len(b) - wire.Overhead + wire.PrefixSize - 8*(r*d+p+r*p+p+2*p+2*tri)
		decode := func(in []byte) (*Model, error) {
			var got Model
			return &got, got.UnmarshalBinary(in)
		}
		// The landmarks, eigenvalues, map and shift.
		refused, accepted := wiretest.Forge(t, b, wiretest.Floats(start, r*d+p+r*p+p), ErrEncoding, decode, func(got *Model, at int, mask byte) {
			if dv, ds := wiretest.Moved(t, got, m, Y, 3); !(dv <= 1e-6 && ds <= 1e-6) {
				t.Errorf("%+v: byte %d ^ %#x accepted: values move by %.3g, scores by %.3g", opts, at, mask, dv, ds)
			}
		})
		t.Logf("%+v: %d forgeries, %d refused, %d accepted", opts, refused+accepted, refused, accepted)
	}
}
