package wiretest

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// Forge decodes every single-byte forgery of the floats of an encoding that start at
// offsets (from the encoding's first byte, 8 bytes each) — each byte xored with 0x01,
// 0x10 and 0xff, and resealed with a valid checksum (Reseal), as a hostile writer
// computes it — with decode. A refusal must wrap kind (the package's ErrEncoding) and
// ikpca.ErrEncoding only; check is called with each model accepted, the offset of the
// byte changed and the mask. It returns how many forgeries were refused and accepted.
func Forge[M any](t testing.TB, encoding []byte, offsets []int, kind error, decode func([]byte) (M, error),
	check func(m M, at int, mask byte)) (refused, accepted int) {
	t.Helper()
	unsealed := Unsealed(encoding)
	for _, off := range offsets {
		for at := off; at < off+8; at++ {
			for _, mask := range []byte{0x01, 0x10, 0xff} {
				forged := append([]byte(nil), unsealed...)
				forged[at] ^= mask
				m, err := decode(Reseal(forged))
				switch {
				case err == nil:
					accepted++
					check(m, at, mask)
				case onlyEncoding(err, kind):
					refused++
				default:
					t.Fatalf("byte %d ^ %#x: %v, want an ErrEncoding or a model", at, mask, err)
				}
			}
		}
	}
	return refused, accepted
}

// Floats returns the offsets of n floats from the encoding's byte at, for Forge.
func Floats(at, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = at + 8*i
	}
	return out
}

// Moved returns how far got's values, and its scores of the rows of Y on k components,
// are from want's: the largest difference of each relative to want's largest
// magnitude.
func Moved(t testing.TB, got, want ikpca.Model, Y mat.Matrix, k int) (values, scores float64) {
	t.Helper()
	var gs, ws mat.Dense
	if err := got.Transform(&gs, Y, k); err != nil {
		t.Fatal(err)
	}
	if err := want.Transform(&ws, Y, k); err != nil {
		t.Fatal(err)
	}
	return relDiff(got.Values(nil), want.Values(nil)), relDiff(gs.RawMatrix().Data, ws.RawMatrix().Data)
}

// relDiff returns max|a − b|/max|b|.
func relDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var dev, big float64
	for i := range b {
		dev = math.Max(dev, math.Abs(a[i]-b[i]))
		big = math.Max(big, math.Abs(b[i]))
	}
	return dev / big
}
