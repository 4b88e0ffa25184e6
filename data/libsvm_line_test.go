package data

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ikpca/ikpca/internal/errtest"
)

func TestParseLIBSVMLine(t *testing.T) {
	for _, c := range []struct {
		line  string
		dim   int
		x     []float64
		label float64
	}{
		{"+1 1:0.5 3:-2", 4, []float64{0.5, 0, -2, 0}, 1},
		{" -1\t2:1e-3 \r\n", 2, []float64{0, 1e-3}, -1},
		{"3", 2, []float64{0, 0}, 3},
		{"0 1:-0 2:0x1p-2", 2, []float64{0, 0.25}, 0},
	} {
		dst := []float64{7, 7, 7, 7, 7}
		x, label, err := ParseLIBSVMLine(dst, c.line, c.dim)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if !slices.Equal(x, c.x) || label != c.label {
			t.Errorf("%q: got %v, %v; want %v, %v", c.line, x, label, c.x, c.label)
		}
		if &x[0] != &dst[0] {
			t.Errorf("%q: dst not reused", c.line)
		}
	}
	if x, _, err := ParseLIBSVMLine(nil, "1 2:3", 3); err != nil || len(x) != 3 || x[1] != 3 {
		t.Errorf("nil dst: %v, %v", x, err)
	}
}

func TestParseLIBSVMLineErrors(t *testing.T) {
	for _, c := range []struct {
		line, want string
		dim        int
	}{
		{"", "blank line", 3},
		{" \t\r\n", "blank line", 3},
		{"1 1:1", "dimension 0", 0},
		{"1 1:1", "exceeds the limit", libsvmMaxElements + 1},
		{"NaN 1:1", "label", 3},
		{"1 1:Inf", "non-finite", 3},
		{"1 0:1", "below 1", 3},
		{"1 4:1", "exceeds dimension 3", 3},
		{"1 2:1 2:1", "does not follow", 3},
		{"1 3:1 2:1", "does not follow", 3},
		{"1 3", "is not index:value", 3},
		{"1 x:1", "unsigned decimal", 3},
		{"1 1:abc", "value", 3},
	} {
		x, _, err := ParseLIBSVMLine(make([]float64, 3), c.line, c.dim)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q (dim %d): error %v, want one containing %q", c.line, c.dim, err, c.want)
		}
		if x != nil {
			t.Errorf("%q: x = %v with an error", c.line, x)
		}
	}
}

// FuzzParseLIBSVMLine: the line parser and ParseLIBSVM on the same single line agree —
// both fail with an error of the same kind, or both give the same point and label bit
// for bit.
func FuzzParseLIBSVMLine(f *testing.F) {
	for _, s := range []string{"+1 1:0.5 3:-2", "-1 2:1e-3 ", "3", "1 4:1", "NaN 1:1", "1 2:1 2:1", "1 :1", " ", "1 1:1 # c"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, line string, dim int) {
		if strings.ContainsRune(line, '\n') {
			return // one line only
		}
		d := 1 + (dim%50+50)%50
		x, label, err := ParseLIBSVMLine(nil, line, d)
		X, y, want := ParseLIBSVM(strings.NewReader(line), d)
		if (err == nil) != (want == nil) {
			t.Fatalf("%q: line parser error %v, ParseLIBSVM error %v", line, err, want)
		}
		if err != nil {
			// Both wrap exactly one kind, and the same: the line's rules are ParseLIBSVM's.
			if p := sentinels.Check(want, nil); p != "" {
				t.Fatalf("%q: ParseLIBSVM: %s", line, p)
			}
			if p := sentinels.Check(err, errtest.KindsOf(want)[0]); p != "" {
				t.Fatalf("%q: the line parser: %s (ParseLIBSVM: %v)", line, p, want)
			}
			return
		}
		row := X.RawRowView(0)
		for j := range row {
			if math.Float64bits(row[j]) != math.Float64bits(x[j]) {
				t.Fatalf("%q: x = %v, ParseLIBSVM %v", line, x, row)
			}
		}
		if math.Float64bits(label) != math.Float64bits(y[0]) {
			t.Fatalf("%q: label %v, ParseLIBSVM %v", line, label, y[0])
		}
	})
}
