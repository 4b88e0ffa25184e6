package nystrom

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
)

// TestEncodingForgery: single-byte forgeries of every float of a model's landmarks,
// eigenvalues, feature map and shift, framed with a valid checksum, are refused with
// ErrEncoding or give a model whose values and scores are the original's within 1e-6 of
// their scale: what verifyMap lets through is within 1e-8 of σ₁ (the pairs' residual
// and orthonormality) and 1e-9 (the shift), moved by the relative gaps of these
// models' top components. The sums of the points' features are the points' own (not
// stored), and are not forged here. Before, any of these changes was accepted that
// kept the eigenvalues positive and descending.
func TestEncodingForgery(t *testing.T) {
	X := points(t, "magic", 260, 8)
	Y := rows(X, 240, 260)
	k := rbfMedian(t, X)
	for _, opts := range []Options{{Landmarks: 12}, {Landmarks: 12, Uncentred: true}} {
		m, err := Fit(k, rows(X, 0, 200), opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		const comps = 3
		values := m.Values(nil)
		var scores mat.Dense
		if err := m.Transform(&scores, Y, comps); err != nil {
			t.Fatal(err)
		}
		ss := mat.Norm(&scores, math.Inf(1))
		body := wiretest.Body(b)
		r, d, p := m.r, m.d, m.p
		tri := p * (p + 1) / 2
		start := len(body) - 8*(r*d+p+r*p+p+2*p+2*tri)
		forged := r*d + p + r*p + p // landmarks, eigenvalues, map, shift
		var refused, accepted int
		for f := range forged {
			for bit := range 8 {
				for _, mask := range []byte{0x01, 0x10, 0xff} {
					c := append([]byte(nil), body...)
					c[start+8*f+bit] ^= mask
					var got Model
					err := got.UnmarshalBinary(wire.Frame(encodingMagic, encodingVersion, c))
					if errors.Is(err, ErrEncoding) {
						refused++
						continue
					} else if err != nil {
						t.Fatalf("%+v: float %d, byte %d ^ %#x: %v", opts, f, bit, mask, err)
					}
					accepted++
					var gs, diff mat.Dense
					if err := got.Transform(&gs, Y, comps); err != nil {
						t.Fatal(err)
					}
					diff.Sub(&gs, &scores)
					dv, ds := relDiff(got.Values(nil), values), mat.Norm(&diff, math.Inf(1))/ss
					if !(dv <= 1e-6 && ds <= 1e-6) {
						t.Errorf("%+v: float %d, byte %d ^ %#x accepted: values move by %.3g, scores by %.3g", opts, f, bit, mask, dv, ds)
					}
				}
			}
		}
		t.Logf("%+v: %d forgeries, %d refused, %d accepted", opts, refused+accepted, refused, accepted)
	}
}

// relDiff returns max|a − b|/max|b|.
func relDiff(a, b []float64) float64 {
	var dev, big float64
	for i := range b {
		dev = math.Max(dev, math.Abs(a[i]-b[i]))
		big = math.Max(big, math.Abs(b[i]))
	}
	return dev / big
}
