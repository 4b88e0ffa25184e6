package stream

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// scoresElements is samples.scores's element path, as it was before kernel blocks: one
// kernel column per point (bit for bit Eval), centred, and one dot product per direction.
// The reference of TestScoresBlocks and BenchmarkTransform. It also returns, for each
// score c_jᵀk̃ₓ, the size against which its rounding is measured:
// Σ_l |c_jl|·(|k̃_l| + max_l |k_l|) — a kernel value's error enters k̃ twice (itself and
// the column mean) and the centring adds rounding of the size of the raw values.
// scale is nil unless withScale (the benchmark measures the path alone).
func (s *samples) scoresElements(X *mat.Dense, k int, coef [][]float64, withScale bool) (res, scale *mat.Dense) {
	n, _ := X.Dims()
	res = mat.NewDense(n, k, nil)
	if withScale {
		scale = mat.NewDense(n, k, nil)
	}
	for i := range n {
		kx := s.columnOf(X.RawRowView(i))
		var kmax float64
		for _, v := range kx {
			kmax = max(kmax, math.Abs(v))
		}
		s.centre(kx)
		for j := range k {
			res.Set(i, j, vec.Dot(coef[j], kx))
			if !withScale {
				continue
			}
			var sc float64
			for l, c := range coef[j] {
				sc += math.Abs(c) * (math.Abs(kx[l]) + kmax)
			}
			scale.Set(i, j, sc)
		}
	}
	return res, scale
}

// nearSamples returns the first rows of X, copies moved by δ·‖x‖ for δ from 1e-12 to
// 1e-2 (near-duplicates of stored samples), and shifted copies of them all by offset.
func nearSamples(rng *rand.Rand, X *mat.Dense, rows int, offset float64) *mat.Dense {
	_, d := X.Dims()
	deltas := []float64{0, 1e-12, 1e-9, 1e-6, 1e-3}
	out := mat.NewDense(rows*len(deltas), d, nil)
	for i := range rows {
		xi := X.RawRowView(i)
		nrm := math.Sqrt(vec.Dot(xi, xi))
		for q, delta := range deltas {
			row := out.RawRowView(i*len(deltas) + q)
			for l := range row {
				row[l] = xi[l] + delta*nrm*rng.NormFloat64() + offset
			}
		}
	}
	return out
}

// TestScoresBlocks compares KRQA's Transform (kernel blocks, centring, one dgemm; KHA's is
// the same samples.scores) with the element path, on stored samples and their
// near-duplicates, in one cluster and in two clusters 1e3 apart (whose points are far
// from the samples' mean, where the RBF identity cancels unless evaluated directly),
// for an RBF and the quadratic kernel, centred and not. Every kernel value is within
// 1e-13·max(1, v) of Eval (RBF; v its exponent) or (d+4)·ε of its terms (polynomial), and
// the centring and the sum add a few ε of the terms, so the scores agree within
// 1e-12 of scoresElements's scale.
func TestScoresBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, offset := range []float64{0, 1e3} {
		// Two clusters offset apart: their points are far from the samples' mean.
		X := toy(60, 11)
		for i := range 30 {
			for l := range 2 {
				X.Set(i, l, X.At(i, l)+offset)
			}
		}
		probe := nearSamples(rng, X, 40, 0)
		for _, k := range []kernel.Kernel{kernel.RBF{Sigma: 0.5}, kernel.RBF{Sigma: 0.02}, quadratic} {
			for _, uncentred := range []bool{false, true} {
				m, err := NewKRQA(k, 2, KRQAOptions{Components: 3, Seed: 4, Uncentred: uncentred})
				if err != nil {
					t.Fatal(err)
				}
				testmat.AddRows(t, m, X, 0, 60)
				var got mat.Dense
				if err := m.Transform(&got, probe, 3); err != nil {
					t.Fatalf("%v: %v", k, err)
				}
				want, scale := m.s.scoresElements(probe, 3, m.coefficients(), true)
				rows, _ := probe.Dims()
				for i := range rows {
					for j := range 3 {
						if d := math.Abs(got.At(i, j) - want.At(i, j)); !(d <= 1e-12*scale.At(i, j)+1e-300) {
							t.Fatalf("offset %g %v uncentred=%v point %d direction %d: %v, element path %v (|Δ| = %.3g, scale %.3g)",
								offset, k, uncentred, i, j, got.At(i, j), want.At(i, j), d, scale.At(i, j))
						}
					}
				}
			}
		}
	}
}

// projectWhole is project as it was before blocks: every row's features at once, then
// one product; the reference of TestProjectBlocks and BenchmarkTransform. It also returns
// the features, centred.
func projectWhole(rff *features.RFF, X *mat.Dense, w *mat.Dense, mean []float64, k int) (res, Z *mat.Dense) {
	Z = new(mat.Dense)
	if err := rff.Transform(Z, X); err != nil {
		panic(err)
	}
	n, D := Z.Dims()
	if mean != nil {
		for i := range n {
			row := Z.RawRowView(i)
			for j, m := range mean {
				row[j] -= m
			}
		}
	}
	res = new(mat.Dense)
	native.Mul(res, Z, w.Slice(0, D, 0, k))
	return res, Z
}

// termScale returns Σ_l |z_l·w_lj| for each row of Z and column j < k of w: the size of
// the terms of each score.
func termScale(Z, w *mat.Dense, k int) *mat.Dense {
	n, D := Z.Dims()
	scale := mat.NewDense(n, k, nil)
	for i := range n {
		for j := range k {
			var s float64
			for l := range D {
				s += math.Abs(Z.At(i, l) * w.At(l, j))
			}
			scale.Set(i, j, s)
		}
	}
	return scale
}

// centre returns the mean an SKPCA's Transform subtracts: z̄ centred, none uncentred.
func (s *SKPCA) centre() []float64 {
	if s.c == nil {
		return nil
	}
	return s.c.mean
}

// TestProjectBlocks compares the blocked Transform of RNCA and SKPCA (both centred) with
// the whole-batch reference on 700 points (three blocks, the last partial), within 8·D·ε
// of the terms' size: the features are the same to a few ulps (one dgemm and sincos
// either way), and the product adds D·ε.
func TestProjectBlocks(t *testing.T) {
	X := toy(900, 13)
	test := X.Slice(200, 900, 0, 2).(*mat.Dense)
	const D = 64
	r, err := NewRNCA(kernel.RBF{Sigma: 0.7}, 2, RNCAOptions{Features: D, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSKPCA(kernel.RBF{Sigma: 0.7}, 2, SKPCAOptions{Features: D, Sketch: 6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddBatch(X.Slice(0, 200, 0, 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.AddBatch(X.Slice(0, 200, 0, 2)); err != nil {
		t.Fatal(err)
	}
	var a, b mat.Dense
	if err := r.Transform(&a, test, 4); err != nil {
		t.Fatal(err)
	}
	if err := s.Transform(&b, test, 4); err != nil {
		t.Fatal(err)
	}
	wantA, za := projectWhole(r.rff, test, r.vecs, r.mean, 4)
	wantB, zb := projectWhole(s.rff, test, s.w, s.centre(), 4)
	scaleA, scaleB := termScale(za, r.vecs, 4), termScale(zb, s.w, 4)
	for i := range 700 {
		for j := range 4 {
			if d := math.Abs(a.At(i, j) - wantA.At(i, j)); !(d <= 8*D*0x1p-53*scaleA.At(i, j)) {
				t.Fatalf("RNCA point %d component %d: %v, whole batch %v", i, j, a.At(i, j), wantA.At(i, j))
			}
			if d := math.Abs(b.At(i, j) - wantB.At(i, j)); !(d <= 8*D*0x1p-53*scaleB.At(i, j)) {
				t.Fatalf("SKPCA point %d component %d: %v, whole batch %v", i, j, b.At(i, j), wantB.At(i, j))
			}
		}
	}
}

// BenchmarkTransform measures Transform of 4096 points with 1000 features (RNCA,
// SKPCA) or 1000 stored samples (KRQA, RBF with the median distance), on MAGIC (d = 10)
// and a9a (d = 123): "bulk" is Transform, "elements" the path before kernel blocks (the
// whole batch's features at once for RNCA and SKPCA, which were already a product; a
// kernel column per point for KRQA). points/s is reported.
func BenchmarkTransform(b *testing.B) {
	const rows, D, m, k = 4096, 1000, 1000, 6
	for _, ds := range []data.Dataset{data.Magic(), data.A9A()} {
		_, d := ds.X.Dims()
		train := mat.DenseCopyOf(ds.X.Slice(0, 2000, 0, d))
		X := mat.DenseCopyOf(ds.X.Slice(2000, 2000+rows, 0, d))
		med, err := kernel.MedianDistance(train, 1000)
		if err != nil {
			b.Fatal(err)
		}
		rnca, err := NewRNCA(kernel.RBF{Sigma: med}, d, RNCAOptions{Features: D, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		skpca, err := NewSKPCA(kernel.RBF{Sigma: med}, d, SKPCAOptions{Features: D, Sketch: 20, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		krqa, err := NewKRQA(kernel.RBF{Sigma: med}, d, KRQAOptions{Components: k, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := rnca.AddBatch(train); err != nil {
			b.Fatal(err)
		}
		if err := skpca.AddBatch(train); err != nil {
			b.Fatal(err)
		}
		testmat.AddRows(b, krqa, train, 0, m)
		rnca.settle()
		skpca.settle()
		name := fmt.Sprintf("%s/d=%d", ds.Name, d)
		run := func(b *testing.B, f func()) {
			for b.Loop() {
				f()
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "points/s")
		}
		var dst mat.Dense
		bulk := func(t interface {
			Transform(*mat.Dense, mat.Matrix, int) error
		}) func() {
			return func() {
				dst.Reset()
				if err := t.Transform(&dst, X, k); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(name+"/RNCA/D=1000/bulk", func(b *testing.B) { run(b, bulk(rnca)) })
		b.Run(name+"/RNCA/D=1000/elements", func(b *testing.B) {
			run(b, func() { projectWhole(rnca.rff, X, rnca.vecs, rnca.mean, k) })
		})
		b.Run(name+"/SKPCA/D=1000/bulk", func(b *testing.B) { run(b, bulk(skpca)) })
		b.Run(name+"/SKPCA/D=1000/elements", func(b *testing.B) {
			run(b, func() { projectWhole(skpca.rff, X, skpca.w, skpca.centre(), k) })
		})
		b.Run(name+"/KRQA/n=1000/bulk", func(b *testing.B) { run(b, bulk(krqa)) })
		b.Run(name+"/KRQA/n=1000/elements", func(b *testing.B) {
			coef := krqa.coefficients()
			run(b, func() { krqa.s.scoresElements(X, k, coef, false) })
		})
	}
}
