package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/stream"
)

// run builds the pipeline the options describe, runs it on the runner of --runner
// (prism by default), and prints the counters of namespace "ikpca" to stderr.
func run(ctx context.Context, o options, stderr io.Writer) error {
	var p *beam.Pipeline
	var work string
	var err error
	if o.mode == "polish" {
		p, work, err = buildPolish(ctx, o)
	} else {
		p, err = build(ctx, o)
	}
	if err != nil {
		return err
	}
	if work != "" {
		// The shards' point files are the run's own: removed whether it succeeds or not.
		defer func() {
			if rerr := ikpcabeam.RemoveWork(ctx, work); rerr != nil {
				fmt.Fprintln(stderr, "ikpca-beam: removing the polish's work files:", rerr)
			}
			if o.work == "" && !strings.Contains(o.certificate, "://") {
				os.Remove(o.certificate + ".work") // the default directory, if nothing else is in it
			}
		}()
	}
	// The failure marker, written by a pipeline that fails for a reason of its data,
	// and this run's id, which the marker names (failedRun).
	runID := fmt.Sprintf("%x-%s", time.Now().UnixNano(), rand.Text()[:8])
	beam.PipelineOptions.Set(ikpcabeam.FailureMarkerOption, failureMarker(o))
	beam.PipelineOptions.Set(ikpcabeam.FailureRunOption, runID)
	res, err := beamx.RunWithMetrics(ctx, p)
	if res != nil {
		printCounters(stderr, res.Metrics().AllMetrics().Counters())
	}
	if err != nil {
		// The job is over (the runner returned its failure): its writes' claims and
		// temporaries go, so that the next run to the same prefixes — the dead letters
		// written again, below — does not wait for them.
		if rerr := ikpcabeam.ReleaseFailed(ctx, p); rerr != nil {
			err = errors.Join(err, fmt.Errorf("removing the failed run's claims and temporaries: %w", rerr))
		}
	}
	return failedRun(ctx, err, o, runID)
}

// deadPrefix is the dead letters' prefix: --dead, or by default the output's name (the
// model's without --output) followed by ".dead".
func deadPrefix(o options) string {
	switch {
	case o.dead != "":
		return o.dead
	case o.output != "":
		return o.output + ".dead"
	}
	return o.model + ".dead"
}

// namespace is the namespace of the counters of ikpcabeam's transforms.
const namespace = "ikpca"

// printCounters prints the counters of namespace "ikpca", whatever their names (points
// folded and projected, models merged, dead letters by class, …), one line each,
// sorted by name: "ikpca-beam: ikpca.points_projected 1000000". A counter that several
// steps increment is their sum. The value is the committed one, or the attempted one
// where the runner does not commit (prism reports attempted values; a portable runner
// may report neither, and a job submitted with --async has none yet: then nothing is
// printed, and the runner's UI has them).
func printCounters(w io.Writer, counters []metrics.CounterResult) {
	sum := map[string]int64{}
	for _, c := range counters {
		if c.Namespace() == namespace {
			sum[c.Name()] += c.Result()
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sum)) {
		fmt.Fprintf(w, "ikpca-beam: %s.%s %d\n", namespace, name, sum[name])
	}
}

// build checks the options and builds the pipeline.
func build(ctx context.Context, o options) (*beam.Pipeline, error) {
	if o.mode == "polish" {
		p, _, err := buildPolish(ctx, o)
		return p, err
	}
	if err := checkModeFlags(o); err != nil {
		return nil, err
	}
	o.dead = deadPrefix(o)
	if err := checkOutputs(ctx, o); err != nil {
		return nil, err
	}
	p, s := beam.NewPipelineWithRoot()
	points, deadLines, csvOpts, dim, err := read(ctx, s, o)
	if err != nil {
		return nil, err
	}
	dead := []beam.PCollection{deadLines}
	records := []beam.PCollection{points, deadLines}
	var scored []beam.PCollection

	var model beam.PCollection
	if o.mode == "fit" {
		var refused beam.PCollection
		if model, refused, err = fit(ctx, s, points, o, csvOpts, dim); err != nil {
			return nil, err
		}
		dead = append(dead, refused)
		if err := ikpcabeam.WriteModel(s, o.model, model); err != nil {
			return nil, err
		}
	} else if model, err = projectedModel(ctx, s, o, dim); err != nil {
		return nil, err
	}
	if o.output != "" {
		if o.mode == "fit" {
			// Project a second read of the input: the model is a side input, which the
			// runner has only once every point is fitted, and it would keep the points
			// until then (its bad lines are the first read's, dead letters there).
			if points, _, _, _, err = read(ctx, s, o); err != nil {
				return nil, err
			}
		}
		scores, refused, err := ikpcabeam.Project(s, model, points, ikpcabeam.ProjectOptions{K: o.k, Block: o.block})
		if err != nil {
			return nil, err
		}
		dead = append(dead, refused)
		scored = append(scored, scores)
		if err := ikpcabeam.WriteScores(s, o.output, scores); err != nil {
			return nil, err
		}
	}
	letters := beam.Flatten(s, dead...)
	published, err := ikpcabeam.WriteDeadLettersPublished(s, o.dead, letters)
	if err != nil {
		return nil, err
	}
	// Fail, once the dead letters are published, where too many records are dead
	// letters, or (project) no point is projected.
	limits := ikpcabeam.RecordLimits{MaxDeadFraction: 1, NeedScores: o.mode == "project"}
	if o.limitDead {
		limits.MaxDeadFraction = o.maxDead
	}
	if err := ikpcabeam.CheckRecords(s, records, []beam.PCollection{letters}, scored, []beam.PCollection{published}, limits); err != nil {
		return nil, err
	}
	return p, nil
}

// checkModeFlags checks the flags of fit and project against each other.
func checkModeFlags(o options) error {
	switch {
	case o.mode != "fit" && o.mode != "project":
		return errors.New(`--mode must be "fit", "project" or "polish"`)
	case o.input == "" || o.model == "":
		return errors.New("--input and --model are required")
	case o.mode == "project" && o.output == "":
		return errors.New("project needs --output")
	case o.format != "csv" && o.format != "libsvm":
		return fmt.Errorf("--format %q: csv or libsvm", o.format)
	case o.method != "skpca" && o.method != "nystrom":
		return fmt.Errorf("--method %q: skpca or nystrom", o.method)
	case o.mode == "fit" && o.method == "nystrom" && (o.landmarks > 0) == (o.landmarksFile != ""):
		return errors.New("nystrom needs either --landmarks (a number to sample) or --landmarks-file")
	case o.mode == "fit" && o.method == "skpca" && (o.landmarks != 0 || o.landmarksFile != ""):
		return errors.New("--landmarks and --landmarks-file are for --method=nystrom")
	case o.landmarks < 0 || o.block < 1:
		return fmt.Errorf("--landmarks %d, --block %d: want ≥ 0 and ≥ 1", o.landmarks, o.block)
	}
	if !(o.maxDead >= 0) {
		return fmt.Errorf("--max-dead-fraction %v: want a fraction ≥ 0 (1: no limit)", o.maxDead)
	}
	return nil
}

// projectedModel reads and checks the model project mode projects on (its dimension
// dim, at least --k components) before the job, so that a bad file fails here and not
// on the workers, and returns it as a PCollection.
func projectedModel(ctx context.Context, s beam.Scope, o options, dim int) (beam.PCollection, error) {
	b, err := readFile(ctx, o.model)
	if err != nil {
		return beam.PCollection{}, err
	}
	m, err := ikpcabeam.DecodeModel(b)
	if err != nil {
		return beam.PCollection{}, fmt.Errorf("%s: %w", o.model, err)
	}
	if m.Dim() != dim {
		return beam.PCollection{}, fmt.Errorf("%s: a model of dimension %d for points of dimension %d", o.model, m.Dim(), dim)
	}
	if have := len(m.Values(nil)); o.k > have || have == 0 {
		return beam.PCollection{}, fmt.Errorf("%s: --k %d of a model with %d components", o.model, o.k, have)
	}
	return ikpcabeam.ReadModel(s, o.model)
}

// fit fits the model of --method to the points.
func fit(ctx context.Context, s beam.Scope, points beam.PCollection, o options, csvOpts ikpcabeam.CSVOptions, dim int) (model, refused beam.PCollection, err error) {
	fitOpts := ikpcabeam.FitOptions{Block: o.block}
	if o.method == "nystrom" {
		// σ zero: FitNystrom takes the median distance between the landmarks, given or
		// sampled (a uniform sample of the points).
		opts := ikpcabeam.NystromOptions{Dim: dim, Kernel: kernel.Spec{Name: "rbf", Sigma: o.sigma}, Landmarks: o.landmarks, Seed: o.seed}
		if o.landmarksFile == "" {
			// The sample from a second read of the input, so that the runner does not
			// keep the points until the sample is drawn (its bad lines are the first
			// read's, dead letters there).
			sample, _, _, _, err := read(ctx, s, o)
			if err != nil {
				return model, refused, err
			}
			return ikpcabeam.FitNystromSampled(s, sample, points, opts, fitOpts)
		}
		// The landmarks are read in the pipeline, not here: in the graph they would take
		// 8·r·d bytes, over Dataflow's 10 MB at r = 2000, d = 784.
		landmarks, bad, err := readLandmarks(ctx, s, o, csvOpts, dim)
		if err != nil {
			return model, refused, err
		}
		if model, refused, err = ikpcabeam.FitNystromOn(s, landmarks, points, opts, fitOpts); err != nil {
			return model, refused, err
		}
		return model, beam.Flatten(s, bad, refused), nil
	}
	sigma := o.sigma
	if sigma == 0 {
		if sigma, err = bandwidth(ctx, o, csvOpts, dim); err != nil {
			return model, refused, err
		}
	}
	opts := stream.SKPCAOptions{Features: o.features, Form: features.CosSin, Seed: o.seed, Sketch: o.sketch}
	return ikpcabeam.FitSKPCA(s, points, kernel.RBF{Sigma: sigma}, dim, opts, fitOpts)
}

// readLandmarks reads the landmarks file in the pipeline, as the input is read: one
// point per line in the input's format, after a header line if --header, with the
// input's field count and columns. A line that is not a point is a dead letter, as in
// the input (FitNystromOn builds the model on the others); a file that does not exist
// is an error here.
func readLandmarks(ctx context.Context, s beam.Scope, o options, csvOpts ikpcabeam.CSVOptions, dim int) (landmarks, dead beam.PCollection, err error) {
	if _, err := matchFiles(ctx, o.landmarksFile); err != nil {
		return landmarks, dead, err
	}
	if o.format == "libsvm" {
		return ikpcabeam.ReadLIBSVM(s, o.landmarksFile, dim)
	}
	return ikpcabeam.ReadCSV(s, o.landmarksFile, csvOpts)
}

// read reads the input's points, and returns the CSV options and the points'
// dimension.
func read(ctx context.Context, s beam.Scope, o options) (points, dead beam.PCollection, opts ikpcabeam.CSVOptions, dim int, err error) {
	if o.format == "libsvm" {
		if o.dim < 1 {
			return points, dead, opts, 0, errors.New("libsvm input needs --dim")
		}
		points, dead, err = ikpcabeam.ReadLIBSVM(s, o.input, o.dim)
		return points, dead, opts, o.dim, err
	}
	opts = ikpcabeam.CSVOptions{Header: o.header, Dim: o.dim}
	switch o.sep {
	case "space":
		opts.Comma = ikpcabeam.Space
	case "tab":
		opts.Comma = '\t'
	default:
		if r := []rune(o.sep); len(r) == 1 {
			opts.Comma = r[0]
		} else {
			return points, dead, opts, 0, fmt.Errorf("--sep %q: one character, tab or space", o.sep)
		}
	}
	if opts.Columns, err = parseColumns(o.columns); err != nil {
		return points, dead, opts, 0, err
	}
	// The number of fields of a line, and the dimension without --columns, from the
	// first data line of the first file.
	first, err := firstLines(ctx, o.input, 1, o.header)
	if err != nil {
		return points, dead, opts, 0, err
	}
	fields, err := splitFields(first[0], opts.Comma)
	if err != nil {
		return points, dead, opts, 0, err
	}
	opts.Fields = fields
	if opts.Columns != nil {
		opts.Dim = len(opts.Columns)
	} else if opts.Dim == 0 {
		opts.Dim = fields
	}
	points, dead, err = ikpcabeam.ReadCSV(s, o.input, opts)
	return points, dead, opts, opts.Dim, err
}

// parseColumns parses a column selection such as "1-10" or "2,4,6-9".
func parseColumns(spec string) ([]int, error) {
	if spec == "" {
		return nil, nil
	}
	var cols []int
	for item := range strings.SplitSeq(spec, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return nil, fmt.Errorf("--columns %q: items are 1-based columns or ranges a-b", spec)
		}
		for c := a; c <= b; c++ {
			cols = append(cols, c)
		}
	}
	return cols, nil
}

// splitFields counts the fields of a CSV line as ikpcabeam.ParseCSV splits it.
func splitFields(line string, comma rune) (int, error) {
	if comma == ikpcabeam.Space {
		return len(strings.Fields(line)), nil
	}
	r := csv.NewReader(strings.NewReader(line))
	r.Comma = comma
	r.LazyQuotes = true
	rec, err := r.Read()
	if err != nil {
		return 0, fmt.Errorf("the first line %q: %w", line, err)
	}
	return len(rec), nil
}

// bandwidth returns the median-heuristic bandwidth (kernel.DefaultBandwidth) of up to
// kernel.BandwidthSample points from the first lines of the first input file.
func bandwidth(ctx context.Context, o options, csvOpts ikpcabeam.CSVOptions, dim int) (float64, error) {
	lines, err := firstLines(ctx, o.input, kernel.BandwidthSample, o.header)
	if err != nil {
		return 0, err
	}
	var X []float64
	n := 0
	for _, l := range lines {
		var x []float64
		if o.format == "libsvm" {
			x, _, err = data.ParseLIBSVMLine(nil, l, dim)
		} else {
			x, err = ikpcabeam.ParseCSVLine(l, csvOpts)
		}
		if err == nil {
			X, n = append(X, x...), n+1
		}
	}
	if n < 2 {
		return 0, fmt.Errorf("%s: fewer than two points in its first lines to set the bandwidth: give --sigma", o.input)
	}
	sigma, err := kernel.DefaultBandwidth(mat.NewDense(n, dim, X))
	if err != nil {
		return 0, fmt.Errorf("%w: give --sigma", err)
	}
	return sigma, nil
}

// firstLines returns up to n non-blank lines of the files the glob matches, in the
// order of their names, each after its first line if header (as the pipeline skips
// one header per file), going on to the next file while it has fewer: an empty first
// file does not hide the data of the others. It reads each file's text as
// ikpcabeam.ReadLines does: a file ending in ".gz" is decompressed
// (fileio.ReadableFile.Open, the same automatic compression as the pipeline's reads),
// so that the field count and the bandwidth come from the text the pipeline parses. A
// file of another name that starts with gzip's magic bytes is an error: the pipeline
// would read it compressed, every line a dead letter.
func firstLines(ctx context.Context, glob string, n int, header bool) ([]string, error) {
	files, err := matchFiles(ctx, glob)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, f := range files {
		if len(lines) == n {
			break
		}
		if lines, err = appendLines(ctx, lines, f, n, header); err != nil {
			return nil, err
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no data line", glob)
	}
	return lines, nil
}

// appendLines appends the non-blank lines of file to lines, up to n in all, after the
// file's first line if header.
func appendLines(ctx context.Context, lines []string, file string, n int, header bool) ([]string, error) {
	r, err := fileio.ReadableFile{Metadata: fileio.FileMetadata{Path: file}}.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	defer r.Close()
	// Line by line, up to n lines (or 64 MiB of text): the launcher runs the pipeline
	// on prism, and a whole file read here would count in its memory.
	br := bufio.NewReader(io.LimitReader(r, 64<<20))
	if magic, _ := br.Peek(2); filepath.Ext(file) != ".gz" && bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return nil, fmt.Errorf("%s is gzip-compressed but its name does not end in .gz, which the pipeline needs to decompress it: rename it", file)
	}
	for i := 0; len(lines) < n; i++ {
		l, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if l = strings.TrimRight(l, "\r\n"); (i > 0 || !header) && strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
		if err == io.EOF {
			break
		}
	}
	return lines, nil
}

// checkOutputs refuses outputs that would replace or remove an input: a file of
// --input or --landmarks-file, or --model, that is a shard of the scores' or the dead
// letters' prefix (a write replaces its own shards and removes those of another count:
// ikpcabeam.IsShard), and a --model file that is an input. Inputs that match nothing
// are left to the reads, which say so.
func checkOutputs(ctx context.Context, o options) error {
	var inputs []string
	for _, glob := range []string{o.input, o.landmarksFile} {
		if glob != "" {
			files, _ := matchFiles(ctx, glob)
			inputs = append(inputs, files...)
		}
	}
	prefixes := map[string]string{"--dead": o.dead}
	if o.output != "" {
		prefixes["--output"] = o.output
		// Two outputs on one prefix would remove or publish each other's shards.
		if ikpcabeam.PrefixesOverlap(sameForm(o.output), sameForm(o.dead)) {
			return fmt.Errorf("--dead %s and --output %s overlap: the dead letters and the scores would replace or remove each other's files; give them prefixes of their own", o.dead, o.output)
		}
	}
	for _, in := range inputs {
		for flag, prefix := range prefixes {
			if ikpcabeam.IsOutput(sameForm(prefix), sameForm(in)) {
				return fmt.Errorf("%s %s would replace or remove the input %s, one of its shards: give it another prefix", flag, prefix, in)
			}
		}
		if o.mode == "fit" && sameForm(in) == sameForm(o.model) {
			return fmt.Errorf("--model %s is an input: writing the model would replace it", o.model)
		}
	}
	for flag, prefix := range prefixes {
		if ikpcabeam.IsOutput(sameForm(prefix), sameForm(o.model)) {
			return fmt.Errorf("%s %s would replace or remove the model %s, one of its shards: give it another prefix", flag, prefix, o.model)
		}
	}
	return nil
}

// sameForm returns a local path absolute and clean, so that two names of one file
// compare equal; a URL (gs://…) as it is.
func sameForm(name string) string {
	if strings.Contains(name, "://") {
		return name
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

// matchFiles returns the files the glob matches, an error if none.
func matchFiles(ctx context.Context, glob string) ([]string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	files, err := fs.List(ctx, glob)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no file matches", glob)
	}
	slices.Sort(files) // a file system lists in its own order
	return files, nil
}

// readFile reads a whole file on any file system Beam knows.
func readFile(ctx context.Context, name string) ([]byte, error) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(r)
	return b.Bytes(), err
}
