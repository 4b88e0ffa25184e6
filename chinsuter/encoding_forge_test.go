package chinsuter

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// TestEncodingForgery: single-byte forgeries of every float of an exact model's
// expansion points, kernel matrix and mean coefficients, framed with a valid checksum,
// are refused with ErrEncoding or give a model whose values and scores are the
// original's within 1e-6 of their scale: the kernel matrix must be the points' within
// 1e-10 (checkKernelMatrix), the trace their diagonal's sum, and the mean's coefficients
// 1/n within 1e-9. Before, a forged mean coefficient was accepted and moved every
// score. The coefficients α and singular values Σ are the approximation's own state,
// bound only by the weighted orthonormality check, and are not forged here.
func TestEncodingForgery(t *testing.T) {
	X := toy(60, 5)
	Y := mat.DenseCopyOf(X.Slice(50, 60, 0, 2))
	k := kernel.RBF{Sigma: 0.8}
	md, err := Fit(k, X.Slice(0, 20, 0, 2), Options{Components: 4})
	if err != nil {
		t.Fatal(err)
	}
	for lo := 20; lo < 40; lo += 5 { // four chunks: the mean's coefficients rescaled each time
		if err := md.AddBatch(X.Slice(lo, lo+5, 0, 2)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := md.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	const comps = 3
	values := md.Values(nil)
	var scores mat.Dense
	if err := md.Transform(&scores, Y, comps); err != nil {
		t.Fatal(err)
	}
	ss := mat.Norm(&scores, math.Inf(1))
	body := wiretest.Body(b)
	N, d, r := md.pts.r, md.d, len(md.sv)
	floats := N*d + N*(N+1)/2 + N*r + r + N
	start := len(body) - 8*floats
	var offsets []int
	for f := range floats {
		if f < N*d+N*(N+1)/2 || f >= floats-N { // points and kernel matrix; the mean
			offsets = append(offsets, start+8*f)
		}
	}
	var refused, accepted int
	for _, off := range offsets {
		for bit := range 8 {
			for _, mask := range []byte{0x01, 0x10, 0xff} {
				c := append([]byte(nil), body...)
				c[off+bit] ^= mask
				var got Model
				err := got.UnmarshalBinary(wire.Frame(encodingMagic, encodingVersion, c))
				if errors.Is(err, ErrEncoding) {
					refused++
					continue
				} else if err != nil {
					t.Fatalf("byte %d ^ %#x: %v", off+bit, mask, err)
				}
				accepted++
				var gs, diff mat.Dense
				if err := got.Transform(&gs, Y, comps); err != nil {
					t.Fatal(err)
				}
				diff.Sub(&gs, &scores)
				var dv float64
				for j, v := range got.Values(nil) {
					dv = math.Max(dv, math.Abs(v-values[j])/values[0])
				}
				if ds := mat.Norm(&diff, math.Inf(1)) / ss; !(dv <= 1e-6 && ds <= 1e-6) {
					t.Errorf("byte %d ^ %#x accepted: values move by %.3g, scores by %.3g", off+bit, mask, dv, ds)
				}
			}
		}
	}
	t.Logf("%d forgeries: %d refused, %d accepted", refused+accepted, refused, accepted)
}
