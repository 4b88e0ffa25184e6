package ikpcabeam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
)

// shrunk is a file system for the tests, of scheme "shrunk://": the local files, with
// each listed at half its size — as Cloud Storage lists an object stored with
// Content-Encoding gzip at its compressed size while its client reads the text
// decompressed.
type shrunk struct{}

func init() {
	filesystem.Register("shrunk", func(context.Context) filesystem.Interface { return shrunk{} })
}

const shrunkPrefix = "shrunk://"

func (shrunk) List(_ context.Context, glob string) ([]string, error) {
	files, err := filepath.Glob(strings.TrimPrefix(glob, shrunkPrefix))
	for i := range files {
		files[i] = shrunkPrefix + files[i]
	}
	return files, err
}

func (shrunk) OpenRead(_ context.Context, name string) (io.ReadCloser, error) {
	f, err := os.Open(strings.TrimPrefix(name, shrunkPrefix))
	if err != nil {
		return nil, err
	}
	return struct{ io.ReadCloser }{f}, nil // not a Seeker, as a Cloud Storage reader
}

func (shrunk) OpenWrite(context.Context, string) (io.WriteCloser, error) {
	return nil, errors.New("shrunk: read only")
}

func (shrunk) Size(_ context.Context, name string) (int64, error) {
	fi, err := os.Stat(strings.TrimPrefix(name, shrunkPrefix))
	if err != nil {
		return 0, err
	}
	return fi.Size() / 2, nil
}

func (shrunk) Close() error { return nil }

// TestReadHiddenCompression: a file whose text the reader would cut or misread fails
// the pipeline with an error that says what to do, rather than lose lines silently: a
// gzip file not named ".gz", and a file whose text runs past its listed size (a Cloud
// Storage object stored with Content-Encoding gzip, here a file system that lists
// files at half their size).
func TestReadHiddenCompression(t *testing.T) {
	dir := beamtest.TempDir(t)
	var text strings.Builder
	for i := range 400 {
		fmt.Fprintf(&text, "%d,%d,%d\n", i, i+1, i+2)
	}
	hidden := filepath.Join(dir, "hidden.csv")
	beamtest.WriteFile(t, hidden, gzipped(t, []byte(text.String())))
	plain := filepath.Join(dir, "plain.csv")
	beamtest.WriteFile(t, plain, []byte(text.String()))
	for _, c := range []struct{ glob, want string }{
		{hidden, "does not end in .gz"},
		{shrunkPrefix + plain, "holds more than"},
	} {
		p, s := beam.NewPipelineWithRoot()
		lines, err := ReadLines(s, c.glob)
		if err != nil {
			t.Fatal(err)
		}
		textio.Write(s, filepath.Join(dir, "out"), beam.ParDo(s, formatLine, lines))
		err = ptest.Run(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: pipeline error %v, want one that says %q", c.glob, err, c.want)
		}
	}
}

// TestCompressedProgress: a ".gz" file's range reports progress as it is read — the
// share of its compressed bytes read, from near 0 to 1 — and cannot be split.
func TestCompressedProgress(t *testing.T) {
	dir := beamtest.TempDir(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var text bytes.Buffer
	for range 200000 {
		fmt.Fprintf(&text, "%d,%d,%d\n", rng.Int64(), rng.Int64(), rng.Int64())
	}
	file := filepath.Join(dir, "big.csv.gz")
	beamtest.WriteFile(t, file, gzipped(t, text.Bytes()))
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	fn := &readRangeFn{}
	r := fileRange{Path: file, Size: fi.Size(), Start: 0, End: fi.Size()}
	var ranges []fileRange
	(&rangesFn{}).ProcessElement(metadataOf(file, fi.Size()), func(f fileRange) { ranges = append(ranges, f) })
	if len(ranges) != 1 || ranges[0] != r {
		t.Fatalf("ranges %v, want the whole file %v", ranges, r)
	}
	rt := fn.CreateTracker(fn.CreateInitialRestriction(r))
	var fractions []float64
	lines := 0
	emit := func(Line) {
		lines++
		if lines%5000 == 0 {
			done, left := rt.GetProgress()
			fractions = append(fractions, done/(done+left))
			if p, res, err := rt.TrySplit(0.5); err != nil || res != nil || p == nil {
				t.Fatalf("TrySplit: %v, %v, %v; want the whole range kept", p, res, err)
			}
		}
	}
	if err := fn.ProcessElement(context.Background(), rt, r, emit); err != nil {
		t.Fatal(err)
	}
	if lines != 200000 {
		t.Fatalf("%d lines, want 200000", lines)
	}
	if !rt.IsDone() {
		t.Error("the tracker is not done at the end of the file")
	}
	mid := 0
	for i, f := range fractions {
		if i > 0 && f < fractions[i-1] {
			t.Errorf("progress went back from %g to %g", fractions[i-1], f)
		}
		if f > 0.2 && f < 0.8 {
			mid++
		}
	}
	if mid == 0 || fractions[0] > 0.2 || fractions[len(fractions)-1] < 0.8 {
		t.Errorf("progress %v: not from near 0 to near 1", fractions)
	}
}

// metadataOf is the match of a file of size bytes.
func metadataOf(path string, size int64) fileio.FileMetadata {
	return fileio.FileMetadata{Path: path, Size: size}
}
