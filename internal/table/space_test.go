package table

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
)

func TestReadWhitespaceErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1 2 3\n\n4 5\n", "f.txt:3: 2 fields, want 3 (as in line 1)"},
		{"1 2\n3   x\n", `f.txt:2: column 2: "x" is not a number`},
		{"1 2\n3 NaN\n", `f.txt:2: column 2: "NaN" is not a finite number`},
	} {
		_, err := Read(strings.NewReader(c.in), Options{Name: "f.txt", Comma: Space})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	boom := errors.New("boom")
	_, err := Read(iotest.ErrReader(boom), Options{Name: "f.txt", Comma: Space})
	if !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
}

// TestReadWhitespaceLongLine: a line longer than the reader's buffer.
func TestReadWhitespaceLongLine(t *testing.T) {
	line := strings.TrimSpace(strings.Repeat("1.25   ", 20000))
	tab, err := Read(iotest.HalfReader(strings.NewReader(line+"\n"+line+"\n")), Options{Name: "f", Comma: Space})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := tab.X.Dims(); r != 2 || c != 20000 {
		t.Errorf("dims %d×%d, want 2×20000", r, c)
	}
}

// TestReadYeastFile reads the UCI file as shipped (runs of spaces, a name first and a
// class last) and compares it with the embedded data.
func TestReadYeastFile(t *testing.T) {
	f, err := os.Open("../../data/yeast.data")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := Read(f, Options{Name: "yeast.data", Columns: "2-9"})
	if err != nil {
		t.Fatal(err)
	}
	if tab.HeaderLine != 0 {
		t.Errorf("header on line %d; the file has none", tab.HeaderLine)
	}
	if want := data.Yeast().X; !mat.Equal(tab.X, want) {
		r, c := tab.X.Dims()
		t.Errorf("read %d×%d, differs from the embedded Yeast data", r, c)
	}
}

// TestHeaderRule: HeaderAuto takes a first line for a header only when every selected
// field is a name, reads it as data when every field is a number, and asks otherwise.
func TestHeaderRule(t *testing.T) {
	type result struct {
		line     int
		detected bool
		rows     int
	}
	good := []struct {
		name string
		in   string
		opts Options
		want result
	}{
		{"names", "a,b\n1,2\n", Options{}, result{1, true, 1}},
		{"numbers", "1,2\n3,4\n", Options{}, result{0, false, 2}},
		{"NaN counts as a number", "1,NaN\n", Options{Header: HeaderAuto}, result{}},
		{"names and an empty field", ",b\n1,2\n", Options{}, result{1, true, 1}},
		{"names chosen by --columns", "a,b\n1,2\n", Options{Columns: "b"}, result{1, false, 1}},
		{"header yes", "1,2\n3,4\n", Options{Header: HeaderYes}, result{1, false, 1}},
		{"header no", "x,2.5O\n", Options{Header: HeaderNo, Columns: "2"}, result{}},
		{"only selected fields count", "id,2.5O,3\n7,1,2\n", Options{Columns: "3"}, result{0, false, 2}},
	}
	for _, c := range good {
		tab, err := Read(strings.NewReader(c.in), c.opts)
		if c.want.rows == 0 {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r, _ := tab.X.Dims(); r != c.want.rows || tab.HeaderLine != c.want.line || tab.HeaderDetected != c.want.detected {
			t.Errorf("%s: %d rows, header line %d, detected %v; want %+v", c.name, r, tab.HeaderLine, tab.HeaderDetected, c.want)
		}
	}

	ambiguous := []struct {
		name, in string
		want     []string
	}{
		{"typo in the first row", "2.5O,1.2,3.4\n1,2,3\n", []string{"f.csv:1:", `column 1 "2.5O"`, "mistyped number", "--header yes or --header no"}},
		{"typo alone", "2.5O\n1\n2\n", []string{"f.csv:1:", "mistyped number"}},
		{"typo with a letter O for zero", "1.5,1O\n", []string{`column 2 "1O"`}},
		{"names and numbers", "id,1.5\nx,2\n", []string{`column 1 "id" is a name but column 2 "1.5" is a number`, "--columns"}},
		{"names that start with digits", "1st,2nd\n1,2\n", []string{"mistyped number"}},
		{"typo after blank lines, spaces", "\n\n 1 -2.x\n1 2\n", []string{"f.csv:3:", `"-2.x"`}},
	}
	for _, c := range ambiguous {
		_, err := Read(strings.NewReader(c.in), Options{Name: "f.csv"})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

func TestCheckColumns(t *testing.T) {
	for _, spec := range []string{"", "1", "2-5,7", "4-", "name,3"} {
		if err := CheckColumns(spec); err != nil {
			t.Errorf("CheckColumns(%q) = %v", spec, err)
		}
	}
	for _, spec := range []string{"0", "0-2", "3-2", "1,,2", "99999999999999999999"} {
		if err := CheckColumns(spec); err == nil || !strings.HasPrefix(err.Error(), "column selection: ") {
			t.Errorf("CheckColumns(%q) = %v, want an error", spec, err)
		}
	}
}
