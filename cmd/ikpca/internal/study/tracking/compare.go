package tracking

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/stream"
)

// The methods of the comparison, as the table names them.
const (
	MethodRank      = "rank"       // kpca.Model with Options.Rank, one point at a time
	MethodExact     = "exact"      // kpca.Model, every pair, one point at a time
	MethodSKPCA     = "skpca"      // stream.SKPCA at the rank-r model's memory
	MethodChinSuter = "chin-suter" // compressed chinsuter.Model at the rank-r model's memory
	MethodSklearn   = "sklearn-"   // prefix of scikit-learn's KernelPCA rows: sklearn-dense, sklearn-arpack
)

// CompareOptions configure Compare: rank-r tracking on one data set against batch kernel
// PCA, beside exact growth, SKPCA and compressed Chin–Suter at equal memory, and
// scikit-learn.
type CompareOptions struct {
	// Dataset is one of DataSets; N the number of points of its seeded order (0: all).
	Dataset string
	N       int
	// Ranks are the r of the rank-r models, each at least Components and less than M0.
	Ranks []int
	// Components is k, the number of leading eigenpairs compared (0: 10).
	Components int
	// M0 is the batch start of the rank-r, exact and Chin–Suter models (0: 2·max(Ranks)):
	// the first M0 points are decomposed at once, the others added one at a time.
	M0 int
	// ExactN is the number of points the exact model grows to (0: no exact model), at
	// most N: its cost, one m³ product a point, limits it to a few thousand.
	ExactN int
	// SketchRows is SKPCA's ℓ (0: r, as many directions as the rank-r model keeps;
	// negative: no SKPCA).
	SketchRows int
	// ChinSuterRanks are the r at which compressed Chin–Suter runs (with r components),
	// each one of Ranks; empty: none. Chunk is its chunk size c (0: 500).
	ChinSuterRanks []int
	Chunk          int
	// Sklearn are the eigen solvers of scikit-learn's KernelPCA fitted once on all the
	// points ("dense", "arpack"; empty: none), by the script Script (default
	// bench/sklearn_fit.py, relative to the working directory) run with Python
	// (default /usr/bin/python3).
	Sklearn        []string
	Python, Script string
	Seed           uint64
	// Progress, if set, reports each stage's progress.
	Progress study.Progress
}

// Row is one model of the comparison.
type Row struct {
	// Method is one of the Method constants (scikit-learn's rows: "sklearn-" and the
	// solver); Rank is r (zero for the exact model and scikit-learn).
	Method string
	Rank   int
	// Points is the number of points fitted: N, or ExactN for the exact model.
	Points int
	// Params describes the method's other parameters (m0, ℓ and D, n′ and c).
	Params string
	// Bytes is the model's memory by its Bytes method (NaN for scikit-learn); PeakRSS
	// the peak resident memory of the fit beyond what the process held before it, in
	// bytes (NaN where it cannot be measured).
	Bytes   float64
	PeakRSS float64
	// Seconds is the wall time of the fit, batch start included, on the machine that ran
	// the study.
	Seconds float64
	// Values are the model's top k eigenvalues.
	Values []float64
	// Centred is false for SKPCA, which is compared with the uncentred kernel matrix.
	Centred bool
	// EigenError is max over the top k of |λ̂ⱼ − λⱼ|/λⱼ, EigenErrorL1 of |λ̂ⱼ − λⱼ|/λ₁.
	EigenError, EigenErrorL1 float64
	// Sines[j−1] is the sine of the largest principal angle between the span of the
	// exact top-j eigenvectors of the n×n kernel matrix and that of the model's top j
	// (its eigenvectors in point coordinates, or the columns of its scores of the
	// points), j = 1…k; nil for scikit-learn, whose vectors are not read. Best is the
	// j of the best-separated leading subspace of the exact spectrum (the largest
	// λⱼ − λⱼ₊₁), whose sine, unlike the top k's when λₖ ≈ λₖ₊₁, is well determined.
	Sines []float64
	Best  int
	// Bound is the model's certificate (kpca.Model.ErrorBound) and TrueError the
	// measured ‖K′ − K̃‖₂ (Lanczos on the formed matrix), for the rank-r models;
	// Outside counts the exact top-k eigenvalues outside the model's ValueBounds
	// intervals (zero when the certificate holds). NaN or zero for the others.
	Bound, TrueError float64
	Outside          int
}

// CompareResult is the comparison on one data set.
type CompareResult struct {
	Options CompareOptions
	N, Dim  int
	Sigma   float64
	// Exact and ExactUncentred are the top k+1 eigenvalues of K′ and K (the latter only
	// with SKPCA); ExactGrowth those of K′ of the first ExactN points.
	Exact, ExactUncentred, ExactGrowth []float64
	// Residual is the largest relative residual ‖Au − λu‖/λ₁ of the reference pairs.
	Residual float64
	// ReferenceSeconds is the time to form the kernel matrix and compute the references.
	ReferenceSeconds float64
	Rows             []Row
}

// pendingRow is a row waiting for the reference: the model's vectors in point
// coordinates (n×r, rank-r and exact) or its scores of the n points (n×k).
type pendingRow struct {
	row     *Row
	vectors *mat.Dense
	all     []float64 // every tracked eigenvalue (rank-r), for ‖K′ − K̃‖₂
	lo, hi  []float64 // ValueBounds (rank-r)
}

// Compare runs the comparison. It stops early with ctx's error when ctx is done; options
// it cannot run with are errors wrapping study.ErrOptions.
func Compare(ctx context.Context, o CompareOptions) (*CompareResult, error) {
	X, err := Points(o.Dataset, o.N, o.Seed)
	if err != nil {
		return nil, err
	}
	n, d := X.Dims()
	if err := o.prepare(n); err != nil {
		return nil, err
	}
	k := o.Components
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		return nil, err
	}
	kern := kernel.RBF{Sigma: sigma}
	res := &CompareResult{Options: o, N: n, Dim: d, Sigma: sigma}
	warmBLAS()
	stage := func(what string) progressFunc {
		return o.Progress.Stage(fmt.Sprintf("%s: %s", o.Dataset, what))
	}

	pending, err := fitTracked(ctx, o, kern, X, sigma, stage)
	if err != nil {
		return nil, err
	}

	// The exact model, measured against a batch kernel PCA of its own points.
	if o.ExactN > 0 {
		if err := exactGrowth(ctx, o, kern, X, stage("exact growth"), res); err != nil {
			return nil, err
		}
	}

	// The references, from the formed n×n kernel matrix, and every model measured
	// against them; then the matrix is dropped.
	report := stage("reference (Lanczos on the kernel matrix)")
	report.call(0, 1)
	t0 := time.Now()
	km := newKernelMatrix(kern, X)
	ref, err := km.references(ctx, k+1, o.SketchRows >= 0, o.Seed)
	if err != nil {
		return nil, err
	}
	res.ReferenceSeconds = time.Since(t0).Seconds()
	res.Exact, res.ExactUncentred = ref.values, ref.uvalues
	res.Residual = math.Max(res.Residual, ref.residual)
	report.call(1, 1)
	measure := stage("errors against the reference")
	for i, p := range pending {
		if err := p.evaluate(ref, k, km); err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, *p.row)
		measure.call(i+1, len(pending))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	// Return the matrix's memory to the operating system before scikit-learn's
	// processes need theirs.
	km, ref.vectors, ref.uvectors = nil, nil, nil
	runtime.GC()
	debug.FreeOSMemory()

	if len(o.Sklearn) > 0 {
		rows, err := runSklearn(ctx, o, X, sigma, stage("scikit-learn"))
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			row.EigenError, row.EigenErrorL1 = study.EigenErrors(row.Values, res.Exact[:k])
			row.Centred, row.Best = true, study.BestGap(res.Exact)
			res.Rows = append(res.Rows, row)
		}
	}
	return res, nil
}

// exactGrowth fits the exact model to the first o.ExactN points of X and adds its row
// to res, measured against a batch kernel PCA of the same points.
func exactGrowth(ctx context.Context, o CompareOptions, kern kernel.RBF, X *mat.Dense, report progressFunc, res *CompareResult) error {
	k, d := o.Components, res.Dim
	p, err := fitExact(ctx, kern, X, o.M0, o.ExactN, report)
	if err != nil {
		return err
	}
	Xe := X.Slice(0, o.ExactN, 0, d).(*mat.Dense)
	ref, err := newKernelMatrix(kern, Xe).references(ctx, k+1, false, o.Seed)
	if err != nil {
		return err
	}
	res.ExactGrowth = ref.values
	if err := p.evaluate(ref, k, nil); err != nil {
		return err
	}
	res.Residual = ref.residual
	res.Rows = append(res.Rows, *p.row)
	return nil
}

// fitTracked fits the models compared at each rank of o — rank-r, SKPCA and
// Chin–Suter, the last two at the memory of the first — to the points X, and returns
// them to be measured.
func fitTracked(ctx context.Context, o CompareOptions, kern kernel.RBF, X *mat.Dense, sigma float64, stage func(string) progressFunc) ([]pendingRow, error) {
	k := o.Components
	var pending []pendingRow
	budget := map[int]int{}
	for _, r := range o.Ranks {
		p, err := fitRank(ctx, kern, X, r, o.M0, stage(fmt.Sprintf("rank %d", r)))
		if err != nil {
			return nil, err
		}
		budget[r] = int(p.row.Bytes)
		pending = append(pending, p)
	}
	if o.SketchRows >= 0 {
		for _, r := range o.Ranks {
			ell := o.SketchRows
			if ell == 0 {
				ell = r
			}
			p, err := fitSKPCA(ctx, X, sigma, ell, budget[r], k, o.Seed, stage(fmt.Sprintf("SKPCA at the memory of rank %d", r)))
			if err != nil {
				return nil, err
			}
			p.row.Rank = r
			pending = append(pending, p)
		}
	}
	for _, r := range o.ChinSuterRanks {
		p, err := fitChinSuter(ctx, kern, X, r, o.M0, o.Chunk, budget[r], k, stage(fmt.Sprintf("Chin–Suter at the memory of rank %d", r)))
		if err != nil {
			return nil, err
		}
		pending = append(pending, p)
	}
	return pending, nil
}

// call reports progress if the callback is set.
type progressFunc func(done, total int)

func (p progressFunc) call(done, total int) {
	if p != nil {
		p(done, total)
	}
}

// warmBLAS makes the BLAS and LAPACK allocate and touch their buffers (OpenBLAS's are
// allocated by its first calls), a cost of the process rather than of the first model
// whose memory is measured.
func warmBLAS() {
	const n = 400
	a := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			a.Set(i, j, math.Sin(float64(i*n+j)))
		}
	}
	c := mat.NewDense(n, n, nil)
	native.Gemm(blas.Trans, blas.NoTrans, 1, a.RawMatrix(), a.RawMatrix(), 0, c.RawMatrix())
	s := mat.NewSymDense(n, c.RawMatrix().Data)
	_, _ = native.EigenSymTop(nil, nil, s, 10)
}

// grow fits a kpca model of options opts to the first m0 rows of X and adds the rows up
// to end one at a time, measuring its peak memory and time.
func grow(ctx context.Context, kern kernel.Kernel, X *mat.Dense, opts kpca.Options, m0, end int, progress func(done, total int)) (*kpca.Model, float64, time.Duration, error) {
	_, d := X.Dims()
	var md *kpca.Model
	peak, elapsed, err := measured(func() error {
		var err error
		if md, err = kpca.Fit(kern, X.Slice(0, m0, 0, d), opts); err != nil {
			return err
		}
		_, err = md.AddRows(ctx, X.Slice(m0, end, 0, d), progress)
		return err
	})
	return md, peak, elapsed, err
}

// fitRank streams X into a rank-r model started from its first m0 points.
func fitRank(ctx context.Context, kern kernel.Kernel, X *mat.Dense, r, m0 int, progress func(done, total int)) (pendingRow, error) {
	n, _ := X.Dims()
	md, peak, elapsed, err := grow(ctx, kern, X, kpca.Options{Components: r, Rank: r}, m0, n, every(progress, 100))
	if err != nil {
		return pendingRow{}, err
	}
	row := &Row{Method: MethodRank, Rank: r, Points: n, Params: fmt.Sprintf("m0 = %d", m0), Bytes: float64(md.Bytes()),
		PeakRSS: peak, Seconds: elapsed.Seconds(), Centred: true, Bound: md.ErrorBound()}
	var V mat.Dense
	md.VectorsTo(&V)
	lo, hi := md.ValueBounds(nil, nil)
	return pendingRow{row: row, vectors: &V, all: md.Values(nil), lo: lo, hi: hi}, nil
}

// fitExact grows an exact model from the first m0 points of X to its first ne.
func fitExact(ctx context.Context, kern kernel.Kernel, X *mat.Dense, m0, ne int, progress func(done, total int)) (pendingRow, error) {
	md, peak, elapsed, err := grow(ctx, kern, X, kpca.Options{Components: kpca.All}, m0, ne, every(progress, 10))
	if err != nil {
		return pendingRow{}, err
	}
	row := &Row{Method: MethodExact, Points: ne, Params: fmt.Sprintf("m0 = %d", m0), Bytes: float64(md.Bytes()),
		PeakRSS: peak, Seconds: elapsed.Seconds(), Centred: true, Bound: math.NaN(), TrueError: math.NaN()}
	var V mat.Dense
	md.VectorsTo(&V)
	return pendingRow{row: row, vectors: &V, all: md.Values(nil)}, nil
}

// fitSKPCA fits SKPCA (ℓ sketch rows, random Fourier features of the same Gaussian
// kernel) with the largest even D whose memory (Bytes) is at most budget, one point at
// a time, and scores the points.
func fitSKPCA(ctx context.Context, X *mat.Dense, sigma float64, ell, budget, k int, seed uint64, progress func(done, total int)) (pendingRow, error) {
	n, d := X.Dims()
	// The paper's uncentred model, measured against the exact uncentred reference (its
	// row is not Centred), as the committed results were.
	rbf := kernel.RBF{Sigma: sigma}
	opts := stream.SKPCAOptions{Sketch: ell, Seed: seed, Uncentred: true}.AtMemory(rbf, d, budget)
	D := opts.Features
	var s *stream.SKPCA
	peak, elapsed, err := measured(func() error {
		var err error
		if s, err = stream.NewSKPCA(rbf, d, opts); err != nil {
			return err
		}
		for i := range n {
			if err := s.Add(X.RawRowView(i)); err != nil {
				return err
			}
			if i%100 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				progressFunc(progress).call(i+1, n)
			}
		}
		return nil
	})
	if err != nil {
		return pendingRow{}, err
	}
	scores, err := study.Scores(s, X, k)
	if err != nil {
		return pendingRow{}, err
	}
	row := &Row{Method: MethodSKPCA, Points: n, Params: fmt.Sprintf("ℓ = %d, D = %d", ell, D), Bytes: float64(s.Bytes()),
		PeakRSS: peak, Seconds: elapsed.Seconds(), Values: s.Values(nil), Bound: math.NaN(), TrueError: math.NaN()}
	return pendingRow{row: row, vectors: scores}, nil
}

// chinSuterBytes is what a compressed Chin–Suter model of r components holds with at
// most (r+1)·n′ pre-images in d dimensions (chinsuter.Model.Bytes): the pre-images,
// their kernel matrix, the coefficients, the mean's, and O(r) vectors.
func chinSuterBytes(r, preImages, d int) int {
	p := (r + 1) * preImages
	return 8 * (p*d + p*p + p*r + p + 3*r)
}

// fitChinSuter fits compressed Chin–Suter with r components and the largest number of
// pre-images n′ whose memory is at most budget, from a batch start of m0 points then in
// chunks of c, and scores the points.
func fitChinSuter(ctx context.Context, kern kernel.Kernel, X *mat.Dense, r, m0, c, budget, k int, progress func(done, total int)) (pendingRow, error) {
	n, d := X.Dims()
	pre := 1
	for chinSuterBytes(r, pre+1, d) <= budget {
		pre++
	}
	var md *chinsuter.Model
	peak, elapsed, err := measured(func() error {
		var err error
		md, err = chinsuter.Fit(kern, X.Slice(0, m0, 0, d), chinsuter.Options{Components: r,
			Compression: &chinsuter.Compression{PreImages: pre}})
		if err != nil {
			return err
		}
		for i := m0; i < n; i += c {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := md.AddBatch(X.Slice(i, min(i+c, n), 0, d)); err != nil {
				return err
			}
			progressFunc(progress).call(min(i+c, n), n)
		}
		return nil
	})
	if err != nil {
		return pendingRow{}, err
	}
	if md.Components() < k {
		return pendingRow{}, fmt.Errorf("tracking: Chin–Suter at r = %d holds %d components, fewer than %d", r, md.Components(), k)
	}
	scores, err := study.Scores(md, X, k)
	if err != nil {
		return pendingRow{}, err
	}
	row := &Row{Method: MethodChinSuter, Rank: r, Points: n, Params: fmt.Sprintf("m0 = %d, n′ = %d, c = %d", m0, pre, c),
		Bytes: float64(md.Bytes()), PeakRSS: peak, Seconds: elapsed.Seconds(), Values: md.Values(nil), Centred: true,
		Bound: math.NaN(), TrueError: math.NaN()}
	return pendingRow{row: row, vectors: scores}, nil
}

// every returns a callback that calls progress every step-th point and at the last.
func every(progress func(done, total int), step int) func(done, total int) {
	if progress == nil {
		return nil
	}
	return func(done, total int) {
		if done%step == 0 || done == total {
			progress(done, total)
		}
	}
}

// evaluate measures the row's model against the reference: eigenvalues, the sines of
// the top-j subspaces, and for a rank-r model (with km, the formed kernel matrix) the
// true ‖K′ − K̃‖₂ and the certificate's intervals.
func (p pendingRow) evaluate(ref *reference, k int, km *kernelMatrix) error {
	row := p.row
	vals, U := ref.values, ref.vectors
	if !row.Centred {
		vals, U = ref.uvalues, ref.uvectors
	}
	if p.all != nil {
		row.Values = p.all
	}
	if len(row.Values) < k {
		return fmt.Errorf("tracking: %s at r = %d: %d values, want %d", row.Method, row.Rank, len(row.Values), k)
	}
	row.Values = slices.Clone(row.Values[:k])
	row.EigenError, row.EigenErrorL1 = study.EigenErrors(row.Values, vals[:k])
	row.Best = study.BestGap(vals)
	var err error
	if row.Sines, err = study.Sines(U, p.vectors, k); err != nil {
		return err
	}
	if row.Method == MethodRank && km != nil {
		row.TrueError = km.truncationNorm(true, p.all, p.vectors)
		for j := range k {
			if !(p.lo[j] <= vals[j] && vals[j] <= p.hi[j]) {
				row.Outside++
			}
		}
	}
	return nil
}

// prepare sets the defaults of o and checks it for a comparison on n points.
func (o *CompareOptions) prepare(n int) error {
	if o.Components == 0 {
		o.Components = 10
	}
	if o.Chunk == 0 {
		o.Chunk = 500
	}
	if o.Python == "" {
		o.Python = "/usr/bin/python3"
	}
	if o.Script == "" {
		o.Script = "bench/sklearn_fit.py"
	}
	k := o.Components
	if len(o.Ranks) == 0 {
		return fmt.Errorf("%w: no ranks", study.ErrOptions)
	}
	maxRank := slices.Max(o.Ranks)
	if o.M0 == 0 {
		o.M0 = min(2*maxRank, n)
	}
	switch {
	case k < 1 || slices.Min(o.Ranks) < k:
		return fmt.Errorf("%w: %d components, ranks %v: every rank must be at least the components compared", study.ErrOptions, k, o.Ranks)
	case o.M0 <= maxRank || o.M0 >= n:
		return fmt.Errorf("%w: a batch start of %d points must exceed every rank (%d) and be less than the %d points", study.ErrOptions, o.M0, maxRank, n)
	case o.ExactN != 0 && (o.ExactN <= o.M0 || o.ExactN > n):
		return fmt.Errorf("%w: exact growth to %d points: must be more than the batch start %d and at most %d", study.ErrOptions, o.ExactN, o.M0, n)
	case o.SketchRows > 0 && o.SketchRows < k:
		return fmt.Errorf("%w: SKPCA's %d sketch rows give fewer than %d components", study.ErrOptions, o.SketchRows, k)
	case o.SketchRows > n:
		return fmt.Errorf("%w: SKPCA's %d sketch rows: more than the %d points", study.ErrOptions, o.SketchRows, n)
	case o.Chunk < 1:
		return fmt.Errorf("%w: Chin–Suter chunks of %d points", study.ErrOptions, o.Chunk)
	}
	for _, r := range o.ChinSuterRanks {
		if !slices.Contains(o.Ranks, r) {
			return fmt.Errorf("%w: Chin–Suter at r = %d, not one of the ranks %v", study.ErrOptions, r, o.Ranks)
		}
	}
	for _, s := range o.Sklearn {
		if s != "dense" && s != "arpack" {
			return fmt.Errorf("%w: scikit-learn solver %q (want dense or arpack)", study.ErrOptions, s)
		}
	}
	return nil
}
