package ikpcabeam

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
)

// The pipelines of the tests run on ptest's default runner, prism, in this process.
func TestMain(m *testing.M) { beamtest.Main(m) }

func init() {
	register.Function1x1(formatPoint)
}

// formatPoint writes a point as "source,offset,line,x…", as FormatScores writes scores.
func formatPoint(p Point) string {
	return FormatScores(Scores{Source: p.Source, Offset: p.Offset, Line: p.Line, Y: p.X})
}

// writePoints writes a PCollection<Point> to a file in dir, and returns its name.
func writePoints(s beam.Scope, dir, name string, points beam.PCollection) string {
	file := filepath.Join(dir, name)
	textio.Write(s, file, beam.ParDo(s, formatPoint, points))
	return file
}

// writeModel writes a model PCollection to file (WriteModel), failing the test on an
// error, and returns file.
func writeModel(t *testing.T, s beam.Scope, file string, model beam.PCollection) string {
	t.Helper()
	if err := WriteModel(s, file, model); err != nil {
		t.Fatal(err)
	}
	return file
}

// run runs the pipeline, failing the test on error.
func run(t *testing.T, p *beam.Pipeline) {
	t.Helper()
	if err := ptest.Run(p); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
}

// record is a line of a scores, points or dead-letter file.
type record struct {
	source       string
	offset, line int64
	values       []float64 // scores and points
	reason, text string    // dead letters
}

// readRecords reads FormatScores (numbers) or FormatDeadLetter lines, keyed by source
// and offset, from a file, or, where no file has that name, from the shards
// file-SSSSS-of-NNNNN.csv that WriteScores and WriteDeadLetters write (readShards).
func readRecords(t *testing.T, file string, numbers bool) map[string]record {
	t.Helper()
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = readShards(t, file), nil
	}
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(strings.NewReader(string(b)))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := make(map[string]record, len(rows))
	for _, f := range rows {
		rec := record{source: f[0]}
		rec.offset, _ = strconv.ParseInt(f[1], 10, 64)
		rec.line, _ = strconv.ParseInt(f[2], 10, 64)
		if numbers {
			for _, s := range f[3:] {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				rec.values = append(rec.values, v)
			}
		} else {
			rec.reason, rec.text = f[3], f[4]
		}
		key := rec.source + "@" + strconv.FormatInt(rec.offset, 10)
		if _, dup := out[key]; dup {
			t.Errorf("%s: two records for %s", file, key)
		}
		out[key] = rec
	}
	return out
}

// readShards returns the lines of the shards prefix-SSSSS-of-NNNNN.csv, concatenated,
// and fails the test unless they are a finalised output: n ≥ 1 shards numbered 0 to
// n−1, all of the same n, and no temporary directory prefix.tmp-* left.
func readShards(t *testing.T, prefix string) []byte {
	t.Helper()
	files, err := filepath.Glob(prefix + "-*")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no shards %s-*", prefix)
	}
	var all []byte
	for i, f := range files { // Glob sorts: shard i is files[i]
		if want := fmt.Sprintf("%s-%05d-of-%05d.csv", prefix, i, len(files)); f != want {
			t.Fatalf("shard %d of %d is %s, want %s", i, len(files), f, want)
		}
		b := beamtest.ReadFile(t, f)
		all = append(all, b...)
	}
	if left, _ := filepath.Glob(prefix + ".tmp-*"); len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
	return all
}
