package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/stream"
)

// StreamingOptions configure Streaming, the kernel-approximation comparison of
// Ghashami, Perry & Phillips (AISTATS 2016, §5): SKPCA, RNCA, Nyström and the exact
// model's top-ℓ truncation on the same points.
type StreamingOptions struct {
	// Dataset is "cpu_act" (columns standardised), "a9a" (binary features, as is) or
	// "magic" (standardised).
	Dataset string
	// N training points and Test test points, drawn without replacement (seeded).
	N, Test int
	// Features is the number D of random Fourier features of SKPCA and RNCA.
	Features int
	// Ells are the sketch sizes ℓ (for Nyström the landmarks, for RNCA and the exact
	// model the components kept).
	Ells []int
	// Exact includes the exact incremental model (package kpca, uncentred): a batch
	// start on N − ExactSteps points, then ExactSteps incremental steps, timed.
	Exact      bool
	ExactSteps int
	Seed       uint64
	// Progress, if set, is called after each measurement.
	Progress func(msg string)
}

// StreamingRow is one method at one ℓ.
type StreamingRow struct {
	Method string
	Ell    int
	// Spectral is ‖G − G̃‖₂ (G the uncentred kernel matrix of the training points);
	// OverN is Spectral/N, the ε of ‖G − G̃‖₂ ≤ ε·n; Relative is Spectral/‖G‖₂.
	Spectral, OverN, Relative float64
	// Bound is the method's certified bound on Spectral where it has one (SKPCA:
	// ‖G − ZZᵀ‖₂ + Δ), NaN otherwise.
	Bound float64
	// Bytes is the memory the method holds after training.
	Bytes int
	// Train is the time to process the training points (for the exact model, the time
	// per incremental step times N), Test the time to project the test points.
	Train, Test time.Duration
	// Values are the method's top eigenvalue estimates of G (up to 5).
	Values []float64
}

// StreamingResult holds the comparison.
type StreamingResult struct {
	Options   StreamingOptions
	Sigma     float64 // bandwidth (median heuristic over the training points)
	NormG     float64 // ‖G‖₂
	RFFError  float64 // ‖G − ZZᵀ‖₂ of the feature map
	ExactTop  []float64
	StepTime  time.Duration // the exact model's time per incremental step
	BatchTime time.Duration // a batch eigendecomposition of the N points (the exact model's start)
	Rows      []StreamingRow
}

// loadStreaming returns the training and test points of the data set.
func loadStreaming(name string, n, test int, seed uint64) (train, testX *mat.Dense, err error) {
	var X *mat.Dense
	standardise := true
	switch name {
	case "cpu_act":
		X = data.CPUAct().X
	case "a9a":
		X = data.A9A().X
		standardise = false
	case "magic":
		X = data.Magic().X
	default:
		return nil, nil, fmt.Errorf("experiment: unknown data set %q (cpu_act, a9a, magic)", name)
	}
	rows, d := X.Dims()
	if n < 2 || test < 1 || n+test > rows {
		return nil, nil, fmt.Errorf("experiment: %d training and %d test points from %d rows", n, test, rows)
	}
	perm := rand.New(rand.NewPCG(seed, 0x57)).Perm(rows)
	train, testX = mat.NewDense(n, d, nil), mat.NewDense(test, d, nil)
	for i := range n {
		train.SetRow(i, X.RawRowView(perm[i]))
	}
	for i := range test {
		testX.SetRow(i, X.RawRowView(perm[n+i]))
	}
	if standardise {
		// Scale by the training points' statistics (constant columns left alone).
		for j := range d {
			var mean, ss float64
			for i := range n {
				mean += train.At(i, j)
			}
			mean /= float64(n)
			for i := range n {
				v := train.At(i, j) - mean
				ss += v * v
			}
			sd := math.Sqrt(ss / float64(n))
			if sd == 0 {
				sd = 1
			}
			for _, m := range []*mat.Dense{train, testX} {
				r, _ := m.Dims()
				for i := range r {
					m.Set(i, j, (m.At(i, j)-mean)/sd)
				}
			}
		}
	}
	return train, testX, nil
}

// lowRankError returns ‖G − Y·Yᵀ‖₂ by Lanczos, applying Y·Yᵀ without forming it.
func lowRankError(G *mat.SymDense, Y *mat.Dense) float64 {
	n := G.SymmetricDim()
	raw := G.RawSymmetric()
	_, k := Y.Dims()
	yr := Y.RawMatrix()
	tmp := make([]float64, max(k, 1))
	return lanczos.Norm(n, func(dst, x []float64) {
		blas64.Symv(1, raw, blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: n, Inc: 1, Data: dst})
		if k == 0 {
			return
		}
		blas64.Gemv(blas.Trans, 1, yr, blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: k, Inc: 1, Data: tmp})
		blas64.Gemv(blas.NoTrans, -1, yr, blas64.Vector{N: k, Inc: 1, Data: tmp}, 1, blas64.Vector{N: n, Inc: 1, Data: dst})
	})
}

func top(v []float64, k int) []float64 { return append([]float64(nil), v[:min(k, len(v))]...) }

// Streaming runs the comparison. It stops early with ctx's error when ctx is done.
func Streaming(ctx context.Context, o StreamingOptions) (*StreamingResult, error) {
	if len(o.Ells) == 0 || o.Features < 2 {
		return nil, errors.New("experiment: no sketch sizes or too few features")
	}
	progress := func(f string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(f, a...))
		}
	}
	train, testX, err := loadStreaming(o.Dataset, o.N, o.Test, o.Seed)
	if err != nil {
		return nil, err
	}
	n, d := train.Dims()
	sigma, err := kernel.MedianDistance(train, min(n, 2000))
	if err != nil {
		return nil, err
	}
	kern := kernel.RBF{Sigma: sigma}
	G := kernel.Matrix(kern, train)
	res := &StreamingResult{Options: o, Sigma: sigma, NormG: lanczos.SymNorm(G)}
	maxEll := 0
	for _, l := range o.Ells {
		if l < 1 || l >= n {
			return nil, fmt.Errorf("experiment: ℓ = %d out of range [1, %d)", l, n)
		}
		maxEll = max(maxEll, l)
	}
	add := func(r StreamingRow) {
		r.OverN = r.Spectral / float64(n)
		r.Relative = r.Spectral / res.NormG
		res.Rows = append(res.Rows, r)
		progress("%-8s ℓ=%-3d ‖G−G̃‖₂/n = %.4g  %d bytes  train %v  test %v", r.Method, r.Ell, r.OverN, r.Bytes,
			r.Train.Round(time.Millisecond), r.Test.Round(time.Millisecond))
	}

	// The feature map's own error, shared by SKPCA and RNCA (same seed, same map).
	rffOpts := stream.SKPCAOptions{Features: o.Features, Sigma: sigma, Seed: o.Seed, Sketch: 1}
	probe, err := stream.NewSKPCA(d, rffOpts)
	if err != nil {
		return nil, err
	}
	var Z mat.Dense
	if err := probe.Map().Transform(&Z, train); err != nil {
		return nil, err
	}
	res.RFFError = lowRankError(G, &Z)

	// Exact model: its eigenvalues give the best rank-ℓ error λ_{ℓ+1}.
	if o.Exact {
		steps := min(max(o.ExactSteps, 1), n-1)
		start := time.Now()
		md, err := kpca.New(kern, train.Slice(0, n-steps, 0, d), kpca.Options{Mode: kpca.Uncentred})
		if err != nil {
			return nil, err
		}
		res.BatchTime = time.Since(start)
		md.Reserve(n)
		start = time.Now()
		for i := n - steps; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := md.Add(train.RawRowView(i)); err != nil {
				return nil, err
			}
		}
		res.StepTime = time.Since(start) / time.Duration(steps)
		vals := md.Values(nil)
		res.ExactTop = top(vals, 5)
		for _, l := range o.Ells {
			var sc mat.Dense
			t0 := time.Now()
			if err := md.Transform(&sc, testX, l); err != nil {
				return nil, err
			}
			add(StreamingRow{Method: "exact", Ell: l, Spectral: math.Max(vals[l], 0), Bound: math.NaN(),
				Bytes: 2 * n * n * 8, Train: res.StepTime * time.Duration(n), Test: time.Since(t0), Values: top(vals, 5)})
		}
	}

	// RNCA: one pass, then the top ℓ components for every ℓ.
	{
		t0 := time.Now()
		r, err := stream.NewRNCA(d, stream.RNCAOptions{Features: o.Features, Sigma: sigma, Seed: o.Seed})
		if err != nil {
			return nil, err
		}
		for i := range n {
			if err := r.Add(train.RawRowView(i)); err != nil {
				return nil, err
			}
		}
		vals := r.Values(nil)
		var vecs mat.Dense
		r.VectorsTo(&vecs)
		trainTime := time.Since(t0)
		for _, l := range o.Ells {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var Y, sc mat.Dense
			Y.Mul(&Z, vecs.Slice(0, o.Features, 0, l))
			t1 := time.Now()
			if err := r.Transform(&sc, testX, l); err != nil {
				return nil, err
			}
			add(StreamingRow{Method: "RNCA", Ell: l, Spectral: lowRankError(G, &Y), Bound: math.NaN(), Bytes: r.Bytes(),
				Train: trainTime, Test: time.Since(t1), Values: top(vals, 5)})
		}
	}

	// SKPCA: one model per ℓ, points one at a time.
	for _, l := range o.Ells {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		opts := rffOpts
		opts.Sketch = l
		t0 := time.Now()
		s, err := stream.NewSKPCA(d, opts)
		if err != nil {
			return nil, err
		}
		for i := range n {
			if err := s.Add(train.RawRowView(i)); err != nil {
				return nil, err
			}
		}
		vals := s.Values(nil)
		trainTime := time.Since(t0)
		var W, Y, sc mat.Dense
		s.VectorsTo(&W)
		Y.Mul(&Z, &W)
		t1 := time.Now()
		if err := s.Transform(&sc, testX, len(vals)); err != nil {
			return nil, err
		}
		add(StreamingRow{Method: "SKPCA", Ell: l, Spectral: lowRankError(G, &Y), Bound: res.RFFError + s.ErrorBound(),
			Bytes: s.Bytes(), Train: trainTime, Test: time.Since(t1), Values: top(vals, 5)})
	}

	// Nyström: landmarks in a seeded random order, grown to each ℓ.
	{
		ny, err := kpca.NewNystrom(kern, train, kpca.NystromOptions{Seed: o.Seed})
		if err != nil {
			return nil, err
		}
		var trainTime time.Duration
		for _, l := range slices.Sorted(slices.Values(o.Ells)) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			if err := ny.Grow(l); err != nil {
				return nil, err
			}
			trainTime += time.Since(t0)
			e, err := ny.Errors()
			if err != nil {
				return nil, err
			}
			var sc mat.Dense
			t1 := time.Now()
			if err := ny.Transform(&sc, testX, l); err != nil {
				return nil, err
			}
			// Memory: the landmarks, K_mm's eigenvectors and the n×ℓ product K_nm·U.
			add(StreamingRow{Method: "Nystrom", Ell: l, Spectral: e.Spectral, Bound: math.NaN(),
				Bytes: 8 * (l*d + l*l + n*l), Train: trainTime, Test: time.Since(t1), Values: top(ny.Values(nil), 5)})
		}
	}
	return res, nil
}
