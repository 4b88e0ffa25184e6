package ikpcabeam

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// TestFormat: the CSV lines of scores and dead letters, quoted where CSV needs it,
// with floats that read back to the same bits.
func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FormatScores(Scores{Source: "a.csv", Offset: 12, Line: 3, Y: []float64{0.1, -2e-300, 1}}), "a.csv,12,3,0.1,-2e-300,1"},
		{FormatScores(Scores{Source: "x,y.csv", Y: []float64{0.5}}), `"x,y.csv",0,0,0.5`},
		{FormatDeadLetter(DeadLetter{Source: "a.csv", Offset: 1, Line: 2, Text: `1,"2`, Reason: `column 2: "x" is bad`}),
			`a.csv,1,2,"column 2: ""x"" is bad","1,""2"`},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

// TestWriteScoresSharded: the shards hold the lines WriteScores writes to one file,
// and no temporary file is left.
func TestWriteScoresSharded(t *testing.T) {
	dir := t.TempDir()
	var scores []Scores
	for i := range 1000 {
		scores = append(scores, Scores{Source: "s", Offset: int64(i), Line: int64(i + 1), Y: []float64{float64(i) / 7}})
	}
	p, s := beam.NewPipelineWithRoot()
	col := beam.CreateList(s, scores)
	one, prefix := filepath.Join(dir, "one.csv"), filepath.Join(dir, "shard")
	if err := WriteScores(s, one, col); err != nil {
		t.Fatal(err)
	}
	if err := WriteScoresSharded(s, prefix, col); err != nil {
		t.Fatal(err)
	}
	run(t, p)
	b, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	shards, _ := filepath.Glob(prefix + "-*")
	var got []string
	for _, f := range shards {
		if !strings.HasSuffix(f, ".csv") {
			t.Errorf("file %s left", f)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) != 1000 || !slices.Equal(got, want) {
		t.Errorf("%d lines in %d shards, %d in one file: %v", len(got), len(shards), len(want), fmt.Sprint(got[:min(3, len(got))]))
	}
}
