package ikpcabeam

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// Sharded output, written the way Beam's own file sinks write it (Java's WriteFiles and
// FileBasedSink; docs/design.md, "Beyond one machine"), so that a runner's retries
// neither duplicate nor lose a line:
//
//  1. Each bundle writes its lines, where they are computed, to a temporary file of its
//     own, a random name in a directory unique to the pipeline's construction
//     (prefix.tmp-<id>/), and emits the temporary's name when the file is closed. A
//     runner commits a bundle's outputs only if the bundle succeeds, and discards those
//     of a failed attempt: a bundle retried writes a second temporary, and only one
//     name of the two is ever emitted.
//  2. The names are a side input of one finalising DoFn, whose main input is an
//     impulse. A side input is materialised from the committed outputs of the stage
//     that wrote it, and is ready only when that stage is complete: the barrier that
//     WriteFiles gets from its GroupByKey, which also runs the finaliser when no bundle
//     wrote anything. The names are small (one per bundle) where a side input of the
//     lines themselves held all of them on one worker.
//  3. The finaliser sorts the names and renames the i-th of n to
//     prefix-SSSSS-of-NNNNN.csv (i, n; at least five digits). The names are the
//     side input's, the same on every attempt of the finaliser, so the final names are
//     too: a finaliser retried after some renames finds their temporaries gone and
//     their final files there, and goes on. No name at all gives one empty file,
//     prefix-00000-of-00001.csv (WriteFiles writes one empty shard too), so that an
//     empty output is seen to exist.
//  4. It then removes the shards of an earlier write to the same prefix with another
//     number of shards (prefix-SSSSS-of-MMMMM.csv, M ≠ N; those with the same N were
//     just replaced), so that prefix-*.csv holds this output only — Beam's sinks leave
//     them, and a pipeline run again to the same prefix would then show lines twice.
//  5. Last, it removes every file left in the temporary directory — the temporaries of
//     failed or retried attempts, which no committed name refers to — and the
//     directory itself where the file system has one.
//
// What is not covered: a job that fails for good leaves its temporary directory (as
// WriteFiles does), and the shards of an earlier run stay until a run to the same
// prefix succeeds.

// afterTempWrite is a test-only hook, nil otherwise: called by a bundle's writer after
// its temporary file is written and closed, before the name is emitted; its error
// fails the bundle — a failure after the writes, the case a retry must not duplicate.
var afterTempWrite func(ctx context.Context, fs filesystem.Interface, tmp string) error

func init() {
	register.DoFn3x1[context.Context, string, func(string), error](&writeTempFn{})
	register.DoFn3x1[context.Context, []byte, func(*string) bool, error](&finaliseFn{})
	register.Emitter1[string]()
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
func writeShards(s beam.Scope, prefix string, lines beam.PCollection) {
	// A directory unique to this construction of the pipeline, as WriteFiles's
	// .temp-beam-<uuid>: two pipelines writing to the same prefix at once do not
	// remove each other's temporaries.
	dir := prefix + ".tmp-" + rand.Text()
	names := beam.ParDo(s, &writeTempFn{Dir: dir}, lines)
	beam.ParDo0(s, &finaliseFn{Prefix: prefix, Dir: dir}, beam.Impulse(s), beam.SideInput{Input: names})
}

// shardName is the final name of shard i of n.
func shardName(prefix string, i, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.csv", prefix, i, n)
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

// finaliseFn gives the temporaries named in its side input their final names under
// Prefix, then removes everything else in Dir, and Dir.
type finaliseFn struct {
	Prefix, Dir string
}

// ProcessElement finalises the output; its element is the impulse.
func (fn *finaliseFn) ProcessElement(ctx context.Context, _ []byte, names func(*string) bool) error {
	var tmps []string
	var name string
	for names(&name) {
		tmps = append(tmps, name)
	}
	slices.Sort(tmps)
	tmps = slices.Compact(tmps) // a name is emitted once; two copies would miscount n
	fs, err := filesystem.New(ctx, fn.Prefix)
	if err != nil {
		return err
	}
	defer fs.Close()
	if len(tmps) == 0 {
		if err := filesystem.Write(ctx, fs, shardName(fn.Prefix, 0, 1), nil); err != nil {
			return fmt.Errorf("ikpcabeam: writing %s: %w", shardName(fn.Prefix, 0, 1), err)
		}
	}
	for i, tmp := range tmps {
		if err := moveShard(ctx, fs, tmp, shardName(fn.Prefix, i, len(tmps))); err != nil {
			return err
		}
	}
	if err := removeStale(ctx, fs, fn.Prefix, max(len(tmps), 1)); err != nil {
		return err
	}
	return removeTemps(ctx, fs, fn.Dir)
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
