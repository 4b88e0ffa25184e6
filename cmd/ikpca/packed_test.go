package main

import (
	"bytes"
	"context"
	binenc "encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
)

// TestPackedImages: fit's reader of IDX files holds a file of unsigned bytes as its
// bytes and gives back exactly data.ReadIDX's values (At, row and the first rows as a
// matrix); a file of float64 elements whose first images happen to be pixels (k/255)
// and whose later ones are not is held as floats from the first such value on, with
// every value still exact.
func TestPackedImages(t *testing.T) {
	dir := t.TempDir()
	idx, _ := writeFashionIDX(t, dir, 40, false)

	// A file of float64 elements: 3 images of 4 elements, the first two pixels.
	vals := []float64{0, 1, pixel[51], pixel[255], pixel[7], pixel[8], pixel[9], 0, 0.3, -2, 1e300, pixel[1]}
	b := []byte{0, 0, 0x0E, 2}
	b = binenc.BigEndian.AppendUint32(b, 3)
	b = binenc.BigEndian.AppendUint32(b, 4)
	for _, v := range vals {
		b = binenc.BigEndian.AppendUint64(b, math.Float64bits(v))
	}
	floats := filepath.Join(dir, "floats.idx")
	if err := os.WriteFile(floats, b, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		file  string
		bytes bool
	}{{idx, true}, {floats, false}} {
		raw, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := data.ReadIDX(bytes.NewReader(raw), data.IDXOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var tf tableFlags
		tf.sep, tf.header = "auto", "auto"
		p, err := readPointRows(context.Background(), env{}, []string{tc.file}, &tf)
		if err != nil {
			t.Fatal(err)
		}
		pk, ok := p.(*packedImages)
		if !ok || (pk.floats == nil) != tc.bytes {
			t.Fatalf("%s: read as %T, bytes %v", tc.file, p, ok && pk.floats == nil)
		}
		if !mat.Equal(p, want) {
			t.Errorf("%s: At differs from data.ReadIDX", tc.file)
		}
		n, d := want.Dims()
		if !mat.Equal(firstRows(p, n), want) {
			t.Errorf("%s: firstRows differs from data.ReadIDX", tc.file)
		}
		row := make([]float64, d)
		for i := range n {
			got := p.row(row, i)
			for j, v := range want.RawRowView(i) {
				if got[j] != v {
					t.Fatalf("%s: row %d element %d is %v, want %v", tc.file, i, j, got[j], v)
				}
			}
			if p.line(i) != i+1 {
				t.Fatalf("line of row %d is %d", i, p.line(i))
			}
		}
	}
}
