package pca

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
)

// encodedModels returns models in several states: empty, one point, exact, weighted,
// windowed (full, its ring turned), rank r.
func encodedModels(t testing.TB) []*Model {
	X := mat.DenseCopyOf(data.Magic().X.Slice(0, 80, 0, 10))
	var out []*Model
	for _, opts := range []Options{{Components: All}, {Components: 2, Window: 20}, {Components: 3, Rank: 5}} {
		empty := mustNew(t, 10, opts)
		one := mustNew(t, 10, opts)
		if err := one.Add(X.RawRowView(0)); err != nil {
			t.Fatal(err)
		}
		m := mustFit(t, X.Slice(0, 50, 0, 10), opts)
		for i := 50; i < 80; i++ {
			if err := m.AddWeighted(X.RawRowView(i), 1+float64(i%3)); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, empty, one, m)
	}
	return out
}

// TestEncoding: every model encodes and decodes bit for bit, into a zero Model and over
// another, by bytes and by stream, and the decoded model continues exactly as the
// original: the same encoding after the same further steps.
func TestEncoding(t *testing.T) {
	X := mat.DenseCopyOf(data.Magic().X.Slice(100, 140, 0, 10))
	for i, m := range encodedModels(t) {
		b := wiretest.Marshal(t, m)
		var buf bytes.Buffer
		if n, err := m.MarshalBinaryTo(&buf); err != nil || n != len(b) || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("model %d: MarshalBinaryTo: %d bytes, %v", i, n, err)
		}
		var zero Model
		if err := zero.UnmarshalBinary(b); err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		over := mustFit(t, X, Options{Components: 1})
		buf.Write([]byte("trailing"))
		if n, err := over.UnmarshalBinaryFrom(&buf); err != nil || n != len(b) {
			t.Fatalf("model %d: UnmarshalBinaryFrom: %d of %d bytes, %v", i, n, len(b), err)
		}
		for _, c := range []*Model{&zero, over} {
			if c.Len() > 0 {
				wiretest.SameModel(t, "decoded", m, c, X)
			}
			for r := range 30 {
				x := X.RawRowView(r)
				if m.Len() > 0 && m.Options().Window == 0 && r%4 == 3 {
					if err := m.Remove(X.RawRowView(r - 1)); err != nil {
						t.Fatal(err)
					}
					if err := c.Remove(X.RawRowView(r - 1)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := m.Add(x); err != nil {
					t.Fatal(err)
				}
				if err := c.Add(x); err != nil {
					t.Fatal(err)
				}
			}
			b1, _ := m.MarshalBinary()
			b2, _ := c.MarshalBinary()
			if !bytes.Equal(b1, b2) {
				t.Errorf("model %d: the decoded model continued differently", i)
			}
			// Put m back for the next copy.
			if err := m.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestEncodingRefused: truncated, corrupted and forged encodings are ErrEncoding and
// leave the receiver as it was.
func TestEncodingRefused(t *testing.T) {
	models := encodedModels(t)
	m := models[2]
	b := wiretest.Marshal(t, m)
	recv := mustFit(t, data.Magic().X.Slice(0, 20, 0, 10), Options{Components: 2})
	wiretest.Refuses(t, "empty", recv, nil, ErrEncoding)
	wiretest.Refuses(t, "truncated", recv, b[:len(b)-1], ErrEncoding)
	flipped := append([]byte(nil), b...)
	flipped[len(flipped)/2] ^= 1
	wiretest.Refuses(t, "corrupted", recv, flipped, ErrEncoding)
	body := wiretest.Body(b)
	forge := func(off int, v uint64) []byte {
		c := append([]byte(nil), body...)
		for i := range 8 {
			c[off+i] = byte(v >> (8 * i))
		}
		return wire.Frame(magic, version, c)
	}
	for name, in := range map[string][]byte{
		"dimension 0":         forge(0, 0),
		"dimension huge":      forge(0, 1<<40),
		"components 11":       forge(8, 11),
		"rank 10":             forge(16, 10),
		"window 1":            forge(24, 1),
		"points huge":         forge(32, 1<<63),
		"negative weight":     forge(40, math.Float64bits(-1)),
		"NaN trace":           forge(48, math.Float64bits(math.NaN())),
		"certificate":         forge(56, math.Float64bits(1)),
		"version 2":           wire.Frame(magic, 2, body),
		"bytes left over":     wire.Frame(magic, version, append(append([]byte(nil), body...), 0)),
		"no points, a weight": func() []byte { c := forge(32, 0); return c }(),
	} {
		wiretest.Refuses(t, name, recv, in, ErrEncoding)
	}
	for _, w := range []func() error{
		func() error { _, err := m.MarshalBinaryTo(nil); return err },
		func() error { _, err := recv.UnmarshalBinaryFrom(nil); return err },
	} {
		if msg := sentinels.Check(w(), ikpca.ErrArgument); msg != "" {
			t.Error(msg)
		}
	}
}

// FuzzUnmarshal: no input makes the decoder panic; a refused input is an ErrEncoding
// that leaves a zero Model zero; an accepted one is a model that encodes back to the
// same bytes, whose values are finite, non-negative and descending, and which takes a
// point and transforms one (or refuses with an error of one kind).
func FuzzUnmarshal(f *testing.F) {
	for _, m := range encodedModels(f) {
		b := wiretest.Marshal(f, m)
		f.Add(b)
		f.Add(wiretest.Body(b))
	}
	frame := func(data []byte) []byte { return wire.Frame(magic, version, data) }
	zero := func() *Model { return new(Model) }
	isZero := func(m *Model) bool { return m.d == 0 }
	wiretest.Fuzz(f, frame, zero, isZero, ErrEncoding, func(t *testing.T, m *Model) {
		v := m.Values(nil)
		for j, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || j > 0 && x > v[j-1] {
				t.Fatalf("values %v", v)
			}
		}
		x := make([]float64, m.Dim())
		x[0] = 1
		if err := m.Add(x); err != nil && sentinels.Check(err, nil) != "" {
			t.Fatalf("Add: %v", err)
		}
		if m.Components() > 0 {
			var d mat.Dense
			if err := m.Transform(&d, mat.NewDense(1, m.Dim(), x), 1); err != nil && sentinels.Check(err, nil) != "" {
				t.Fatalf("Transform: %v", err)
			}
		}
	})
}

// verifyModels returns legitimate models whose decoding verify checks, by name: exact
// and tracked, weighted, windows after long streams (500 and 2,000 steps, the ring
// turned many times), a stream with removals, and points far from the origin (a mean of
// 1e4 against a spread of 1, where the running sums are of the offset's scale).
func verifyModels(t *testing.T) map[string]*Model {
	X := mat.DenseCopyOf(data.Magic().X.Slice(0, 2000, 0, 10))
	far := mat.DenseCopyOf(X.Slice(0, 300, 0, 10))
	for i := range 300 {
		for j := range 10 {
			far.Set(i, j, 1e4+far.At(i, j)/100)
		}
	}
	out := map[string]*Model{}
	for _, opts := range []Options{{Components: All}, {Components: 3, Rank: 5}, {Components: All, Window: 20}, {Components: 3, Rank: 5, Window: 50}} {
		for name, src := range map[string]*mat.Dense{"magic": X, "far": far} {
			rows, _ := src.Dims()
			if opts.Window == 0 {
				rows = min(rows, 300)
			}
			m := mustFit(t, src.Slice(0, 10, 0, 10), opts)
			for i := 10; i < rows; i++ {
				if err := m.AddWeighted(src.RawRowView(i), 1+float64(i%3)); err != nil {
					t.Fatal(err)
				}
				if opts.Window == 0 && i%5 == 4 {
					if err := m.RemoveWeighted(src.RawRowView(i-1), 1+float64((i-1)%3)); err != nil {
						t.Fatal(err)
					}
				}
			}
			out[fmt.Sprintf("%s, %+v", name, opts)] = m
		}
	}
	return out
}

// TestEncodingVerifyLegitimate: every legitimate model passes the decoder's check that
// its state belongs to its points (verify) far inside its tolerances: an exact model's
// deviations are rounding, at most 1e-2 of them so that another CPU's rounding
// (OPENBLAS_CORETYPE=Prescott, pure Go) cannot tip them; a tracked model's residual is a
// true error its ErrorBound bounds by a theorem, at most half of it.
func TestEncodingVerifyLegitimate(t *testing.T) {
	for name, m := range verifyModels(t) {
		var back Model
		b, err := m.MarshalBinary()
		if err == nil {
			err = back.UnmarshalBinary(b)
		}
		if err != nil {
			t.Fatalf("%s: a legitimate model refused: %v", name, err)
		}
		worst, err := back.verify(1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-60s margin %.2g", name, worst)
		if limit := map[bool]float64{true: 1e-2, false: 0.5}[m.Rank() == 0]; worst > limit {
			t.Errorf("%s: margin %.3g of the tolerances, want at most %g", name, worst, limit)
		}
	}
}

// TestEncodingForgery: single-byte forgeries of every float of an encoding — the weight,
// trace, certificate, mean, eigenvalues, eigenvectors and, in a window, its points and
// weights — framed with a valid checksum are refused with ErrEncoding, or give a model
// whose values and scores are the original's within 1e-6 of their scale (what the
// decoder lets through is within its tolerances, 1e-9 for the sums, 1e-8 of ‖Λ‖ for the
// pairs and their orthonormality, moved by the relative gaps of these models' top
// components) and which goes on adding points; a tracked model's ValueBounds must still
// hold the eigenvalues of the window's points. Before, a forged window point was
// accepted, and every Add after it failed when the window slid it out. A model without a
// window keeps no points: any weight and mean are those of some points, so only its
// pairs, trace and certificate are forged there.
func TestEncodingForgery(t *testing.T) {
	X := mat.DenseCopyOf(data.Magic().X.Slice(0, 80, 0, 10))
	Y := mat.DenseCopyOf(data.Magic().X.Slice(100, 110, 0, 10))
	const d, comps = 10, 2
	for _, opts := range []Options{{Components: All}, {Components: 2, Rank: 4}, {Components: All, Window: 20}, {Components: 2, Rank: 4, Window: 20}} {
		m := mustFit(t, X.Slice(0, 10, 0, d), opts)
		for i := 10; i < 40; i++ {
			if err := m.AddWeighted(X.RawRowView(i), 1+float64(i%3)); err != nil {
				t.Fatal(err)
			}
		}
		b := wiretest.Marshal(t, m)
		// The floats' offsets in the body: after the five sizes, W, trace S, the
		// certificate and the mean; after the pair count, everything to the end.
		body := wire.PrefixSize
		var offsets []int
		for off := 40; off < 40+8*(8+d); off += 8 {
			if opts.Window > 0 || off == 48 || off >= 56 && off < 56+48 {
				offsets = append(offsets, body+off)
			}
		}
		from := body + 40 + 8*(8+d) + 8
		offsets = append(offsets, wiretest.Floats(from, (len(b)-wire.Overhead+wire.PrefixSize-from)/8)...)
		decode := func(in []byte) (*Model, error) {
			var got Model
			return &got, got.UnmarshalBinary(in)
		}
		refused, accepted := wiretest.Forge(t, b, offsets, ErrEncoding, decode, func(got *Model, at int, mask byte) {
			if opts.Rank > 0 && opts.Window > 0 {
				var pts mat.Dense
				got.Points(&pts)
				truth := scatterValues(&pts, got.winW)
				lo, hi := got.ValueBounds(nil, nil)
				for j := range lo {
					if slack := 1e-10 * truth[0]; !(lo[j]-slack <= truth[j] && truth[j] <= hi[j]+slack) {
						t.Errorf("%+v: byte %d ^ %#x accepted: λ%d = %g outside [%g, %g]", opts, at, mask, j+1, truth[j], lo[j], hi[j])
					}
				}
			} else if opts.Rank == 0 {
				if dv, ds := wiretest.Moved(t, got, m, Y, comps); !(dv <= 1e-6 && ds <= 1e-6) {
					t.Errorf("%+v: byte %d ^ %#x accepted: values move by %.3g, scores by %.3g", opts, at, mask, dv, ds)
				}
			}
			for i := 40; i < 60; i++ {
				if err := got.Add(X.RawRowView(i)); err != nil {
					t.Fatalf("%+v: byte %d ^ %#x accepted, then Add fails: %v", opts, at, mask, err)
				}
			}
		})
		t.Logf("%+v: %d forgeries, %d refused, %d accepted", opts, refused+accepted, refused, accepted)
	}
}

// scatterValues returns the eigenvalues, descending, of Σwᵢ(xᵢ − μ)(xᵢ − μ)ᵀ for the
// rows xᵢ of X, μ their weighted mean: the reference of a window's bounds.
func scatterValues(X *mat.Dense, w []float64) []float64 {
	n, d := X.Dims()
	var W float64
	mu := make([]float64, d)
	for i := range n {
		W += w[i]
		for j := range d {
			mu[j] += w[i] * X.At(i, j)
		}
	}
	S := mat.NewSymDense(d, nil)
	for i := range n {
		z := make([]float64, d)
		for j := range d {
			z[j] = X.At(i, j) - mu[j]/W
		}
		S.SymRankOne(S, w[i], mat.NewVecDense(d, z))
	}
	var e mat.EigenSym
	e.Factorize(S, false)
	v := e.Values(nil)
	slices.Reverse(v)
	return v
}
