package ikpcabeam

import (
	"context"
	"crypto/rand"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.Function1x1(FormatScores)
	perBundle(&readFileFn{}, &writeFileFn{})
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

// WriteScores writes a PCollection<Scores> as lines of FormatScores, in no particular
// order, to the files prefix-SSSSS-of-NNNNN.csv (prefix on any file system Beam knows):
// one file per bundle that holds scores, written by the worker that computed them (no
// shuffle, no worker that holds them all), and n = NNNNN of them, numbered from 00000.
// The files are written as temporaries and named in one last stage, so that a bundle the
// runner retries is written once, and what failed attempts wrote is removed (shards.go
// tells how). No scores give one empty file, prefix-00000-of-00001.csv. All the lines,
// in one file, are those of `cat prefix-*-of-NNNNN.csv`. A prefix Beam's file systems
// cannot open, or with a glob metacharacter (* ? [ \), is an ErrArgument.
func WriteScores(s beam.Scope, prefix string, scores beam.PCollection) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	if err := checkGlobal("WriteScores", scores); err != nil {
		return err
	}
	s = s.Scope("ikpcabeam.WriteScores")
	writeShards(s, prefix, beam.ParDo(s, FormatScores, scores))
	return nil
}

// WriteDeadLetters writes a PCollection<DeadLetter> as lines of FormatDeadLetter to
// the files prefix-SSSSS-of-NNNNN.csv, as WriteScores writes scores, and counts them
// in the Beam counters "dead_letters_<class>" of the namespace "ikpca", the class from
// the Reason: dimension, non_finite, parse, refused or other (metrics.go).
func WriteDeadLetters(s beam.Scope, prefix string, dead beam.PCollection) error {
	_, err := WriteDeadLettersPublished(s, prefix, dead)
	return err
}

// WriteDeadLettersPublished is WriteDeadLetters, and returns a PCollection<string> of
// one element, the name of the output's manifest, once the dead letters are published:
// a side input that makes a step wait for them (CheckRecords).
func WriteDeadLettersPublished(s beam.Scope, prefix string, dead beam.PCollection) (beam.PCollection, error) {
	if err := checkPrefix(prefix); err != nil {
		return beam.PCollection{}, err
	}
	if err := checkGlobal("WriteDeadLetters", dead); err != nil {
		return beam.PCollection{}, err
	}
	s = s.Scope("ikpcabeam.WriteDeadLetters")
	return writeShards(s, prefix, beam.ParDo(s, &formatDeadLetterFn{}, dead)), nil
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
// encoding, to filename, atomically where the file system renames atomically (a local
// disk): to a temporary, filename.tmp-<random>, renamed over filename once it is
// written, so that a failed or killed write leaves the file that was there, whole, and
// a reader never sees half a model. A local filename that is a symbolic link has the
// file it points to replaced, with that file's permissions. A filename Beam's file
// systems cannot open is an ErrArgument.
func WriteModel(s beam.Scope, filename string, model beam.PCollection) error {
	if err := checkScheme(filename); err != nil {
		return err
	}
	if err := checkGlobal("WriteModel", model); err != nil {
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
	var b []byte
	err := readWhole(ctx, name, func(r io.Reader) (err error) {
		b, err = io.ReadAll(r)
		return err
	})
	if err != nil {
		return fmt.Errorf("ikpcabeam: reading %s: %w", name, err)
	}
	emit(b)
	return nil
}

// afterModelTemp is a test-only hook, nil otherwise: called by writeFileFn after the
// temporary is written, before the rename; its error fails the write.
var afterModelTemp func(tmp string) error

// writeFileFn writes the one value of its key to Filename, through a temporary.
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
	target, mode := fn.Filename, os.FileMode(0)
	local := !strings.Contains(target, "://")
	if local {
		// Replace the file a link points to, not the link, and keep its permissions, as
		// the ikpca command does.
		if t, err := filepath.EvalSymlinks(target); err == nil {
			target = t
		}
		if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
			mode = fi.Mode().Perm()
		}
	}
	tmp := target + ".tmp-" + rand.Text()
	err = filesystem.Write(ctx, fs, tmp, b)
	if err == nil && mode != 0 {
		err = os.Chmod(tmp, mode)
	}
	if err == nil && afterModelTemp != nil {
		err = afterModelTemp(tmp)
	}
	if err == nil {
		err = filesystem.Rename(ctx, fs, tmp, target)
	}
	if err != nil {
		if rm, ok := fs.(filesystem.Remover); ok {
			rm.Remove(ctx, tmp) // best effort: the temporary may not exist
		}
		return fmt.Errorf("ikpcabeam: writing %s: %w", fn.Filename, err)
	}
	return nil
}
