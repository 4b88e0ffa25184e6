package kpca

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// FuzzUnmarshal: no input makes UnmarshalBinary or UnmarshalBinaryFrom panic (of a
// Model, or of the Model a RankOneModel wraps for its encodings), a
// rejected input leaves the receiver as it was, and whatever they accept is a usable
// model — finite eigenvalues, an encoding that decodes back to the same values, points
// that transform and a point that adds. Each input is tried as it is and as the body of
// a valid frame (the checksum and the length computed), so that the fuzzer reaches the
// checks behind the frame; the seeds are the bodies of valid encodings (framed, they
// decode).
func FuzzUnmarshal(f *testing.F) {
	x := mat.NewDense(6, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.25, 2, -1})
	kernels := []kernel.Kernel{kernel.RBF{Sigma: 1}, kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, kernel.Laplacian{Sigma: 2}, kernel.Linear{}, kernel.RBF{Gamma: 0.5}, kernel.Laplacian{Gamma: 0.5},
		kernel.Sigmoid{Gamma: 0.5, Coef0: -1}, kernel.Cosine{}}
	body := func(b []byte) []byte { return b[wire.PrefixSize : len(b)-wire.Overhead+wire.PrefixSize] }
	for i, opts := range allOptions {
		md := fitModel(f, kernels[i%len(kernels)], x.Slice(0, 3+i%3, 0, 2), opts)
		b := encode(f, md)
		f.Add(body(b))
		if i == 0 {
			f.Add(b)
		}
		r, err := FitRankOne(kernels[(i+2)%len(kernels)], x.Slice(0, 4+i%3, 0, 2), opts)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body(wiretest.Marshal(f, r)))
	}
	for _, opts := range []Options{{Components: 2, Rank: 2}, {Components: All, Uncentred: true, Window: 6}, {Components: 3, Rank: 3, Window: 6}, {Components: 1}} {
		md := fitModel(f, kernels[0], x.Slice(0, 5, 0, 2), opts)
		if err := md.Add(x.RawRowView(5)); err != nil {
			f.Fatal(err)
		}
		f.Add(body(encode(f, md)))
	}
	empty, err := New(kernels[1], 2, Options{Components: 2})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body(encode(f, empty)))
	f.Add([]byte("\x02\x00\x00\x00{}"))
	recv := fitModel(f, kernels[0], x, Options{Components: 2})
	before := capture(recv)
	rankOneRecv, err := FitRankOne(kernels[0], x, Options{Components: All})
	if err != nil {
		f.Fatal(err)
	}
	rankOneBefore := captureRankOne(rankOneRecv)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, wire.Frame(encodingMagic, encodingVersion, data)} {
			md, err := decodedAny(in) // of either type
			streamed, n, serr := decodedAnyFrom(bytes.NewReader(in))
			if err == nil && (serr != nil || n != len(in)) || serr == nil && n == len(in) && err != nil {
				t.Fatalf("UnmarshalBinary: %v; UnmarshalFrom: %d of %d bytes, %v", err, n, len(in), serr)
			}
			if err != nil {
				if recv.UnmarshalBinary(in) == nil || !capture(recv).equal(before) {
					t.Fatal("a rejected input changed the receiver")
				}
				if rankOneRecv.UnmarshalBinary(in) == nil || !captureRankOne(rankOneRecv).equal(rankOneBefore) {
					t.Fatal("a rejected input changed the RankOneModel receiver")
				}
				continue
			}
			if md.Len() < 0 || md.Dim() < 1 || !captureAny(md).equal(captureAny(streamed)) {
				t.Fatalf("decoded a model of %d points of dimension %d", md.Len(), md.Dim())
			}
			values := md.Values(nil)
			for _, v := range values {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("eigenvalue %v", v)
				}
			}
			back, err := decodedAny(wiretest.Marshal(t, md))
			if err != nil {
				t.Fatalf("decoding the encoding of a decoded model: %v", err)
			}
			if !slices.Equal(back.Values(nil), values) {
				t.Fatal("values changed in an encoding and decoding")
			}
			p := mat.NewDense(1, md.Dim(), nil)
			if k := md.Components(); k > 0 {
				var s mat.Dense
				_ = md.Transform(&s, p, k)
			}
			before := captureAny(md)
			if err := md.Add(p.RawRowView(0)); err != nil && !captureAny(md).equal(before) {
				t.Fatalf("a failed Add (%v) changed the model", err)
			}
		}
	})
}
