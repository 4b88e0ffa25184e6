package ikpcabeam

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
)

func init() {
	register.Function1x1(formatLine)
}

// formatLine writes a line as "source,offset,number,text" (CSV).
func formatLine(l Line) string {
	return csvFields(l.Source, fmt.Sprint(l.Offset), fmt.Sprint(l.Number), "0") + "," + csvFields(l.Text)
}

// TestReadLinesSplit: a file split into many blocks, and a compressed one read whole,
// give every line once, at its offset, with its number where the block starts the file
// and 0 elsewhere; lines that straddle blocks, empty lines and a last line without a
// break included.
func TestReadLinesSplit(t *testing.T) {
	saved, savedSmall := blockSize, tooSmall
	blockSize, tooSmall = 64, 16
	t.Cleanup(func() { blockSize, tooSmall = saved, savedSmall })

	dir := beamtest.TempDir(t)
	var b strings.Builder
	var lines []string
	var offsets []int64
	for i := range 200 {
		l := strings.Repeat(fmt.Sprint(i%10), i%23) // lengths 0–22, some straddling blocks
		if i%17 == 0 {
			l += "\r"
		}
		offsets = append(offsets, int64(b.Len()))
		lines = append(lines, l)
		b.WriteString(l)
		if i < 199 {
			b.WriteByte('\n')
		}
	}
	plain := filepath.Join(dir, "plain.txt")
	beamtest.WriteFile(t, plain, []byte(b.String()))
	packed := filepath.Join(dir, "packed.txt.gz")
	f, err := os.Create(packed)
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	z.Write([]byte(b.String()))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	p, s := beam.NewPipelineWithRoot()
	for _, in := range []string{plain, packed} {
		col, err := ReadLines(s, in)
		if err != nil {
			t.Fatal(err)
		}
		textio.Write(s, in+".out", beam.ParDo(s, formatLine, col))
	}
	run(t, p)

	for _, in := range []string{plain, packed} {
		got := readRecords(t, in+".out", false)
		if len(got) != len(lines) {
			t.Errorf("%s: %d lines, want %d", in, len(got), len(lines))
		}
		numbered := 0
		for i, l := range lines {
			r, ok := got[in+"@"+fmt.Sprint(offsets[i])]
			if !ok {
				t.Errorf("%s: line %d at %d missing", in, i+1, offsets[i])
				continue
			}
			if r.text != strings.TrimSuffix(l, "\r") {
				t.Errorf("%s: line %d is %q, want %q", in, i+1, r.text, l)
			}
			if r.line != 0 && r.line != int64(i+1) {
				t.Errorf("%s: line %d numbered %d", in, i+1, r.line)
			}
			if r.line != 0 {
				numbered++
			}
			if offsets[i] < 64 && r.line == 0 || in == packed && r.line == 0 {
				t.Errorf("%s: line %d, in the first block or a compressed file, has no number", in, i+1)
			}
		}
		if in == plain && numbered == len(lines) {
			t.Errorf("%s: every line numbered: the file was not split", in)
		}
	}
}

// TestReadRedistributed: every reader's lines come out of a splittable DoFn that only
// a redistribution (a Reshuffle, a GroupByKey) feeds: no chain of transforms leads from
// the pipeline's impulse to it without one, so that a runner that fuses the match with
// what follows and does not split dynamically (Flink's and Spark's batch translators)
// still spreads the reading over its workers. Checked on the pipeline proto a runner
// receives — the DoFns known by their restriction coders, the groupings by their
// URNs — for ReadLines, ReadCSV and ReadLIBSVM.
func TestReadRedistributed(t *testing.T) {
	dir := beamtest.TempDir(t)
	glob := filepath.Join(dir, "*.csv")
	reads := map[string]func(s beam.Scope) error{
		"ReadLines":  func(s beam.Scope) error { _, err := ReadLines(s, glob); return err },
		"ReadCSV":    func(s beam.Scope) error { _, _, err := ReadCSV(s, glob, CSVOptions{Dim: 3}); return err },
		"ReadLIBSVM": func(s beam.Scope) error { _, _, err := ReadLIBSVM(s, glob, 3); return err },
	}
	for name, read := range reads {
		p, s := beam.NewPipelineWithRoot()
		if err := read(s); err != nil {
			t.Fatal(err)
		}
		pb, err := beamtest.Proto(p)
		if err != nil {
			t.Fatal(err)
		}
		sdfs := beamtest.SplittableReads(pb)
		if len(sdfs) == 0 {
			t.Errorf("%s: no splittable read", name)
		}
		for _, id := range sdfs {
			if path := beamtest.UngroupedPath(pb, id); path != nil {
				t.Errorf("%s: the read is not redistributed: %s", name, strings.Join(path, " → "))
			}
		}
	}
}
