package stream

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/sketch"
)

// persistent is a model of the package, fed and saved.
type persistent interface {
	ikpca.Incremental
	ikpca.Persistent
}

// fuzzDecoder runs the fuzz target of one decoder: no input makes UnmarshalBinary
// panic; an input it refuses is an ErrEncoding (and no other kind) that leaves the zero
// receiver zero; and an input it accepts is a usable model that encodes back to the
// very same bytes — its values finite, non-negative and descending, a point that
// transforms, and a point added (or refused with an error of a kind: a forged sample
// may give a kernel value that overflows). Each input is tried as it is and framed
// under the decoder's magic with a valid checksum, so that the checks after the
// frame's are reached. seeds are the encodings of models in several states; each is
// added whole and as its body. zero returns a zero model, and isZero tells whether a
// model still is one; more exercises what is particular to the model. indefinite
// allows negative values: an RNCA's moment matrix that passes the decoder's entrywise
// checks (Cauchy–Schwarz) may still be indefinite, which only an O(D³) factorisation
// would tell, and the decoder does not make one.
func fuzzDecoder(f *testing.F, magic string, version uint32, seeds []persistent, zero func() persistent, isZero func(persistent) bool,
	indefinite bool, more func(*testing.T, persistent)) {
	for _, m := range seeds {
		b, err := m.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[wire.PrefixSize : len(b)-32])
	}
	kinds := []error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument, ikpca.ErrEncoding, ikpca.ErrNotConverged}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, wire.Frame(magic, version, data)} {
			m := zero()
			if err := m.UnmarshalBinary(in); err != nil {
				if !errors.Is(err, ErrEncoding) || errors.Is(err, ikpca.ErrArgument) || !isZero(m) {
					t.Fatalf("refused with %v, or the receiver changed", err)
				}
				continue
			}
			out, err := m.MarshalBinary()
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("a decoded model encodes to other bytes (%v)", err)
			}
			vals := m.Values(nil)
			for i, v := range vals {
				if math.IsNaN(v) || math.IsInf(v, 0) || !indefinite && v < -1e-9*math.Abs(vals[0]) || i > 0 && v > vals[i-1] {
					t.Fatalf("values %v", vals)
				}
			}
			if m.Dim() > 1<<16 {
				continue // a model of no samples and a huge dimension: a point would cost the run its time
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
				for _, k := range kinds {
					kind = kind || errors.Is(err, k)
				}
				if !kind {
					t.Fatalf("Add: %v, of no kind", err)
				}
			}
			if more != nil {
				more(t, m)
			}
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
	var seeds []persistent
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
	fuzzDecoder(f, skpcaMagic, skpcaVersion, seeds, func() persistent { return new(SKPCA) },
		func(m persistent) bool { return m.(*SKPCA).fd == nil }, false,
		func(t *testing.T, m persistent) {
			s := m.(*SKPCA)
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
	var seeds []persistent
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
	fuzzDecoder(f, rncaMagic, rncaVersion, seeds, func() persistent { return new(RNCA) },
		func(m persistent) bool { return m.(*RNCA).rff == nil }, true, nil)
}

// onlineSeeds returns models made by make, fed 0, 2, 4 and 12 points of X (before the
// start, at it and after), and passed over once.
func onlineSeeds(f *testing.F, X *mat.Dense, make func() (persistent, func() error, error)) []persistent {
	var seeds []persistent
	for _, n := range []int{0, 2, 4, 12} {
		m, pass, err := make()
		if err != nil {
			f.Fatal(err)
		}
		for i := range n {
			if err := m.Add(X.RawRowView(i)); err != nil {
				f.Fatal(err)
			}
		}
		if n == 12 {
			_ = pass()
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
	var seeds []persistent
	for _, c := range []struct {
		k    kernel.Kernel
		opts KRQAOptions
	}{
		{kernel.RBF{Sigma: 1}, KRQAOptions{Components: 2, Seed: 1}},
		{kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, KRQAOptions{Components: 3, Seed: 2, Uncentred: true}},
	} {
		seeds = append(seeds, onlineSeeds(f, X, func() (persistent, func() error, error) {
			m, err := NewKRQA(c.k, 2, c.opts)
			if err != nil {
				return nil, nil, err
			}
			return m, m.Pass, nil
		})...)
	}
	fuzzDecoder(f, krqaMagic, onlineVersion, seeds, func() persistent { return new(KRQA) },
		func(m persistent) bool { return m.(*KRQA).s == nil }, false,
		func(t *testing.T, m persistent) { _ = m.(*KRQA).Pass(); _ = m.(*KRQA).RayleighQuotients(nil) })
}

// FuzzUnmarshalKHA fuzzes KHA.UnmarshalBinary (fuzzDecoder), and passes over whatever
// it accepts. The seeds: before and after the start, centred and not, a decaying rate.
func FuzzUnmarshalKHA(f *testing.F) {
	X := toy(12, 7)
	var seeds []persistent
	for _, c := range []struct {
		k    kernel.Kernel
		opts KHAOptions
	}{
		{kernel.RBF{Gamma: 0.5}, KHAOptions{Components: 2, Rate: 0.1, Seed: 1}},
		{kernel.Laplacian{Sigma: 2}, KHAOptions{Components: 3, Rate: 0.05, Decay: 10, Seed: 2, Uncentred: true}},
	} {
		seeds = append(seeds, onlineSeeds(f, X, func() (persistent, func() error, error) {
			m, err := NewKHA(c.k, 2, c.opts)
			if err != nil {
				return nil, nil, err
			}
			return m, m.Pass, nil
		})...)
	}
	fuzzDecoder(f, khaMagic, onlineVersion, seeds, func() persistent { return new(KHA) },
		func(m persistent) bool { return m.(*KHA).s == nil }, false,
		func(t *testing.T, m persistent) { _ = m.(*KHA).Pass() })
}
