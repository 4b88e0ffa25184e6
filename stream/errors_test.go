package stream

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// TestErrorKinds: every exported constructor and method of the package that returns an
// error, given zero-valued and hostile arguments — every bad kernel
// (testmat.BadKernels), a kernel SKPCA and RNCA cannot use, zero options, negative and
// NaN fields, d ≤ 0, nil, empty, misshapen and NaN points, k out of range, destinations
// of the wrong shape, models that cannot be merged, passes before the start, nil
// writers and readers, bytes that are no encoding — returns an error that wraps the
// ikpca kind named and no other, and the package's sentinel of it, first, and none
// panics; and the models the methods were called on are unchanged, their encodings the
// same bytes (once read).
func TestErrorKinds(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	rbf := kernel.RBF{Sigma: 1}
	cubic := kernel.Func{Name: "stream-test-errors", F: func(x, y []float64) float64 { return 1 }}
	notGaussian := map[string]kernel.Kernel{
		"a Laplacian": kernel.Laplacian{Sigma: 1}, "a polynomial": kernel.Polynomial{Degree: 2, Gamma: 1},
		"the linear kernel": kernel.Linear{}, "a Func": cubic, "a *kernel.Laplacian": &kernel.Laplacian{Sigma: 1},
	}
	var cases errtest.Cases
	add := cases.Add

	// Constructors.
	skpca := func(k kernel.Kernel, d int, o SKPCAOptions) func() error {
		return func() error { _, err := NewSKPCA(k, d, o); return err }
	}
	rnca := func(k kernel.Kernel, d int, o RNCAOptions) func() error {
		return func() error { _, err := NewRNCA(k, d, o); return err }
	}
	krqa := func(k kernel.Kernel, d int, o KRQAOptions) func() error {
		return func() error { _, err := NewKRQA(k, d, o); return err }
	}
	kha := func(k kernel.Kernel, d int, o KHAOptions) func() error {
		return func() error { _, err := NewKHA(k, d, o); return err }
	}
	okS, okR := SKPCAOptions{Features: 8, Sketch: 2}, RNCAOptions{Features: 8}
	okQ, okH := KRQAOptions{Components: 2}, KHAOptions{Components: 2, Rate: 0.1}
	for _, b := range testmat.BadKernels() {
		what, k := "kernel "+b.Name, b.Kernel
		add("NewSKPCA, "+what, ikpca.ErrArgument, skpca(k, 2, okS))
		add("NewRNCA, "+what, ikpca.ErrArgument, rnca(k, 2, okR))
		add("NewKRQA, "+what, ikpca.ErrArgument, krqa(k, 2, okQ))
		add("NewKHA, "+what, ikpca.ErrArgument, kha(k, 2, okH))
	}
	for what, k := range notGaussian {
		add("NewSKPCA, "+what, ikpca.ErrArgument, skpca(k, 2, okS))
		add("NewRNCA, "+what, ikpca.ErrArgument, rnca(k, 2, okR))
	}
	for _, d := range []int{0, -1, math.MinInt} {
		add("NewSKPCA, d ≤ 0", ikpca.ErrArgument, skpca(rbf, d, okS))
		add("NewRNCA, d ≤ 0", ikpca.ErrArgument, rnca(rbf, d, okR))
		add("NewKRQA, d ≤ 0", ikpca.ErrArgument, krqa(rbf, d, okQ))
		add("NewKHA, d ≤ 0", ikpca.ErrArgument, kha(rbf, d, okH))
	}
	add("NewKRQA, d MaxInt", ikpca.ErrArgument, krqa(rbf, math.MaxInt, okQ))
	add("NewKHA, d MaxInt", ikpca.ErrArgument, kha(rbf, math.MaxInt, okH))
	for what, o := range map[string]SKPCAOptions{
		"zero options": {}, "D < 0": {Features: -8, Sketch: 2}, "odd D": {Features: 7, Sketch: 2}, "ℓ < 0": {Features: 8, Sketch: -1},
		"buffer < 0": {Features: 8, Sketch: 2, Buffer: -1}, "buffer ℓ": {Features: 8, Sketch: 2, Buffer: 2}, "form −1": {Features: 8, Sketch: 2, Form: -1},
	} {
		add("NewSKPCA, "+what, ikpca.ErrArgument, skpca(rbf, 2, o))
	}
	for what, o := range map[string]RNCAOptions{
		"zero options": {}, "D < 0": {Features: -2}, "D = 2¹⁴ + 2": {Features: 1<<14 + 2}, "form 2": {Features: 8, Form: 2},
	} {
		add("NewRNCA, "+what, ikpca.ErrArgument, rnca(rbf, 2, o))
	}
	add("NewKRQA, zero options", ikpca.ErrArgument, krqa(rbf, 2, KRQAOptions{}))
	add("NewKRQA, r < 0", ikpca.ErrArgument, krqa(rbf, 2, KRQAOptions{Components: -3}))
	for what, o := range map[string]KHAOptions{
		"zero options": {}, "r < 0": {Components: -1, Rate: 0.1}, "rate NaN": {Components: 2, Rate: nan},
		"rate < 0": {Components: 2, Rate: -0.1}, "rate infinite": {Components: 2, Rate: inf},
		"decay NaN": {Components: 2, Rate: 0.1, Decay: nan}, "decay < 0": {Components: 2, Rate: 0.1, Decay: -1},
	} {
		add("NewKHA, "+what, ikpca.ErrArgument, kha(rbf, 2, o))
	}

	// Methods, on models with points.
	X := toy(12, 31)
	s, _ := NewSKPCA(rbf, 2, SKPCAOptions{Features: 8, Sketch: 2, Seed: 1})
	sOther, _ := NewSKPCA(rbf, 2, SKPCAOptions{Features: 8, Sketch: 2, Seed: 2})
	sGamma, _ := NewSKPCA(kernel.RBF{Gamma: 0.5}, 2, SKPCAOptions{Features: 8, Sketch: 2, Seed: 1})
	s3, _ := NewSKPCA(rbf, 3, SKPCAOptions{Features: 8, Sketch: 2, Seed: 1})
	r, _ := NewRNCA(rbf, 2, RNCAOptions{Features: 8, Seed: 1})
	q, _ := NewKRQA(rbf, 2, KRQAOptions{Components: 2, Seed: 1})
	h, _ := NewKHA(rbf, 2, KHAOptions{Components: 2, Rate: 0.1, Seed: 1})
	qEmpty, _ := NewKRQA(rbf, 2, KRQAOptions{Components: 2, Seed: 1})
	hEmpty, _ := NewKHA(rbf, 2, KHAOptions{Components: 2, Rate: 0.1, Seed: 1})
	models := map[string]persistent{"SKPCA": s, "RNCA": r, "KRQA": q, "KHA": h}
	for _, m := range models {
		if err := m.AddBatch(X); err != nil {
			t.Fatal(err)
		}
	}
	good, _ := s.MarshalBinary()
	for name, m := range models {
		add(name+".Add, nil", ikpca.ErrDimension, func() error { return m.Add(nil) })
		add(name+".Add, short", ikpca.ErrDimension, func() error { return m.Add([]float64{1}) })
		add(name+".Add, NaN", ikpca.ErrNonFinite, func() error { return m.Add([]float64{0, nan}) })
		add(name+".Add, infinite", ikpca.ErrNonFinite, func() error { return m.Add([]float64{-inf, 0}) })
		add(name+".AddBatch, nil", ikpca.ErrArgument, func() error { return m.AddBatch(nil) })
		add(name+".AddBatch, a nil *mat.Dense", ikpca.ErrArgument, func() error { return m.AddBatch((*mat.Dense)(nil)) })
		add(name+".AddBatch, the zero mat.Dense", ikpca.ErrEmpty, func() error { return m.AddBatch(&mat.Dense{}) })
		add(name+".AddBatch, wide", ikpca.ErrDimension, func() error { return m.AddBatch(mat.NewDense(2, 3, nil)) })
		add(name+".AddBatch, a NaN in the last row", ikpca.ErrNonFinite, func() error {
			return m.AddBatch(mat.NewDense(3, 2, []float64{0, 0, 1, 1, 2, nan}))
		})
		add(name+".Transform, nil dst", ikpca.ErrArgument, func() error { return m.Transform(nil, mat.NewDense(1, 2, nil), 1) })
		add(name+".Transform, nil X", ikpca.ErrArgument, func() error { return m.Transform(&mat.Dense{}, nil, 1) })
		add(name+".Transform, the zero X", ikpca.ErrEmpty, func() error { return m.Transform(&mat.Dense{}, &mat.Dense{}, 1) })
		add(name+".Transform, wide X", ikpca.ErrDimension, func() error { return m.Transform(&mat.Dense{}, mat.NewDense(1, 3, nil), 1) })
		add(name+".Transform, NaN", ikpca.ErrNonFinite, func() error { return m.Transform(&mat.Dense{}, mat.NewDense(1, 2, []float64{nan, 0}), 1) })
		add(name+".Transform, k = 0", ikpca.ErrArgument, func() error { return m.Transform(&mat.Dense{}, mat.NewDense(1, 2, nil), 0) })
		add(name+".Transform, k < 0", ikpca.ErrArgument, func() error { return m.Transform(&mat.Dense{}, mat.NewDense(1, 2, nil), -1) })
		add(name+".Transform, k too large", ikpca.ErrArgument, func() error {
			return m.Transform(&mat.Dense{}, mat.NewDense(1, 2, nil), 1000)
		})
		add(name+".Transform, a dst of the wrong shape", ikpca.ErrDimension, func() error {
			return m.Transform(mat.NewDense(2, 1, nil), mat.NewDense(1, 2, nil), 1)
		})
		enc := wiretest.Marshal(t, m)
		cases.AddPersistent(name, m, enc)
		if name != "SKPCA" {
			add(name+".UnmarshalBinary, an SKPCA", ikpca.ErrEncoding, func() error { return m.UnmarshalBinary(good) })
		}
	}
	add("SKPCA.Merge, nil", ikpca.ErrArgument, func() error { return s.Merge(nil) })
	add("SKPCA.Merge, a zero SKPCA", ikpca.ErrArgument, func() error { return s.Merge(new(SKPCA)) })
	add("SKPCA.Merge, itself", ikpca.ErrArgument, func() error { return s.Merge(s) })
	add("SKPCA.Merge, another seed", ikpca.ErrArgument, func() error { return s.Merge(sOther) })
	add("SKPCA.Merge, the kernel by γ", ikpca.ErrArgument, func() error { return s.Merge(sGamma) })
	add("SKPCA.Merge, another dimension", ikpca.ErrArgument, func() error { return s.Merge(s3) })
	add("KRQA.Pass before the start", ikpca.ErrEmpty, qEmpty.Pass)
	add("KHA.Pass before the start", ikpca.ErrEmpty, hEmpty.Pass)
	add("KRQA.Transform before the start", ikpca.ErrEmpty, func() error { return qEmpty.Transform(&mat.Dense{}, mat.NewDense(1, 2, nil), 1) })

	// Read first: reading SKPCA compresses its sketch (a lazy read, not a change of
	// the model), which its encoding shows.
	before := map[string][]byte{}
	for name, m := range models {
		m.Values(nil)
		before[name], _ = m.MarshalBinary()
	}
	errtest.Of(ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument, ErrEncoding, ErrNotConverged).Run(t, cases)
	for name, m := range models {
		if after, _ := m.MarshalBinary(); !bytes.Equal(before[name], after) {
			t.Errorf("%s: the bad calls changed the model", name)
		}
	}
}
