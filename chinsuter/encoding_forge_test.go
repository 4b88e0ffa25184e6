package chinsuter

import (
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
// 1/n within 1e-9. Before, 360 forged mean coefficients were accepted and moved the
// scores. The coefficients α and singular values Σ are the approximation's own state,
// bound only by the weighted orthonormality check, and are not forged here.
func TestEncodingForgery(t *testing.T) {
	X := toy(60, 5)
	Y := mat.DenseCopyOf(X.Slice(50, 60, 0, 2))
	md, err := Fit(kernel.RBF{Sigma: 0.8}, X.Slice(0, 20, 0, 2), Options{Components: 4})
	if err != nil {
		t.Fatal(err)
	}
	for lo := 20; lo < 40; lo += 5 { // four chunks: the mean's coefficients rescaled each time
		if err := md.AddBatch(X.Slice(lo, lo+5, 0, 2)); err != nil {
			t.Fatal(err)
		}
	}
	b := wiretest.Marshal(t, md)
	N, d, r := md.pts.r, md.d, len(md.sv)
	end := len(b) - wire.Overhead + wire.PrefixSize
	start := end - 8*(N*d+N*(N+1)/2+N*r+r+N)
	offsets := append(wiretest.Floats(start, N*d+N*(N+1)/2), wiretest.Floats(end-8*N, N)...) // points, K_A; ν
	decode := func(in []byte) (*Model, error) {
		var got Model
		return &got, got.UnmarshalBinary(in)
	}
	refused, accepted := wiretest.Forge(t, b, offsets, ErrEncoding, decode, func(got *Model, at int, mask byte) {
		if dv, ds := wiretest.Moved(t, got, md, Y, 3); !(dv <= 1e-6 && ds <= 1e-6) {
			t.Errorf("byte %d ^ %#x accepted: values move by %.3g, scores by %.3g", at, mask, dv, ds)
		}
	})
	t.Logf("%d forgeries: %d refused, %d accepted", refused+accepted, refused, accepted)
}
