package ikpcabeam

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// Sharded output, written the way Beam's own file sinks write it (Java's WriteFiles and
// FileBasedSink; docs/design.md, "Beyond one machine"), so that a runner's retries
// neither duplicate nor lose a line, and published per run (publish.go), so that two
// runs to one prefix neither mix nor delete each other's shards:
//
//  1. Each bundle writes its lines, where they are computed, to a temporary file of its
//     own, a random name in the run's directory prefix.tmp-<run>/, and emits the
//     temporary's name when the file is closed. A runner commits a bundle's outputs
//     only if the bundle succeeds, and discards those of a failed attempt: a bundle
//     retried writes a second temporary, and only one name of the two is ever emitted.
//  2. The names are a side input of one planning DoFn, whose main input is an impulse.
//     A side input is materialised from the committed outputs of the stage that wrote
//     it, and is ready only when that stage is complete: the barrier that WriteFiles
//     gets from its GroupByKey, which also runs the planner when no bundle wrote
//     anything. The names are small (one per bundle) where a side input of the lines
//     themselves held all of them on one worker. The planner takes the prefix's claim
//     (publish.go), and unless a newer run has published there, sorts the names and
//     emits the rename of the i-th of n to prefix-SSSSS-of-NNNNN.csv (i, n; at least
//     five digits). No name at all gives one empty file, prefix-00000-of-00001.csv
//     (WriteFiles writes one empty shard too), so that an empty output is seen to
//     exist.
//  3. A Reshuffle spreads the renames over the workers, each done by a plain ParDo: on
//     an object store a rename is a copy and a delete. The names are the side input's,
//     the same on every attempt of the planner, so the final names are too: a rename
//     retried finds its temporary gone and its final file there, and goes on.
//  4. Once every rename is done (the renamed names are the side input of a last DoFn,
//     whose main input is an impulse), the commit removes the shards of an earlier
//     output with another number of shards (prefix-SSSSS-of-MMMMM.csv, M ≠ N; those
//     with the same N were just replaced), so that prefix-*.csv holds this output only
//     — Beam's sinks leave them, and a pipeline run again to the same prefix would then
//     show lines twice; writes the manifest, prefix.manifest; removes every file left
//     in the run's temporary directory — the temporaries of failed or retried
//     attempts, which no committed name refers to — and the directory, and those of
//     older runs (jobs that failed for good); and releases the claim.
//
// A run superseded by a newer one publishes nothing and removes its temporaries. What is
// not covered: a job that fails for good before its commit leaves its temporary
// directory until the next run to the prefix commits, and one killed between its claim
// and its commit leaves its claim, which holds other runs off for up to claimWait, and
// is removed when older than claimStale (or by hand).

// afterTempWrite is a test-only hook, nil otherwise: called by a bundle's writer after
// its temporary file is written and closed, before the name is emitted; its error
// fails the bundle — a failure after the writes, the case a retry must not duplicate.
var afterTempWrite func(ctx context.Context, fs filesystem.Interface, tmp string) error

func init() {
	beam.RegisterType(reflect.TypeFor[Move]())
	perBundle(&writeTempFn{}, &planFn{}, &moveFn{}, &commitFn{})
	register.Emitter1[string]()
	register.Emitter1[Move]()
	register.Iter1[string]()
}

// checkPrefix checks the prefix of sharded output: a file system Beam knows, and no
// glob metacharacter, since the finaliser lists its temporary directory by a glob
// (ErrArgument otherwise).
func checkPrefix(prefix string) error {
	if err := checkScheme(prefix); err != nil {
		return err
	}
	if strings.ContainsAny(prefix, `*?[\`) {
		return fmt.Errorf("%w: output prefix %q has a glob metacharacter", ErrArgument, prefix)
	}
	return nil
}

// writeShards writes a PCollection<string>, a line each, as the shards
// prefix-SSSSS-of-NNNNN.csv, one per committed bundle that holds a line (one empty
// shard for no lines), as the comment above describes.
func writeShards(s beam.Scope, prefix string, lines beam.PCollection) (published beam.PCollection) {
	// A run unique to this construction of the pipeline, as WriteFiles's
	// .temp-beam-<uuid>, and ordered by the time of construction (publish.go).
	run := newRun()
	dir := tempDir(prefix, run)
	names := beam.ParDo(s, &writeTempFn{Dir: dir}, lines)
	moves := beam.ParDo(s, &planFn{Prefix: prefix, Run: run}, beam.Impulse(s), beam.SideInput{Input: names})
	moved := beam.ParDo(s, &moveFn{}, beam.Reshuffle(s, moves))
	return beam.ParDo(s, &commitFn{Prefix: prefix, Run: run}, beam.Impulse(s), beam.SideInput{Input: moved})
}

// shardName is the final name of shard i of n.
func shardName(prefix string, i, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.csv", prefix, i, n)
}

// A Move is the rename of a temporary to its final name, an element of the publication
// (exported for Beam's coder); an empty Tmp stands for the empty shard of no lines.
type Move struct {
	Tmp, Final string
}

// writeTempFn writes each bundle's lines to a temporary file of its own in Dir, and
// emits the file's name when the bundle finishes.
type writeTempFn struct {
	Dir string

	fs   filesystem.Interface
	name string
	w    io.WriteCloser
	bw   *bufio.Writer
}

// StartBundle drops what a failed bundle may have left open: its file is an orphan,
// which the finaliser removes.
func (fn *writeTempFn) StartBundle(_ context.Context, _ func(string)) {
	if fn.w != nil {
		fn.w.Close()
		fn.fs.Close()
		fn.w = nil
	}
}

// ProcessElement writes a line, opening the bundle's file at its first.
func (fn *writeTempFn) ProcessElement(ctx context.Context, line string, _ func(string)) error {
	if fn.w == nil {
		fs, err := filesystem.New(ctx, fn.Dir)
		if err != nil {
			return err
		}
		name := fn.Dir + "/" + rand.Text() + ".csv"
		w, err := fs.OpenWrite(ctx, name)
		if err != nil {
			fs.Close()
			return err
		}
		fn.fs, fn.name, fn.w = fs, name, w
		if fn.bw == nil {
			fn.bw = bufio.NewWriterSize(w, 1<<20)
		} else {
			fn.bw.Reset(w)
		}
	}
	fn.bw.WriteString(line)
	return fn.bw.WriteByte('\n')
}

// FinishBundle closes the bundle's file, if it wrote one, and emits its name.
func (fn *writeTempFn) FinishBundle(ctx context.Context, emit func(string)) error {
	if fn.w == nil {
		return nil
	}
	w, fs := fn.w, fn.fs
	fn.w = nil
	defer fs.Close()
	if err := fn.bw.Flush(); err != nil {
		w.Close()
		return fmt.Errorf("ikpcabeam: writing %s: %w", fn.name, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("ikpcabeam: writing %s: %w", fn.name, err)
	}
	if afterTempWrite != nil {
		if err := afterTempWrite(ctx, fs, fn.name); err != nil {
			return err
		}
	}
	emit(fn.name)
	return nil
}

// afterMoves is a test-only hook, nil otherwise: called by commitFn of run on prefix
// before it commits, the claim held and every rename done.
var afterMoves func(prefix, run string)

// planFn takes the claim of Run on Prefix and, unless a newer run has published there,
// emits the renames of the temporaries named in its side input to their final names.
type planFn struct {
	Prefix, Run string
}

// ProcessElement plans the output; its element is the impulse.
func (fn *planFn) ProcessElement(ctx context.Context, _ []byte, names func(*string) bool, emit func(Move)) error {
	tmps := distinctNames(names)
	fs, err := filesystem.New(ctx, fn.Prefix)
	if err != nil {
		return err
	}
	defer fs.Close()
	if err := claim(ctx, fs, fn.Prefix, fn.Run); err != nil {
		return err
	}
	newer, err := superseded(ctx, fs, fn.Prefix, fn.Run)
	if err != nil || newer != "" {
		return err // superseded: the commit cleans up
	}
	if len(tmps) == 0 {
		emit(Move{Final: shardName(fn.Prefix, 0, 1)})
	}
	for i, tmp := range tmps {
		emit(Move{Tmp: tmp, Final: shardName(fn.Prefix, i, len(tmps))})
	}
	return nil
}

// moveFn makes a rename, and emits the final name.
type moveFn struct{}

// ProcessElement renames m.Tmp to m.Final, or writes an empty m.Final.
func (fn *moveFn) ProcessElement(ctx context.Context, m Move, emit func(string)) error {
	fs, err := filesystem.New(ctx, m.Final)
	if err != nil {
		return err
	}
	defer fs.Close()
	if m.Tmp == "" {
		if err := filesystem.Write(ctx, fs, m.Final, nil); err != nil {
			return fmt.Errorf("ikpcabeam: writing %s: %w", m.Final, err)
		}
	} else if err := moveShard(ctx, fs, m.Tmp, m.Final); err != nil {
		return err
	}
	emit(m.Final)
	return nil
}

// commitFn commits Run's output on Prefix once its renames, the side input, are done:
// it removes an earlier output's shards of another count, writes the manifest, removes
// the temporaries of Run and of older runs, and releases the claim.
type commitFn struct {
	Prefix, Run string
}

// ProcessElement commits the output, and emits the manifest's name; its element is
// the impulse.
func (fn *commitFn) ProcessElement(ctx context.Context, _ []byte, moved func(*string) bool, emit func(string)) error {
	shards := distinctNames(moved)
	fs, err := filesystem.New(ctx, fn.Prefix)
	if err != nil {
		return err
	}
	defer fs.Close()
	if afterMoves != nil {
		afterMoves(fn.Prefix, fn.Run)
	}
	newer, err := superseded(ctx, fs, fn.Prefix, fn.Run)
	if err != nil {
		return err
	}
	if newer != "" {
		log.Warnf(ctx, "ikpcabeam: %s: run %s published there after this run (%s) was launched; this run's output is discarded", fn.Prefix, newer, fn.Run)
		if err := removeTemps(ctx, fs, tempDir(fn.Prefix, fn.Run)); err != nil {
			return err
		}
		if err := release(ctx, fs, fn.Prefix, fn.Run); err != nil {
			return err
		}
		emit(manifestName(fn.Prefix))
		return nil
	}
	for i, s := range shards {
		if s != shardName(fn.Prefix, i, len(shards)) {
			return fmt.Errorf("ikpcabeam: %s: shard %d of %d is %s: the renames are incomplete", fn.Prefix, i, len(shards), s)
		}
	}
	if len(shards) == 0 {
		return fmt.Errorf("ikpcabeam: %s: no shard was renamed, and no newer run has published", fn.Prefix)
	}
	if err := removeStale(ctx, fs, fn.Prefix, len(shards)); err != nil {
		return err
	}
	if err := writeManifest(ctx, fs, fn.Prefix, fn.Run, shards); err != nil {
		return err
	}
	if err := removeTemps(ctx, fs, tempDir(fn.Prefix, fn.Run)); err != nil {
		return err
	}
	if err := removeOlderTemps(ctx, fs, fn.Prefix, fn.Run); err != nil {
		return err
	}
	if err := release(ctx, fs, fn.Prefix, fn.Run); err != nil {
		return err
	}
	emit(manifestName(fn.Prefix))
	return nil
}

// removeStale removes the shards of an earlier write to prefix that this one, of n
// shards, did not write: files named prefix-SSSSS-of-NNNNN.csv with another NNNNN.
// Without it, a pipeline run again to the same prefix with fewer bundles would leave
// some of the earlier run's shards among its own, and prefix-*.csv would hold lines
// twice. Only names of that exact form are removed.
func removeStale(ctx context.Context, fs filesystem.Interface, prefix string, n int) error {
	files, err := fs.List(ctx, prefix+"-*-of-*.csv")
	if err != nil {
		return fmt.Errorf("ikpcabeam: listing %s-*-of-*.csv: %w", prefix, err)
	}
	rm, _ := fs.(filesystem.Remover)
	for _, f := range files {
		if of, ok := shardCount(prefix, f); !ok || of == n {
			continue
		}
		if rm == nil {
			return fmt.Errorf("ikpcabeam: cannot remove %s, a shard of an earlier write: its file system cannot remove files", f)
		}
		if err := rm.Remove(ctx, f); err != nil {
			return fmt.Errorf("ikpcabeam: removing %s, a shard of an earlier write: %w", f, err)
		}
	}
	return nil
}

// moveShard renames tmp to final: by the file system's Rename, or a copy and a removal
// where it has none (filesystem.Rename; S3 has none). A tmp that is gone while final
// exists was moved by an earlier attempt of the finaliser; both gone is an error, a
// committed bundle's lines lost.
func moveShard(ctx context.Context, fs filesystem.Interface, tmp, final string) error {
	if _, err := fs.Size(ctx, tmp); err != nil {
		if _, errFinal := fs.Size(ctx, final); errFinal == nil {
			return nil
		}
		return fmt.Errorf("ikpcabeam: the temporary %s of %s is missing: %w", tmp, final, err)
	}
	if err := filesystem.Rename(ctx, fs, tmp, final); err != nil {
		return fmt.Errorf("ikpcabeam: renaming %s to %s: %w", tmp, final, err)
	}
	return nil
}

// removeTemps removes the files left in dir — orphans of attempts that failed, whose
// names no committed bundle emitted — and then dir: a directory on a local file system,
// nothing on an object store such as GCS, where its removal fails and is ignored, as
// WriteFiles ignores it.
func removeTemps(ctx context.Context, fs filesystem.Interface, dir string) error {
	left, err := fs.List(ctx, dir+"/*")
	if err != nil {
		return fmt.Errorf("ikpcabeam: listing %s: %w", dir, err)
	}
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		if len(left) > 0 {
			log.Warnf(ctx, "ikpcabeam: %d temporary files left in %s: its file system cannot remove files", len(left), dir)
		}
		return nil
	}
	for _, f := range left {
		if err := rm.Remove(ctx, f); err != nil {
			return fmt.Errorf("ikpcabeam: removing the temporary %s: %w", f, err)
		}
	}
	rm.Remove(ctx, dir) // best effort: see above
	return nil
}

// IsShard reports whether name is a shard that WriteScores or WriteDeadLetters writes
// for prefix, prefix-SSSSS-of-NNNNN.csv: a file that a later write to the same prefix
// replaces or removes (the shards of an earlier write with another count). A program
// that reads and writes files can check its inputs with it before it writes.
func IsShard(prefix, name string) bool {
	_, ok := shardCount(prefix, name)
	return ok
}

// shardCount returns the count NNNNN of the shard name of prefix, and whether name is
// one, written exactly as shardName writes it.
func shardCount(prefix, name string) (int, bool) {
	tail, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	var i, of int
	var rest string
	if k, err := fmt.Sscanf(tail, "-%d-of-%d%s", &i, &of, &rest); err != nil || k != 3 || rest != ".csv" ||
		tail != fmt.Sprintf("-%05d-of-%05d.csv", i, of) {
		return 0, false
	}
	return of, true
}

// IsOutput reports whether name is a file that a write of sharded output to prefix
// writes, replaces or removes: a shard (IsShard), the manifest prefix.manifest, a claim
// prefix.claim-<run>, or a file in a temporary directory prefix.tmp-<run>/.
func IsOutput(prefix, name string) bool {
	if IsShard(prefix, name) || name == manifestName(prefix) {
		return true
	}
	for _, infix := range []string{".claim-", ".tmp-"} {
		if rest, ok := strings.CutPrefix(name, prefix+infix); ok && rest != "" {
			return true
		}
	}
	return false
}

// PrefixesOverlap reports whether writes of sharded output to the prefixes a and b
// would touch each other's files: a and b equal, or a file that one writes, replaces
// or removes (IsOutput) one that the other writes. Two such outputs in one pipeline
// would remove each other's shards, or publish one's as the other's.
func PrefixesOverlap(a, b string) bool {
	if a == b {
		return true
	}
	for _, pair := range [][2]string{{a, b}, {b, a}} {
		p, q := pair[0], pair[1]
		for _, name := range []string{shardName(q, 0, 1), shardName(q, 12, 345), manifestName(q), claimName(q, "0"), tempDir(q, "0") + "/x.csv"} {
			if IsOutput(p, name) {
				return true
			}
		}
	}
	return false
}

// distinctNames drains a side input of file names and returns them sorted, each once:
// a runner may retry the bundle that emitted a name, and two copies of one would
// miscount the shards.
func distinctNames(iter func(*string) bool) []string {
	var names []string
	var name string
	for iter(&name) {
		names = append(names, name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
