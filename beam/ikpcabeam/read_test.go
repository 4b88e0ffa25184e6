package ikpcabeam

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/internal/vec"
)

// input is a text file for a reader test: its lines, and for each the expected point
// (nil for none) or the expected dead letter's reason (a part of it).
type input struct {
	lines  []string
	points [][]float64
	reason []string
}

// write writes the file, with "\n" after every line but the last, and returns the
// byte offset and number of each line.
func (in input) write(t *testing.T, file string) (offsets []int64) {
	t.Helper()
	var b strings.Builder
	for i, l := range in.lines {
		offsets = append(offsets, int64(b.Len()))
		b.WriteString(l)
		if i < len(in.lines)-1 {
			b.WriteByte('\n')
		}
	}
	beamtest.WriteFile(t, file, []byte(b.String()))
	return offsets
}

// check compares the points and dead letters read from the inputs with what each
// line should give: every line that is a point once, at its offset and line number,
// every bad line a dead letter with its text and a reason that says why, nothing else.
func check(t *testing.T, files []string, ins []input, offsets [][]int64, points, dead map[string]record) {
	t.Helper()
	want := 0
	for f, in := range ins {
		for i, l := range in.lines {
			key := files[f] + "@" + fmt.Sprint(offsets[f][i])
			switch {
			case in.points[i] != nil:
				want++
				p, ok := points[key]
				if !ok {
					t.Errorf("%s:%d %q: no point", files[f], i+1, l)
					continue
				}
				if p.line != int64(i+1) || !vec.SameBits(p.values, in.points[i]) {
					t.Errorf("%s:%d %q: point %v at line %d, want %v", files[f], i+1, l, p.values, p.line, in.points[i])
				}
			case in.reason[i] != "":
				want++
				d, ok := dead[key]
				if !ok {
					t.Errorf("%s:%d %q: no dead letter", files[f], i+1, l)
					continue
				}
				if d.line != int64(i+1) || d.text != strings.TrimSuffix(l, "\r") || !strings.Contains(d.reason, in.reason[i]) {
					t.Errorf("%s:%d %q: dead letter %+v, want line %d and a reason with %q", files[f], i+1, l, d, i+1, in.reason[i])
				}
			}
		}
	}
	if got := len(points) + len(dead); got != want {
		t.Errorf("%d points and dead letters, want %d", got, want)
	}
}

// readInputs runs a pipeline that reads with read and writes what it gives to files
// in dir, and returns the points and dead letters read back from them by key.
func readInputs(t *testing.T, dir string, read func(s beam.Scope) (points, dead beam.PCollection, err error)) (points, dead map[string]record) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	pc, dc, err := read(s)
	if err != nil {
		t.Fatal(err)
	}
	pf := writePoints(s, dir, "points.out", pc)
	df := filepath.Join(dir, "dead.out")
	if err := WriteDeadLetters(s, df, dc); err != nil {
		t.Fatal(err)
	}
	run(t, p)
	return readRecords(t, pf, true), readRecords(t, df, false)
}

// TestReadCSV: good lines are points and bad ones dead letters with their line and
// reason, across files, with a header, blank lines, quotes and CRLF.
func TestReadCSV(t *testing.T) {
	dir := beamtest.TempDir(t)
	ins := []input{{
		lines: []string{"x,y,z", "1,2,3", "1,abc,3", "", "1,2", " 4 , 5e-1 ,-6", "NaN,1,2", "1e999,0,0",
			"1,2,3,4", `"1,5",2,3`, `"7",8,9`, "1,2,3\r", `1,"2`, "1e-400,0,0"},
		points: [][]float64{nil, {1, 2, 3}, nil, nil, nil, {4, 0.5, -6}, nil, nil, nil, nil, {7, 8, 9}, {1, 2, 3}, nil, {0, 0, 0}},
		reason: []string{"", "", `column 2: "abc" is not a number`, "", "2 fields, want 3", "", `column 1: "NaN" is not a finite number`,
			`column 1: "1e999" is not a finite number`, "4 fields, want 3", `column 1: "1,5" is not a number`, "", "", "not a CSV record", ""},
	}, {
		lines:  []string{"a,b,c", "0,0,0", "   ", "-1,-2,-3", ""},
		points: [][]float64{nil, {0, 0, 0}, nil, {-1, -2, -3}, nil},
		reason: []string{"", "", "", "", ""},
	}}
	var files []string
	var offsets [][]int64
	for i, in := range ins {
		files = append(files, filepath.Join(dir, fmt.Sprintf("in%d.csv", i)))
		offsets = append(offsets, in.write(t, files[i]))
	}
	points, dead := readInputs(t, dir, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
		return ReadCSV(s, filepath.Join(dir, "in*.csv"), CSVOptions{Dim: 3, Header: true})
	})
	check(t, files, ins, offsets, points, dead)
}

// TestReadCSVColumns: a column selection reorders fields and checks the number of
// fields; white-space separation.
func TestReadCSVColumns(t *testing.T) {
	dir := beamtest.TempDir(t)
	in := input{
		lines:  []string{"1 2 3 A", "4\t5  6 B", "7 8 C", "x 1 2 D", "1 2 3 4 5"},
		points: [][]float64{{3, 1}, {6, 4}, nil, nil, nil},
		reason: []string{"", "", "3 fields, want 4", `column 1: "x" is not a number`, "5 fields, want 4"},
	}
	file := filepath.Join(dir, "in.txt")
	offsets := in.write(t, file)
	points, dead := readInputs(t, dir, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
		return ReadCSV(s, file, CSVOptions{Comma: Space, Columns: []int{3, 1}, Fields: 4})
	})
	check(t, []string{file}, []input{in}, [][]int64{offsets}, points, dead)
}

// TestCSVOptions: impossible options are ErrArgument errors at construction.
func TestCSVOptions(t *testing.T) {
	for _, o := range []CSVOptions{
		{}, {Dim: -1}, {Comma: '"', Dim: 2}, {Comma: '\n', Dim: 2}, {Columns: []int{0}}, {Columns: []int{1, 1}},
		{Columns: []int{1, 2}, Dim: 3}, {Columns: []int{3}, Fields: 2}, {Dim: 2, Fields: 3},
	} {
		_, s := beam.NewPipelineWithRoot()
		if _, _, err := ReadCSV(s, "x", o); !errors.Is(err, ErrArgument) {
			t.Errorf("%+v: error %v, want ErrArgument", o, err)
		}
	}
	_, s := beam.NewPipelineWithRoot()
	if _, _, err := ReadLIBSVM(s, "x", 0); !errors.Is(err, ErrArgument) {
		t.Errorf("ReadLIBSVM of dimension 0: error %v, want ErrArgument", err)
	}
}

// TestReadLIBSVM: LIBSVM lines by the core's rules, bad ones dead letters; a
// compressed file is read whole.
func TestReadLIBSVM(t *testing.T) {
	dir := beamtest.TempDir(t)
	in := input{
		lines:  []string{"+1 1:0.5 3:-2", "-1 2:1e-3", "", "1 4:1", "1 2:1 1:1", "1 1:nan", "0", "x 1:1", "1 3:1e-400"},
		points: [][]float64{{0.5, 0, -2}, {0, 1e-3, 0}, nil, nil, nil, nil, {0, 0, 0}, nil, {0, 0, 0}},
		reason: []string{"", "", "", "index 4 exceeds dimension 3", "does not follow", "value", "", "label", ""},
	}
	file := filepath.Join(dir, "in.libsvm")
	offsets := in.write(t, file)
	points, dead := readInputs(t, dir, func(s beam.Scope) (beam.PCollection, beam.PCollection, error) {
		return ReadLIBSVM(s, file, 3)
	})
	check(t, []string{file}, []input{in}, [][]int64{offsets}, points, dead)
}
