package ikpcabeam

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
)

// The publication of a run's shards (docs/design.md, "Beyond one machine", Output).
//
// Every write of sharded output is a run: the construction of its pipeline gives it an
// id, the time of construction (16 hexadecimal digits of Unix nanoseconds, so that ids
// sort as launches do) and a random tail. Its files live, until published, in
// prefix.tmp-<run>/. Two runs may write one prefix at the same time — a scheduler that
// retries a job while the first still runs, or the dead letters of a failed fit written
// again while the failed job's own writer still goes on — and neither may delete the
// other's shards or mix its shards with the other's. Publishing is therefore done under
// a claim, and the newest run wins:
//
//   - The claim. A run that publishes first writes prefix.claim-<run>, then lists
//     prefix.claim-*: its own claim alone, and the prefix is its own until it removes
//     the claim; another's there too, and it removes its own, waits a random while and
//     tries again. Two runs that claim at once both see both and both back off, so at
//     most one holds the prefix at any time (a listing after a write sees the write, as
//     it does on a local disk, GCS and S3). A claim older than claimStale is a crashed
//     run's and is removed; one younger makes a run wait up to claimWait and then fail
//     with an error that names it.
//   - The manifest. prefix.manifest records the run that published the shards there and
//     their names, written last, by a rename, once every shard is in place: what a
//     reader that must not see a half-published output reads. A run that finds in it
//     a newer run than itself has been superseded: it publishes nothing and removes its
//     own temporaries, so that a job that ends late never replaces the output of one
//     launched after it.
//   - The renames. The holder of the claim plans the renames, one element each, and a
//     Reshuffle spreads them over the workers: on an object store a rename is a copy
//     and a delete, one per shard, too slow for one worker when there are thousands.
//   - The commit. Once every rename is done (a side input's barrier), one DoFn removes
//     the shards of an earlier output with another count, writes the manifest, removes
//     its temporary directory and those of older runs (a job that failed for good), and
//     releases the claim.

// claimWait is how long a run waits for another run's claim on its prefix to go before
// it fails; claimStale the age past which a claim is a crashed run's and is removed. A
// publication holds its claim for the time of its renames, seconds to minutes.
var (
	claimWait  = 10 * time.Minute
	claimStale = time.Hour
)

// lastRun is the id of the latest run made in this process, so that two runs made in
// one nanosecond still sort in the order they were made.
var lastRun struct {
	sync.Mutex
	nanos int64
}

// newRun returns a new run id: the time, as 16 hexadecimal digits of Unix nanoseconds,
// and 8 random characters.
func newRun() string {
	lastRun.Lock()
	n := max(time.Now().UnixNano(), lastRun.nanos+1)
	lastRun.nanos = n
	lastRun.Unlock()
	return fmt.Sprintf("%016x-%s", n, strings.ToLower(cryptorand.Text()[:8]))
}

// manifestName is the manifest of prefix; claimName the claim of run on it; tempDir
// the directory of run's temporaries.
func manifestName(prefix string) string     { return prefix + ".manifest" }
func claimName(prefix, run string) string   { return prefix + ".claim-" + run }
func tempDir(prefix, run string) string     { return prefix + ".tmp-" + run }
func claimGlob(prefix string) string        { return prefix + ".claim-*" }
func runOfClaim(prefix, name string) string { return strings.TrimPrefix(name, prefix+".claim-") }

// manifest is the content of prefix.manifest.
type manifest struct {
	// Run is the id of the run that published the shards.
	Run string `json:"run"`
	// Shards are their names, in order.
	Shards []string `json:"shards"`
	// Published is when the manifest was written (RFC 3339, UTC).
	Published string `json:"published"`
}

// readManifest reads the manifest of prefix; ok is false where there is none.
func readManifest(ctx context.Context, fs filesystem.Interface, prefix string) (m manifest, ok bool, err error) {
	return readJSON(ctx, fs, manifestName(prefix), "a manifest of this package", func(m manifest) bool { return m.Run != "" })
}

// readJSON reads the JSON file name into a T, which valid must accept; ok is false
// where there is no such file. A file that is not what (not JSON, or refused by valid)
// is an error that tells the user to remove it or write elsewhere: it is not ours to
// delete.
func readJSON[T any](ctx context.Context, fs filesystem.Interface, name, what string, valid func(T) bool) (v T, ok bool, err error) {
	if _, err := fs.Size(ctx, name); err != nil {
		return v, false, nil // none: a file system tells "not found" in its own words
	}
	b, err := filesystem.Read(ctx, fs, name)
	if err != nil {
		return v, false, fmt.Errorf("ikpcabeam: reading %s: %w", name, err)
	}
	if err := json.Unmarshal(b, &v); err != nil || !valid(v) {
		return v, false, fmt.Errorf("ikpcabeam: %s is not %s (%v): remove it or write elsewhere", name, what, err)
	}
	return v, true, nil
}

// writeManifest writes the manifest of run's shards, through a temporary renamed over
// the old one, so that a reader sees the old manifest or the new, whole.
func writeManifest(ctx context.Context, fs filesystem.Interface, prefix, run string, shards []string) error {
	b, err := json.MarshalIndent(manifest{Run: run, Shards: shards, Published: time.Now().UTC().Format(time.RFC3339)}, "", "  ")
	if err != nil {
		return err
	}
	name := manifestName(prefix)
	tmp := tempDir(prefix, run) + "/manifest.json"
	if err := filesystem.Write(ctx, fs, tmp, append(b, '\n')); err != nil {
		return fmt.Errorf("ikpcabeam: writing %s: %w", tmp, err)
	}
	if err := filesystem.Rename(ctx, fs, tmp, name); err != nil {
		return fmt.Errorf("ikpcabeam: renaming %s to %s: %w", tmp, name, err)
	}
	return nil
}

// superseded reports whether a run newer than run has published to prefix.
func superseded(ctx context.Context, fs filesystem.Interface, prefix, run string) (newer string, err error) {
	m, ok, err := readManifest(ctx, fs, prefix)
	if err != nil || !ok || m.Run <= run {
		return "", err
	}
	return m.Run, nil
}

// errClaimed reports a prefix whose claim another run held for longer than a run waits.
var errClaimed = errors.New("ikpcabeam: another run is publishing to the same prefix")

// claim takes the claim of run on prefix, waiting for another run's to go (see above).
// A claim of run's own already there (a retried attempt) is taken over.
func claim(ctx context.Context, fs filesystem.Interface, prefix, run string) error {
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return fmt.Errorf("%w: the file system of %s cannot remove files, which publishing needs", ErrArgument, prefix)
	}
	mine := claimName(prefix, run)
	body := []byte(run + "\n" + time.Now().UTC().Format(time.RFC3339Nano) + "\n")
	deadline := time.Now().Add(claimWait)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		if err := filesystem.Write(ctx, fs, mine, body); err != nil {
			return fmt.Errorf("ikpcabeam: writing the claim %s: %w", mine, err)
		}
		claims, err := fs.List(ctx, claimGlob(prefix))
		if err != nil {
			return fmt.Errorf("ikpcabeam: listing %s: %w", claimGlob(prefix), err)
		}
		var others []string
		for _, c := range claims {
			if c == mine {
				continue
			}
			if stale(ctx, fs, c) {
				log.Warnf(ctx, "ikpcabeam: removing %s, a claim older than %v: its run must have crashed", c, claimStale)
				rm.Remove(ctx, c) // another run may have removed it first
				continue
			}
			others = append(others, c)
		}
		if len(others) == 0 {
			return nil
		}
		if err := rm.Remove(ctx, mine); err != nil {
			return fmt.Errorf("ikpcabeam: removing the claim %s: %w", mine, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %s holds %s since more than %v; if no job writes there, remove it", errClaimed, runOfClaim(prefix, others[0]), others[0], claimWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait/2 + rand.N(wait)):
		}
	}
}

// stale reports a claim written more than claimStale ago (its second line); one that
// cannot be read is not stale: it may be in the middle of its write.
func stale(ctx context.Context, fs filesystem.Interface, name string) bool {
	b, err := filesystem.Read(ctx, fs, name)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, lines[1])
	return err == nil && time.Since(t) > claimStale
}

// release removes run's claim on prefix.
func release(ctx context.Context, fs filesystem.Interface, prefix, run string) error {
	if err := fs.(filesystem.Remover).Remove(ctx, claimName(prefix, run)); err != nil {
		if _, serr := fs.Size(ctx, claimName(prefix, run)); serr != nil {
			return nil // gone already: a retried commit
		}
		return fmt.Errorf("ikpcabeam: removing the claim %s: %w", claimName(prefix, run), err)
	}
	return nil
}

// removeOlderTemps removes the temporary directories of runs older than run on prefix:
// those of jobs that failed for good, or that a newer run has now superseded.
func removeOlderTemps(ctx context.Context, fs filesystem.Interface, prefix, run string) error {
	// The files in the directories (an object store has no directories), and the
	// directories (a local disk's, which may be empty).
	files, err := fs.List(ctx, prefix+".tmp-*/*")
	if err != nil {
		return fmt.Errorf("ikpcabeam: listing %s.tmp-*: %w", prefix, err)
	}
	top, err := fs.List(ctx, prefix+".tmp-*")
	if err != nil {
		return fmt.Errorf("ikpcabeam: listing %s.tmp-*: %w", prefix, err)
	}
	for _, d := range top {
		files = append(files, d+"/")
	}
	var dirs []string
	for _, f := range files {
		dir, _, ok := strings.Cut(strings.TrimPrefix(f, prefix+".tmp-"), "/")
		if !ok || dir >= run {
			continue
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	for _, d := range dirs {
		if err := removeTemps(ctx, fs, tempDir(prefix, d)); err != nil {
			return err
		}
	}
	return nil
}

// ReleaseFailed removes what the writes of sharded output of p (WriteScores,
// WriteDeadLetters) left when a run of p failed: each write's claim, which would hold
// the next run to its prefix off for up to claimWait, and its temporary directory. Call
// it once the runner reports the failed job over, and never while it may still run:
// a write whose claim is gone no longer keeps other runs out. A write that published
// before the job failed left neither, and keeps its output.
func ReleaseFailed(ctx context.Context, p *beam.Pipeline) error {
	edges, _, err := p.Build()
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range edges {
		if e.DoFn == nil {
			continue
		}
		fn, ok := e.DoFn.Recv.(*planFn)
		if !ok {
			continue
		}
		fs, err := filesystem.New(ctx, fn.Prefix)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := fs.Size(ctx, claimName(fn.Prefix, fn.Run)); err == nil {
			errs = append(errs, release(ctx, fs, fn.Prefix, fn.Run))
		}
		errs = append(errs, removeTemps(ctx, fs, tempDir(fn.Prefix, fn.Run)))
		fs.Close()
	}
	return errors.Join(errs...)
}
