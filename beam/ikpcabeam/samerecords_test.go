package ikpcabeam

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/kernel"
)

// magicRows returns the first n rows of the MAGIC gamma telescope data set
// (testdata/magic04-3000.csv, see its README) as CSV of its 10 numeric
// columns, the class label dropped; the test is skipped where neither is present.
func magicRows(t *testing.T, n int) []byte {
	t.Helper()
	f, err := os.Open("testdata/magic04-3000.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	sc := bufio.NewScanner(f)
	for i := 0; i < n && sc.Scan(); i++ {
		fields := strings.Split(sc.Text(), ",")
		b.WriteString(strings.Join(fields[:10], ","))
		b.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipped returns b compressed.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// TestSameRecordsSameModel: the case, a Nyström fit of 3000 MAGIC rows with
// 50 sampled landmarks and seed 1, gives the same model, bit for bit, from the rows in
// a plain file, in a gzipped one, in a copy in another directory and in a renamed
// copy: the sample depends on the seed and the records (their coordinates and offsets
// in the decompressed text), not on the file's name, place or compression. One read
// (FitNystrom) and two (FitNystromSampled, the command's).
func TestSameRecordsSameModel(t *testing.T) {
	rows := magicRows(t, 3000)
	dir := beamtest.TempDir(t)
	inputs := map[string][]byte{
		"a/magic.csv":        rows,
		"a/magic.csv.gz":     gzipped(t, rows),
		"b/magic.csv":        rows,
		"c/renamed-data.txt": rows,
	}
	for name, b := range inputs {
		file := filepath.Join(dir, "in", name)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		beamtest.WriteFile(t, file, b)
	}
	opts := NystromOptions{Dim: 10, Kernel: kernel.Spec{Name: "rbf"}, Landmarks: 50, Seed: 1}
	for _, twice := range []bool{false, true} {
		var first []byte
		var firstName string
		for name := range inputs {
			p, s := beam.NewPipelineWithRoot()
			read := func() beam.PCollection { return readPoints(t, s, filepath.Join(dir, "in", name), 10) }
			model, _ := fitNystrom(t, s, read, twice, opts, FitOptions{})
			mf := writeModel(t, s, filepath.Join(dir, "model"), model)
			if err := ptest.Run(p); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b := beamtest.ReadFile(t, mf)
			if first == nil {
				first, firstName = b, name
				if m := readModel(t, mf); m.Len() != 3000 {
					t.Fatalf("%s: a model of %d points, want 3000", name, m.Len())
				}
				continue
			}
			if !bytes.Equal(b, first) {
				t.Errorf("two reads %v: the model from %s differs from the model from %s", twice, name, firstName)
			}
		}
	}
}
