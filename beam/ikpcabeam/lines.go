package ikpcabeam

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.DoFn4x1[context.Context, *sdf.LockRTracker, fileio.ReadableFile, func(Line), error](&readLinesFn{})
	register.Emitter1[Line]()
}

// ReadLines reads the text files that glob matches (any file system Beam knows: local
// paths, gs://, s3://, …) and returns their lines as a PCollection<Line>, each with its
// file, byte offset and line number. It is Beam's textio.Read with positions: large
// uncompressed files are split into blocks of 64 MiB that workers read in parallel,
// and each line belongs to the block it starts in. A line's number is known in the
// first block of a file (all of a file below 80 MiB) and is 0 in the others, where the
// offset still locates it. A file ending in ".gz" is decompressed and read whole by one
// worker (its offsets are in the decompressed text). An empty glob, or one of a file
// system the program does not register (import
// github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local for local paths, …/gcs
// for gs://), is an ErrArgument.
func ReadLines(s beam.Scope, glob string) (beam.PCollection, error) {
	if err := checkScheme(glob); err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("ikpcabeam.ReadLines")
	files := fileio.ReadMatches(s, fileio.MatchFiles(s, glob))
	return beam.ParDo(s, &readLinesFn{}, files), nil
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

// readLinesFn is a splittable DoFn over the byte range of a file, as textio's reader:
// it emits every line that starts in its range.
type readLinesFn struct{}

// compressed reports a file read whole: its byte range is not that of its text.
func compressed(f fileio.ReadableFile) bool { return filepath.Ext(f.Metadata.Path) == ".gz" }

// wholeEnd ends the range of a compressed file, beyond any text: the tracker's
// arithmetic (claimed+1) must not overflow.
const wholeEnd = math.MaxInt64 / 2

// CreateInitialRestriction is the file's byte range, or for a compressed file a range
// beyond any text, which ProcessElement ends at the end of the text.
func (fn *readLinesFn) CreateInitialRestriction(f fileio.ReadableFile) offsetrange.Restriction {
	if compressed(f) {
		return offsetrange.Restriction{Start: 0, End: wholeEnd}
	}
	return offsetrange.Restriction{Start: 0, End: f.Metadata.Size}
}

// SplitRestriction splits an uncompressed file into blocks.
func (fn *readLinesFn) SplitRestriction(f fileio.ReadableFile, rest offsetrange.Restriction) []offsetrange.Restriction {
	if compressed(f) {
		return []offsetrange.Restriction{rest}
	}
	splits := rest.SizedSplits(blockSize)
	if n := len(splits); n > 1 && splits[n-1].End-splits[n-1].Start <= tooSmall {
		splits[n-2].End = splits[n-1].End
		splits = splits[:n-1]
	}
	return splits
}

// RestrictionSize is the size of the range (a compressed file counts as its size on
// disk).
func (fn *readLinesFn) RestrictionSize(f fileio.ReadableFile, rest offsetrange.Restriction) float64 {
	if compressed(f) {
		return float64(f.Metadata.Size)
	}
	return rest.Size()
}

// CreateTracker tracks the range; a compressed file's cannot be split.
func (fn *readLinesFn) CreateTracker(rest offsetrange.Restriction) *sdf.LockRTracker {
	t := offsetrange.NewTracker(rest)
	if rest.End == wholeEnd {
		return sdf.NewLockRTracker(&wholeFile{t})
	}
	return sdf.NewLockRTracker(t)
}

// wholeFile is an offset-range tracker that refuses to split: the offsets of a
// compressed file's text cannot be reached without reading what comes before.
type wholeFile struct{ *offsetrange.Tracker }

// TrySplit keeps the whole range.
func (w *wholeFile) TrySplit(float64) (primary, residual any, err error) {
	return w.GetRestriction(), nil, nil
}

// ProcessElement emits the lines that start in the tracker's range. A range that
// starts inside the file skips to the first line break at or after its start minus
// one: the line that starts at the start, if one does, is its first.
func (fn *readLinesFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, f fileio.ReadableFile, emit func(Line)) error {
	rc, err := f.Open(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	start := rt.GetRestriction().(offsetrange.Restriction).Start
	skip := max(start-1, 0)
	// Go to the byte before the block: by seeking where the file allows it (a local
	// file), by reading through otherwise (as textio does).
	if sk, ok := rc.(io.Seeker); ok && skip > 0 {
		if _, err := sk.Seek(skip, io.SeekStart); err != nil {
			return err
		}
		skip = 0
	}
	r := bufio.NewReaderSize(rc, 1<<20)
	pos, number := int64(0), int64(1)
	if start > 0 {
		number = 0 // the lines before are not counted
		if _, err := r.Discard(int(skip)); err != nil {
			if err == io.EOF {
				return fmt.Errorf("ikpcabeam: %s: block at byte %d is past the end of the file", f.Metadata.Path, start)
			}
			return err
		}
		rest, err := r.ReadString('\n')
		pos = start - 1 + int64(len(rest))
		if err == io.EOF {
			rt.TryClaim(rt.GetRestriction().(offsetrange.Restriction).End)
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
			emit(Line{Source: f.Metadata.Path, Offset: pos, Number: number, Text: trimBreak(text)})
		}
		if err == io.EOF {
			rt.TryClaim(rt.GetRestriction().(offsetrange.Restriction).End)
			break
		}
		pos += int64(len(text))
		if number > 0 {
			number++
		}
	}
	return nil
}

// trimBreak removes a final "\n" or "\r\n".
func trimBreak(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}
