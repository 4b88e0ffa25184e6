package ikpcabeam

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.Function1x1(FormatScores)
	register.Function1x1(FormatDeadLetter)
	register.DoFn3x1[context.Context, string, func([]byte), error](&readFileFn{})
	register.DoFn3x1[context.Context, int, func(*[]byte) bool, error](&writeFileFn{})
	register.DoFn3x1[context.Context, string, func(*string) bool, error](&writeLinesFn{})
	register.Iter1[string]()
	register.DoFn2x1[context.Context, string, error](&writeShardFn{})
	register.Emitter1[[]byte]()
}

// FormatScores formats scores as a CSV line: the point's source, offset and line, then
// its scores, each in the shortest form that reads back to the same bits. The source
// is quoted if CSV needs it.
func FormatScores(sc Scores) string {
	return csvFields(sc.Source, strconv.FormatInt(sc.Offset, 10), strconv.FormatInt(sc.Line, 10)) + "," + formatFloats(sc.Y)
}

// FormatDeadLetter formats a dead letter as a CSV line: source, offset, line, reason and
// the record, quoted as CSV needs.
func FormatDeadLetter(d DeadLetter) string {
	return csvFields(d.Source, strconv.FormatInt(d.Offset, 10), strconv.FormatInt(d.Line, 10), d.Reason, d.Text)
}

// csvFields writes fields as one CSV record without its line break.
func csvFields(fields ...string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(fields) // a strings.Builder does not fail
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// WriteScores writes a PCollection<Scores> to filename (any file system Beam knows) as
// lines of FormatScores, in no particular order: one file, written by one worker, as
// textio.Write writes, and empty (not missing) for no scores. A filename Beam's file systems cannot open is an ErrArgument (see
// ReadLines).
func WriteScores(s beam.Scope, filename string, scores beam.PCollection) error {
	if err := checkScheme(filename); err != nil {
		return err
	}
	s = s.Scope("ikpcabeam.WriteScores")
	writeLines(s, filename, beam.ParDo(s, FormatScores, scores))
	return nil
}

// WriteScoresSharded writes a PCollection<Scores> as WriteScores does, into files
// named prefix-<random id>.csv, one per bundle, each written by the worker that holds
// the bundle: no shuffle, and memory that does not grow with the number of scores,
// where WriteScores gathers them all on one worker (a runner may hold them in memory
// there: prism does). A file is written as prefix-<id>.csv.tmp and renamed when its
// bundle finishes; a bundle that fails leaves its .tmp file, and a bundle that the
// runner runs again after it finished (a failure further on) may leave its lines in
// two files. A prefix Beam's file systems cannot open is an ErrArgument.
func WriteScoresSharded(s beam.Scope, prefix string, scores beam.PCollection) error {
	if err := checkScheme(prefix); err != nil {
		return err
	}
	s = s.Scope("ikpcabeam.WriteScoresSharded")
	beam.ParDo0(s, &writeShardFn{Prefix: prefix}, beam.ParDo(s, FormatScores, scores))
	return nil
}

// WriteDeadLetters writes a PCollection<DeadLetter> to filename as lines of
// FormatDeadLetter, as WriteScores writes scores.
func WriteDeadLetters(s beam.Scope, filename string, dead beam.PCollection) error {
	if err := checkScheme(filename); err != nil {
		return err
	}
	s = s.Scope("ikpcabeam.WriteDeadLetters")
	writeLines(s, filename, beam.ParDo(s, FormatDeadLetter, dead))
	return nil
}

// ReadModel reads a model's encoding (or any file) from filename, on any file system
// Beam knows, when the pipeline runs: a PCollection<[]byte> of one element, for
// Project's side input. A filename Beam's file systems cannot open is an ErrArgument.
func ReadModel(s beam.Scope, filename string) (beam.PCollection, error) {
	if err := checkScheme(filename); err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("ikpcabeam.ReadModel")
	return beam.ParDo(s, &readFileFn{}, beam.Create(s, filename)), nil
}

// WriteModel writes the one element of a PCollection<[]byte>, a fitted model's
// encoding, to filename. A filename Beam's file systems cannot open is an
// ErrArgument.
func WriteModel(s beam.Scope, filename string, model beam.PCollection) error {
	if err := checkScheme(filename); err != nil {
		return err
	}
	s = s.Scope("ikpcabeam.WriteModel")
	beam.ParDo0(s, &writeFileFn{Filename: filename}, beam.GroupByKey(s, beam.AddFixedKey(s, model)))
	return nil
}

// readFileFn reads a whole file.
type readFileFn struct{}

// ProcessElement emits the contents of the file name.
func (fn *readFileFn) ProcessElement(ctx context.Context, name string, emit func([]byte)) error {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("ikpcabeam: reading %s: %w", name, err)
	}
	emit(b)
	return nil
}

// writeFileFn writes the one value of its key to Filename.
type writeFileFn struct{ Filename string }

// ProcessElement writes the value; more than one is an error.
func (fn *writeFileFn) ProcessElement(ctx context.Context, _ int, values func(*[]byte) bool) error {
	var b, extra []byte
	if !values(&b) {
		return nil
	}
	if values(&extra) {
		return fmt.Errorf("%w: more than one model to write to %s", ErrArgument, fn.Filename)
	}
	fs, err := filesystem.New(ctx, fn.Filename)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, fn.Filename)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return fmt.Errorf("ikpcabeam: writing %s: %w", fn.Filename, err)
	}
	return w.Close()
}

// writeLines writes a PCollection<string> to filename, a line each: the file name is
// the main input and the lines a side input, so that the file is written, empty, when
// there are no lines.
func writeLines(s beam.Scope, filename string, lines beam.PCollection) {
	beam.ParDo0(s, &writeLinesFn{}, beam.Create(s, filename), beam.SideInput{Input: lines})
}

// writeLinesFn writes its side input's lines to the file its element names.
type writeLinesFn struct{}

// ProcessElement writes the lines.
func (fn *writeLinesFn) ProcessElement(ctx context.Context, filename string, lines func(*string) bool) error {
	fs, err := filesystem.New(ctx, filename)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, filename)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var line string
	for lines(&line) {
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		w.Close()
		return fmt.Errorf("ikpcabeam: writing %s: %w", filename, err)
	}
	return w.Close()
}

// writeShardFn writes each bundle's lines to a file of its own, Prefix-<id>.csv.
type writeShardFn struct {
	Prefix string

	fs        filesystem.Interface
	tmp, name string
	w         io.WriteCloser
	bw        *bufio.Writer
}

// ProcessElement writes a line, opening the bundle's file at its first.
func (fn *writeShardFn) ProcessElement(ctx context.Context, line string) error {
	if fn.w == nil {
		fs, err := filesystem.New(ctx, fn.Prefix)
		if err != nil {
			return err
		}
		fn.fs, fn.name = fs, fn.Prefix+"-"+rand.Text()+".csv"
		fn.tmp = fn.name + ".tmp"
		if fn.w, err = fs.OpenWrite(ctx, fn.tmp); err != nil {
			fs.Close()
			fn.w = nil
			return err
		}
		fn.bw = bufio.NewWriterSize(fn.w, 1<<20)
	}
	fn.bw.WriteString(line)
	return fn.bw.WriteByte('\n')
}

// FinishBundle closes the bundle's file and gives it its name.
func (fn *writeShardFn) FinishBundle(ctx context.Context) error {
	if fn.w == nil {
		return nil
	}
	defer func() { fn.fs.Close(); fn.w = nil }()
	if err := fn.bw.Flush(); err != nil {
		fn.w.Close()
		return fmt.Errorf("ikpcabeam: writing %s: %w", fn.tmp, err)
	}
	if err := fn.w.Close(); err != nil {
		return fmt.Errorf("ikpcabeam: writing %s: %w", fn.tmp, err)
	}
	r, ok := fn.fs.(filesystem.Renamer)
	if !ok {
		return fmt.Errorf("ikpcabeam: the file system of %s cannot rename %s", fn.Prefix, fn.tmp)
	}
	return r.Rename(ctx, fn.tmp, fn.name)
}
