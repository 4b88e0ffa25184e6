package ikpcabeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/stream"
)

// TestFormat: the CSV lines of scores and dead letters, quoted where CSV needs it,
// with floats that read back to the same bits.
func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FormatScores(Scores{Source: "a.csv", Offset: 12, Line: 3, Y: []float64{0.1, -2e-300, 1}}), "a.csv,12,3,0.1,-2e-300,1"},
		{FormatScores(Scores{Source: "x,y.csv", Y: []float64{0.5}}), `"x,y.csv",0,0,0.5`},
		{FormatDeadLetter(DeadLetter{Source: "a.csv", Offset: 1, Line: 2, Text: `1,"2`, Reason: `column 2: "x" is bad`}),
			`a.csv,1,2,"column 2: ""x"" is bad","1,""2"`},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

// testScores returns n scores and their lines, sorted.
func testScores(n int) ([]Scores, []string) {
	var scores []Scores
	var lines []string
	for i := range n {
		sc := Scores{Source: "s", Offset: int64(i), Line: int64(i + 1), Y: []float64{float64(i) / 7}}
		scores = append(scores, sc)
		lines = append(lines, FormatScores(sc))
	}
	slices.Sort(lines)
	return scores, lines
}

// checkLines fails the test unless the finalised shards of prefix (readShards: shards
// 0 to n−1 of one n, no temporary left) hold the lines want (sorted), each once.
func checkLines(t *testing.T, prefix string, want []string) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(string(readShards(t, prefix)), "\n"), "\n")
	if len(want) == 0 {
		want = []string{""}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s: %d lines, want %d (each once): %q…", prefix, len(got), len(want), got[:min(3, len(got))])
	}
}

// TestWriteScores: WriteScores writes every line once into shards named 0 to n−1 of
// n, and leaves no temporary, for scores from one Create and from several files. (Prism
// writes each in one bundle, n = 1; TestFinalise has several, and TestNystromPipeline's
// dead letters come in two bundles on prism.)
func TestWriteScores(t *testing.T) {
	dir := beamtest.TempDir(t)
	scores, lines := testScores(1000)
	p, s := beam.NewPipelineWithRoot()
	if err := WriteScores(s, filepath.Join(dir, "one"), beam.CreateList(s, scores)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		f := filepath.Join(dir, fmt.Sprintf("in%d.csv", i))
		var b strings.Builder
		for j := i; j < 300; j += 3 {
			fmt.Fprintf(&b, "%d,%d\n", j, j+1)
		}
		beamtest.WriteFile(t, f, []byte(b.String()))
	}
	points := readPoints(t, s, filepath.Join(dir, "in*.csv"), 2)
	if err := WriteScores(s, filepath.Join(dir, "files"), beam.ParDo(s, pointScores, points)); err != nil {
		t.Fatal(err)
	}
	run(t, p)
	checkLines(t, filepath.Join(dir, "one"), lines)
	got := readRecords(t, filepath.Join(dir, "files"), true)
	if len(got) != 300 {
		t.Errorf("%d scores from the files, want 300", len(got))
	}
	for k, r := range got {
		if len(r.values) != 2 || r.values[1] != r.values[0]+1 {
			t.Errorf("%s: %v", k, r.values)
		}
	}
}

// pointScores passes a point's coordinates as its scores.
func pointScores(p Point) Scores {
	return Scores{Source: p.Source, Offset: p.Offset, Line: p.Line, Y: p.X}
}

func init() { beam.RegisterFunction(pointScores) }

// TestWriteEmpty: no scores, no dead letters: one empty shard each,
// prefix-00000-of-00001.csv, so that the output is seen to exist.
func TestWriteEmpty(t *testing.T) {
	dir := beamtest.TempDir(t)
	p, s := beam.NewPipelineWithRoot()
	if err := WriteScores(s, filepath.Join(dir, "scores"), beam.CreateList(s, []Scores{})); err != nil {
		t.Fatal(err)
	}
	if err := WriteDeadLetters(s, filepath.Join(dir, "dead"), beam.CreateList(s, []DeadLetter{})); err != nil {
		t.Fatal(err)
	}
	run(t, p)
	for _, prefix := range []string{"scores", "dead"} {
		f := filepath.Join(dir, prefix+"-00000-of-00001.csv")
		if b, err := os.ReadFile(f); err != nil || len(b) != 0 {
			t.Errorf("%s: %d bytes, %v; want an empty file", f, len(b), err)
		}
		checkLines(t, filepath.Join(dir, prefix), nil)
	}
}

// TestWriteBadPrefix: a prefix with a glob metacharacter, or of a file system Beam does
// not know, is an ErrArgument at construction.
func TestWriteBadPrefix(t *testing.T) {
	for _, prefix := range []string{"/tmp/a*b", "/tmp/a?", "/tmp/[ab]", "nosuchfs://x/y"} {
		_, s := beam.NewPipelineWithRoot()
		if err := WriteScores(s, prefix, beam.CreateList(s, []Scores{{Y: []float64{1}}})); !errors.Is(err, ErrArgument) {
			t.Errorf("WriteScores(%q): %v, want ErrArgument", prefix, err)
		}
		if err := WriteDeadLetters(s, prefix, beam.CreateList(s, []DeadLetter{{}})); !errors.Is(err, ErrArgument) {
			t.Errorf("WriteDeadLetters(%q): %v, want ErrArgument", prefix, err)
		}
	}
}

// setHook sets afterTempWrite for the test.
func setHook(t *testing.T, hook func(ctx context.Context, fs filesystem.Interface, tmp string) error) {
	afterTempWrite = hook
	t.Cleanup(func() { afterTempWrite = nil })
}

// writeTestScores returns a pipeline that writes n test scores (testScores) with
// WriteScores to the prefix dir/scores, and their lines.
func writeTestScores(t *testing.T, dir string, n int) (*beam.Pipeline, string, []string) {
	t.Helper()
	scores, lines := testScores(n)
	prefix := filepath.Join(dir, "scores")
	p, s := beam.NewPipelineWithRoot()
	if err := WriteScores(s, prefix, beam.CreateList(s, scores)); err != nil {
		t.Fatal(err)
	}
	return p, prefix, lines
}

// TestWriteRetried: a bundle whose writer fails after writing its file, then is run
// again, leaves every line written once and no temporary.
//
// Prism does not retry a failed bundle: it fails the job (its README, "Durability
// Model"). So the retry here is a second run of the same pipeline, whose temporary
// directory is the first run's (it is chosen when the pipeline is built): the first
// run's failed bundle has written all its lines to a temporary (and other bundles may
// have written theirs) and none was finalised; the second run writes every line again
// and must finalise only its own files and remove the first run's. What this proves:
// the finaliser takes only the names that reach it as committed outputs, names the
// shards from them alone, and removes every other file of the temporary directory. What
// it does not prove, and cannot on prism: that another runner discards a failed
// attempt's outputs — the model of Beam that the design relies on, as WriteFiles does.
// On the code before the finalisation (a file renamed in FinishBundle), the failed
// bundle's lines were in a final file already and the second run wrote them again.
func TestWriteRetried(t *testing.T) {
	dir := beamtest.TempDir(t)
	p, prefix, lines := writeTestScores(t, dir, 500)
	var once sync.Once
	var written error = errors.New("the hook did not run")
	setHook(t, func(_ context.Context, _ filesystem.Interface, tmp string) (err error) {
		if !strings.HasPrefix(tmp, dir) {
			return nil // a write of another test's job that prism has not stopped yet
		}
		once.Do(func() {
			// The bundle has written its lines: its temporary is there now. (What
			// becomes of it after the job fails is prism's: it may go on running
			// stages, as a runner may, and no check here depends on it.)
			_, written = os.Stat(tmp)
			err = errors.New("the test's failure after the writes")
		})
		return err
	})
	if err := ptest.Run(p); err == nil || !strings.Contains(err.Error(), "the test's failure after the writes") {
		t.Fatalf("first run: %v, want the hook's failure", err)
	}
	if written != nil {
		t.Fatalf("the failed attempt's temporary: %v", written)
	}
	run(t, p)
	checkLines(t, prefix, lines)
}

// TestWriteOrphans: in one run, every bundle's writer leaves a second temporary with
// its lines whose name is never emitted — the file an earlier, failed attempt at the
// same bundle leaves, whose outputs the runner discarded — and the finalised shards
// hold every line once, with no temporary left. This simulates what a retrying runner
// leaves behind (prism does not retry: TestWriteRetried); it proves that the shards
// come from the emitted names only and that the orphans are removed.
func TestWriteOrphans(t *testing.T) {
	dir := beamtest.TempDir(t)
	p, prefix, lines := writeTestScores(t, dir, 500)
	var mu sync.Mutex
	orphans := 0
	setHook(t, func(ctx context.Context, fs filesystem.Interface, tmp string) error {
		if !strings.HasPrefix(tmp, dir) {
			return nil // a write of another test's job that prism has not stopped yet
		}
		mu.Lock()
		defer mu.Unlock()
		orphans++
		return filesystem.Copy(ctx, fs, tmp, strings.TrimSuffix(tmp, ".csv")+"-failed-attempt.csv")
	})
	run(t, p)
	if orphans == 0 {
		t.Fatal("no bundle wrote a temporary")
	}
	checkLines(t, prefix, lines)
}

// TestWritersDoNotGather: in the pipeline's graph, WriteScores's and WriteDeadLetters's
// lines are the main input of the DoFn that writes them — each bundle writes its own —
// and never a side input or a grouping, which hold every line on one worker (Flink's
// batch mode holds a side input in memory).
func TestWritersDoNotGather(t *testing.T) {
	dir := beamtest.TempDir(t)
	p, s := beam.NewPipelineWithRoot()
	if err := WriteScores(s, filepath.Join(dir, "scores"), beam.CreateList(s, []Scores{{Y: []float64{1}}})); err != nil {
		t.Fatal(err)
	}
	if err := WriteDeadLetters(s, filepath.Join(dir, "dead"), beam.CreateList(s, []DeadLetter{{Reason: "r"}})); err != nil {
		t.Fatal(err)
	}
	edges, _, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	// The lines: the outputs of the formatting DoFns.
	lines := map[*graph.Node]string{}
	for _, e := range edges {
		if e.Op == graph.ParDo && (strings.Contains(e.Name(), "FormatScores") || strings.Contains(e.Name(), "formatDeadLetterFn")) {
			lines[e.Output[0].To] = e.Name()
		}
	}
	if len(lines) != 2 {
		t.Fatalf("%d formatting DoFns, want 2", len(lines))
	}
	for _, e := range edges {
		for _, in := range e.Input {
			if name, ok := lines[in.From]; ok && (e.Op != graph.ParDo || in.Kind != graph.Main) {
				t.Errorf("the lines of %s go to %s (%s) as a %s input", name, e.Name(), e.Op, in.Kind)
			}
		}
	}
}

// TestDeadLetterClass: the class of the reasons the package's dead letters carry, each
// made by the code that makes it.
func TestDeadLetterClass(t *testing.T) {
	csvFn, err := newParseCSVFn(CSVOptions{Dim: 3})
	if err != nil {
		t.Fatal(err)
	}
	parse := func(line string) string {
		_, err := csvFn.parse(line)
		if err == nil {
			t.Fatalf("%q parses", line)
		}
		return err.Error()
	}
	var libsvm []DeadLetter
	(&parseLIBSVMFn{Dim: 3}).ProcessElement(Line{Text: "1 2:1 1:1"}, func(Point) {}, func(d DeadLetter) { libsvm = append(libsvm, d) })
	(&parseLIBSVMFn{Dim: 3}).ProcessElement(Line{Text: "1 1:nan"}, func(Point) {}, func(d DeadLetter) { libsvm = append(libsvm, d) })
	if len(libsvm) != 2 {
		t.Fatalf("%d LIBSVM dead letters, want 2", len(libsvm))
	}
	for _, c := range []struct{ reason, want string }{
		{checkPoint([]float64{1, 2}, 3).Error(), deadDimension},
		{checkPoint([]float64{1, math.NaN(), 2}, 3).Error(), deadNonFinite},
		{fmt.Errorf("%w: kernel value k(x, l₃) = +Inf", nystrom.ErrNonFinite).Error(), deadNonFinite},
		{fmt.Errorf("%w: point has dimension 2, want 3", stream.ErrDimension).Error(), deadDimension},
		{parse("1,x,3"), deadParse},
		{parse("1,2"), deadParse},
		{parse(`1,"2,3`), deadParse},
		{parse("1,nan,3"), deadNonFinite},
		{libsvm[0].Reason, deadParse},
		{libsvm[1].Reason, deadNonFinite},
		{fmt.Errorf("%w: the model refused", stream.ErrArgument).Error(), deadRefused},
		{fmt.Errorf("%w: no convergence", ErrArgument).Error(), deadRefused},
		{"ikpcabeam: something new", deadOther},
		{"", deadOther},
		{"something else", deadOther},
	} {
		if got := deadLetterClass(c.reason); got != c.want {
			t.Errorf("%q: class %s, want %s", c.reason, got, c.want)
		}
	}
}

// TestDeadLetterMetrics: the counters dead_letters_<class> of the namespace "ikpca"
// that WriteDeadLetters increments, read from prism's pipeline result, count the dead
// letters of a CSV file's bad lines and of points refused, by class, and the file
// holds them all.
func TestDeadLetterMetrics(t *testing.T) {
	dir := beamtest.TempDir(t)
	in := filepath.Join(dir, "in.csv")
	// 2 parse (not a number, two fields), 1 non-finite, and 3 points.
	beamtest.WriteFile(t, in, []byte("1,2,3\n1,x,3\n4,5,6\n1,2\n1,inf,3\n7,8,9\n"))
	p, s := beam.NewPipelineWithRoot()
	_, bad, err := ReadCSV(s, in, CSVOptions{Dim: 3})
	if err != nil {
		t.Fatal(err)
	}
	refused := []DeadLetter{
		pointLetter(Point{Source: "p", Offset: 0, X: []float64{1, 2}}, checkPoint([]float64{1, 2}, 3).Error()),
		pointLetter(Point{Source: "p", Offset: 1, X: []float64{1, 2}}, checkPoint([]float64{1, 2}, 3).Error()),
		pointLetter(Point{Source: "p", Offset: 2, X: []float64{1, 2, 3}}, fmt.Errorf("%w: refused", stream.ErrArgument).Error()),
		pointLetter(Point{Source: "p", Offset: 3, X: []float64{1, 2, 3}}, "something else"),
	}
	prefix := filepath.Join(dir, "dead")
	if err := WriteDeadLetters(s, prefix, beam.Flatten(s, bad, beam.CreateList(s, refused))); err != nil {
		t.Fatal(err)
	}
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, c := range res.Metrics().Query(func(r beam.MetricResult) bool { return r.Namespace() == "ikpca" }).Counters() {
		got[c.Name()] += c.Result()
	}
	want := map[string]int64{"dead_letters_parse": 2, "dead_letters_non_finite": 1, "dead_letters_dimension": 2, "dead_letters_refused": 1, "dead_letters_other": 1}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s = %d, want %d", name, got[name], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("counters %v, want %v", got, want)
	}
	if d := readRecords(t, prefix, false); len(d) != 7 {
		t.Errorf("%d dead letters written, want 7", len(d))
	}
}

// TestFinalise: the writer and the finaliser driven directly, with the bundles a
// runner may make that prism does not here (prism writes a Create's lines in one
// bundle, and splits only slow splittable reads): three bundles, the second attempted twice —
// its first attempt's file written and its name discarded, as a runner discards the
// outputs of a failed attempt — give the shards 0, 1 and 2 of 3, each bundle's lines
// once, and no temporary, and the shards of an earlier write with another number of
// shards are removed (files of other names stay). The finaliser run again (a retry
// after it finished), and after only some of its renames (a retry after a failure
// half-way), gives the same files; a temporary that is gone with no final file in its
// place is an error.
func TestFinalise(t *testing.T) {
	ctx := context.Background()
	dir := beamtest.TempDir(t)
	prefix := filepath.Join(dir, "out")
	run := newRun()
	tmpDir := tempDir(prefix, run)
	fn := &writeTempFn{Dir: tmpDir}
	var names []string
	emit := func(name string) { names = append(names, name) }
	bundles := [][]string{{"a1", "a2"}, {"b1"}, {"c1", "c2", "c3"}}
	attempt := func(lines []string) {
		fn.StartBundle(ctx, emit)
		for _, l := range lines {
			if err := fn.ProcessElement(ctx, l, emit); err != nil {
				t.Fatal(err)
			}
		}
		if err := fn.FinishBundle(ctx, emit); err != nil {
			t.Fatal(err)
		}
	}
	attempt(bundles[0])
	attempt(bundles[1])
	names = names[:1] // the failed attempt's name, discarded
	attempt(bundles[1])
	attempt(bundles[2])
	attempt(nil) // an empty bundle writes no file
	if len(names) != 3 {
		t.Fatalf("%d names emitted, want 3", len(names))
	}
	if files, _ := filepath.Glob(tmpDir + "/*"); len(files) != 4 {
		t.Fatalf("%d temporaries, want 4", len(files))
	}
	// The lines of each name, and the final file of each: the names' sorted order.
	content := map[string]string{}
	for i, n := range names {
		content[n] = strings.Join(bundles[i], "\n") + "\n"
	}
	sorted := slices.Sorted(slices.Values(names))
	want := map[string]string{}
	for i, n := range sorted {
		want[shardName(prefix, i, 3)] = content[n]
	}
	finalise := func() error {
		i := 0
		side := func(s *string) bool {
			if i == len(names) {
				return false
			}
			*s, i = names[i], i+1
			return true
		}
		var moves []Move
		if err := (&planFn{Prefix: prefix, Run: run}).ProcessElement(ctx, nil, side, func(m Move) { moves = append(moves, m) }); err != nil {
			return err
		}
		var moved []string
		for _, m := range moves {
			if err := (&moveFn{}).ProcessElement(ctx, m, func(s string) { moved = append(moved, s) }); err != nil {
				return err
			}
		}
		j := 0
		return (&commitFn{Prefix: prefix, Run: run}).ProcessElement(ctx, nil, func(s *string) bool {
			if j == len(moved) {
				return false
			}
			*s, j = moved[j], j+1
			return true
		}, func(string) {})
	}
	// An earlier write's shards, which go, and files of other names, which stay.
	stale := []string{shardName(prefix, 0, 5), shardName(prefix, 4, 5), prefix + "-00001-of-00003.csv.bak", prefix + "-notes-00000-of-00001.csv"}
	writeStale := func() {
		for _, f := range stale {
			beamtest.WriteFile(t, f, []byte("stale\n"))
		}
	}
	writeStale()
	check := func(when string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		if len(files) != 6 || !slices.Contains(files, stale[2]) || !slices.Contains(files, stale[3]) || !slices.Contains(files, manifestName(prefix)) {
			t.Errorf("%s: files %v, want the 3 shards, the manifest and %v", when, files, stale[2:])
		}
		if m, ok, err := readManifest(ctx, local(t), prefix); err != nil || !ok || m.Run != run || len(m.Shards) != 3 {
			t.Errorf("%s: the manifest %+v (%v, %v), want run %s's 3 shards", when, m, ok, err, run)
		}
		for f, lines := range want {
			if b, err := os.ReadFile(f); err != nil || string(b) != lines {
				t.Errorf("%s: %s holds %q (%v), want %q", when, f, b, err, lines)
			}
		}
	}
	if err := finalise(); err != nil {
		t.Fatal(err)
	}
	check("finalised")
	if err := finalise(); err != nil {
		t.Fatal(err)
	}
	check("finalised again")

	// Half-way: shard 0 renamed, the others not, an orphan left.
	os.RemoveAll(dir)
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, n := range sorted {
		dst := n
		if i == 0 {
			dst = shardName(prefix, 0, 3)
		}
		beamtest.WriteFile(t, dst, []byte(content[n]))
	}
	writeStale()
	beamtest.WriteFile(t, tmpDir+"/orphan.csv", []byte("a1\n"))
	if err := finalise(); err != nil {
		t.Fatal(err)
	}
	check("finalised after a failure half-way")

	// Lost: a name whose file is gone, and no final file for it.
	os.Remove(shardName(prefix, 1, 3))
	if err := finalise(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a lost temporary: %v, want an error", err)
	}
}

// TestIsShard: the names a write to a prefix replaces or removes, and only those.
func TestIsShard(t *testing.T) {
	for name, want := range map[string]bool{
		"out/p-00000-of-00001.csv":      true,
		"out/p-00012-of-00100.csv":      true,
		"out/p-123456-of-200000.csv":    true,
		"out/p-0-of-1.csv":              false,
		"out/p-00000-of-00001.csv.x":    false,
		"out/p-00000-of-00001.tsv":      false,
		"out/px-00000-of-00001.csv":     false,
		"out/q-00000-of-00001.csv":      false,
		"out/p.dead-00000-of-00001.csv": false,
		"out/p-a-of-00001.csv":          false,
	} {
		if got := IsShard("out/p", name); got != want {
			t.Errorf("IsShard(out/p, %s) = %v, want %v", name, got, want)
		}
	}
}

// TestWriteModelAtomic: WriteModel replaces a model file through a temporary renamed
// over it. A write that fails after the temporary is written (the test hook) leaves the
// old file whole and no temporary; one that succeeds replaces it, keeps its
// permissions, and through a symbolic link replaces the file the link points to and
// leaves the link.
func TestWriteModelAtomic(t *testing.T) {
	dir := beamtest.TempDir(t)
	file := filepath.Join(dir, "model.bin")
	if err := os.WriteFile(file, []byte("the old model"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("model.bin", link); err != nil {
		t.Fatal(err)
	}
	write := func(name string, model []byte) error {
		p, s := beam.NewPipelineWithRoot()
		writeModel(t, s, name, beam.Create(s, model))
		return ptest.Run(p)
	}
	entries := func() []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	check := func(what, want string) {
		t.Helper()
		if b, err := os.ReadFile(file); err != nil || string(b) != want {
			t.Errorf("%s: the file holds %q (%v), want %q", what, b, err, want)
		}
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", what, fi.Mode(), err)
		}
		if names := entries(); !slices.Equal(names, []string{"link", "model.bin"}) {
			t.Errorf("%s: the directory holds %q, want the file and the link only", what, names)
		}
	}
	var seen string
	afterModelTemp = func(tmp string) error {
		b, _ := os.ReadFile(tmp)
		seen = string(b)
		return errors.New("a write that fails after its temporary")
	}
	err := write(file, []byte("the new model"))
	afterModelTemp = nil
	if err == nil {
		t.Fatal("the failed write: no error")
	}
	if seen != "the new model" {
		t.Errorf("the hook saw a temporary of %q", seen)
	}
	check("a failed write", "the old model")
	if err := write(file, []byte("the new model")); err != nil {
		t.Fatal(err)
	}
	check("a write", "the new model")
	if err := write(link, []byte("through the link")); err != nil {
		t.Fatal(err)
	}
	check("a write through a link", "through the link")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
}
