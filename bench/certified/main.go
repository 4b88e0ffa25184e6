// Command certified measures issue 21's polished and certified rank-r kernel PCA against
// a batch reference, one pass against its dgemm floor, and Nyström KPCA and SKPCA against
// the certified model; bench/certified_vs_sklearn.sh runs it beside "ikpca fit" and
// scikit-learn and turns its JSON into the tables of docs/performance.md.
//
// -mode fit (the default) loads the points — MAGIC in the seeded order of bench/points
// (data.Dataset.Shuffled(n, 1)), or the first n images of data.FashionMNIST — and fits
// kpca.Fit(RBF{σ}, X, Options{Components: R, Rank: R}): above Options.BatchMax points
// (4096 by default) that is the tracked model "ikpca fit --rank R" makes. It then
// polishes a copy of the tracked model with each number of passes of -polish
// (kpca.Model.Polish) and certifies it (kpca.Model.Certify, default options), and, with
// -ref, compares the tracked and polished top -k eigenpairs with a batch reference: the
// file bench/sklearn_fit.py --vectors writes from KernelPCA(eigen_solver="arpack"),
// whose default tol = 0 (machine precision) gives the top eigenvalues to rounding and
// their eigenvectors to rounding over the gap. It reports
//
//   - each phase's time in this process (the memory is the command's, measured by the
//     script in processes of their own);
//   - the top-k eigenvalue error max |λ̂ⱼ − λⱼ|/λ₁ and max |λ̂ⱼ − λⱼ|/λⱼ and the subspace
//     sine ‖(I − UUᵀ)V‖₂ (U the reference's k vectors, V the model's: formed, not from
//     the cosines, which cannot resolve sines below 1e-8), tracked and polished;
//   - the certificate: the widths (Upperⱼ − Lowerⱼ)/λ₁, whether the reference lies in
//     each interval (and by how much it misses, in units of λ₁: the reference is
//     scikit-learn's matrix, whose entries differ from the kernel blocks' by rounding),
//     and the sine bound beside the true sine;
//   - one pass: its flops and bytes, its time (a Polish of p passes over p, a Certify
//     over its two passes) and the same run's dgemm floor of the exact shapes a pass
//     computes (docs/design.md, "Passes over the points": K's upper triangle in strips
//     of 512 rows against the points at and after them, in blocks of 8 MiB — 2,048
//     points —, per block the (b×d)·(d×n) distance product, the (b×n)·(n×c) product
//     with the vectors and the transposed one of the block's columns right of the
//     strip's diagonal block for the rows below the strip), timed with native.Gemm on
//     the same backend.
//
// -save FILE writes the last polished model's top k pairs in the reference format, the
// yardstick of -mode compare where no batch fit is possible (70,000 images).
//
// -mode floor times only the dgemm floor of a pass with c = -rank and -rank + 30 vectors,
// for a run too long to repeat in this process (70,000 images: the script divides the
// command's own time of its passes by their number instead); with -values and -scores
// (the outputs "ikpca fit --values F --scores G --k K" wrote) it also writes the
// command's model's top k pairs as a reference file (-save), the scores' columns divided
// by √λⱼ: the unit eigenvectors (kpca.Model.Scores is U_k·Λ_k^½).
//
// -mode compare fits one approximate model to the same points and scores it against
// such a reference: -method nystrom (nystrom.Fit, -landmarks r drawn uniformly, centred)
// or -method skpca (stream.SKPCA, centred, -sketch ℓ rows, its D random Fourier
// features the most whose model (SKPCA.Bytes) fits in the memory of the Nyström model
// with -landmarks r (nystrom.Model.Bytes): the two at equal memory, as the studies
// compare them). Both define their eigenvalues on the scale of package kpca's, those of
// the centred n×n (approximated) kernel matrix, not divided by n (nystrom.Model.Values,
// package stream's documentation), so that they compare directly with the reference's.
// The sine is between the reference's k vectors and the span of the model's scores of
// the n training points (Transform), orthonormalised: the model's top-k eigenvectors of
// its own n×n matrix; "sines" holds it for the top j, every j ≤ k.
//
// The output is a JSON object (-json FILE, "-" for standard output); a log goes to
// standard error. Build it with -tags openblas:
//
//	go run -tags openblas ./bench/certified -dataset magic -n 0 -sigma S -polish 3,4 -ref arpack.ref -json magic.json
//	go run -tags openblas ./bench/certified -dataset fashion-mnist -n 70000 -polish 4 -save polished.ref -json all.json
//	go run -tags openblas ./bench/certified -mode floor -dataset fashion-mnist -n 70000 -sigma S -values V.csv -scores S.csv -save polished.ref -json floor.json
//	go run -tags openblas ./bench/certified -mode compare -method nystrom -landmarks 1000 -dataset fashion-mnist -n 70000 -sigma S -ref polished.ref -json nys.json
package main

import (
	"encoding/binary"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/bench/internal/cli"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/stream"
)

// config is the command line.
type config struct {
	mode, dataset, method string
	n, rank, k, batchMax  int
	sigma                 float64
	polish                []int
	ref, save, json       string
	values, scores        string
	certifyTracked        bool
	floorSeconds          float64
	landmarks, sketch     int
	seed                  uint64
}

func main() {
	cli.Main("certified", 2, parse, run)
}

func parse(args []string) (config, error) {
	var cfg config
	var polish string
	f := flag.NewFlagSet("certified", flag.ContinueOnError)
	f.StringVar(&cfg.mode, "mode", "fit", "fit (tracked, polished, certified), compare (an approximate model against -ref) or floor (a pass's dgemm floor; with -values and -scores, a reference)")
	f.StringVar(&cfg.values, "values", "", "floor: the --values file of ikpca fit")
	f.StringVar(&cfg.scores, "scores", "", "floor: the --scores file of ikpca fit, made a reference with -values and -save")
	f.StringVar(&cfg.dataset, "dataset", "magic", "magic (seeded order of bench/points) or fashion-mnist (the first -n images)")
	f.IntVar(&cfg.n, "n", 0, "points (0: all)")
	f.Float64Var(&cfg.sigma, "sigma", 0, "RBF bandwidth σ (0: kernel.DefaultBandwidth of the points, as ikpca fit picks it)")
	f.IntVar(&cfg.rank, "rank", 50, "rank R of the tracked model")
	f.IntVar(&cfg.k, "k", 10, "top pairs compared and saved")
	f.IntVar(&cfg.batchMax, "batch-max", 0, "kpca.Options.BatchMax (0: kpca.DefaultBatchMax; smaller tracks a small input, as ikpca fit --batch-max)")
	f.StringVar(&polish, "polish", "4", "comma-separated numbers of passes, each a Polish of a copy of the tracked model")
	f.BoolVar(&cfg.certifyTracked, "certify-tracked", true, "also certify the tracked model (two passes)")
	f.StringVar(&cfg.ref, "ref", "", "reference file (bench/sklearn_fit.py --vectors, or -save): top pairs to compare with")
	f.StringVar(&cfg.save, "save", "", "write the last polished model's top -k pairs to this reference file")
	f.StringVar(&cfg.json, "json", "-", `JSON output file ("-": standard output)`)
	f.Float64Var(&cfg.floorSeconds, "floor-seconds", 20, "time the dgemm floor on the first blocks until this many seconds, scaled to all blocks (0: every block)")
	f.StringVar(&cfg.method, "method", "nystrom", "compare: nystrom or skpca")
	f.IntVar(&cfg.landmarks, "landmarks", 1000, "compare: Nyström landmarks r (skpca: the r whose Nyström memory it gets)")
	f.IntVar(&cfg.sketch, "sketch", 20, "compare, skpca: sketch rows ℓ")
	f.Uint64Var(&cfg.seed, "seed", 1, "compare: seed of the landmarks and the random features")
	if err := f.Parse(args); err != nil {
		return cfg, err
	}
	for _, s := range strings.Split(polish, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || p < 1 || p > kpca.MaxPolishPasses {
			return cfg, fmt.Errorf("-polish %q: want passes in 1…%d, comma-separated", polish, kpca.MaxPolishPasses)
		}
		cfg.polish = append(cfg.polish, p)
	}
	switch {
	case f.NArg() > 0:
		return cfg, fmt.Errorf("unexpected arguments %q", f.Args())
	case cfg.mode != "fit" && cfg.mode != "compare" && cfg.mode != "floor":
		return cfg, fmt.Errorf("-mode %q: want fit, compare or floor", cfg.mode)
	case (cfg.values == "") != (cfg.scores == "") || (cfg.scores != "" && cfg.save == ""):
		return cfg, errors.New("-values, -scores and -save go together")
	case cfg.dataset != "magic" && cfg.dataset != "fashion-mnist":
		return cfg, fmt.Errorf("-dataset %q: want magic or fashion-mnist", cfg.dataset)
	case cfg.method != "nystrom" && cfg.method != "skpca":
		return cfg, fmt.Errorf("-method %q: want nystrom or skpca", cfg.method)
	case cfg.n < 0 || cfg.rank < 1 || cfg.k < 1 || cfg.k > cfg.rank || cfg.landmarks < 1 || cfg.sketch < 1 || cfg.batchMax < 0:
		return cfg, errors.New("need -n ≥ 0, 1 ≤ -k ≤ -rank, -landmarks and -sketch ≥ 1, -batch-max ≥ 0")
	case cfg.mode == "compare" && cfg.ref == "":
		return cfg, errors.New("-mode compare needs -ref")
	case !(cfg.sigma >= 0) || !(cfg.floorSeconds >= 0):
		return cfg, errors.New("-sigma and -floor-seconds must not be negative")
	}
	return cfg, nil
}

// logf writes a line of the log to standard error.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "certified: "+format+"\n", args...)
}

func run(cfg config) error {
	info := native.Use()
	out := map[string]any{
		"mode": cfg.mode, "dataset": cfg.dataset, "cpu": cli.CPUName(), "cpus": runtime.NumCPU(),
		"backend": info.Name, "backend_config": info.Config, "threads": info.Threads,
		"date": time.Now().UTC().Format("2006-01-02"),
	}
	t0 := time.Now()
	X, err := cli.Points(cfg.dataset, cfg.n)
	if err != nil {
		return err
	}
	m, d := X.Dims()
	out["n"], out["d"], out["load_s"] = m, d, time.Since(t0).Seconds()
	sigma := cfg.sigma
	if sigma == 0 {
		if sigma, err = kernel.DefaultBandwidth(X); err != nil {
			return err
		}
	}
	out["sigma"] = sigma
	logf("%s: %d points of dimension %d, σ = %.6g, %s (%s)", cfg.dataset, m, d, sigma, info.Name, info.Config)
	var ref *reference
	if cfg.ref != "" {
		if ref, err = readReference(cfg.ref); err != nil {
			return err
		}
		if r, _ := ref.vectors.Dims(); r != m || len(ref.values) < cfg.k {
			return fmt.Errorf("%s: a reference of %d points and %d pairs, want %d points and %d pairs", cfg.ref, r, len(ref.values), m, cfg.k)
		}
	}
	kern := kernel.RBF{Sigma: sigma}
	switch cfg.mode {
	case "compare":
		err = compare(cfg, kern, X, ref, out)
	case "floor":
		err = floorOnly(cfg, kern, X, out)
	default:
		err = fit(cfg, kern, X, ref, out)
	}
	if err != nil {
		return err
	}
	return cli.WriteJSON(cfg.json, out)
}

// fit runs -mode fit.
func fit(cfg config, kern kernel.RBF, X *mat.Dense, ref *reference, out map[string]any) error {
	m, _ := X.Dims()
	// PassMemory 1: every pass computes its kernel values, so that a pass's time is that
	// of the computation its floor bounds (a Polish that keeps them reads them in its
	// later passes, and gives the same values bit for bit).
	opts := kpca.Options{Components: cfg.rank, Rank: cfg.rank, BatchMax: cfg.batchMax, PassMemory: 1}
	t0 := time.Now()
	md, err := kpca.Fit(kern, X, opts)
	if err != nil {
		return err
	}
	fitSeconds := time.Since(t0).Seconds()
	out["fit_s"], out["rank"], out["k"] = fitSeconds, md.Rank(), cfg.k
	out["batch_start"], out["model_bytes"] = opts.BatchStart(m), md.Bytes()
	logf("tracked fit: %.3g s, rank %d, batch start %d", fitSeconds, md.Rank(), opts.BatchStart(m))
	if md.Rank() == 0 {
		return errors.New("the fit kept every pair (a rank-0 model): nothing to polish; give fewer than -n points to -batch-max")
	}

	tracked := measure(md, cfg.k, ref)
	if cfg.certifyTracked {
		if err := certify(md, cfg.k, ref, tracked); err != nil {
			return err
		}
	}
	out["tracked"] = tracked

	var saved kpca.Model
	if len(cfg.polish) > 1 {
		saved.CopyFrom(md) // the tracked state, for each polish to start from
	}
	var runs []map[string]any
	var last *kpca.Model
	for i, p := range cfg.polish {
		pm := md
		if i > 0 {
			pm = new(kpca.Model)
			pm.CopyFrom(&saved)
		}
		t := time.Now()
		if err := pm.Polish(p); err != nil {
			return err
		}
		res := measure(pm, cfg.k, ref)
		res["passes"], res["polish_s"] = p, time.Since(t).Seconds()
		if err := certify(pm, cfg.k, ref, res); err != nil {
			return err
		}
		logf("polish %d: %.3g s, certify %.3g s", p, res["polish_s"], res["certify_s"])
		runs = append(runs, res)
		last = pm
	}
	out["polished"] = runs
	if cfg.save != "" {
		vals := last.Values(nil)[:cfg.k]
		if err := writeReference(cfg.save, vals, topVectors(last, cfg.k)); err != nil {
			return err
		}
	}

	// One pass: its cost and the floor of its dgemms, from the last polish (c = R
	// vectors) and its certificate (c = R + 30: the tracked vectors and the test vectors
	// of a failure probability of 2⁻³⁰, kpca.DefaultFailure).
	lastRun := runs[len(runs)-1]
	cs := []int{cfg.rank, cfg.rank + 30}
	passSeconds := []float64{lastRun["polish_s"].(float64) / float64(lastRun["passes"].(int)), lastRun["certify_s"].(float64) / 2}
	var passes []map[string]any
	sigma := kern.Sigma
	for i, c := range cs {
		fl := floor(X, sigma, c, cfg.floorSeconds)
		p := fl.fields()
		p["what"], p["c"], p["seconds"] = []string{"polish", "certify"}[i], c, passSeconds[i]
		p["times_distance_floor"] = passSeconds[i] / fl.distance
		p["times_floor"] = passSeconds[i] / (fl.distance + fl.product)
		logf("pass (%s, c = %d): %.3g s, %.2f× its dgemm floor (%.3g s distances + %.3g s product); %.3g of the entries evaluated directly", p["what"], c, passSeconds[i], p["times_floor"], fl.distance, fl.product, fl.direct)
		passes = append(passes, p)
	}
	out["passes"] = passes
	return nil
}

// measure returns the model's top k values and, against ref, their errors and the sine.
func measure(md *kpca.Model, k int, ref *reference) map[string]any {
	vals := md.Values(nil)[:k]
	res := map[string]any{"values": vals}
	if ref == nil {
		return res
	}
	abs, rel := valueErrors(vals, ref.values[:k])
	res["value_error"], res["value_error_relative"] = abs, rel
	res["sine"] = finite(sine(ref.vectors, topVectors(md, k)))
	return res
}

// finite returns v, or for NaN and ±Inf (which JSON cannot hold) its name as a string:
// a sine bound is +Inf where no gap certifies it.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	return v
}

// certify certifies md (default options) and adds the certificate's top k to res: the
// widths over λ₁ and over each λⱼ (relative), the sine bound of the top k, and against ref
// how far outside each interval the reference lies (0: inside), over λ₁.
func certify(md *kpca.Model, k int, ref *reference, res map[string]any) error {
	t := time.Now()
	c, err := md.Certify()
	if err != nil {
		return err
	}
	res["certify_s"] = time.Since(t).Seconds()
	l1 := md.Values(nil)[0]
	var width, widthRel float64
	for j := range k {
		width = math.Max(width, (c.Upper[j]-c.Lower[j])/l1)
		widthRel = math.Max(widthRel, (c.Upper[j]-c.Lower[j])/c.Lower[j])
	}
	res["lower"], res["upper"], res["sine_bound"] = c.Lower[:k], c.Upper[:k], finite(c.Sine[k-1])
	res["width"], res["width_relative"], res["tail"], res["rounding"] = width, widthRel, c.Tail, c.Rounding
	if ref != nil {
		var miss float64
		for j := range k {
			miss = math.Max(miss, math.Max(c.Lower[j]-ref.values[j], ref.values[j]-c.Upper[j])/ref.values[0])
		}
		res["reference_outside"] = math.Max(miss, 0)
	}
	return nil
}

// topVectors returns the model's top k unit eigenvectors (m×k).
func topVectors(md *kpca.Model, k int) *mat.Dense {
	var V mat.Dense
	md.VectorsTo(&V)
	m, _ := V.Dims()
	return mat.DenseCopyOf(V.Slice(0, m, 0, k))
}

// valueErrors returns max |got − want|/want₁ and max |got − want|/wantⱼ.
func valueErrors(got, want []float64) (abs, rel float64) {
	for j := range want {
		e := math.Abs(got[j] - want[j])
		abs = math.Max(abs, e/want[0])
		rel = math.Max(rel, e/math.Abs(want[j]))
	}
	return abs, rel
}

// sine returns the sine of the largest principal angle between the spans of U and V
// (m×k, orthonormal columns): ‖(I − UUᵀ)V‖₂, the residual formed and its norm the
// square root of the largest eigenvalue of its k×k Gram matrix, which resolves sines
// down to rounding (the cosines, σmin(UᵀV), cannot resolve them below 1e-8).
func sine(U, V *mat.Dense) float64 {
	var c, r mat.Dense
	native.Mul(&c, U.T(), V)
	native.Mul(&r, U, &c)
	r.Sub(V, &r)
	_, k := r.Dims()
	g := mat.NewSymDense(k, nil)
	g.SymOuterK(1, r.T())
	v, err := native.EigenSym(nil, nil, g)
	if err != nil {
		return math.NaN()
	}
	return math.Sqrt(math.Max(v[k-1], 0))
}

// orthonormal returns an orthonormal basis of the span of A's columns (m×k, full rank):
// its left singular vectors (native.SVDLeft). A is unchanged.
func orthonormal(A *mat.Dense) (*mat.Dense, error) {
	m, k := A.Dims()
	a := mat.DenseCopyOf(A)
	s := make([]float64, k)
	u := mat.NewDense(m, k, nil)
	raw := a.RawMatrix()
	if err := native.SVDLeft(m, k, raw.Data, raw.Stride, s, u.RawMatrix().Data, k); err != nil {
		return nil, err
	}
	if !(s[k-1] > 0) {
		return nil, fmt.Errorf("scores of rank below %d", k)
	}
	return u, nil
}

// floorTimes are the dgemm floor of one pass, and what the pass computes.
type floorTimes struct {
	distance, product           float64 // seconds, scaled to every tile
	rows, strips, blocks, timed int     // a tile's order, the blocks of points, the tiles, the tiles timed
	// direct is the share of the kernel entries of the blocks timed that the RBF block
	// evaluates directly rather than from the dgemm's distances (docs/design.md, "Kernel
	// blocks": where (d + ⌈d/8⌉ + 12)·ε·(‖x̃‖² + ‖ỹ‖²) > τ·max(2σ², D̂), τ = 1e-13,
	// ε = 2⁻⁵³); the floor does not include their cost.
	direct float64
	// The pass's work: the kernel values its tiles compute (the upper triangle and the
	// lower halves of the diagonal tiles), the flops of its distance products and of its
	// products with the vectors, and the bytes its tiles, the points and the vectors move
	// (passWork).
	values, flopsDistance, flopsProduct   float64
	bytesBlock, bytesPoints, bytesVectors float64
}

// fields returns the floor and the pass's work as the JSON reports them ("block_rows"
// is a tile's order, "strips" the blocks of points, "blocks" the tiles).
func (ft *floorTimes) fields() map[string]any {
	return map[string]any{
		"direct": ft.direct, "kernel_values": ft.values, "flops_distance": ft.flopsDistance, "flops_product": ft.flopsProduct,
		"bytes_block": ft.bytesBlock, "bytes_points": ft.bytesPoints, "bytes_vectors": ft.bytesVectors,
		"floor_distance_s": ft.distance, "floor_product_s": ft.product,
		"block_rows": ft.rows, "strips": ft.strips, "floor_blocks_timed": ft.timed, "blocks": ft.blocks,
	}
}

// passTile is kpca's (docs/design.md, "Passes over the points"): a pass computes K's
// upper triangle in square tiles of 256 points below 16,384 points, of 512 from there.
func passTile(m int) int {
	if m >= 16384 {
		return 512
	}
	return 256
}

// block is one tile of kernel values of a pass: the points lo…hi−1 against j0…j1−1.
type block struct{ lo, hi, j0, j1 int }

// passBlocks returns the tiles of a pass over m points, round by round in the order of
// kpca's schedule (tileRounds, the circle method of a round-robin tournament between
// the blocks of points), and the number of blocks. rounds[i] is the index in bs of
// round i's first tile.
func passBlocks(m int) (bs []block, blocks int, rounds []int) {
	t := min(passTile(m), m)
	nb := (m + t - 1) / t
	tile := func(i, j int) block {
		return block{i * t, min((i+1)*t, m), j * t, min((j+1)*t, m)}
	}
	n := nb
	if n%2 == 0 {
		rounds = append(rounds, 0)
		for i := range nb {
			bs = append(bs, tile(i, i))
		}
	} else {
		n++ // a bye
	}
	for r := range n - 1 {
		rounds = append(rounds, len(bs))
		add := func(a, b int) {
			switch {
			case a == nb:
				bs = append(bs, tile(b, b))
			case b == nb:
				bs = append(bs, tile(a, a))
			default:
				bs = append(bs, tile(min(a, b), max(a, b)))
			}
		}
		add(n-1, r)
		for i := 1; i < n/2; i++ {
			add((r+i)%(n-1), (r-i+n-1)%(n-1))
		}
	}
	return bs, nb, rounds
}

// passWork adds the work of the tiles bs of a pass with c vectors over points of
// dimension d: per tile of b rows against n points, b·n kernel values; 2·b·n·d flops of
// distances; 2·b·n·c flops of products, twice off the diagonal (the tile times Q's n
// rows, added to W's b rows, and transposed, times Q's b rows, added to W's n rows);
// 32 bytes a kernel value (written by the distance dgemm, read and written by the
// exponentials, read by the first product) and 8 more off the diagonal (read by the
// second); the tile's b + n points read, shifted and written (its BlockWork shifts
// them); Q's n and b rows read, W's b and n rows read and written.
func (ft *floorTimes) passWork(d, c int, bs []block) {
	fd, fc := float64(d), float64(c)
	for _, k := range bs {
		b, n := float64(k.hi-k.lo), float64(k.j1-k.j0)
		off := 0.0
		if k.lo != k.j0 {
			off = 1
		}
		ft.values += b * n
		ft.flopsDistance += 2 * b * n * fd
		ft.flopsProduct += (1 + off) * 2 * b * n * fc
		ft.bytesBlock += 32*b*n + off*8*b*n
		ft.bytesPoints += 16 * (b + n) * fd
		ft.bytesVectors += 8*(n+b)*fc + 16*(b+off*n)*fc
	}
}

// floor times the dgemms of one pass over the m points of X with c vectors, tile by
// tile as a pass computes them (kpca's passer.pass, docs/design.md, "Passes over the
// points": K's upper triangle in square tiles, the tiles of a round of the schedule on
// GOMAXPROCS goroutines, each a single-threaded dgemm with OpenBLAS single-threaded,
// native.OwnCores): for each tile of b rows against n points, the distance product
// (b×d)·(d×n) — the tile's points shifted by their mean as kernel.Cross shifts them,
// −2·x̃ᵀỹ — and the products with the vectors, the tile times Q's n rows, added to W's
// b rows, and off the diagonal its transpose times Q's b rows, added to W's n rows.
// Nothing else: no exponentials, no shifts, no centring. A round's distance products
// are timed together, then its products with the vectors. Outside the timed region it
// counts the entries of each tile timed that an RBF of bandwidth sigma evaluates
// directly. If budget > 0 it times the rounds in a bit-reversed order of their indices
// — the first, the middle one, the quarters, … — until they have taken that many
// seconds; the distance and product times are then scaled to all the tiles by the ratio
// of the flops of all to those of the tiles timed.
func floor(X *mat.Dense, sigma float64, c int, budget float64) floorTimes {
	m, d := X.Dims()
	Xs, norms := shifted(X)
	coef := float64(d+(d+7)/8+12) * 0x1p-53 / 1e-13 // (d + ⌈d/8⌉ + 12)·ε/τ, kernel's identityCoef
	g2 := 2 * sigma * sigma
	bs, nb, rounds := passBlocks(m)
	var ft floorTimes
	ft.rows, ft.strips, ft.blocks = bs[0].hi-bs[0].lo, nb, len(bs)
	ft.passWork(d, c, bs)
	tile := bs[0].hi - bs[0].lo
	workers := max(1, min(runtime.GOMAXPROCS(0), (nb+1)/2))
	kbs := make([][]float64, len(bs)) // each tile of a round its own block
	Q := mat.NewDense(m, c, nil)
	for i := range m {
		for j := range c {
			Q.Set(i, j, math.Sin(float64(i*c+j))) // any values: a dgemm's time does not depend on them
		}
	}
	xr := Xs.RawMatrix()
	rowsOf := func(a blas64.General, lo, hi int) blas64.General {
		return blas64.General{Rows: hi - lo, Cols: a.Cols, Stride: a.Stride, Data: a.Data[lo*a.Stride:]}
	}
	x := blas64.General{Rows: m, Cols: d, Stride: xr.Stride, Data: xr.Data}
	q, w := Q.RawMatrix(), blas64.General{Rows: m, Cols: c, Stride: c, Data: make([]float64, m*c)}
	blockOf := func(i int) blas64.General {
		k := bs[i]
		b, n := k.hi-k.lo, k.j1-k.j0
		if kbs[i] == nil {
			kbs[i] = make([]float64, tile*tile)
		}
		return blas64.General{Rows: b, Cols: n, Stride: n, Data: kbs[i][:b*n]}
	}
	distance := func(i int) {
		k := bs[i]
		native.Gemm(blas.NoTrans, blas.Trans, -2, rowsOf(x, k.lo, k.hi), rowsOf(x, k.j0, k.j1), 0, blockOf(i))
	}
	products := func(i int) {
		k := bs[i]
		kb := blockOf(i)
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, kb, rowsOf(q, k.j0, k.j1), 1, rowsOf(w, k.lo, k.hi))
		if k.lo != k.j0 {
			native.Gemm(blas.Trans, blas.NoTrans, 1, kb, rowsOf(q, k.lo, k.hi), 1, rowsOf(w, k.j0, k.j1))
		}
	}
	inParallel := func(lo, hi int, f func(int)) { onWorkers(workers, lo, hi, f) }
	release := native.OwnCores(workers)
	defer release()
	// One round untimed first: OpenBLAS sizes its buffers on the first calls.
	inParallel(0, rounds[min(1, len(rounds)-1)], distance)
	var dist, prod time.Duration
	var timed floorTimes
	var direct float64
	for _, r := range bitReversed(len(rounds)) {
		lo, hi := rounds[r], len(bs)
		if r+1 < len(rounds) {
			hi = rounds[r+1]
		}
		t := time.Now()
		inParallel(lo, hi, distance)
		t1 := time.Now()
		inParallel(lo, hi, products)
		dist += t1.Sub(t)
		prod += time.Since(t1)
		ft.timed += hi - lo
		timed.passWork(d, c, bs[lo:hi])
		for i := lo; i < hi; i++ {
			direct += directEntries(bs[i], blockOf(i).Data, norms, coef, g2)
			kbs[i] = nil // a tile's block is needed once: the memory of a round at a time
		}
		if budget > 0 && (dist+prod).Seconds() >= budget {
			break
		}
	}
	ft.distance = dist.Seconds() * ft.flopsDistance / timed.flopsDistance
	ft.product = prod.Seconds() * ft.flopsProduct / timed.flopsProduct
	ft.direct = direct / timed.values
	return ft
}

// shifted returns the points shifted by their mean and their squared norms, as
// kernel.Cross prepares them.
func shifted(X *mat.Dense) (*mat.Dense, []float64) {
	m, d := X.Dims()
	mu := make([]float64, d)
	for i := range m {
		for l, v := range X.RawRowView(i) {
			mu[l] += v
		}
	}
	for l := range mu {
		mu[l] /= float64(m)
	}
	Xs := mat.NewDense(m, d, nil)
	norms := make([]float64, m)
	for i := range m {
		row := Xs.RawRowView(i)
		for l, v := range X.RawRowView(i) {
			row[l] = v - mu[l]
			norms[i] += row[l] * row[l]
		}
	}
	return Xs, norms
}

// onWorkers runs f on the tiles lo…hi−1 on workers goroutines, a tile at a time.
func onWorkers(workers, lo, hi int, f func(int)) {
	var next atomic.Int64
	next.Store(int64(lo))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < hi; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// directEntries counts the entries of the tile k's block kb (−2·x̃ᵢᵀỹⱼ) whose kernel
// value the kernel evaluates directly rather than from the product: those whose
// cancellation coef·s exceeds max(2σ², distance²) (g2 = 2σ²).
func directEntries(k block, kb, norms []float64, coef, g2 float64) float64 {
	var direct float64
	b, n := k.hi-k.lo, k.j1-k.j0
	for r := range b {
		ni := norms[k.lo+r]
		for j, g := range kb[r*n : (r+1)*n] { // g = −2·x̃ᵢᵀỹⱼ
			s := ni + norms[k.j0+j]
			if coef*s > math.Max(g2, s+g) {
				direct++
			}
		}
	}
	return direct
}

// bitReversed returns 0…n−1 ordered by the reversal of their bits (the smallest power
// of two at least n of them): 0, n/2, n/4, 3n/4, … for a power of two, a sample of the
// whole range at every prefix.
func bitReversed(n int) []int {
	bits := 0
	for 1<<bits < n {
		bits++
	}
	out := make([]int, 0, n)
	for i := range 1 << bits {
		r := 0
		for k := range bits {
			if i&(1<<k) != 0 {
				r |= 1 << (bits - 1 - k)
			}
		}
		if r < n {
			out = append(out, r)
		}
	}
	return out
}

// floorOnly runs -mode floor.
func floorOnly(cfg config, kern kernel.RBF, X *mat.Dense, out map[string]any) error {
	m, _ := X.Dims()
	sigma := kern.Sigma
	var passes []map[string]any
	for _, c := range []int{cfg.rank, cfg.rank + 30} {
		fl := floor(X, sigma, c, cfg.floorSeconds)
		p := fl.fields()
		p["c"] = c
		passes = append(passes, p)
		logf("dgemm floor of a pass, c = %d: %.3g s distances + %.3g s product", c, fl.distance, fl.product)
	}
	out["floors"] = passes
	if cfg.scores == "" {
		return nil
	}
	vals, err := readColumn(cfg.values, "eigenvalue")
	if err != nil {
		return err
	}
	S, err := readTable(cfg.scores)
	if err != nil {
		return err
	}
	r, k := S.Dims()
	if r != m || len(vals) < k || k < cfg.k {
		return fmt.Errorf("%s: %d×%d scores and %d values for %d points and %d pairs", cfg.scores, r, k, len(vals), m, cfg.k)
	}
	k = cfg.k
	V := mat.NewDense(m, k, nil)
	for j := range k {
		if !(vals[j] > 0) {
			return fmt.Errorf("%s: eigenvalue %d is %v", cfg.values, j+1, vals[j])
		}
		s := 1 / math.Sqrt(vals[j])
		for i := range m {
			V.Set(i, j, S.At(i, j)*s)
		}
	}
	out["reference_values"] = vals[:k]
	return writeReference(cfg.save, vals[:k], V)
}

// readTable reads a CSV file with a header line of names and numbers below.
func readTable(path string) (*mat.Dense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s: no rows below the header", path)
	}
	A := mat.NewDense(len(rows)-1, len(rows[0]), nil)
	for i, row := range rows[1:] {
		for j, cell := range row {
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				return nil, fmt.Errorf("%s, line %d: %w", path, i+2, err)
			}
			A.Set(i, j, v)
		}
	}
	return A, nil
}

// readColumn reads the column named name of a CSV file with a header line.
func readColumn(path, name string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("%s: not a table with a header (%v)", path, err)
	}
	col := slices.Index(rows[0], name)
	if col < 0 {
		return nil, fmt.Errorf("%s: no column %q", path, name)
	}
	out := make([]float64, len(rows)-1)
	for i, row := range rows[1:] {
		if out[i], err = strconv.ParseFloat(row[col], 64); err != nil {
			return nil, fmt.Errorf("%s, line %d: %w", path, i+2, err)
		}
	}
	return out, nil
}

// compare runs -mode compare: one approximate model of the points, scored against ref.
func compare(cfg config, kern kernel.RBF, X *mat.Dense, ref *reference, out map[string]any) error {
	m, d := X.Dims()
	k := cfg.k
	r := cfg.landmarks
	out["method"], out["landmarks"], out["k"] = cfg.method, r, k
	var (
		vals   []float64
		scores mat.Dense
		bytes  int
	)
	t0 := time.Now()
	switch cfg.method {
	case "nystrom":
		md, err := nystrom.Fit(kern, X, nystrom.Options{Landmarks: r, Seed: cfg.seed})
		if err != nil {
			return err
		}
		out["fit_s"] = time.Since(t0).Seconds()
		out["features"] = md.Features()
		vals, bytes = md.Values(nil), md.Bytes()
		if len(vals) < k {
			return fmt.Errorf("nystrom: %d components, want %d", len(vals), k)
		}
		t := time.Now()
		if err := md.Transform(&scores, X, k); err != nil {
			return err
		}
		out["transform_s"] = time.Since(t).Seconds()
	case "skpca":
		budget, err := nystromBytes(kern, X, r, cfg.seed)
		if err != nil {
			return err
		}
		opts := stream.SKPCAOptions{Sketch: cfg.sketch, Seed: cfg.seed}.AtMemory(kern, d, budget)
		out["features"], out["sketch"], out["budget_bytes"] = opts.Features, opts.Sketch, budget
		t0 = time.Now()
		s, err := stream.NewSKPCA(kern, d, opts)
		if err != nil {
			return err
		}
		// In blocks: AddBatch holds the random features of its rows (rows×D).
		const block = 256
		for lo := 0; lo < m; lo += block {
			if err := s.AddBatch(X.Slice(lo, min(lo+block, m), 0, d)); err != nil {
				return err
			}
		}
		vals, bytes = s.Values(nil), s.Bytes()
		out["fit_s"] = time.Since(t0).Seconds()
		if len(vals) < k {
			return fmt.Errorf("skpca: %d components, want %d", len(vals), k)
		}
		t := time.Now()
		if err := s.Transform(&scores, X, k); err != nil {
			return err
		}
		out["transform_s"] = time.Since(t).Seconds()
	}
	out["model_bytes"], out["values"] = bytes, vals[:k]
	abs, rel := valueErrors(vals[:k], ref.values[:k])
	out["value_error"], out["value_error_relative"] = abs, rel
	// The sine of the top j for every j ≤ k: the top k may end inside a cluster of
	// eigenvalues (on Fashion-MNIST λ₉ and λ₁₀ nearly tie), where the subspace is
	// ill-determined; a leading subspace that ends at a wide gap is not.
	sines := make([]any, k)
	for j := 1; j <= k; j++ {
		Q, err := orthonormal(scores.Slice(0, m, 0, j).(*mat.Dense))
		if err != nil {
			return err
		}
		sines[j-1] = finite(sine(ref.vectors.Slice(0, m, 0, j).(*mat.Dense), Q))
	}
	out["sine"], out["sines"] = sines[k-1], sines
	logf("%s r = %d: fit %.3g s, %d bytes, top-%d values within %.3g·λ₁, sine %.3g", cfg.method, r, out["fit_s"], bytes, k, abs, out["sine"])
	return nil
}

// nystromBytes returns the memory of the Nyström model with r landmarks drawn as
// nystrom.Fit draws them (nystrom.Model.Bytes, fixed at New): SKPCA's budget.
func nystromBytes(kern kernel.Kernel, X *mat.Dense, r int, seed uint64) (int, error) {
	L, err := nystrom.Choose(kern, X, nystrom.Options{Landmarks: r, Seed: seed})
	if err != nil {
		return 0, err
	}
	ny, err := nystrom.New(kern, L, nystrom.Options{})
	if err != nil {
		return 0, err
	}
	return ny.Bytes(), nil
}

// reference is a file of top eigenpairs: n×k unit eigenvectors and their values.
type reference struct {
	values  []float64
	vectors *mat.Dense
}

// readReference reads a reference file: little-endian uint64 n and k, k float64
// values, then n×k float64 vectors row by row (bench/sklearn_fit.py's write_reference).
func readReference(path string) (*reference, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 16 {
		return nil, fmt.Errorf("%s: %d bytes, not a reference file", path, len(b))
	}
	n, k := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if n == 0 || k == 0 || n > 1<<30 || k > 1<<20 || uint64(len(b)) != 16+8*k*(n+1) {
		return nil, fmt.Errorf("%s: %d bytes for %d×%d vectors, not a reference file", path, len(b), n, k)
	}
	f := make([]float64, k*(n+1))
	for i := range f {
		f[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[16+8*i:]))
	}
	return &reference{values: f[:k], vectors: mat.NewDense(int(n), int(k), f[k:])}, nil
}

// writeReference writes values and vectors (n×k) as a reference file.
func writeReference(path string, values []float64, vectors *mat.Dense) error {
	n, k := vectors.Dims()
	b := make([]byte, 0, 16+8*k*(n+1))
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	b = binary.LittleEndian.AppendUint64(b, uint64(k))
	for _, v := range values {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	for i := range n {
		for _, v := range vectors.RawRowView(i) {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return os.WriteFile(path, b, 0o644)
}
