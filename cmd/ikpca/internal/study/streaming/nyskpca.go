package streaming

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/lanczos"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/stream"
)

// NystromDataSets are the data sets of the Nyström kernel PCA study: MAGIC and Yeast
// (columns standardised) and a9a (123 binary columns, as they are).
var NystromDataSets = []string{"magic", "yeast", "a9a"}

// NystromOptions configure NystromKPCA, the accuracy of Nyström kernel PCA (package
// nystrom) against exact kernel PCA of the same points, for each landmark strategy and
// number of landmarks, beside SKPCA at the same memory.
type NystromOptions struct {
	// Dataset is one of NystromDataSets.
	Dataset string
	// N is the number of points, drawn in a seeded random order (0 or more than the data
	// set has: all of them).
	N int
	// Ranks are the numbers r of landmarks.
	Ranks []int
	// Strategies are the landmark strategies compared (empty: all three).
	Strategies []nystrom.Strategy
	// Components is the number k of leading eigenpairs compared (0: 10).
	Components int
	// SketchRows is SKPCA's ℓ (0: 2k); its feature dimension D is the largest even
	// number that keeps its memory within the Nyström model's at each r. Negative:
	// no SKPCA.
	SketchRows int
	Seed       uint64
	// Progress, if set, is called after each model with the models done and their total.
	Progress func(done, total int)
}

// NystromRow is one model.
type NystromRow struct {
	// Method is "uniform", "stream" or "greedy" (Nyström kernel PCA with landmarks so
	// chosen), or "skpca".
	Method string
	// Rank is r, the number of landmarks (for SKPCA, the r whose memory it matches);
	// Features the dimension r' of the Nyström feature map (SKPCA: D) and Ell SKPCA's ℓ.
	Rank, Features, Ell int
	// Bytes is the model's memory (ikpca.Model.Bytes).
	Bytes int
	// EigenError is max over the top k of |λ̂ⱼ − λⱼ|/λ₁, RelativeError of |λ̂ⱼ − λⱼ|/λⱼ,
	// against exact kernel PCA: centred for Nyström kernel PCA, uncentred for SKPCA (as
	// the paper's model).
	EigenError, RelativeError float64
	// Sine is the sine of the largest principal angle between the span of the top k
	// eigenvectors of the exact (n×n) kernel matrix and that of the model's, the
	// columns of its scores of the n points; SineBest the same for the top k* ≤ k, k*
	// the best-separated leading subspace of the exact matrix (NystromResult.Best),
	// which unlike the top k (whose λₖ and λₖ₊₁ may nearly tie) is well determined.
	Sine, SineBest float64
	// KernelEvals counts the kernel values computed to choose the landmarks and fit
	// (SKPCA: none), and Flops estimates the floating-point operations besides them.
	KernelEvals, Flops float64
	// Time is the wall time of choosing and fitting, on the machine that ran the study.
	Time time.Duration
	// Values are the model's top k eigenvalues.
	Values []float64
}

// NystromResult holds the study of one data set.
type NystromResult struct {
	Options NystromOptions
	N, Dim  int
	Sigma   float64 // bandwidth (median heuristic)
	// Exact and ExactUncentred are the top k+1 eigenvalues of the centred and uncentred
	// kernel matrices.
	Exact, ExactUncentred []float64
	// Best and BestUncentred are k*: the j ≤ k with the largest gap λⱼ − λⱼ₊₁ of the
	// centred and uncentred exact spectra.
	Best, BestUncentred int
	Rows                []NystromRow
}

// loadNystrom returns n points of the data set in a seeded random order, MAGIC's and
// Yeast's columns standardised.
func loadNystrom(name string, n int, seed uint64) (*mat.Dense, error) {
	if !slices.Contains(NystromDataSets, name) {
		return nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, name, NystromDataSets)
	}
	ds, _ := data.ByName(name)
	X := ds.X
	rows, _ := X.Dims()
	if n <= 0 || n > rows {
		n = rows
	}
	out := synth.SelectRows(X, rand.New(rand.NewPCG(seed, 0x5eed)).Perm(rows)[:n])
	if name != "a9a" { // binary features, as they are
		synth.Standardise(out)
	}
	return out, nil
}

// NystromKPCA runs the study on one data set: the exact top k+1 eigenpairs of the
// centred and uncentred n×n kernel matrices (Gaussian kernel, median-distance
// bandwidth; Lanczos to a residual of 1e-12·λ₁), then for every r and strategy a
// Nyström kernel PCA model fitted to the n points (nystrom.Fit), and SKPCA with the same
// memory. It stops early with ctx's error when ctx is done.
func NystromKPCA(ctx context.Context, o NystromOptions) (*NystromResult, error) {
	o = o.withDefaults()
	X, err := loadNystrom(o.Dataset, o.N, o.Seed)
	if err != nil {
		return nil, err
	}
	n, d := X.Dims()
	if err := o.check(n); err != nil {
		return nil, err
	}
	k := o.Components
	sigma, err := kernel.MedianDistance(X, min(n, 2000))
	if err != nil {
		return nil, err
	}
	kern := kernel.RBF{Sigma: sigma}
	res := &NystromResult{Options: o, N: n, Dim: d, Sigma: sigma}

	ref, err := nystromReferences(ctx, kern, X, k, o.Seed)
	if err != nil {
		return nil, err
	}
	res.Exact, res.ExactUncentred = ref.exact, ref.exactU
	res.Best, res.BestUncentred = study.BestGap(ref.exact), study.BestGap(ref.exactU)

	if err := res.fitModels(ctx, kern, X, ref); err != nil {
		return nil, err
	}
	return res, nil
}

// withDefaults returns o with its defaults filled in: 10 components, ℓ = 2k sketch
// rows, and all three landmark strategies.
func (o NystromOptions) withDefaults() NystromOptions {
	if o.Components == 0 {
		o.Components = 10
	}
	if o.SketchRows == 0 {
		o.SketchRows = 2 * o.Components
	}
	if len(o.Strategies) == 0 {
		o.Strategies = []nystrom.Strategy{nystrom.Uniform, nystrom.Stream, nystrom.Greedy}
	}
	return o
}

// nystromReference is exact kernel PCA of the study's points, which every model is
// measured against: the top k+1 eigenvalues of the centred and uncentred kernel
// matrices, and their top k eigenvectors.
type nystromReference struct {
	exact, exactU []float64
	Uk, UUk       *mat.Dense
}

// nystromReferences computes the exact references of the n points X by Lanczos on the
// centred and uncentred kernel matrices (seeds seed and seed+1). The n×n kernel matrix
// is built here so that it is released on return, before any model is fitted.
func nystromReferences(ctx context.Context, kern kernel.RBF, X *mat.Dense, k int, seed uint64) (nystromReference, error) {
	n, _ := X.Dims()
	km := study.NewKernelMatrix(kern, X)
	exact, U, err := lanczos.Top(ctx, n, k+1, km.Centred, 1e-12, 600, seed)
	if err != nil {
		return nystromReference{}, err
	}
	exactU, UU, err := lanczos.Top(ctx, n, k+1, km.Uncentred, 1e-12, 600, seed+1)
	if err != nil {
		return nystromReference{}, err
	}
	return nystromReference{exact: exact, exactU: exactU,
		Uk: U.Slice(0, n, 0, k).(*mat.Dense), UUk: UU.Slice(0, n, 0, k).(*mat.Dense)}, nil
}

// fitModels fits, for every r of the options, a Nyström kernel PCA model with each
// landmark strategy and then SKPCA within the memory of the uniform one (or of the
// first strategy's, without uniform), and adds their rows to r.Rows. It reports the
// progress after each model and stops with ctx's error when ctx is done.
func (r *NystromResult) fitModels(ctx context.Context, kern kernel.RBF, X *mat.Dense, ref nystromReference) error {
	o, k := r.Options, r.Options.Components
	total := len(o.Ranks) * len(o.Strategies)
	if o.SketchRows > 0 {
		total += len(o.Ranks)
	}
	for _, rank := range o.Ranks {
		var budget int
		for _, s := range o.Strategies {
			row, err := nystromRow(kern, X, rank, s, o.Seed, k, ref.exact, ref.Uk, r.Best)
			if err != nil {
				return err
			}
			r.Rows = append(r.Rows, row)
			if s == nystrom.Uniform || budget == 0 {
				budget = row.Bytes
			}
			if err := r.modelDone(ctx, total); err != nil {
				return err
			}
		}
		if o.SketchRows <= 0 {
			continue
		}
		row, err := skpcaAtMemory(X, r.Sigma, o.SketchRows, budget, o.Seed, k, r.BestUncentred, ref.exactU[:k], ref.UUk)
		if err != nil {
			return err
		}
		row.Rank = rank
		r.Rows = append(r.Rows, row)
		if err := r.modelDone(ctx, total); err != nil {
			return err
		}
	}
	return nil
}

// modelDone reports the models done of total after each model, and returns ctx's
// error, so that the study stops between models when ctx is done.
func (r *NystromResult) modelDone(ctx context.Context, total int) error {
	if r.Options.Progress != nil {
		r.Options.Progress(len(r.Rows), total)
	}
	return ctx.Err()
}

// nystromRow fits Nyström kernel PCA to X with r landmarks chosen by s and measures
// its top k components against the exact ones (eigenvalues exact, vectors Uk, of
// best gap best).
func nystromRow(kern kernel.RBF, X *mat.Dense, r int, s nystrom.Strategy, seed uint64, k int, exact []float64, Uk *mat.Dense, best int) (NystromRow, error) {
	t0 := time.Now()
	m, err := nystrom.Fit(kern, X, nystrom.Options{Landmarks: r, Strategy: s, Seed: seed})
	if err != nil {
		return NystromRow{}, err
	}
	vals := m.Values(nil)
	elapsed := time.Since(t0)
	if len(vals) < k {
		return NystromRow{}, fmt.Errorf("streaming: %v landmarks, r = %d: only %d components", s, r, len(vals))
	}
	row := NystromRow{Method: s.String(), Rank: m.Options().Landmarks, Features: m.Features(), Bytes: m.Bytes(), Time: elapsed,
		Values: slices.Clone(vals[:k])}
	row.KernelEvals, row.Flops = nystromCost(s, X, m)
	row.RelativeError, row.EigenError = study.EigenErrors(vals[:k], exact[:k])
	sines, err := scoreSines(m, X, Uk, k, best)
	if err != nil {
		return NystromRow{}, err
	}
	row.Sine, row.SineBest = sines[0], sines[1]
	return row, nil
}

// scoreSines returns, for each j of ks (at most the columns of U), the sine of the
// largest principal angle between the span of the first j columns of U (n×k,
// orthonormal) and that of the model's scores of the rows of X on its top j components:
// those are its eigenvectors of the n×n approximate kernel matrix, times √λ.
func scoreSines(m study.Transformer, X *mat.Dense, U *mat.Dense, ks ...int) ([]float64, error) {
	k := slices.Max(ks)
	sc, err := study.Scores(m, X, k)
	if err != nil {
		return nil, err
	}
	all, err := study.Sines(U, sc, k)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(ks))
	for i, j := range ks {
		out[i] = all[j-1]
	}
	return out, nil
}

// nystromCost counts the kernel values a fit by strategy s computed — Choose's and the
// model's, r(r+1)/2 for K_LL and n·r for the points — and estimates its other flops:
// the eigendecomposition of K_LL (≈ 9r³, dsyevd with vectors), the features (2n·r·r'),
// their outer products (n·r'², dsyrk) and the compensated sums (≈ 3r'²·n/64), plus
// Stream's triangular solves (r² per row read) or Greedy's dgemvs (n·r² in all).
func nystromCost(s nystrom.Strategy, X *mat.Dense, m *nystrom.Model) (evals, flops float64) {
	n, _ := X.Dims()
	fn, r, p := float64(n), float64(m.Options().Landmarks), float64(m.Features())
	evals = r*(r+1)/2 + fn*r
	flops = 9*r*r*r + 2*fn*r*p + fn*p*p + 3*p*p*fn/64
	switch s {
	case nystrom.Stream:
		// The rows read: up to the last landmark, found in X.
		var L mat.Dense
		m.Landmarks(&L)
		last := rowOf(X, L.RawRowView(m.Options().Landmarks-1))
		kept := 0
		for i := 0; i <= last; i++ {
			if kept < m.Options().Landmarks && slices.Equal(X.RawRowView(i), L.RawRowView(kept)) {
				kept++
			}
			evals += float64(kept + 1)
			flops += float64(kept * kept)
		}
	case nystrom.Greedy:
		evals += fn * (r + 1)
		flops += fn * r * r
	}
	return evals, flops
}

// rowOf returns the index of the first row of X equal to x.
func rowOf(X *mat.Dense, x []float64) int {
	n, _ := X.Dims()
	for i := range n {
		if slices.Equal(X.RawRowView(i), x) {
			return i
		}
	}
	return n - 1
}

// skpcaAtMemory fits SKPCA (ℓ sketch rows, random Fourier features of the same Gaussian
// kernel; the paper's uncentred model, as the committed results were) with the largest
// even D whose memory is at most budget bytes, one point at a time, and measures it
// against the exact uncentred kernel PCA (values want, vectors U).
func skpcaAtMemory(X *mat.Dense, sigma float64, ell, budget int, seed uint64, k, best int, want []float64, U *mat.Dense) (NystromRow, error) {
	n, d := X.Dims()
	rbf := kernel.RBF{Sigma: sigma}
	opts := stream.SKPCAOptions{Sketch: ell, Seed: seed, Uncentred: true}.AtMemory(rbf, d, budget)
	D := opts.Features
	t0 := time.Now()
	s, err := stream.NewSKPCA(rbf, d, opts)
	if err != nil {
		return NystromRow{}, err
	}
	for i := range n {
		if err := s.Add(X.RawRowView(i)); err != nil {
			return NystromRow{}, err
		}
	}
	vals := s.Values(nil)
	// Flops: per point the features (d·D for the products with the D/2 frequencies)
	// and the sketch's share of one SVD of its 2ℓ×D buffer every ℓ points (≈ 16ℓ·D).
	row := NystromRow{Method: "skpca", Features: D, Ell: ell, Bytes: s.Bytes(), Time: time.Since(t0),
		Flops: float64(n) * (float64(d*D) + 16*float64(D*ell))}
	if len(vals) < k {
		row.EigenError, row.RelativeError, row.Sine, row.SineBest = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		row.Values = vals
		return row, nil
	}
	row.Values = slices.Clone(vals[:k])
	row.RelativeError, row.EigenError = study.EigenErrors(vals[:k], want)
	sines, err := scoreSines(s, X, U, k, best)
	if err != nil {
		return NystromRow{}, err
	}
	row.Sine, row.SineBest = sines[0], sines[1]
	return row, nil
}

// output returns the study's table (one row per model) and its summary.
func (r *NystromResult) output() study.Output {
	o := r.Options
	k := o.Components
	t := study.NewTable("dataset", "n", "dim", "sigma", "method", "r", "features", "ell", "bytes", "eigen_error", "relative_error",
		"sine", "best_k", "sine_best", "kernel_evals", "flops", "seconds", "lambda1", "lambda_k", "exact_lambda1", "exact_lambda_k", "exact_gap_k")
	gap := func(v []float64) float64 { return (v[k-1] - v[k]) / v[0] }
	for _, row := range r.Rows {
		ex, best := r.Exact, r.Best
		if row.Method == "skpca" {
			ex, best = r.ExactUncentred, r.BestUncentred
		}
		l1, lk := math.NaN(), math.NaN()
		if len(row.Values) >= k {
			l1, lk = row.Values[0], row.Values[k-1]
		}
		t.Add(o.Dataset, r.N, r.Dim, r.Sigma, row.Method, row.Rank, row.Features, row.Ell, row.Bytes, row.EigenError, row.RelativeError,
			row.Sine, best, row.SineBest, row.KernelEvals, row.Flops, row.Time.Seconds(), l1, lk, ex[0], ex[k-1], gap(ex))
	}
	var md strings.Builder
	fmt.Fprintf(&md, "### Nyström kernel PCA on %s: n = %d points of dimension %d, Gaussian kernel σ = %.4g, top %d components\n\n",
		o.Dataset, r.N, r.Dim, r.Sigma, k)
	bestGap := func(v []float64, j int) float64 { return (v[j-1] - v[j]) / v[0] }
	fmt.Fprintf(&md, "Exact kernel PCA (Lanczos): centred λ₁ = %.5g, λ%d = %.5g, gap (λ%d − λ%d)/λ₁ = %.3g, best-separated top k* = %d (gap %.3g); uncentred λ₁ = %.5g, gap %.3g, k* = %d (gap %.3g). "+
		"Nyström kernel PCA (package nystrom) is compared with the centred one, SKPCA (ℓ = %d, D as large as the Nyström model's memory at the same r allows) with the uncentred one, as its paper defines it. "+
		"Errors over the top %d: max |Δλⱼ|/λ₁, max |Δλⱼ|/λⱼ, and the sine of the largest principal angle between the top-%d eigenvector spaces of the n×n matrices, and between the top-k* ones. "+
		"Cost: kernel values and other flops (estimated) to choose the landmarks and fit; seconds on the machine that ran it.\n\n",
		r.Exact[0], k, r.Exact[k-1], k, k+1, gap(r.Exact), r.Best, bestGap(r.Exact, r.Best), r.ExactUncentred[0], gap(r.ExactUncentred),
		r.BestUncentred, bestGap(r.ExactUncentred, r.BestUncentred), o.SketchRows, k, k)
	fmt.Fprintf(&md, "| method | r | r' (SKPCA: D) | memory KiB | max \\|Δλ\\|/λ₁ | max \\|Δλ\\|/λ | sin θ, top %d | sin θ, top k* | kernel values | flops | s |\n", k)
	fmt.Fprintf(&md, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&md, "| %s | %d | %d | %.0f | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g |\n", row.Method, row.Rank, row.Features,
			float64(row.Bytes)/1024, row.EigenError, row.RelativeError, row.Sine, row.SineBest, row.KernelEvals, row.Flops, row.Time.Seconds())
	}
	return study.Output{Name: "nyskpca-" + o.Dataset, Table: t, Markdown: md.String()}
}
