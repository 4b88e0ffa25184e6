package table

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestReaderMatchesRead: the rows a Reader gives one at a time are those Read collects,
// with the same lines, names and header decision, for every separator and header rule.
func TestReaderMatchesRead(t *testing.T) {
	inputs := []struct {
		text string
		opts Options
	}{
		{"a,b,c\n1,2,3\n4,5,6\n", Options{}},
		{"1,2,3\n\n4,5,6\n", Options{}},
		{"x\ty\n1\t2\n3\t4\n", Options{Columns: "y"}},
		{"  n1  0.5 0.25\n  n2  1e3 -2\n", Options{Comma: Space, Columns: "2-"}},
		{"\ufeff1;2\n3;4\n", Options{Comma: ';', Header: HeaderNo}},
	}
	for _, in := range inputs {
		want, err := Read(strings.NewReader(in.text), in.opts)
		if err != nil {
			t.Fatalf("%q: %v", in.text, err)
		}
		tr, err := NewReader(strings.NewReader(in.text), in.opts)
		if err != nil {
			t.Fatalf("%q: NewReader: %v", in.text, err)
		}
		if !slices.Equal(tr.Names(), want.Names) || tr.HeaderDetected() != want.HeaderDetected {
			t.Errorf("%q: names %v (detected %v), Read %v (%v)", in.text, tr.Names(), tr.HeaderDetected(), want.Names, want.HeaderDetected)
		}
		row := make([]float64, tr.Width())
		for i := 0; ; i++ {
			line, err := tr.Next(row)
			if err == io.EOF {
				if i != len(want.Lines) || tr.Rows() != i {
					t.Errorf("%q: %d rows (Rows %d), Read %d", in.text, i, tr.Rows(), len(want.Lines))
				}
				break
			}
			if err != nil {
				t.Fatalf("%q: row %d: %v", in.text, i, err)
			}
			if i >= len(want.Lines) || line != want.Lines[i] || !slices.Equal(row, want.X.RawRowView(i)) {
				t.Fatalf("%q: row %d = %v on line %d", in.text, i, row, line)
			}
		}
	}
}

// TestReaderErrors: a bad row is reported with its line, leaves dst as it was, and
// ends the input (Next returns the same error again); rows before it were returned.
func TestReaderErrors(t *testing.T) {
	tr, err := NewReader(strings.NewReader("1,2\n3,4\n5,x\n7,8\n"), Options{Name: "f.csv"})
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float64, 2)
	for range 2 {
		if _, err := tr.Next(row); err != nil {
			t.Fatal(err)
		}
	}
	_, err = tr.Next(row)
	if err == nil || !strings.Contains(err.Error(), "f.csv:3") || !slices.Equal(row, []float64{3, 4}) {
		t.Fatalf("bad row: %v, row %v", err, row)
	}
	if _, again := tr.Next(row); again == nil || again.Error() != err.Error() {
		t.Errorf("after an error: %v", again)
	}
	if _, err := tr.Next(make([]float64, 3)); err == nil {
		t.Error("a row buffer of the wrong length was accepted")
	}
	for _, text := range []string{"", "\n  \n", "name\n"} {
		tr, err := NewReader(strings.NewReader(text), Options{})
		if err == nil {
			_, err = tr.Next(make([]float64, tr.Width()))
			if !errors.Is(err, io.EOF) {
				t.Errorf("%q: %v", text, err)
			}
			continue
		}
		if !strings.Contains(err.Error(), "no data rows") {
			t.Errorf("%q: %v", text, err)
		}
	}
}
