package table

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

func FuzzRead(f *testing.F) {
	for _, s := range readSeeds() {
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
