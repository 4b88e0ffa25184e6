package table

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"a,b,c\n1,2,3\n4,5,6\n",
		"1\t2\n3\t4\n",
		"\xEF\xBB\xBFx;y\n1;2\n",
		"\n\n id , \"v,w\"\n 1 , \" 2 \"\n\n3,4\r\n",
		"\"a\nb\",c\n1,2\n",
		"a,b\n1,\"2\n",
		"a,b\n1,x\"y\n",
		"1,2,3\n4,5\n",
		"1,NaN\n",
		"x\n1e400\n",
		"0x1p-3,1_0,.5,+2,-0\n",
		"a,a\n\"\",1\n",
		"",
		"   \n\t\n",
		"\xFF\xFE1\x00",
		"\uFEFF\uFEFF\n0", // a name that starts with a byte order mark
		"\"0\r\r\n0\"\n0", // a name with a carriage return
		" \xFE\xFF\n0",    // a name that starts like a UTF-16 mark
		"ADT1_YEAST  0.58  0.61  MIT\nADT2_YEAST  0.43  0.67  MIT\n",
		"  1.5   2\r\n 10    -3.25\n",
		"2.5O,1.2\n1,2\n",
		"sepal length\n1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Read(bytes.NewReader(data), Options{Name: "fuzz.csv"})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv:") {
				t.Fatalf("error does not name the input: %v", err)
			}
			if tab != nil {
				t.Fatal("non-nil table with an error")
			}
			return
		}
		r, c := tab.X.Dims()
		if r != len(tab.Lines) || c != len(tab.Names) || r == 0 || c == 0 {
			t.Fatalf("X is %d×%d, %d lines, %d names", r, c, len(tab.Lines), len(tab.Names))
		}
		prev := 0
		for _, l := range tab.Lines {
			if l <= prev {
				t.Fatalf("lines not increasing: %v", tab.Lines)
			}
			prev = l
		}
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if v := tab.X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("X[%d,%d] = %v", i, j, v)
				}
			}
		}

		var buf bytes.Buffer
		if err := Write(&buf, tab.Names, tab.X, 0); err != nil {
			t.Fatalf("Write: %v", err)
		}
		back, err := Read(bytes.NewReader(buf.Bytes()), Options{Name: "back", Comma: ',', Header: HeaderYes})
		if err != nil {
			t.Fatalf("reading back: %v\n%q", err, buf.Bytes())
		}
		if !sameBits(back.X, tab.X) {
			t.Fatalf("round trip differs:\n%v\n%v", rows(tab.X), rows(back.X))
		}
		if !reflect.DeepEqual(back.Names, tab.Names) {
			t.Fatalf("names differ: %q, %q", tab.Names, back.Names)
		}
	})
}

// FuzzOptions checks that no column selection, header mode or
// separator makes Read panic or return an inconsistent table.
func FuzzOptions(f *testing.F) {
	f.Add([]byte("a,b,c\n1,2,3\n"), "2-", uint8(0), int32(0))
	f.Add([]byte("a\tb\n1\t2\n"), "b,1", uint8(1), int32('\t'))
	f.Add([]byte("1;2;3\n"), "3-1", uint8(2), int32(';'))
	f.Add([]byte("x,y\n1,2\n"), "0,,99999999999999999999", uint8(0), int32(','))
	f.Add([]byte("x,x\n1,2\n"), "x", uint8(0), int32(0))
	f.Add([]byte("a  b\t c\n1 2 3\n"), "2-3", uint8(0), int32(' '))
	f.Fuzz(func(t *testing.T, data []byte, columns string, header uint8, comma int32) {
		opts := Options{Name: "f", Columns: columns, Header: HeaderMode(header % 4), Comma: rune(comma)}
		tab, err := Read(bytes.NewReader(data), opts)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		r, c := tab.X.Dims()
		if r != len(tab.Lines) || c != len(tab.Names) {
			t.Fatalf("X is %d×%d, %d lines, %d names", r, c, len(tab.Lines), len(tab.Names))
		}
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if v := tab.X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("X[%d,%d] = %v", i, j, v)
				}
			}
		}
	})
}
