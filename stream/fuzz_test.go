package stream

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/sketch"
)

// persistent is a model of the package, fed and saved.
type persistent interface {
	ikpca.Incremental
	ikpca.Persistent
}

// fuzzDecoder runs the fuzz target of one decoder: no input makes UnmarshalBinary or
// UnmarshalBinaryFrom panic; an input they refuse is an ErrEncoding (and no other kind)
// that leaves the zero receiver zero; and an input they accept is a usable model that
// encodes back to the very same bytes (wiretest.Decoded, which also requires the same
// verdict from a stream) — its values finite, non-negative and descending, a point that
// transforms, and a point added (or refused with an error of a kind: a forged sample
// may give a kernel value that overflows). Each input is tried as it is and framed
// under the decoder's magic with a valid checksum, so that the checks after the
// frame's are reached. seeds are the encodings of models in several states; each is
// added whole and as its body. zero returns a zero model, and isZero tells whether a
// model still is one; more exercises what is particular to the model. indefinite
// allows negative values: an RNCA's moment matrix that passes the decoder's entrywise
// checks (Cauchy–Schwarz) may still be indefinite, which only an O(D³) factorisation
// would tell, and the decoder does not make one.
func fuzzDecoder[M persistent](f *testing.F, magic string, version uint32, seeds []M, zero func() M, isZero func(M) bool,
	indefinite bool, more func(*testing.T, M)) {
	for _, m := range seeds {
		b := wiretest.Marshal(f, m)
		f.Add(b)
		f.Add(wiretest.Body(b))
	}
	allKinds := []error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument, ikpca.ErrEncoding, ikpca.ErrNotConverged}
	frame := func(data []byte) []byte { return wire.Frame(magic, version, data) }
	wiretest.Fuzz(f, frame, zero, isZero, ErrEncoding, func(t *testing.T, m M) {
		vals := m.Values(nil)
		for i, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) || !indefinite && v < -1e-9*math.Abs(vals[0]) || i > 0 && v > vals[i-1] {
				t.Fatalf("values %v", vals)
			}
		}
		if m.Dim() > 1<<16 {
			return // a model of no samples and a huge dimension: a point would cost the run its time
		}
		x := make([]float64, m.Dim())
		if len(vals) > 0 {
			var sc mat.Dense
			if err := m.Transform(&sc, mat.NewDense(1, m.Dim(), x), len(vals)); err != nil && !errors.Is(err, ikpca.ErrNonFinite) {
				t.Fatalf("Transform: %v", err)
			}
		}
		if err := m.Add(x); err != nil {
			kind := false
			for _, k := range allKinds {
				kind = kind || errors.Is(err, k)
			}
			if !kind {
				t.Fatalf("Add: %v, of no kind", err)
			}
		}
		if more != nil {
			more(t, m)
		}
	})
}

// smallDecodes lowers the decoders' memory bounds to 2²⁰ floats for a fuzz run, so that
// inputs asking for large models are refused cheaply instead of allocating 256 MiB each.
func smallDecodes(f *testing.F) {
	saved, savedSketch := MaxDecodeFloats, sketch.MaxDecodeFloats
	MaxDecodeFloats, sketch.MaxDecodeFloats = 1<<20, 1<<20
	f.Cleanup(func() { MaxDecodeFloats, sketch.MaxDecodeFloats = saved, savedSketch })
}

// FuzzLoadSKPCA fuzzes SKPCA.UnmarshalBinary (fuzzDecoder), and merges whatever it
// accepts with an empty model of its kernel and options. The seeds: fresh, a buffer
// part full, compressed; centred and not; both forms; σ and γ.
func FuzzLoadSKPCA(f *testing.F) {
	smallDecodes(f)
	X := toy(40, 3)
	var seeds []*SKPCA
	for _, c := range []struct {
		k    kernel.RBF
		opts SKPCAOptions
	}{
		{kernel.RBF{Sigma: 1}, SKPCAOptions{Features: 8, Sketch: 2, Seed: 1}},
		{kernel.RBF{Gamma: 2}, SKPCAOptions{Features: 5, Sketch: 3, Seed: 2, Form: features.RandomPhase, Buffer: 5, Uncentred: true}},
	} {
		for step, n := range []int{0, 7, 20} {
			s, err := NewSKPCA(c.k, 2, c.opts)
			if err != nil {
				f.Fatal(err)
			}
			if n > 0 {
				if err := s.AddBatch(X.Slice(0, n, 0, 2)); err != nil {
					f.Fatal(err)
				}
			}
			if step == 1 {
				_ = s.Values(nil)
			}
			seeds = append(seeds, s)
		}
	}
	fuzzDecoder(f, skpcaMagic, skpcaVersion, seeds, func() *SKPCA { return new(SKPCA) },
		func(s *SKPCA) bool { return s.fd == nil }, false,
		func(t *testing.T, s *SKPCA) {
			o, err := NewSKPCA(s.Kernel(), s.Dim(), s.Options())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Merge(o); err != nil {
				t.Fatalf("Merge: %v", err)
			}
			_ = s.Values(nil)
		})
}

// FuzzUnmarshalRNCA fuzzes RNCA.UnmarshalBinary (fuzzDecoder). The seeds: empty and
// fed, centred and not, both forms.
func FuzzUnmarshalRNCA(f *testing.F) {
	smallDecodes(f)
	X := toy(20, 5)
	var seeds []*RNCA
	for _, opts := range []RNCAOptions{{Features: 6, Seed: 1}, {Features: 5, Seed: 2, Form: features.RandomPhase, Uncentred: true}} {
		for _, n := range []int{0, 3, 20} {
			r, err := NewRNCA(kernel.RBF{Sigma: 0.8}, 2, opts)
			if err != nil {
				f.Fatal(err)
			}
			if n > 0 {
				if err := r.AddBatch(X.Slice(0, n, 0, 2)); err != nil {
					f.Fatal(err)
				}
			}
			seeds = append(seeds, r)
		}
	}
	fuzzDecoder(f, rncaMagic, rncaVersion, seeds, func() *RNCA { return new(RNCA) },
		func(r *RNCA) bool { return r.rff == nil }, true, nil)
}

// passing is an online model: KRQA or KHA.
type passing interface {
	persistent
	Pass() error
}

// onlineSeeds returns models made by make, fed 0, 2, 4 and 12 points of X (before the
// start, at it and after), and passed over once.
func onlineSeeds[M passing](f *testing.F, X *mat.Dense, make func() (M, error)) []M {
	var seeds []M
	for _, n := range []int{0, 2, 4, 12} {
		m, err := make()
		if err != nil {
			f.Fatal(err)
		}
		testmat.AddRows(f, m, X, 0, n)
		if n == 12 {
			_ = m.Pass()
		}
		seeds = append(seeds, m)
	}
	return seeds
}

// FuzzUnmarshalKRQA fuzzes KRQA.UnmarshalBinary (fuzzDecoder), and passes over whatever
// it accepts. The seeds: before and after the start, centred and not, an RBF and a
// polynomial kernel.
func FuzzUnmarshalKRQA(f *testing.F) {
	X := toy(12, 6)
	seeds := onlineSeeds(f, X, func() (*KRQA, error) { return NewKRQA(kernel.RBF{Sigma: 1}, 2, KRQAOptions{Components: 2, Seed: 1}) })
	seeds = append(seeds, onlineSeeds(f, X, func() (*KRQA, error) {
		return NewKRQA(kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, 2, KRQAOptions{Components: 3, Seed: 2, Uncentred: true})
	})...)
	fuzzDecoder(f, krqaMagic, onlineVersion, seeds, func() *KRQA { return new(KRQA) },
		func(m *KRQA) bool { return m.s == nil }, false,
		func(t *testing.T, m *KRQA) { _ = m.Pass(); _ = m.RayleighQuotients(nil) })
}

// FuzzUnmarshalKHA fuzzes KHA.UnmarshalBinary (fuzzDecoder), and passes over whatever
// it accepts. The seeds: before and after the start, centred and not, a decaying rate.
func FuzzUnmarshalKHA(f *testing.F) {
	X := toy(12, 7)
	seeds := onlineSeeds(f, X, func() (*KHA, error) {
		return NewKHA(kernel.RBF{Gamma: 0.5}, 2, KHAOptions{Components: 2, Rate: 0.1, Seed: 1})
	})
	seeds = append(seeds, onlineSeeds(f, X, func() (*KHA, error) {
		return NewKHA(kernel.Laplacian{Sigma: 2}, 2, KHAOptions{Components: 3, Rate: 0.05, Decay: 10, Seed: 2, Uncentred: true})
	})...)
	fuzzDecoder(f, khaMagic, onlineVersion, seeds, func() *KHA { return new(KHA) },
		func(m *KHA) bool { return m.s == nil }, false, func(t *testing.T, m *KHA) { _ = m.Pass() })
}
