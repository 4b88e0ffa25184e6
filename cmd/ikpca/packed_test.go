package main

import (
	"bytes"
	"context"
	binenc "encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/table"
)

// TestPackedImages: fit's reader holds the images of an IDX file of unsigned bytes as
// a byte each and gives back exactly data.ReadIDX's values (At, row and the first rows
// as a matrix); a file of float64 elements with at most 256 distinct values is held as
// codes too, and one with more — 400 rows of 4, whose first rows have few distinct
// values and whose later ones many — as floats from the 257th distinct value on, with
// every value still exact. The chunks are shrunk to 100 bytes of float64: an image a
// chunk, and 3 rows of 4 values.
func TestPackedImages(t *testing.T) {
	withPackedChunk(t, 100)
	dir := t.TempDir()
	idx, _ := writeFashionIDX(t, dir, 40, false)
	floatIDX := func(name string, rows int, vals []float64) string {
		b := []byte{0, 0, 0x0E, 2}
		b = binenc.BigEndian.AppendUint32(b, uint32(rows))
		b = binenc.BigEndian.AppendUint32(b, uint32(len(vals)/rows))
		for _, v := range vals {
			b = binenc.BigEndian.AppendUint64(b, math.Float64bits(v))
		}
		path := filepath.Join(dir, name)
		writeFile(t, path, string(b), 0o644)
		return path
	}
	few := floatIDX("few.idx", 3, []float64{0, 1, pixel[51], pixel[255], pixel[7], pixel[8], pixel[9], 0, 0.3, -2, 1e300, pixel[1]})
	var vals []float64
	for i := range 400 * 4 {
		if i < 200*4 {
			vals = append(vals, float64(i%50)) // 50 distinct values in the first half
		} else {
			vals = append(vals, 0.5+float64(i)) // a new one each
		}
	}
	many := floatIDX("many.idx", 400, vals)

	for _, tc := range []struct {
		file  string
		bytes bool
	}{{idx, true}, {few, true}, {many, false}} {
		want, err := data.ReadIDX(strings.NewReader(readFile(t, tc.file)), data.IDXOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var tf tableFlags
		tf.sep, tf.header = "auto", "auto"
		p, err := readPointRows(context.Background(), env{}, []string{tc.file}, &tf)
		if err != nil {
			t.Fatal(err)
		}
		checkPacked(t, tc.file, p, want, tc.bytes, nil)
	}
}

// TestPackedTable: fit's reader holds a CSV of few distinct values as a byte a value
// and one of many as float64, with the values and the source lines of the table reader
// (a header and a blank line: lines 2, 4, 5…), across chunks of 4 rows.
func TestPackedTable(t *testing.T) {
	withPackedChunk(t, 100)
	dir := t.TempDir()
	for _, distinct := range []int{3, 256, 257, 5000} {
		var b strings.Builder
		b.WriteString("a,b,c\n")
		var lines []int
		line := 2
		for i := range 3000 {
			if i == 1 {
				b.WriteString("\n")
				line++
			}
			fmt.Fprintf(&b, "%g,%g,%g\n", float64(i%distinct)/7, float64((i+1)%distinct)/7, -float64(i%distinct))
			lines = append(lines, line)
			line++
		}
		path := filepath.Join(dir, fmt.Sprint(distinct, ".csv"))
		writeFile(t, path, b.String(), 0o644)
		tab, err := table.Read(strings.NewReader(b.String()), table.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var tf tableFlags
		tf.sep, tf.header = "auto", "auto"
		var msg bytes.Buffer
		p, err := readPointRows(context.Background(), env{errw: &msg}, []string{path}, &tf)
		if err != nil {
			t.Fatal(err)
		}
		// −k, k/7 and (k+1)/7 for k < distinct: at most 256 values in all for 3 levels.
		checkPacked(t, path, p, tab.X, distinct <= 3, lines)
		if !strings.Contains(msg.String(), "line 1 taken as a header") {
			t.Errorf("%s: the detected header not reported: %q", path, msg.String())
		}
	}
}

// withPackedChunk sets packedChunkBytes for the duration of a test.
func withPackedChunk(t *testing.T, bytes int) {
	saved := packedChunkBytes
	packedChunkBytes = bytes
	t.Cleanup(func() { packedChunkBytes = saved })
}

// checkPacked checks p against want: its storage (codes or floats), At, row, firstRows
// and the lines (nil: i+1).
func checkPacked(t *testing.T, what string, p pointRows, want *mat.Dense, codes bool, lines []int) {
	t.Helper()
	pk, ok := p.(*packedRows)
	if !ok || (pk.floats == nil) != codes {
		t.Fatalf("%s: read as %T, codes %v, want %v", what, p, ok && pk.floats == nil, codes)
	}
	if !mat.Equal(p, want) {
		t.Errorf("%s: At differs from the reference", what)
	}
	n, d := want.Dims()
	if !mat.Equal(firstRows(p, n), want) {
		t.Errorf("%s: firstRows differs from the reference", what)
	}
	row := make([]float64, d)
	for i := range n {
		got := p.row(row, i)
		for j, v := range want.RawRowView(i) {
			if math.Float64bits(got[j]) != math.Float64bits(v) {
				t.Fatalf("%s: row %d element %d is %v, want %v", what, i, j, got[j], v)
			}
		}
		wantLine := i + 1
		if lines != nil {
			wantLine = lines[i]
		}
		if p.line(i) != wantLine {
			t.Fatalf("%s: line of row %d is %d, want %d", what, i, p.line(i), wantLine)
		}
	}
}
