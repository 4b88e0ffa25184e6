package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/table"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

// afterAdd, when set (by tests), is called after each point fit adds, with the number of
// points fit has read into the model (the model itself may hold fewer: a window).
var afterAdd func(points int)

// fitFlags are fit's own flags.
type fitFlags struct {
	uncentred  bool
	method     string
	m0, k      int
	rank       int
	window     int
	stream     bool
	refreshTol float64
	block      int    // rows a rank-r step adds
	batchMax   int    // the most points a batch fit decomposes at once
	polish     string // "", "0", a number of passes of Polish after the fit, or "auto"
	certify    bool
	passMemory string      // --pass-memory: bytes of kernel values a Polish or Certify keeps
	timings    bool        // --timings
	timer      *phaseTimer // the phases' times, with --timings
}

func fitCommand(e env) *cobra.Command {
	var (
		tf                    tableFlags
		kf                    kernelFlags
		ff                    fitFlags
		values, scores, model = output{flag: "--values"}, output{flag: "--scores"}, output{flag: "--model"}
	)
	c := &cobra.Command{
		Use:   "fit [FILE]",
		Short: "Fit a kernel PCA to the rows of a CSV/TSV/whitespace or IDX file or standard input, at once or as a stream",
		Long:  fitLong,
		Args:  cobra.MaximumNArgs(1),
	}
	f := c.Flags()
	tf.add(f)
	kf.add(f)
	ff.add(f)
	f.StringVar(&values.path, "values", "-", `file for the eigenvalues and explained variance ("-": standard output, "": none)`)
	f.StringVar(&scores.path, "scores", "", `file for the training scores ("-": standard output, "": none)`)
	f.StringVar(&model.path, "model", "", `file for the checkpoint of the model ("-": standard output, "": none)`)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		// Everything that can be checked before reading the data: the flags, then the
		// outputs.
		opts, err := ff.options(f.Changed)
		if err != nil {
			return err
		}
		if err := kf.check(); err != nil {
			return err
		}
		if _, err := tf.options(""); err != nil {
			return err
		}
		if err := planOutputs(e, []string{inputName(args)}, &values, &scores, &model); err != nil {
			return err
		}
		native.Use()
		ff.timer = newPhaseTimer(e.errw, ff.timings)
		defer ff.timer.report()
		ctx := cmd.Context()
		var (
			md      fitted
			read    int
			tracked bool
			stopped error
		)
		if ff.stream {
			md, read, stopped, err = fitStream(ctx, e, args, &tf, &kf, &ff, f.Changed("m0"), opts)
		} else {
			var exact *kpca.Model
			exact, read, tracked, stopped, err = fitBatch(ctx, e, args, &tf, &kf, &ff, f.Changed("rank"), opts)
			md = exact
		}
		if err != nil {
			return err
		}
		cert, stopped, err := finishFit(ctx, e, md, &ff, ff.stream || tracked, read, stopped)
		if err != nil {
			return err
		}
		ff.timer.start("write")
		if err := writeFit(e, md, ff.k, f.Changed("k"), cert, &values, &scores, &model); err != nil {
			return errors.Join(stopped, err)
		}
		return stopped
	}
	return c
}

// add defines fit's own flags on f.
func (ff *fitFlags) add(f *pflag.FlagSet) {
	f.BoolVar(&ff.uncentred, "uncentred", false, "decompose the kernel matrix K itself instead of the mean-adjusted CKC")
	f.StringVar(&ff.method, "method", "bordered", `how points are added when streaming: "bordered" (one update per point) or "rank-one" (Hallgren and Northrop's algorithms; exact models only)`)
	f.IntVar(&ff.m0, "m0", 10, "points in the starting batch decomposition when streaming (implies --stream; by default 10, more than --rank, at most --window)")
	f.IntVar(&ff.k, "k", 5, "number of components in --scores (at most the model's)")
	f.IntVar(&ff.rank, "rank", 0, "keep only the top R eigenpairs (0: every pair, the exact model; default: --k for a batch fit, 0 when streaming)")
	f.IntVar(&ff.window, "window", 0, "keep only the last W points, a sliding window (implies --stream; at least 2)")
	f.BoolVar(&ff.stream, "stream", false, "add the points one at a time after a batch start of --m0 points, reading the input as it goes")
	f.IntVar(&ff.block, "block", kpca.DefaultBlock, "rows a rank-R model adds in one step (1: one at a time); blocks are several times faster and as accurate")
	f.IntVar(&ff.batchMax, "batch-max", kpca.DefaultBatchMax, "the most points a batch fit decomposes at once; a larger input is tracked at --rank (see above)")
	f.Float64Var(&ff.refreshTol, "refresh-tol", 0, "recompute the decomposition when its drift probe exceeds this (0: never)")
	f.StringVar(&ff.polish, "polish", "", `after the fit, bring the top --rank pairs to batch accuracy with N passes over the points (4 is enough on the data sets tested), or "auto": until the top --k values settle to 1e-12·λ₁`)
	f.BoolVar(&ff.certify, "certify", false, "after the fit (and --polish), certify the top --k pairs from the true kernel matrix: intervals and sines, failure probability ≤ 1e-9")
	f.StringVar(&ff.passMemory, "pass-memory", "2GiB", `memory --polish and --certify may keep the kernel values of their first pass in, for their later passes to read: a size such as 512MiB or 2GiB ("0": none; used only if it holds a quarter of the kernel matrix's triangle, and for a kernel of products only on points of 64 coordinates or more); the result is the same bit for bit`)
	f.BoolVar(&ff.timings, "timings", false, "print each phase's wall and processor time on standard error: reading, bandwidth, batch start, tracking (and its updates' parts: projecting the new points' border, the dense solve, assembling the new vectors, the rest), polish, certify, writing")
}

// finishFit runs what follows the fit: --polish and --certify unless the fit was
// stopped, and between them the summary of a stream or tracked fit (summarise). It
// returns the certificate, if any, and stop: stopped, or the interrupt of a polish or
// certify, after which the model is still written as it stands; any other failure is
// err, and nothing is written.
func finishFit(ctx context.Context, e env, md fitted, ff *fitFlags, summarise bool, read int, stopped error) (cert *kpca.Certificate, stop, err error) {
	if stopped == nil && ff.polish != "" && ff.polish != "0" {
		ff.timer.start("polish")
		if err := polish(ctx, e, md, ff.polish, ff.k); err != nil {
			if ctx.Err() == nil {
				return nil, stopped, err
			}
			stopped = fmt.Errorf("--polish interrupted: writing the model as the last complete round left it: %w", err)
		}
	}
	if summarise {
		summary(e, md, read)
	}
	if stopped == nil && ff.certify {
		ff.timer.start("certify")
		if cert, err = certify(ctx, e, md, ff.k); err != nil {
			if ctx.Err() == nil {
				return nil, stopped, err
			}
			stopped = fmt.Errorf("--certify interrupted: writing the model without it: %w", err)
		}
	}
	return cert, stopped, nil
}

// fitLong is fit's help.
var fitLong = `fit reads points (one per row) from FILE, or standard input if FILE is "-" or absent,
and fits a kernel PCA to them. It writes the eigenvalues (--values), the top --k scores of
the points in the model (--scores) and a checkpoint of the model (--model), which
transform and later incremental additions (kpca.Model's UnmarshalBinaryFrom, then Add;
kpca.RankOneModel's with --method rank-one) use, each to a file or "-"
for standard output. A stream's summary goes to standard error.

An input that starts with the bytes 00 00 or, gzip-compressed, 1f 8b is read as an IDX
file of images, whatever its name (the MNIST and Fashion-MNIST files, such as Debian's
/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz): one point an image, its
pixels in row-major order (784 for 28×28), bytes divided by 255 to [0, 1]. A file of
labels (one dimension), a file cut short or with bytes after its data is an error;
--sep, --header and --columns apply to text only.

By default fit reads the whole input and computes one batch decomposition of it, keeping
the top --rank eigenpairs — by default --k, so that only those are computed (LAPACK
dsyevr with an index range, or from 2560 points block Krylov proved by a Cholesky
factorisation), as scikit-learn's KernelPCA does with n_components; --rank 0
keeps every pair, the exact model that can later grow point by point exactly. An input of
more than --batch-max points (` + strconv.Itoa(kpca.DefaultBatchMax) + ` by default: a kernel matrix of 128 MiB) is not formed
whole when --rank is above 0: fit decomposes its first 1000 points (fewer with a smaller
--batch-max, at least 2R+2), keeps the top R pairs — --rank, by default the larger of --k
and ` + strconv.Itoa(kpca.DefaultRank) + `, for the top --k pairs are accurate only well inside the rank tracked — and adds
the others in blocks of --block rows. Memory O(n·R), no n×n matrix; the summary gives the
certificate ‖K′ − K̃‖₂ ≤ bound on what the truncations lost (on all 19,020 MAGIC points at
R = 50, the top 10 eigenvalues came within 3.2e-7 of scikit-learn's batch fit: README).

With --stream (implied by --m0 or --window) it starts from a batch decomposition of the
first --m0 points and adds the others one at a time, reading the input as it goes:
  --window W   keeps only the last W points (a sliding window): memory and time per point
               are bounded whatever the length of the input;
  --rank R     keeps only the top R eigenpairs: memory O(n·R) and a point O(n·R²) instead
               of O(n²) and O(n³), the rows added --block at a time (64 by default; 1:
               one at a time). The summary gives the certificate ‖K′ − K̃‖₂ ≤ bound on
               what the truncations lost.
When streaming, the bandwidth (unless --sigma or --gamma) is the median distance between
the first ` + strconv.Itoa(bandwidthSample) + ` points read — or, with a larger --m0, between a seeded sample of
` + strconv.Itoa(bandwidthSample) + ` of the first --m0.

Outputs are checked before the data are read — two outputs naming the same file, or an
output naming the input, are a usage error; a missing or read-only directory or a read-only
file, an error — and written at the end, files first and standard output last. A file is
replaced atomically through ".NAME.ikpca-tmp-XXXXXXXX" in its directory, which only a kill -9
can leave behind.

Interrupted (Ctrl-C or SIGTERM) while streaming or tracking, fit stops between two points
(or blocks: the rows of the block it holds are added first) and still writes every output
for the points processed so far (exit status 130 or 143); the checkpoint can be loaded by
transform, or by kpca.Model's UnmarshalBinaryFrom (kpca.UnmarshalFrom, of either method) to resume. A bad row part-way through a stream also stops it
with every output written for the rows before it (exit status 1). Interrupted while it
reads a whole input or computes a batch decomposition, it stops at once and writes
nothing: no point has been processed yet. A second interrupt quits at once, writing
nothing.

A model that keeps only the top --rank pairs is as accurate as its tracking (about 1e-7·λ₁
for the top values); --polish N brings its pairs to batch accuracy with N passes over the
points (kpca.Model.Polish: block Krylov and Rayleigh–Ritz from kernel blocks, never forming
the n×n matrix; each pass costs about half a dgemm of the points' distances, n²·d flops,
for K is symmetric and a pass computes one triangle of it). Where that triangle fits in
--pass-memory and its values are dear (a Gaussian kernel on 64 coordinates or more), the
fit computes it once before tracking (the "kernel" phase of --timings), and the block
steps, every pass and a --certify read it (kpca.Model.KeepKernel). Four
passes gave the top 10 eigenvalues to rounding and their subspace to a sine below 1e-8 on
every data set tested. --polish auto polishes by rounds of 3 passes until a round moves
none of the top --k eigenvalues by more than 1e-12·λ₁ (Ritz values only grow towards the
eigenvalues, so a round that moves them so little leaves them that close), at most 4
rounds, and says how many passes it took. --certify then computes an a-posteriori certificate from the true
kernel matrix (kpca.Model.Certify, two more passes): for each of the top --k pairs, an
interval that holds the true eigenvalue and a bound on the sine between the top vectors and
the true ones, both failing with probability at most 1e-9, printed on standard error and
added to --values as the columns lower, upper and sine. Interrupted during --polish, fit
writes the tracked model (a polish is all or nothing).`

// options checks fit's flags and returns the model's options: every pair with --rank 0
// (Components All), the top R pairs at rank R otherwise (Components and Rank R; a batch
// fit sets them from --k when --rank is not given). changed reports whether a flag was
// given.
func (ff *fitFlags) options(changed func(string) bool) (kpca.Options, error) {
	opts := kpca.Options{Components: kpca.All, RefreshTolerance: ff.refreshTol, Window: ff.window, Uncentred: ff.uncentred}
	if ff.rank > 0 {
		opts.Components, opts.Rank = ff.rank, ff.rank
	}
	switch ff.method {
	case "bordered":
	case "rank-one":
	default:
		return opts, usageError{fmt.Errorf(`--method %q: want "bordered" or "rank-one"`, ff.method)}
	}
	switch {
	case ff.m0 < 1:
		return opts, usageError{fmt.Errorf("--m0 must be at least 1, got %d", ff.m0)}
	case ff.k < 1:
		return opts, usageError{fmt.Errorf("--k must be at least 1, got %d", ff.k)}
	case ff.rank < 0:
		return opts, usageError{fmt.Errorf("--rank must not be negative, got %d", ff.rank)}
	case ff.polish != "" && ff.polish != "auto" && !validPasses(ff.polish):
		return opts, usageError{fmt.Errorf(`--polish must be "auto" or a number of passes from 0 to %d, got %q`, kpca.MaxPolishPasses, ff.polish)}
	case ff.window != 0 && ff.window < 2:
		return opts, usageError{fmt.Errorf("--window must be at least 2, got %d", ff.window)}
	case !(ff.refreshTol >= 0) || math.IsInf(ff.refreshTol, 0):
		return opts, usageError{fmt.Errorf("--refresh-tol must be finite and not negative, got %v", ff.refreshTol)}
	case ff.block < 1:
		return opts, usageError{fmt.Errorf("--block must be at least 1, got %d", ff.block)}
	case ff.batchMax < 1:
		return opts, usageError{fmt.Errorf("--batch-max must be at least 1, got %d", ff.batchMax)}
	}
	opts.Block = ff.block
	memory, err := parseBytes(ff.passMemory)
	if err != nil {
		return opts, usageError{fmt.Errorf("--pass-memory %q: %w", ff.passMemory, err)}
	}
	opts.PassMemory = max(memory, 1) // 0: none, which kpca spells as less than a tile
	// Sizes whose arrays could not be allocated (docs/design.md, "Sizes"), checked
	// before the data are read — and before --rank sets the default --m0.
	if err := firstErr(
		atMost("rank", ff.rank, maxSquare-2, "a model of rank R holds at least R+1 points and R+2 eigenvectors of them, within 2³⁰ numbers"),
		atMost("m0", ff.m0, maxSquare, "the starting batch decomposes an m0×m0 kernel matrix, within 2³⁰ numbers"),
		atMost("batch-max", ff.batchMax, maxSquare, "a batch fit decomposes an n×n kernel matrix, within 2³⁰ numbers"),
	); err != nil {
		return opts, err
	}
	if ff.window > 0 {
		if ff.rank > 0 {
			if err := atMost("window", ff.window, maxCount/(ff.rank+2), fmt.Sprintf("a window of W points at rank %d holds W×%d eigenvector entries, within 2³⁰", ff.rank, ff.rank+2)); err != nil {
				return opts, err
			}
		} else if err := atMost("window", ff.window, maxSquare, "an exact window of W points holds a W×W decomposition, within 2³⁰ numbers; give --rank for more"); err != nil {
			return opts, err
		}
	}
	ff.stream = ff.stream || changed("m0") || changed("window")
	if ff.method == "rank-one" && (ff.rank > 0 || ff.window > 0 || !ff.stream) {
		return opts, usageError{errors.New(`--method rank-one streams an exact model: give --stream, without --rank or --window`)}
	}
	if ff.stream {
		if !changed("m0") {
			ff.m0 = max(ff.m0, ff.rank+1)
			if ff.window > 0 {
				ff.m0 = min(ff.m0, ff.window)
			}
		}
		switch {
		case ff.rank > 0 && ff.m0 <= ff.rank:
			return opts, usageError{fmt.Errorf("--m0 %d must be more than --rank %d", ff.m0, ff.rank)}
		case ff.window > 0 && ff.m0 > ff.window:
			return opts, usageError{fmt.Errorf("--m0 %d must not be more than --window %d", ff.m0, ff.window)}
		case ff.window > 0 && ff.rank >= ff.window:
			return opts, usageError{fmt.Errorf("--rank %d must be less than --window %d", ff.rank, ff.window)}
		}
	}
	return opts, nil
}

// fitBatch reads the whole input (the images of an IDX file as their bytes:
// packedImages) and fits it as kpca.Fit does: one batch decomposition
// of the top --rank pairs, by default --k of them. An input of more than --batch-max
// points at a rank R > 0 is tracked instead: a batch decomposition of its first
// kpca.Options.BatchStart points, then the others in blocks of --block rows
// (docs/design.md, "Rank-r tracking in blocks"), at --rank, by default max(--k,
// kpca.DefaultRank) — Fit's model, added here a block at a time so that the fit can be
// interrupted and show its progress. It returns the model, the points in it, whether it
// was tracked, and — the model being complete up to there — the error that stopped a
// tracked fit early (an interruption, a point whose kernel values are not finite).
func fitBatch(ctx context.Context, e env, args []string, tf *tableFlags, kf *kernelFlags, ff *fitFlags, rankGiven bool, opts kpca.Options) (md *kpca.Model, read int, tracked bool, stopped, err error) {
	ff.timer.start("read")
	t, err := readPointRows(ctx, e, args, tf)
	if err != nil {
		return nil, 0, false, nil, err
	}
	rows, d := t.Dims()
	start, opts := batchPlan(ff, rankGiven, rows, opts)
	ff.timer.start("bandwidth")
	kern, err := kf.kernelOf(t)
	if err != nil {
		return nil, 0, false, nil, err
	}
	ff.timer.start("start")
	md, err = interruptible(ctx, fmt.Sprintf("during the batch decomposition of %s; nothing written", count(start, "point")),
		func() (*kpca.Model, error) { return kpca.Fit(kern, firstRows(t, start), opts) })
	if err != nil {
		return nil, 0, false, nil, err
	}
	if start == rows {
		if afterAdd != nil {
			afterAdd(rows)
		}
		return md, rows, false, nil, nil
	}
	// The rows are known: no growing buffers, no garbage of their copies. A size Reserve
	// refuses (beyond 2³⁰ numbers) only spares nothing: the model grows by itself.
	_ = md.Reserve(rows)
	if ff.polish != "" && ff.polish != "0" {
		// A polish follows: its kernel values computed once, for the block steps and the
		// passes (kpca.Model.KeepKernel; nothing is kept where they do not fit
		// --pass-memory or are cheap). Any other error is a row's, which the block steps
		// report with its line.
		ff.timer.start("kernel")
		if err := md.KeepKernelContext(ctx, rowsFrom{t, start}); err != nil && ctx.Err() != nil {
			return md, start, true, fmt.Errorf("%w after %s; outputs written for those", errInterrupted, count(start, "point")), nil
		}
	}
	ff.timer.start("track")
	bar := newProgress(e, "fitting (points)", rows)
	defer bar.finish()
	a := newRowAdder(md, d, ff.block, start, func() {})
	a.timer = ff.timer
	a.step = func() {
		bar.set(a.read)
		if afterAdd != nil {
			afterAdd(a.read)
		}
	}
	row := make([]float64, d)
	for i := start; i < rows; i++ {
		if err = a.add(ctx, t.row(row, i), t.line(i)); err != nil {
			break
		}
	}
	if err == nil {
		err = a.flush()
	}
	switch {
	case err == nil:
		return md, a.read, true, nil, nil
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return md, a.read, true, fmt.Errorf("%w after %s; outputs written for those", errInterrupted, count(a.read, "point")), nil
	}
	return md, a.read, true, fmt.Errorf("%w; outputs written for the %s before it", err, count(a.read, "point")), nil
}

// batchPlan returns how a batch fit of rows points starts: the rows of its one batch
// decomposition — all of them, or the start of a model tracked at a rank when they
// are more than --batch-max — and the options Fit then follows with these rows.
func batchPlan(ff *fitFlags, rankGiven bool, rows int, opts kpca.Options) (int, kpca.Options) {
	opts.Components, opts.Rank = kpca.All, 0
	start := rows
	if !rankGiven || ff.rank > 0 { // --rank 0: every pair, the exact model (Components All)
		R := ff.k // the pairs kept: --rank, by default --k
		if rankGiven {
			R = ff.rank
		}
		r := R // the rank a tracked fit keeps: by default max(--k, kpca.DefaultRank)
		if !rankGiven && rows > ff.batchMax {
			r = max(ff.k, kpca.DefaultRank)
		}
		tracking := opts
		tracking.Components, tracking.Rank, tracking.BatchMax = r, r, ff.batchMax
		if s := tracking.BatchStart(rows); s < rows {
			start, opts = s, tracking
		} else if R < rows {
			opts.Components, opts.Rank = R, R // a batch fit of the top R pairs
		} // R ≥ rows: every pair is asked for, the exact model
	}
	// What was decided above is what Fit does with these rows: one batch decomposition
	// of the start (a tracked start, or every row when too few remain to track at R).
	opts.BatchMax = max(ff.batchMax, start)
	return start, opts
}

// bandwidthSample is how many points a stream's default bandwidth is taken from
// (kernel.DefaultBandwidth samples as many).
const bandwidthSample = kernel.BandwidthSample

// fitStream starts from a batch decomposition of the first --m0 points and adds the
// others one at a time as it reads them, so that with --window (or --rank) a stream of
// any length is fitted in bounded memory. It returns the model, the number of points
// read into it, and — the model being complete up to there — the error that stopped the
// stream early (an interruption, a bad row), if any.
func fitStream(ctx context.Context, e env, args []string, tf *tableFlags, kf *kernelFlags, ff *fitFlags, m0Given bool, opts kpca.Options) (fitted, int, error, error) {
	src, err := openRows(ctx, e, args, tf)
	if err != nil {
		return nil, 0, nil, err
	}
	defer src.close()
	d := src.width

	// The first rows: the starting batch, and the sample the default bandwidth is taken
	// from. They are stored as they arrive: --m0 is checked against the rows read, and
	// nothing is reserved for it beforehand.
	head, lines, headErr := src.head(ctx, max(ff.m0, bandwidthSample), min(ff.m0, bandwidthSample))
	n0 := len(lines)
	if headErr != nil && !errors.Is(headErr, io.EOF) {
		return nil, 0, nil, headErr // before the fit starts: nothing to write
	}
	if n0 == 0 {
		return nil, 0, nil, fmt.Errorf("%s: no data rows", src.label)
	}
	m0, err := startSize(ff.m0, m0Given, n0, opts.Rank)
	if err != nil {
		return nil, 0, nil, err
	}
	opts.BatchMax = m0 // the start is one batch decomposition, whatever --m0
	X := mat.NewDense(n0, d, head)
	kern, err := kf.kernel(X)
	if err != nil {
		return nil, 0, nil, err
	}
	md, err := interruptible(ctx, fmt.Sprintf("during the starting batch decomposition of %s; nothing written", count(m0, "point")),
		func() (fitted, error) { return fitStart(kern, X.Slice(0, m0, 0, d), opts, ff.method == "rank-one") })
	if err != nil {
		return nil, 0, nil, err
	}
	bar := newProgress(e, "fitting (bytes read)", int(src.size))
	defer bar.finish()
	a := newRowAdder(md, d, ff.block, m0, func() {})
	a.timer = ff.timer
	a.step = func() {
		bar.set(int(src.offset()))
		if afterAdd != nil {
			afterAdd(a.read)
		}
	}
	stop := func(err error) (fitted, int, error, error) {
		if err == nil || errors.Is(err, io.EOF) {
			err = a.flush() // the last rows, the input being complete
		}
		switch {
		case err == nil:
			return md, a.read, nil, nil
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			return md, a.read, fmt.Errorf("%w after %s; outputs written for those", errInterrupted, count(a.read, "point")), nil
		}
		return md, a.read, fmt.Errorf("%w; outputs written for the %s before it", err, count(a.read, "point")), nil
	}
	for i := m0; i < n0; i++ {
		if err := a.add(ctx, X.RawRowView(i), lines[i]); err != nil {
			return stop(err)
		}
	}
	if headErr != nil {
		return stop(headErr)
	}
	for {
		row, line, err := src.next(ctx)
		if err == nil {
			err = a.add(ctx, row, line)
		} else if !errors.Is(err, io.EOF) {
			err = firstErr(a.flush(), err) // the rows before a bad one, or before an interruption
		}
		if err != nil {
			return stop(err)
		}
	}
}

// startSize returns the points of the starting batch: m0, or the n0 rows there are
// when there are fewer and --m0 was not given. A start of at most rank points is a
// usage error: rank-r tracking starts from more points than its rank.
func startSize(m0 int, m0Given bool, n0, rank int) (int, error) {
	if n0 < m0 {
		if m0Given {
			return 0, usageError{fmt.Errorf("--m0 %d is more than the %s", m0, count(n0, "point"))}
		}
		m0 = n0 // the default adapts to a short input
	}
	if rank > 0 && m0 <= rank {
		return 0, usageError{fmt.Errorf("--rank %d needs more than %s to start from", rank, count(m0, "point"))}
	}
	return m0, nil
}

// summary tells on standard error what a stream fitted: the points, the model and, for
// a model that keeps only the top eigenpairs, its certificate. (A batch fit says nothing:
// its outputs are the whole story, and its top pairs are exact to rounding.)
func summary(e env, md fitted, read int) {
	kind := "every eigenpair (exact)"
	if r := md.Rank(); r > 0 {
		kind = "the top " + count(r, "eigenpair")
	}
	centring := "centred"
	if !md.Centred() {
		centring = "uncentred"
	}
	held := ""
	if md.Len() != read {
		held = fmt.Sprintf(", the last %d in the model", md.Len())
	}
	msg := fmt.Sprintf("ikpca: %s read%s; %s, %s, %s", count(read, "point"), held, centring, md.Kernel(), kind)
	if v := md.Values(nil); len(v) > 0 {
		msg += fmt.Sprintf("; λ₁ = %.6g", v[0])
		if md.Rank() > 0 {
			b := md.ErrorBound()
			msg += fmt.Sprintf(", certified ‖K′ − K̃‖₂ ≤ %.3g (%.2g λ₁)", b, b/v[0])
		}
	}
	fmt.Fprintln(e.errw, msg)
}

// writeFit writes the outputs of fit, files first and standard output last.
func writeFit(e env, md fitted, k int, kGiven bool, cert *kpca.Certificate, values, scores, model *output) error {
	var s mat.Dense
	kk := min(k, md.Components())
	if !scores.none() {
		if kk < 1 {
			return fmt.Errorf("no component to score with %s", count(md.Len(), "point"))
		}
		if kk < k && kGiven {
			fmt.Fprintf(e.errw, "ikpca: --k %d: the model has %s; the scores have %s\n", k, count(md.Components(), "component"), count(kk, "column"))
		}
		if err := md.Scores(&s, kk); err != nil {
			return err
		}
	}
	writeValues := func(w io.Writer) error {
		v, ev := md.Values(nil), md.ExplainedVariance(nil)
		names := []string{"component", "eigenvalue", "explained_variance"}
		if cert != nil {
			names = append(names, "lower", "upper", "sine")
		}
		x := mat.NewDense(max(len(v), 1), len(names), nil)
		for i := range v {
			row := []float64{float64(i + 1), v[i], ev[i]}
			if cert != nil {
				// The certificate covers every tracked pair, the reported ones first; a
				// value beyond it (none: Values reports at most the tracked) would be NaN.
				lo, hi, sin := math.NaN(), math.NaN(), math.NaN()
				if i < len(cert.Lower) {
					lo, hi, sin = cert.Lower[i], cert.Upper[i], cert.Sine[i]
				}
				row = append(row, lo, hi, sin)
			}
			x.SetRow(i, row)
		}
		return table.Write(w, names, x.Slice(0, len(v), 0, len(names)), ',')
	}
	return writeOutputs(e,
		pending{values, writeValues},
		pending{scores, func(w io.Writer) error { return table.Write(w, componentNames(kk), &s, ',') }},
		pending{model, func(w io.Writer) error { _, err := md.MarshalBinaryTo(w); return err }},
	)
}

// validPasses reports whether s is a number of Polish passes, 0 to MaxPolishPasses.
func validPasses(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= kpca.MaxPolishPasses
}

// Rounds of --polish auto: polishRound passes each, at most polishRounds of them, until
// a round moves none of the top k values by more than polishSettled·λ₁.
const (
	polishRound   = 3
	polishRounds  = 4
	polishSettled = 1e-12
)

// polish polishes md by spec, a number of passes or "auto" (see fit's help), and says on
// standard error how many passes it took. A model that keeps every pair is exact and
// is left alone.
func polish(ctx context.Context, e env, fit fitted, spec string, k int) error {
	md, ok := fit.(*kpca.Model)
	if !ok || md.Rank() == 0 {
		return nil
	}
	if spec != "auto" {
		n, _ := strconv.Atoi(spec)
		return md.PolishContext(ctx, n)
	}
	k = min(k, md.Components())
	passes := 0
	for round := range polishRounds {
		before := md.Values(nil)
		if err := md.PolishContext(ctx, polishRound); err != nil {
			return err
		}
		passes += polishRound
		after := md.Values(nil)
		var moved float64
		for i := range k {
			moved = math.Max(moved, math.Abs(after[i]-before[i]))
		}
		if moved <= polishSettled*math.Abs(after[0]) {
			fmt.Fprintf(e.errw, "ikpca: --polish auto: the top %d values settled to %.1g·λ₁ after %d passes\n", k, moved/math.Abs(after[0]), passes)
			return nil
		}
		if round == polishRounds-1 {
			fmt.Fprintf(e.errw, "ikpca: --polish auto: after %d passes the top %d values still moved by %.1g·λ₁ in the last round\n", passes, k, moved/math.Abs(after[0]))
		}
	}
	return nil
}

// certify certifies md (kpca.Model.CertifyContext, default options) and prints on
// standard error the intervals and sines of its top k pairs. The exact model needs no
// certificate — its pairs are a batch decomposition's, to rounding — and costs O(n³)
// to certify: fit says so and certifies nothing.
func certify(ctx context.Context, e env, fit fitted, k int) (*kpca.Certificate, error) {
	md, ok := fit.(*kpca.Model)
	if !ok || md.Rank() == 0 {
		fmt.Fprintln(e.errw, "ikpca: --certify: the model holds every eigenpair, exact to rounding; nothing to certify")
		return nil, nil
	}
	c, err := md.CertifyContext(ctx, kpca.CertifyOptions{})
	if err != nil {
		return nil, err
	}
	v := md.Values(nil)
	fmt.Fprintf(e.errw, "ikpca: certified from the kernel matrix (failure probability ≤ %.0e): eigenvalues outside the tracked span ≤ %.6g\n", c.Failure, c.Tail)
	for i := range min(k, len(c.Lower), len(v)) {
		fmt.Fprintf(e.errw, "  λ%-3d = %-22.17g in [%.17g, %.17g] (width %.2g·λ₁), sine of the top %d ≤ %.2g\n",
			i+1, v[i], c.Lower[i], c.Upper[i], (c.Upper[i]-c.Lower[i])/v[0], i+1, c.Sine[i])
	}
	return &c, nil
}

func componentNames(k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = "pc" + strconv.Itoa(i+1)
	}
	return names
}
