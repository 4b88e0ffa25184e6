package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/internal/featurespace"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/yardstick"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/stream"
)

// ChinSuterOptions configure the Chin–Suter experiments.
type ChinSuterOptions struct {
	// Sizes are the toy sizes n timed (the seed paper's 520 … 3100).
	Sizes []int
	// Components r, PreImages n′ and Chunk c of the compressed Chin–Suter model.
	Components, PreImages, Chunk int
	// KHAPasses and KHARate configure the kernel Hebbian baseline (Components
	// components).
	KHAPasses int
	KHARate   float64
	// ExactMax is the largest n at which the exact incremental models (ours, bordered,
	// and Chin–Suter uncompressed) are timed on the toy: their total cost grows as n⁴.
	ExactMax int
	// StreamN points are streamed to the compressed model, checked against batch
	// kernel PCA every StreamEvery points, for chunk sizes 1 and Chunk.
	StreamN, StreamEvery int
	// CostSizes are the m of the per-point cost comparison, CostSteps the steps timed
	// at each (the median is reported).
	CostSizes []int
	CostSteps int
	Seed      uint64
	// Progress, if set, is called after each unit of work with a short label.
	Progress func(string)
}

// TimingRow is the training time of one method at one toy size.
type TimingRow struct {
	N       int
	Method  string
	Seconds float64
}

// ProjectionSeries holds the projections of the training points onto one kernel
// principal component, for batch kernel PCA and each incremental method (sign-aligned
// with batch), and their relative RMS difference from batch.
type ProjectionSeries struct {
	Component int
	X         []float64            // the points' first coordinate
	Batch     []float64            // batch scores
	Methods   map[string][]float64 // method → scores
	RelRMS    map[string]float64   // method → ‖s − s_batch‖/‖s_batch‖
}

// StreamRow is one checkpoint of the compressed model on a long stream.
type StreamRow struct {
	Chunk, N              int
	Sine1, Sine3          float64 // principal-angle sines of the top 1 and 3 axes to batch
	Lambda1Rel            float64 // |λ₁ − λ₁,batch|/λ₁,batch
	Orthogonality         float64 // ‖α′ᵀK′α′ − I‖₂ after the last compression
	Expansion, Bytes      int
	ResidualComponents    float64
	ResidualMean          float64
	SecondsPerPoint       float64
	BatchSecondsAtN       float64
	PreImagesBudget, Rank int
}

// CostRow is the per-point cost of the exact updates at one size m, each step paired
// with one m×m×m dgemm timed just before it.
type CostRow struct {
	M            int
	Dgemm        float64 // seconds, median
	SVD          float64 // seconds: dgesvd (left vectors) of an (m+1)×(m+2) matrix, the size of F
	ChinSuter    float64 // seconds per point, exact Chin–Suter (all components kept)
	Bordered     float64 // seconds per point, our mean-adjusted bordered update
	Paper        float64 // seconds per point, the seed paper's four rank-one updates
	CSComponents int     // r kept by Chin–Suter at m
	// Flop counts of the operations performed (analytic), in units of m³.
	CSFlops, BorderedFlops, PaperFlops float64
}

// ChinSuterResult holds all the experiments.
type ChinSuterResult struct {
	Options     ChinSuterOptions
	Backend     string
	Timing      []TimingRow
	Exponents   map[string]float64 // method → fitted exponent of time against n
	Projections []ProjectionSeries
	ProjN       int
	Exact       []ExactRow
	Stream      []StreamRow
	Cost        []CostRow
}

// ExactRow compares the exact Chin–Suter model with batch kernel PCA at one toy size.
type ExactRow struct {
	N int
	// Kept is the number of components the model holds; Batch the number of batch
	// eigenvalues above 1e-10·λ₁.
	Kept, Batch int
	// MaxEigenError is max |λ_j − λ_j,batch|/λ₁ over the components both hold.
	MaxEigenError float64
	// TopK is the largest k ≤ 10 with a gap λ_k − λ_{k+1} ≥ 1e-3·λ₁, Sine the sine of
	// the largest principal angle between the top-k subspaces and Orthogonality
	// ‖YᵀY − I‖₂ of the model's top-k axes, both in explicit feature coordinates.
	TopK                int
	Sine, Orthogonality float64
}

const (
	methodBatch   = "batch KPCA"
	methodCS      = "Chin–Suter (compressed)"
	methodCSExact = "Chin–Suter (exact)"
	methodKHA     = "KHA"
	methodOurs    = "ikpca (bordered, exact)"
)

// ChinSuter runs the experiments: training time on the seed paper's toy against n,
// projections onto the first components against batch, the compressed model over a long
// stream, and the per-point cost of the exact updates. It stops early with ctx's error
// when ctx is done.
func ChinSuter(ctx context.Context, o ChinSuterOptions) (*ChinSuterResult, error) {
	if len(o.Sizes) == 0 || o.Components < 1 || o.PreImages < 1 || o.Chunk < 1 || o.KHAPasses < 1 || !(o.KHARate > 0) ||
		o.StreamN < 0 || (o.StreamN > 0 && o.StreamEvery < 1) || o.CostSteps < 1 {
		return nil, errors.New("experiment: chinsuter needs sizes, r, n′, c, KHA passes ≥ 1, a positive KHA rate, stream every ≥ 1 and cost steps ≥ 1")
	}
	for _, n := range o.Sizes {
		if n < 20 {
			return nil, fmt.Errorf("experiment: toy size %d < 20", n)
		}
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	res := &ChinSuterResult{Options: o, Backend: native.Compiled, Exponents: map[string]float64{}}
	k := kernel.RBF{Sigma: 1}
	rng := rand.New(rand.NewPCG(o.Seed, 8))
	maxN := slices.Max(o.Sizes)
	all := testmat.Toy(max(maxN, o.StreamN), rng)

	// 1. Training time against n, and projections at the smallest n.
	for _, n := range o.Sizes {
		X := mat.DenseCopyOf(all.Slice(0, n, 0, 2))
		times, models, err := trainToy(ctx, k, X, o)
		if err != nil {
			return nil, err
		}
		for _, m := range []string{methodBatch, methodCS, methodKHA, methodOurs, methodCSExact} {
			if s, ok := times[m]; ok {
				res.Timing = append(res.Timing, TimingRow{N: n, Method: m, Seconds: s})
			}
		}
		if models.exact != nil {
			row, err := exactAccuracy(k, X, models)
			if err != nil {
				return nil, err
			}
			res.Exact = append(res.Exact, row)
		}
		if n == slices.Min(o.Sizes) {
			res.ProjN = n
			if res.Projections, err = projections(X, models); err != nil {
				return nil, err
			}
		}
		progress(fmt.Sprintf("toy n=%d", n))
	}
	for _, m := range []string{methodBatch, methodCS, methodKHA, methodOurs, methodCSExact} {
		var ns, ts []float64
		for _, r := range res.Timing {
			if r.Method == m && r.Seconds > 0 {
				ns, ts = append(ns, float64(r.N)), append(ts, r.Seconds)
			}
		}
		if len(ns) >= 2 {
			res.Exponents[m] = logSlope(ns, ts)
		}
	}

	// 2. The compressed model over a long stream.
	if o.StreamN > 0 {
		for _, c := range uniqueInts(1, o.Chunk) {
			rows, err := longStream(ctx, k, all.Slice(0, o.StreamN, 0, 2).(*mat.Dense), c, o)
			if err != nil {
				return nil, err
			}
			res.Stream = append(res.Stream, rows...)
			progress(fmt.Sprintf("stream c=%d", c))
		}
	}

	// 3. Per-point cost of the exact updates.
	for _, m := range o.CostSizes {
		row, err := costAt(ctx, m, o)
		if err != nil {
			return nil, err
		}
		res.Cost = append(res.Cost, row)
		progress(fmt.Sprintf("cost m=%d", m))
	}
	return res, nil
}

func uniqueInts(a, b int) []int {
	if a == b {
		return []int{a}
	}
	return []int{a, b}
}

// toyModels are the trained models of one toy size, for the projections.
type toyModels struct {
	batchValues []float64
	batchU      *mat.Dense
	cs          *chinsuter.Model
	kha         *stream.KHA
	exact       *chinsuter.Model // nil above ExactMax
}

// trainToy trains every method on X and returns the training times in seconds.
func trainToy(ctx context.Context, k kernel.Kernel, X *mat.Dense, o ChinSuterOptions) (map[string]float64, toyModels, error) {
	n := X.RawMatrix().Rows
	times := map[string]float64{}
	var models toyModels

	// Batch kernel PCA: kernel matrix, centring, eigendecomposition with vectors.
	start := time.Now()
	vals, u, err := batchKPCA(k, X)
	if err != nil {
		return nil, models, err
	}
	times[methodBatch] = time.Since(start).Seconds()
	models.batchValues, models.batchU = vals, u
	if err := ctx.Err(); err != nil {
		return nil, models, err
	}

	// Chin–Suter, compressed: a batch start on the first chunk, then chunks of c.
	start = time.Now()
	c0 := min(o.Chunk, n)
	cs, err := chinsuter.New(k, X.Slice(0, max(c0, 2), 0, 2), chinsuter.Options{Components: o.Components,
		Compression: &chinsuter.Compression{PreImages: o.PreImages}})
	if err != nil {
		return nil, models, err
	}
	for i := max(c0, 2); i < n; i += o.Chunk {
		if err := cs.AddBatch(X.Slice(i, min(i+o.Chunk, n), 0, 2)); err != nil {
			return nil, models, err
		}
	}
	times[methodCS] = time.Since(start).Seconds()
	models.cs = cs
	if err := ctx.Err(); err != nil {
		return nil, models, err
	}

	// KHA: the points, then the passes.
	start = time.Now()
	kha, err := stream.NewKHA(k, 2, stream.KHAOptions{Components: o.Components, Rate: o.KHARate, Seed: o.Seed})
	if err != nil {
		return nil, models, err
	}
	for i := range n {
		if err := kha.Add(X.RawRowView(i)); err != nil {
			return nil, models, err
		}
	}
	for range o.KHAPasses - 1 {
		if err := kha.Pass(); err != nil {
			return nil, models, err
		}
		if err := ctx.Err(); err != nil {
			return nil, models, err
		}
	}
	times[methodKHA] = time.Since(start).Seconds()
	models.kha = kha

	if n <= o.ExactMax {
		// Our exact incremental model, one point at a time from two points.
		start = time.Now()
		md, err := kpca.New(k, X.Slice(0, 2, 0, 2), kpca.Options{})
		if err != nil {
			return nil, models, err
		}
		if err := addEach(ctx, X, 2, md.Add); err != nil {
			return nil, models, err
		}
		times[methodOurs] = time.Since(start).Seconds()

		// Chin–Suter exact, one point at a time.
		start = time.Now()
		ex, err := chinsuter.New(k, X.Slice(0, 2, 0, 2), chinsuter.Options{})
		if err != nil {
			return nil, models, err
		}
		if err := addEach(ctx, X, 2, ex.Add); err != nil {
			return nil, models, err
		}
		times[methodCSExact] = time.Since(start).Seconds()
		models.exact = ex
	}
	return times, models, nil
}

// exactAccuracy compares the exact Chin–Suter model with batch kernel PCA of X, the
// subspaces in explicit feature coordinates (package featurespace).
func exactAccuracy(k kernel.Kernel, X *mat.Dense, m toyModels) (ExactRow, error) {
	got := m.exact.Values(nil)
	vals := m.batchValues
	row := ExactRow{N: X.RawMatrix().Rows, Kept: len(got)}
	for _, v := range vals {
		if v > 1e-10*vals[0] {
			row.Batch++
		}
	}
	for j := range min(len(got), row.Batch) {
		row.MaxEigenError = math.Max(row.MaxEigenError, math.Abs(got[j]-vals[j])/vals[0])
	}
	for j := 1; j <= min(10, len(got), len(vals)-1); j++ {
		if vals[j-1]-vals[j] >= 1e-3*vals[0] {
			row.TopK = j
		}
	}
	if row.TopK == 0 {
		return row, nil
	}
	pts, alpha, _ := m.exact.Expansions()
	p, err := featurespace.NewPair(k, X, pts)
	if err != nil {
		return row, err
	}
	n, kk := X.RawMatrix().Rows, row.TopK
	ab := mat.NewDense(n, kk, nil)
	for j := range kk {
		s := 1 / math.Sqrt(vals[j])
		for i := range n {
			ab.Set(i, j, m.batchU.At(i, j)*s)
		}
	}
	ym := p.A(alpha.Slice(0, pts.RawMatrix().Rows, 0, kk))
	row.Sine, err = featurespace.Sine(ym, p.X(ab))
	row.Orthogonality = featurespace.Orthogonality(ym)
	return row, err
}

// addEach adds the rows of X from row `from` on, one at a time, checking ctx every 64.
func addEach(ctx context.Context, X *mat.Dense, from int, add func([]float64) error) error {
	n := X.RawMatrix().Rows
	for i := from; i < n; i++ {
		if err := add(X.RawRowView(i)); err != nil {
			return err
		}
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// batchKPCA returns the eigenvalues (descending) and unit eigenvectors of the centred
// kernel matrix of X.
func batchKPCA(k kernel.Kernel, X *mat.Dense) ([]float64, *mat.Dense, error) {
	K := kernel.Centre(kernel.Matrix(k, X))
	n := K.SymmetricDim()
	var vecs mat.Dense
	asc, err := native.EigenSym(nil, &vecs, K)
	if err != nil {
		return nil, nil, err
	}
	vals := make([]float64, n)
	u := mat.NewDense(n, n, nil)
	for j := range n {
		vals[j] = asc[n-1-j]
		for i := range n {
			u.Set(i, j, vecs.At(i, n-1-j))
		}
	}
	return vals, u, nil
}

// projections compares the scores of the training points on the first three
// components: batch u_j·√λ_j (the centred projections), Chin–Suter's and KHA's
// Transform, each sign-aligned with batch.
func projections(X *mat.Dense, m toyModels) ([]ProjectionSeries, error) {
	n := X.RawMatrix().Rows
	k := min(3, m.cs.Components())
	var cs, kha mat.Dense
	if err := m.cs.Transform(&cs, X, k); err != nil {
		return nil, err
	}
	if err := m.kha.Transform(&kha, X, k); err != nil {
		return nil, err
	}
	out := make([]ProjectionSeries, k)
	for j := range k {
		s := ProjectionSeries{Component: j + 1, X: make([]float64, n), Batch: make([]float64, n),
			Methods: map[string][]float64{}, RelRMS: map[string]float64{}}
		sq := math.Sqrt(math.Max(m.batchValues[j], 0))
		for i := range n {
			s.X[i] = X.At(i, 0)
			s.Batch[i] = m.batchU.At(i, j) * sq
		}
		for name, sc := range map[string]*mat.Dense{methodCS: &cs, methodKHA: &kha} {
			v := mat.Col(nil, j, sc)
			var dot, num, den float64
			for i := range n {
				dot += v[i] * s.Batch[i]
			}
			if dot < 0 {
				for i := range v {
					v[i] = -v[i]
				}
			}
			for i := range n {
				num += (v[i] - s.Batch[i]) * (v[i] - s.Batch[i])
				den += s.Batch[i] * s.Batch[i]
			}
			s.Methods[name] = v
			s.RelRMS[name] = math.Sqrt(num / den)
		}
		out[j] = s
	}
	return out, nil
}

// longStream streams X to a compressed model in chunks of c and compares it with batch
// kernel PCA of the points so far every o.StreamEvery points.
func longStream(ctx context.Context, k kernel.Kernel, X *mat.Dense, c int, o ChinSuterOptions) ([]StreamRow, error) {
	n := X.RawMatrix().Rows
	start := min(max(c, 2), n)
	md, err := chinsuter.New(k, X.Slice(0, start, 0, 2), chinsuter.Options{Components: o.Components,
		Compression: &chinsuter.Compression{PreImages: o.PreImages}})
	if err != nil {
		return nil, err
	}
	var rows []StreamRow
	next := o.StreamEvery
	var train time.Duration
	for i := start; i < n; i += c {
		t0 := time.Now()
		if err := md.AddBatch(X.Slice(i, min(i+c, n), 0, 2)); err != nil {
			return nil, err
		}
		train += time.Since(t0)
		if md.Len() < next && md.Len() < n {
			continue
		}
		next += o.StreamEvery
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		Xn := mat.DenseCopyOf(X.Slice(0, md.Len(), 0, 2))
		t0 = time.Now()
		vals, u, err := batchKPCA(k, Xn)
		if err != nil {
			return nil, err
		}
		bt := time.Since(t0)
		got := md.Values(nil)
		st := md.Stats()
		row := StreamRow{Chunk: c, N: md.Len(), Lambda1Rel: math.Abs(got[0]-vals[0]) / vals[0],
			Orthogonality: st.Orthogonality, Expansion: md.Expansion(), Bytes: md.Bytes(),
			ResidualComponents: st.ResidualComponents, ResidualMean: st.ResidualMean,
			SecondsPerPoint: train.Seconds() / float64(md.Len()-start), BatchSecondsAtN: bt.Seconds(),
			PreImagesBudget: (o.Components + 1) * o.PreImages, Rank: md.Components()}
		row.Sine1 = sineToBatch(md, k, Xn, vals, u, 1)
		row.Sine3 = sineToBatch(md, k, Xn, vals, u, min(3, md.Components()))
		rows = append(rows, row)
	}
	return rows, nil
}

// sineToBatch returns the sine of the largest principal angle between the model's top k
// axes and batch kernel PCA's: the cosines are the singular values of
// (u/√λ)ᵀK(X, A)α (kernel trick; adequate above √ε).
func sineToBatch(md *chinsuter.Model, k kernel.Kernel, X *mat.Dense, vals []float64, u *mat.Dense, r int) float64 {
	pts, alpha, _ := md.Expansions()
	n, N := X.RawMatrix().Rows, pts.RawMatrix().Rows
	kxa := mat.NewDense(n, N, nil)
	col := make([]float64, N)
	for i := range n {
		kernel.Column(col, k, pts, X.RawRowView(i))
		kxa.SetRow(i, col)
	}
	ab := mat.NewDense(n, r, nil)
	for j := range r {
		s := 1 / math.Sqrt(vals[j])
		for i := range n {
			ab.Set(i, j, u.At(i, j)*s)
		}
	}
	var tmp, c mat.Dense
	tmp.Mul(kxa, alpha.Slice(0, N, 0, r))
	c.Mul(ab.T(), &tmp)
	var svd mat.SVD
	if !svd.Factorize(&c, mat.SVDNone) {
		return math.NaN()
	}
	worst := 0.0
	for _, v := range svd.Values(nil) {
		worst = math.Max(worst, math.Sqrt(math.Max(0, 1-v*v)))
	}
	return worst
}

// costAt measures one step of each exact update at size m on 10-dimensional Gaussian
// points with the RBF kernel of bandwidth √10 (a kernel matrix of full numerical rank,
// so that Chin–Suter keeps all m−1 components and nothing deflates trivially).
func costAt(ctx context.Context, m int, o ChinSuterOptions) (CostRow, error) {
	const d = 10
	rng := rand.New(rand.NewPCG(o.Seed, uint64(m)))
	steps := o.CostSteps
	X := mat.NewDense(m+steps, d, nil)
	for i := range m + steps {
		for j := range d {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	k := kernel.RBF{Sigma: math.Sqrt(d)}
	stick := yardstick.New(m)
	row := CostRow{M: m}
	x0 := X.Slice(0, m, 0, d)

	var gemm []float64
	timeSteps := func(add func(i int) error) (float64, error) {
		var ts []float64
		for s := range steps {
			gemm = append(gemm, stick.Dgemm().Seconds())
			t0 := time.Now()
			if err := add(m + s); err != nil {
				return 0, err
			}
			ts = append(ts, time.Since(t0).Seconds())
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		return median(ts), nil
	}

	cs, err := chinsuter.New(k, x0, chinsuter.Options{})
	if err != nil {
		return row, err
	}
	row.CSComponents = cs.Components()
	if row.ChinSuter, err = timeSteps(func(i int) error { return cs.Add(X.RawRowView(i)) }); err != nil {
		return row, err
	}
	for _, method := range []kpca.Method{kpca.Bordered, kpca.RankOne} {
		md, err := kpca.New(k, x0, kpca.Options{Method: method})
		if err != nil {
			return row, err
		}
		md.Reserve(m + steps)
		t, err := timeSteps(func(i int) error { return md.Add(X.RawRowView(i)) })
		if err != nil {
			return row, err
		}
		if method == kpca.Bordered {
			row.Bordered = t
		} else {
			row.Paper = t
		}
	}
	row.Dgemm = median(gemm)

	// The SVD of a matrix of F's size alone, as the update computes it (native.SVDLeft).
	F := make([]float64, (m+1)*(m+2))
	for i := range m + 1 {
		F[i*(m+2)+i] = float64(m - i)
		F[i*(m+2)+m+1] = rng.NormFloat64()
	}
	sv, u := make([]float64, m+1), make([]float64, (m+1)*(m+1))
	t0 := time.Now()
	if err := native.SVDLeft(m+1, m+2, F, m+2, sv, u, m+1); err != nil {
		return row, err
	}
	row.SVD = time.Since(t0).Seconds()

	// Analytic flop counts, in m³: Chin–Suter P = K_A·α (2m³), the new coefficients
	// (2m³) and the SVD of F (Golub & Van Loan's count for Σ and U₁ of a square matrix by
	// QR iteration, 12m³; divide and conquer does less when it deflates); ours one
	// dgemm (2m³); the paper's four rank-one updates, one m×m×m product each (8m³).
	row.CSFlops, row.BorderedFlops, row.PaperFlops = 16, 2, 8
	return row, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// logSlope fits log y = a + b log x by least squares and returns b.
func logSlope(xs, ys []float64) float64 {
	var sx, sy, sxx, sxy float64
	n := float64(len(xs))
	for i := range xs {
		x, y := math.Log(xs[i]), math.Log(ys[i])
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
