package table

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// byNext reads text row by row with Next: the rows, their lines, and the error that
// ended the input ("" for none, the error of NewReader if it failed).
func byNext(text []byte, opts Options) (rows []float64, lines []int, end string) {
	tr, err := NewReader(bytes.NewReader(text), opts)
	if err != nil {
		return nil, nil, err.Error()
	}
	row := make([]float64, tr.Width())
	for {
		line, err := tr.Next(row)
		if err == io.EOF {
			return rows, lines, ""
		}
		if err != nil {
			return rows, lines, err.Error()
		}
		rows, lines = append(rows, row...), append(lines, line)
	}
}

// byRows is byNext with NextRows, asking for up to per rows at a time; it also checks
// that NextRows returns rows or an error, never both, and its error again afterwards.
func byRows(t *testing.T, text []byte, opts Options, per int) (rows []float64, lines []int, end string) {
	tr, err := NewReader(bytes.NewReader(text), opts)
	if err != nil {
		return nil, nil, err.Error()
	}
	w := tr.Width()
	buf, at := make([]float64, per*w), make([]int, per)
	for {
		n, err := tr.NextRows(buf, at)
		if err != nil {
			if n != 0 {
				t.Fatalf("NextRows: %d rows with the error %v", n, err)
			}
			if _, again := tr.NextRows(buf, at); again == nil || again.Error() != err.Error() {
				t.Fatalf("NextRows after %v: %v", err, again)
			}
			if tr.Rows() != len(lines) {
				t.Fatalf("Rows() = %d after %d rows", tr.Rows(), len(lines))
			}
			if err == io.EOF {
				return rows, lines, ""
			}
			return rows, lines, err.Error()
		}
		if n == 0 {
			t.Fatalf("NextRows: no row and no error")
		}
		rows, lines = append(rows, buf[:n*w]...), append(lines, at[:n]...)
	}
}

// sameReading checks that NextRows, per rows at a time, reads text as Next does.
func sameReading(t *testing.T, text []byte, opts Options, per int) {
	t.Helper()
	wantRows, wantLines, wantEnd := byNext(text, opts)
	rows, lines, end := byRows(t, text, opts, per)
	if !slices.Equal(lines, wantLines) || !sameFloats(rows, wantRows) || end != wantEnd {
		t.Errorf("%q, %d rows at a time: lines %v, end %q; Next gives lines %v, end %q",
			text, per, lines, end, wantLines, wantEnd)
	}
}

// sameFloats compares bit for bit.
func sameFloats(a, b []float64) bool {
	return len(a) == len(b) && fmt.Sprint(a) == fmt.Sprint(b)
}

// TestNextRows: NextRows gives the rows, lines and errors Next gives, whatever the
// number of rows asked for at a time, on the inputs of FuzzRead and on inputs whose bad
// field comes after good rows, in a record across lines (the line named is the bad
// field's), or in several rows of one batch (the first is named); and in parallel, on
// GOMAXPROCS 1 and 4, a table large enough to be parsed on several goroutines, with a
// bad row near its end.
func TestNextRows(t *testing.T) {
	texts := append(readSeeds(),
		"1,2\n3,4\n5,x\n7,8\n",
		"1,2\n3,4\n5,6\n7,8\n9,y\n",
		"a,b\n1,\"2\n\n\"\n3,4\n5,\"6\n7\",\"z\"\n",
		"\"1\n\",\"2\"\n\"3\",\"4\n\nx\"\n",
		"1,2\n3,NaN\n4,x\n",
		"1,2\n3,4,5\n6,x\n",
		"1,2\n3,\"4\n5,6\n",
		"a b\n1 2\n3 x\n",
	)
	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, "%d,%d.5,%g\n", i, i, float64(i)/7)
	}
	good := big.String()
	texts = append(texts, good, good+"1,2,bad\n3,4,5\n", good[:len(good)/2]+"1,x,3\n"+good[len(good)/2:])
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for _, text := range texts {
			for _, per := range []int{1, 2, 3, 7, 1000, 5000} {
				for _, opts := range []Options{{Name: "f.csv"}, {Name: "f", Header: HeaderNo, Columns: "2"}} {
					sameReading(t, []byte(text), opts, per)
				}
			}
		}
	}
	tr, err := NewReader(strings.NewReader("1,2\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.NextRows(make([]float64, 3), make([]int, 2)); err == nil {
		t.Error("NextRows with 3 values for 2 rows of 2: no error")
	}
}

// readSeeds are FuzzRead's seeds.
func readSeeds() []string {
	return []string{
		"a,b,c\n1,2,3\n4,5,6\n", "1\t2\n3\t4\n", "\xEF\xBB\xBFx;y\n1;2\n",
		"\n\n id , \"v,w\"\n 1 , \" 2 \"\n\n3,4\r\n", "\"a\nb\",c\n1,2\n", "a,b\n1,\"2\n",
		"a,b\n1,x\"y\n", "1,2,3\n4,5\n", "1,NaN\n", "x\n1e400\n", "0x1p-3,1_0,.5,+2,-0\n",
		"a,a\n\"\",1\n", "", "   \n\t\n", "\xFF\xFE1\x00", "\uFEFF\uFEFF\n0", "\"0\r\r\n0\"\n0",
		" \xFE\xFF\n0", "ADT1_YEAST  0.58  0.61  MIT\nADT2_YEAST  0.43  0.67  MIT\n",
		"  1.5   2\r\n 10    -3.25\n", "2.5O,1.2\n1,2\n", "sepal length\n1\n",
	}
}

// FuzzNextRows: on any input, separator, header rule and column selection, NextRows
// reads what Next reads, a few rows at a time.
func FuzzNextRows(f *testing.F) {
	for _, s := range readSeeds() {
		f.Add([]byte(s), "", uint8(0), int32(0), uint8(3))
	}
	f.Add([]byte("a,b\n1,\"2\n\n\"\n3,4\n5,\"6\n7\",\"z\"\n"), "", uint8(0), int32(','), uint8(2))
	f.Add([]byte("x y z\n1 2 3\n4 5 q\n"), "3,1", uint8(1), int32(' '), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, columns string, header uint8, comma int32, per uint8) {
		opts := Options{Name: "f", Columns: columns, Header: HeaderMode(header % 4), Comma: rune(comma)}
		sameReading(t, data, opts, 1+int(per%16))
	})
}
