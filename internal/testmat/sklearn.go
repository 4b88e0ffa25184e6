package testmat

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ReadJSON decodes the JSON file a reference script of the tests wrote (for example
// pca/testdata/sklearn_pca.py) into v. It fails the test on a missing or malformed
// file.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// ReadCSVGz reads a matrix written by a reference script of the tests (for example
// preimage/testdata/sklearn_preimage.py): a gzip-compressed text file, one row a line,
// comma-separated float64 values in a form that parses back exactly. It fails the test
// on a missing or malformed file.
func ReadCSVGz(t testing.TB, path string) *mat.Dense {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var data []float64
	rows, cols := 0, -1
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		if cols >= 0 && len(fields) != cols {
			t.Fatalf("%s: row %d has %d values, the first %d", path, rows, len(fields), cols)
		}
		cols = len(fields)
		for _, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: row %d: %v", path, rows, err)
			}
			data = append(data, v)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if rows == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return mat.NewDense(rows, cols, data)
}

// MaxRel returns max|aᵢⱼ − bᵢⱼ| / max|bᵢⱼ|, the error of a relative to b in the
// max-norm (b the reference); a and b must have the same shape.
func MaxRel(a, b mat.Matrix) float64 {
	r, c := b.Dims()
	var diff, big float64
	for i := range r {
		for j := range c {
			diff = max(diff, abs(a.At(i, j)-b.At(i, j)))
			big = max(big, abs(b.At(i, j)))
		}
	}
	return diff / max(big, tiny)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
