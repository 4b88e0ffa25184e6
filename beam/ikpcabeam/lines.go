package ikpcabeam

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	beam.RegisterType(reflect.TypeFor[fileRange]())
	beam.RegisterType(reflect.TypeFor[rangeRest]())
	perBundle(&rangesFn{}, &readRangeFn{})
	register.Emitter1[fileRange]()
	register.Emitter1[Line]()
}

// ReadLines reads the text files that glob matches (any file system Beam knows: local
// paths, gs://, s3://, …) and returns their lines as a PCollection<Line>, each with its
// file, byte offset and line number. It is Beam's textio.Read with positions, built so
// that every runner reads in parallel (docs/design.md, "Beyond one machine"): the files
// are matched, each is cut into ranges — blocks of 64 MiB of an uncompressed file (a
// last block below 16 MiB joins the one before), the whole of a file ending in ".gz" —
// and a Reshuffle spreads the ranges over the workers before any is read, as Java's
// FileIO.MatchAll does: a runner that does not split work dynamically (Flink's and
// Spark's batch translators) would otherwise read every file, and run all that is fused
// after the read, in the one task that matched them. A range is read by a splittable
// DoFn, so that a runner that does split (Dataflow) can still rebalance within it. Each
// line belongs to the range it starts in. A line's number is known in the first block
// of a file (all of a file below 80 MiB) and is 0 in the others, where the offset
// still locates it. A ".gz" file is decompressed and read whole by one worker (its
// offsets are in the decompressed text), its progress the compressed bytes read.
//
// A file whose contents the reader cannot take for what its name says fails the
// pipeline rather than lose lines: one not named ".gz" that starts with gzip's magic
// bytes, and one whose text runs past the size its file system listed — a Cloud
// Storage object stored with Content-Encoding gzip, which the client decompresses on
// reading (an uncompressed file's ranges are cut by the listed size, so its text would
// be cut there). An empty glob, or one of a file system the program does not register
// (import github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local for local
// paths, …/gcs for gs://), is an ErrArgument.
func ReadLines(s beam.Scope, glob string) (beam.PCollection, error) {
	if err := checkScheme(glob); err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("ikpcabeam.ReadLines")
	ranges := beam.ParDo(s, &rangesFn{}, fileio.MatchFiles(s, glob))
	return beam.ParDo(s, &readRangeFn{}, beam.Reshuffle(s, ranges)), nil
}

// checkScheme reports a path that Beam's file systems cannot open: empty, or of a
// scheme no imported file system registers. (filesystem.ValidateScheme panics.)
func checkScheme(path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrArgument, r)
		}
	}()
	filesystem.ValidateScheme(path)
	return nil
}

// The block size for the initial split of a file, and the smallest last block: a
// remainder below it joins the block before (textio's values; variables so that tests
// can split small files).
var (
	blockSize int64 = 64 << 20
	tooSmall        = blockSize / 4
)

// fileRange is a range of a file's bytes to read: the lines that start in [Start,
// End), or for a compressed file (Start 0, End its size) all of its text.
type fileRange struct {
	// Path is the file, Size its size as its file system listed it.
	Path string
	Size int64
	// Start and End bound the range.
	Start, End int64
}

// compressed reports a file read whole, decompressed: its byte range is not that of its
// text.
func compressed(path string) bool { return filepath.Ext(path) == ".gz" }

// rangesFn cuts each matched file into the ranges that readRangeFn reads: blocks of
// blockSize of an uncompressed file, the last below tooSmall joined to the one before,
// and a compressed file whole. An empty uncompressed file has none; a directory (a
// path ending in a separator, as fileio.ReadMatches skips them) is left out.
type rangesFn struct{}

// ProcessElement emits the ranges of one file.
func (fn *rangesFn) ProcessElement(f fileio.FileMetadata, emit func(fileRange)) {
	if strings.HasSuffix(f.Path, "/") || strings.HasSuffix(f.Path, "\\") {
		return
	}
	if compressed(f.Path) {
		emit(fileRange{Path: f.Path, Size: f.Size, Start: 0, End: f.Size})
		return
	}
	if f.Size <= 0 {
		return
	}
	splits := offsetrange.Restriction{Start: 0, End: f.Size}.SizedSplits(blockSize)
	if n := len(splits); n > 1 && splits[n-1].End-splits[n-1].Start <= tooSmall {
		splits[n-2].End = splits[n-1].End
		splits = splits[:n-1]
	}
	for _, r := range splits {
		emit(fileRange{Path: f.Path, Size: f.Size, Start: r.Start, End: r.End})
	}
}

// readRangeFn is a splittable DoFn over a fileRange, as textio's reader over a file:
// it emits every line that starts in its range. A compressed file's range cannot be
// split (rangeTracker) and is claimed in compressed bytes, so that its progress is the
// share of the file read.
type readRangeFn struct{}

// CreateInitialRestriction is the range, whole for a compressed file.
func (fn *readRangeFn) CreateInitialRestriction(r fileRange) rangeRest {
	return rangeRest{Start: r.Start, End: r.End, Whole: compressed(r.Path)}
}

// SplitRestriction keeps the range whole: rangesFn has cut the file.
func (fn *readRangeFn) SplitRestriction(_ fileRange, rest rangeRest) []rangeRest {
	return []rangeRest{rest}
}

// RestrictionSize is the size of the range in the file's bytes.
func (fn *readRangeFn) RestrictionSize(_ fileRange, rest rangeRest) float64 {
	return float64(rest.End - rest.Start)
}

// CreateTracker tracks the range.
func (fn *readRangeFn) CreateTracker(rest rangeRest) *sdf.LockRTracker {
	return sdf.NewLockRTracker(&rangeTracker{offsetrange.NewTracker(offsetrange.Restriction{Start: rest.Start, End: rest.End}), rest.Whole})
}

// rangeRest is the restriction of a range being read: an offset range of the file's
// bytes, and whether it must be read whole (a compressed file: the offsets of its
// text cannot be reached without reading what comes before).
type rangeRest struct {
	Start, End int64
	Whole      bool
}

// rangeTracker is an offset-range tracker of a rangeRest, which refuses to split a
// whole one.
type rangeTracker struct {
	*offsetrange.Tracker
	whole bool
}

// GetRestriction is the range left to the tracker.
func (t *rangeTracker) GetRestriction() any {
	r := t.Tracker.GetRestriction().(offsetrange.Restriction)
	return rangeRest{Start: r.Start, End: r.End, Whole: t.whole}
}

// TrySplit splits as offsetrange's tracker, or keeps a whole range.
func (t *rangeTracker) TrySplit(fraction float64) (primary, residual any, err error) {
	if t.whole {
		return t.GetRestriction(), nil, nil
	}
	p, r, err := t.Tracker.TrySplit(fraction)
	if err != nil || p == nil {
		return p, r, err
	}
	pr := p.(offsetrange.Restriction)
	primary = rangeRest{Start: pr.Start, End: pr.End}
	if r != nil {
		rr := r.(offsetrange.Restriction)
		residual = rangeRest{Start: rr.Start, End: rr.End}
	}
	return primary, residual, nil
}

// end is the end of the tracker's range.
func end(rt *sdf.LockRTracker) int64 { return rt.GetRestriction().(rangeRest).End }

// start is the start of the tracker's range.
func start(rt *sdf.LockRTracker) int64 { return rt.GetRestriction().(rangeRest).Start }

// gzipMagic starts every gzip stream (RFC 1952, ID1 ID2).
var gzipMagic = []byte{0x1f, 0x8b}

// ProcessElement emits the lines that start in the tracker's range.
func (fn *readRangeFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, r fileRange, emit func(Line)) error {
	fs, err := filesystem.New(ctx, r.Path)
	if err != nil {
		return err
	}
	defer fs.Close()
	rc, err := fs.OpenRead(ctx, r.Path)
	if err != nil {
		return err
	}
	defer rc.Close()
	if compressed(r.Path) {
		return readCompressed(rt, r, rc, emit)
	}
	return readBlock(rt, r, rc, emit)
}

// readBlock emits the lines of an uncompressed file that start in the tracker's range.
// A range that starts inside the file skips to the first line break at or after its
// start minus one: the line that starts at the start, if one does, is its first.
func readBlock(rt *sdf.LockRTracker, f fileRange, rc io.Reader, emit func(Line)) error {
	// The file's first bytes, read first whatever the range: a gzip stream is not
	// text, and its lines cut by the compressed size would be garbage.
	var head [2]byte
	n, err := io.ReadFull(rc, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	if n == 2 && bytes.Equal(head[:], gzipMagic) {
		return fmt.Errorf("%w: %s holds gzip data but its name does not end in .gz: rename it so that it is decompressed", ErrArgument, f.Path)
	}
	first := start(rt)
	skip := max(first-1, 0)
	// Go to the byte before the block: by seeking where the file allows it (a local
	// file), by reading through otherwise (as textio does).
	var in io.Reader = io.MultiReader(bytes.NewReader(head[:n]), rc)
	if sk, ok := rc.(io.Seeker); ok && skip > 0 {
		if _, err := sk.Seek(skip, io.SeekStart); err != nil {
			return err
		}
		in, skip = rc, 0
	}
	r := bufio.NewReaderSize(in, 1<<20)
	pos, number := int64(0), int64(1)
	if first > 0 {
		number = 0 // the lines before are not counted
		if _, err := r.Discard(int(skip)); err != nil {
			if err == io.EOF {
				return fmt.Errorf("ikpcabeam: %s: block at byte %d is past the end of the file", f.Path, first)
			}
			return err
		}
		rest, err := r.ReadString('\n')
		pos = first - 1 + int64(len(rest))
		if err == io.EOF {
			rt.TryClaim(end(rt))
			return nil
		}
		if err != nil {
			return err
		}
	}
	for rt.TryClaim(pos) {
		text, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return err
		}
		if text != "" {
			emit(Line{Source: f.Path, Offset: pos, Number: number, Text: trimBreak(text)})
		}
		if err == io.EOF {
			if pos += int64(len(text)); pos > f.Size {
				return longer(f)
			}
			rt.TryClaim(end(rt))
			return nil
		}
		pos += int64(len(text))
		if number > 0 {
			number++
		}
	}
	// The range is done. If it ends the file as listed, the text must end there too.
	if end(rt) >= f.Size {
		if _, err := r.Peek(1); err == nil {
			return longer(f)
		}
	}
	return nil
}

// longer is the error of a file whose text runs past its listed size.
func longer(f fileRange) error {
	return fmt.Errorf("%w: %s holds more than the %d bytes its file system lists: a Cloud Storage object stored with Content-Encoding gzip, which is decompressed as it is read? Store it compressed under a name ending in .gz", ErrArgument, f.Path, f.Size)
}

// readCompressed emits every line of a gzipped file's text, at its offset in the text,
// claiming the compressed bytes read so far before each line that follows more of
// them: the tracker, which cannot split (rangeTracker), then reports as progress the
// share of the file read.
func readCompressed(rt *sdf.LockRTracker, f fileRange, rc io.Reader, emit func(Line)) error {
	c := &countingReader{r: rc}
	z, err := gzip.NewReader(c)
	if err != nil {
		return fmt.Errorf("ikpcabeam: %s: %w", f.Path, err)
	}
	defer z.Close()
	r := bufio.NewReaderSize(z, 1<<20)
	last := end(rt)
	claimed := int64(-1)
	pos, number := int64(0), int64(1)
	for {
		text, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("ikpcabeam: %s: %w", f.Path, err)
		}
		if at := min(c.n, last-1); at > claimed {
			if !rt.TryClaim(at) {
				return nil
			}
			claimed = at
		}
		if text != "" {
			emit(Line{Source: f.Path, Offset: pos, Number: number, Text: trimBreak(text)})
		}
		if err == io.EOF {
			rt.TryClaim(last)
			return nil
		}
		pos += int64(len(text))
		number++
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

// Read reads from r, counting.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// trimBreak removes a final "\n" or "\r\n".
func trimBreak(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}
