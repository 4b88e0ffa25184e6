package streaming

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/stream"
)

// ApproxOptions configure Approx, the kernel-approximation comparison of Ghashami, Perry
// & Phillips (AISTATS 2016, §5): SKPCA, RNCA, Nyström and the exact model's top-ℓ
// truncation on the same points.
type ApproxOptions struct {
	// Dataset is one of DataSets.
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
	// Progress, if set, is called after each measurement with the measurements done
	// and their total.
	Progress func(done, total int)
}

// ApproxRow is one method at one ℓ.
type ApproxRow struct {
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

// ApproxResult holds the comparison.
type ApproxResult struct {
	Options   ApproxOptions
	Sigma     float64 // bandwidth (median heuristic over the training points)
	NormG     float64 // ‖G‖₂
	RFFError  float64 // ‖G − ZZᵀ‖₂ of the feature map
	ExactTop  []float64
	StepTime  time.Duration // the exact model's time per incremental step
	BatchTime time.Duration // a batch eigendecomposition of the N points (the exact model's start)
	Rows      []ApproxRow
}

// approxMethods are the methods of Approx in table and legend order.
var approxMethods = []string{"SKPCA", "RNCA", "Nystrom", "exact"}

// Approx runs the comparison. It stops early with ctx's error when ctx is done.
func Approx(ctx context.Context, o ApproxOptions) (*ApproxResult, error) {
	if !slices.Contains(DataSets, o.Dataset) {
		return nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, o.Dataset, DataSets)
	}
	if err := o.check(rows(o.Dataset)); err != nil {
		return nil, err
	}
	train, testX, err := load(o.Dataset, o.N, o.Test, o.Seed)
	if err != nil {
		return nil, err
	}
	n, d := train.Dims()
	for _, l := range o.Ells {
		if l < 1 || l >= n {
			return nil, fmt.Errorf("%w: ℓ = %d out of range [1, %d)", study.ErrOptions, l, n)
		}
	}
	sigma, err := kernel.MedianDistance(train, min(n, 2000))
	if err != nil {
		return nil, err
	}
	a := &approxRun{ctx: ctx, o: o, train: train, testX: testX, n: n, d: d, kern: kernel.RBF{Sigma: sigma}, total: 3 * len(o.Ells)}
	a.G = kernel.Matrix(a.kern, train)
	a.res = &ApproxResult{Options: o, Sigma: sigma, NormG: lanczos.SymNorm(a.G)}
	if o.Exact {
		a.total += len(o.Ells)
	}

	// The feature map's own error, shared by SKPCA and RNCA (same seed, same map). Both
	// are the papers' uncentred models, measured against G (the exact model is
	// uncentred too), as the committed results were.
	a.rffOpts = stream.SKPCAOptions{Features: o.Features, Seed: o.Seed, Sketch: 1, Uncentred: true}
	probe, err := stream.NewSKPCA(a.kern, d, a.rffOpts)
	if err != nil {
		return nil, err
	}
	if err := probe.Map().Transform(&a.Z, train); err != nil {
		return nil, err
	}
	a.res.RFFError = lowRankError(a.G, &a.Z)
	for _, method := range []func() error{a.exact, a.rnca, a.skpca, a.nystrom} {
		if err := method(); err != nil {
			return nil, err
		}
	}
	return a.res, nil
}

// approxRun is one run of Approx: its data, kernel matrix G, random features Z (n×D)
// and the result it fills, row by row.
type approxRun struct {
	ctx          context.Context
	o            ApproxOptions
	train, testX *mat.Dense
	n, d         int
	kern         kernel.RBF
	G            *mat.SymDense
	Z            mat.Dense
	rffOpts      stream.SKPCAOptions
	res          *ApproxResult
	total        int // rows to come, for Progress
}

// add completes a row with what every method shares, measured through the
// ikpca.Model interface: the memory the model holds, its top eigenvalues and the
// time to project the test points on its top k components.
func (a *approxRun) add(r ApproxRow, m ikpca.Model, k int) error {
	r.OverN = r.Spectral / float64(a.n)
	r.Relative = r.Spectral / a.res.NormG
	r.Bytes = m.Bytes()
	r.Values = top(m.Values(nil), 5)
	var sc mat.Dense
	t0 := time.Now()
	if err := m.Transform(&sc, a.testX, k); err != nil {
		return err
	}
	r.Test = time.Since(t0)
	a.res.Rows = append(a.res.Rows, r)
	if a.o.Progress != nil {
		a.o.Progress(len(a.res.Rows), a.total)
	}
	return a.ctx.Err()
}

// addEach adds the training points to m one at a time.
func (a *approxRun) addEach(m interface{ Add([]float64) error }) error {
	for i := range a.n {
		if err := m.Add(a.train.RawRowView(i)); err != nil {
			return err
		}
	}
	return nil
}

// exact adds the exact model's rows: its eigenvalues give the best rank-ℓ error
// λ_{ℓ+1}.
func (a *approxRun) exact() error {
	if !a.o.Exact {
		return nil
	}
	n, d, res := a.n, a.d, a.res
	steps := min(max(a.o.ExactSteps, 1), n-1)
	start := time.Now()
	md, err := kpca.Fit(a.kern, a.train.Slice(0, n-steps, 0, d), kpca.Options{Components: kpca.All, Uncentred: true})
	if err != nil {
		return err
	}
	res.BatchTime = time.Since(start)
	md.Reserve(n)
	start = time.Now()
	for i := n - steps; i < n; i++ {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		if err := md.Add(a.train.RawRowView(i)); err != nil {
			return err
		}
	}
	res.StepTime = time.Since(start) / time.Duration(steps)
	vals := md.Values(nil)
	res.ExactTop = top(vals, 5)
	for _, l := range a.o.Ells {
		if err := a.add(ApproxRow{Method: "exact", Ell: l, Spectral: math.Max(vals[l], 0), Bound: math.NaN(),
			Train: res.StepTime * time.Duration(n)}, md, l); err != nil {
			return err
		}
	}
	return nil
}

// rnca adds RNCA's rows: one pass, then the top ℓ components for every ℓ.
func (a *approxRun) rnca() error {
	o := a.o
	t0 := time.Now()
	r, err := stream.NewRNCA(a.kern, a.d, stream.RNCAOptions{Features: o.Features, Seed: o.Seed, Uncentred: true})
	if err != nil {
		return err
	}
	if err := a.addEach(r); err != nil {
		return err
	}
	trainTime := time.Since(t0)
	var all mat.Dense
	r.VectorsTo(&all)
	for _, l := range o.Ells {
		var Y mat.Dense
		Y.Mul(&a.Z, all.Slice(0, o.Features, 0, l))
		if err := a.add(ApproxRow{Method: "RNCA", Ell: l, Spectral: lowRankError(a.G, &Y), Bound: math.NaN(), Train: trainTime},
			r, l); err != nil {
			return err
		}
	}
	return nil
}

// skpca adds SKPCA's rows: one model per ℓ, points one at a time.
func (a *approxRun) skpca() error {
	for _, l := range a.o.Ells {
		opts := a.rffOpts
		opts.Sketch = l
		t0 := time.Now()
		s, err := stream.NewSKPCA(a.kern, a.d, opts)
		if err != nil {
			return err
		}
		if err := a.addEach(s); err != nil {
			return err
		}
		trainTime := time.Since(t0)
		k := len(s.Values(nil))
		var W, Y mat.Dense
		s.VectorsTo(&W)
		Y.Mul(&a.Z, W.Slice(0, a.o.Features, 0, k))
		if err := a.add(ApproxRow{Method: "SKPCA", Ell: l, Spectral: lowRankError(a.G, &Y), Bound: a.res.RFFError + s.ErrorBound(),
			Train: trainTime}, s, k); err != nil {
			return err
		}
	}
	return nil
}

// nystrom adds the Nyström approximation's rows: landmarks in a seeded random order,
// grown to each ℓ.
func (a *approxRun) nystrom() error {
	ny, err := nystrom.NewApproximation(a.kern, a.train, nystrom.ApproximationOptions{Seed: a.o.Seed})
	if err != nil {
		return err
	}
	var trainTime time.Duration
	for _, l := range slices.Sorted(slices.Values(a.o.Ells)) {
		t0 := time.Now()
		if err := ny.Grow(l); err != nil {
			return err
		}
		trainTime += time.Since(t0)
		e, err := ny.Errors()
		if err != nil {
			return err
		}
		if err := a.add(ApproxRow{Method: "Nystrom", Ell: l, Spectral: e.Spectral, Bound: math.NaN(), Train: trainTime},
			nystromModel(ny, a.d), l); err != nil {
			return err
		}
	}
	return nil
}

// nystromModel adapts a Nyström approximation of ℓ landmarks to ikpca.Model: its memory
// is the landmarks, K_mm's eigenvectors and the n×ℓ product K_nm·U.
func nystromModel(ny *nystrom.Approximation, d int) ikpca.Model {
	l, n := ny.Len(), ny.Size()
	return study.Complete(ny, d, false, 8*(l*d+l*l+n*l)) // it approximates K, uncentred
}

// lowRankError returns ‖G − Y·Yᵀ‖₂ by Lanczos, applying Y·Yᵀ without forming it.
func lowRankError(G *mat.SymDense, Y *mat.Dense) float64 {
	n := G.SymmetricDim()
	_, k := Y.Dims()
	var yyx mat.VecDense
	tmp := mat.NewVecDense(max(k, 1), nil)
	return lanczos.Norm(n, func(dst, x []float64) {
		xv, dv := mat.NewVecDense(n, x), mat.NewVecDense(n, dst)
		dv.MulVec(G, xv)
		if k == 0 {
			return
		}
		tmp.MulVec(Y.T(), xv)
		yyx.MulVec(Y, tmp)
		dv.SubVec(dv, &yyx)
	})
}

func top(v []float64, k int) []float64 { return append([]float64(nil), v[:min(k, len(v))]...) }
