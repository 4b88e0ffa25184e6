package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/errtest"
)

func TestA9AShape(t *testing.T) {
	for _, tc := range []struct {
		d    Dataset
		name string
		rows int
		raw  []byte
	}{
		{A9A(), "a9a", 32561, A9ARaw()},
		{A9ATest(), "a9a.t", 16281, A9ATestRaw()},
	} {
		d := tc.d
		r, c := d.X.Dims()
		if r != tc.rows || c != 123 {
			t.Errorf("%s: X is %d×%d, want %d×123", tc.name, r, c, tc.rows)
		}
		if d.Name != tc.name {
			t.Errorf("Name = %q, want %q", d.Name, tc.name)
		}
		if len(d.Features) != 123 || d.Features[0] != "f1" || d.Features[9] != "f10" || d.Features[122] != "f123" {
			t.Errorf("%s: Features = %v", tc.name, d.Features)
		}
		if len(d.Labels) != r {
			t.Errorf("%s: len(Labels) = %d, want %d", tc.name, len(d.Labels), r)
		}
		// One newline-terminated line per row, no blank lines.
		if n := bytes.Count(tc.raw, []byte("\n")); n != tc.rows || !bytes.HasSuffix(tc.raw, []byte("\n")) ||
			bytes.Contains(tc.raw, []byte("\n\n")) {
			t.Errorf("%s: %d newline-terminated lines, want %d", tc.name, n, tc.rows)
		}
	}
}

func TestA9AFirstRows(t *testing.T) {
	const first = "-1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 83:1 \n"
	if raw := A9ARaw(); !bytes.HasPrefix(raw, []byte(first)) {
		t.Fatalf("a9a starts with %q, want %q", raw[:len(first)], first)
	}
	check := func(name string, d Dataset, label string, ones []int) {
		t.Helper()
		want := make([]float64, 123)
		for _, j := range ones {
			want[j-1] = 1
		}
		if got := mat.Row(nil, 0, d.X); !slices.Equal(got, want) {
			t.Errorf("%s row 0: got nonzeros at %v, want %v", name, nonzeros(got), ones)
		}
		if d.Labels[0] != label {
			t.Errorf("%s row 0: label %q, want %q", name, d.Labels[0], label)
		}
	}
	check("a9a", A9A(), "-1", []int{3, 11, 14, 19, 39, 42, 55, 64, 67, 73, 75, 76, 80, 83})
	// -1 1:1 6:1 17:1 21:1 35:1 42:1 54:1 62:1 71:1 73:1 74:1 76:1 80:1 83:1
	check("a9a.t", A9ATest(), "-1", []int{1, 6, 17, 21, 35, 42, 54, 62, 71, 73, 74, 76, 80, 83})
}

// nonzeros returns the 1-based indices of the nonzero entries of v.
func nonzeros(v []float64) []int {
	var nz []int
	for j, x := range v {
		if x != 0 {
			nz = append(nz, j+1)
		}
	}
	return nz
}

// TestA9AValues checks what README.md and the doc comments state: binary
// features, 11–14 ones per row, feature 123 never set in the test file,
// and the label counts.
func TestA9AValues(t *testing.T) {
	for _, tc := range []struct {
		d        Dataset
		neg, pos int
		distinct int
	}{
		{A9A(), 24720, 7841, 24947},
		{A9ATest(), 12435, 3846, 13713},
	} {
		d := tc.d
		r, c := d.X.Dims()
		col123 := 0
		seen := make(map[string]bool, r)
		for i := range r {
			row := d.X.RawRowView(i)
			ones := 0
			for _, v := range row {
				switch v {
				case 0:
				case 1:
					ones++
				default:
					t.Fatalf("%s: X[%d,·] has value %v, want 0 or 1", d.Name, i, v)
				}
			}
			if ones < 11 || ones > 14 {
				t.Errorf("%s: row %d has %d ones, want 11–14", d.Name, i, ones)
			}
			if row[c-1] != 0 {
				col123++
			}
			seen[fmt.Sprint(nonzeros(row))] = true
		}
		if (d.Name == "a9a.t") != (col123 == 0) {
			t.Errorf("%s: feature 123 set in %d rows", d.Name, col123)
		}
		if len(seen) != tc.distinct {
			t.Errorf("%s: %d distinct rows, want %d", d.Name, len(seen), tc.distinct)
		}
		counts := map[string]int{}
		for _, l := range d.Labels {
			counts[l]++
		}
		if len(counts) != 2 || counts["-1"] != tc.neg || counts["+1"] != tc.pos {
			t.Errorf("%s: label counts %v, want -1:%d +1:%d", d.Name, counts, tc.neg, tc.pos)
		}
	}
	// In the training file every feature occurs, so the inferred dimension is
	// 123; in the test file it is 122, which is why A9ATest fixes it.
	for _, tc := range []struct {
		name string
		raw  []byte
		dim  int
	}{{"a9a", A9ARaw(), 123}, {"a9a.t", A9ATestRaw(), 122}} {
		X, _, err := ParseLIBSVM(bytes.NewReader(tc.raw), 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, c := X.Dims(); c != tc.dim {
			t.Errorf("%s: inferred dimension %d, want %d", tc.name, c, tc.dim)
		}
	}
}

// TestA9AMatchesRaw checks that A9A is ParseLIBSVM applied to A9ARaw.
func TestA9AMatchesRaw(t *testing.T) {
	X, y, err := ParseLIBSVM(bytes.NewReader(A9ARaw()), 123)
	if err != nil {
		t.Fatal(err)
	}
	d := A9A()
	if !mat.Equal(X, d.X) {
		t.Error("ParseLIBSVM(A9ARaw()) differs from A9A().X")
	}
	for i, v := range y {
		if want := map[string]float64{"+1": 1, "-1": -1}[d.Labels[i]]; v != want {
			t.Fatalf("row %d: label %v, A9A() has %q", i, v, d.Labels[i])
		}
	}
}

// TestParseA9ACorrupt checks that a damaged or wrong embedded file is
// reported as an error by the loader (which A9A turns into a panic).
func TestParseA9ACorrupt(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	flipped := []byte(a9aGz)
	flipped[len(flipped)/2] ^= 0x55
	crc := []byte(gz("+1 1:1\n"))
	crc[len(crc)-8] ^= 1 // gzip trailer: CRC-32, then size
	cases := map[string]string{
		"not gzip":      "+1 1:1\n",
		"truncated":     a9aGz[:len(a9aGz)/2],
		"flipped byte":  string(flipped),
		"bad checksum":  string(crc),
		"label 0":       gz("+1 1:1\n0 2:1\n"),
		"index 124":     gz("+1 124:1\n"),
		"malformed":     gz("+1 1:1\n-1 2\n"),
		"empty":         gz(""),
		"non-ascending": gz("-1 2:1 1:1\n"),
	}
	for name, raw := range cases {
		if _, err := parseA9A("t", raw); err == nil {
			t.Errorf("%s: expected an error", name)
		}
	}
	if d, err := parseA9A("t", gz("+1 1:1 123:1\n-1\n")); err != nil {
		t.Errorf("valid input: %v", err)
	} else if r, c := d.X.Dims(); r != 2 || c != 123 || d.Labels[0] != "+1" || d.Labels[1] != "-1" {
		t.Errorf("valid input: %d×%d, labels %v", r, c, d.Labels)
	}
}

func TestParseLIBSVM(t *testing.T) {
	cases := []struct {
		name  string
		input string
		dim   int
		rows  int
		cols  int
		data  []float64 // row-major X
		y     []float64
	}{
		{"basic", "+1 1:0.5 3:-2\n-1 2:1e-3\n", 0, 2, 3,
			[]float64{0.5, 0, -2, 0, 1e-3, 0}, []float64{1, -1}},
		{"fixed dim pads", "1 2:4\n", 4, 1, 4, []float64{0, 4, 0, 0}, []float64{1}},
		{"no final newline", "1 1:1\n2 2:2", 0, 2, 2, []float64{1, 0, 0, 2}, []float64{1, 2}},
		{"trailing space (a9a)", "-1 1:1 \n+1 2:1 \n", 0, 2, 2, []float64{1, 0, 0, 1}, []float64{-1, 1}},
		{"CRLF, tabs, blank lines", "\n 1\t1:1  2:3 \r\n\r\n  \t\n0 2:7\r\n\n", 0, 2, 2,
			[]float64{1, 3, 0, 7}, []float64{1, 0}},
		{"label only", "3\n-2 1:1\n", 0, 2, 1, []float64{0, 1}, []float64{3, -2}},
		{"label only, fixed dim", "3\n", 2, 1, 2, []float64{0, 0}, []float64{3}},
		{"explicit zero and leading zeros", "1 01:0 002:5\n", 0, 1, 2, []float64{0, 5}, []float64{1}},
		{"regression labels", "0.25 1:1\n-1e3 1:2\n", 0, 2, 1, []float64{1, 2}, []float64{0.25, -1000}},
		{"dim at max index", "1 3:1\n", 3, 1, 3, []float64{0, 0, 1}, []float64{1}},
	}
	for _, tc := range cases {
		X, y, err := ParseLIBSVM(strings.NewReader(tc.input), tc.dim)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		want := mat.NewDense(tc.rows, tc.cols, tc.data)
		if !mat.Equal(X, want) || !slices.Equal(y, tc.y) {
			t.Errorf("%s: got X=%v y=%v, want X=%v y=%v", tc.name, mat.Formatted(X), y, mat.Formatted(want), tc.y)
		}
	}
}

func TestParseLIBSVMErrors(t *testing.T) {
	cases := []struct {
		name  string
		input string
		dim   int
		line  string // expected "line N" in the error, or ""
	}{
		{"empty input", "", 0, ""},
		{"only blank lines", "\n  \n\t\r\n", 0, ""},
		{"only blank lines, fixed dim", "\n\n", 5, ""},
		{"no features to infer dim", "1\n-1\n", 0, ""},
		{"label not a number", "abc 1:1\n", 0, "line 1"},
		{"label NaN", "NaN 1:1\n", 0, "line 1"},
		{"label Inf", "+Inf 1:1\n", 0, "line 1"},
		{"label overflow", "1e400 1:1\n", 0, "line 1"},
		{"label with colon", "1:1 2:1\n", 0, "line 1"},
		{"unicode minus label", "\u22121 1:1\n", 0, "line 1"},
		{"value NaN", "1 1:NaN\n", 0, "line 1"},
		{"value -Inf", "1 2:-inf\n", 0, "line 1"},
		{"value overflow", "1 1:1e999\n", 0, "line 1"},
		{"value not a number", "1 1:x\n", 0, "line 1"},
		{"missing colon", "1 3\n", 0, "line 1"},
		{"empty index", "1 :1\n", 0, "line 1"},
		{"empty value", "1 3:\n", 0, "line 1"},
		{"double colon", "1 3:1:2\n", 0, "line 1"},
		{"space after colon", "1 3: 1\n", 0, "line 1"},
		{"index zero", "1 0:1\n", 0, "line 1"},
		{"negative index", "1 -2:1\n", 0, "line 1"},
		{"signed index", "1 +2:1\n", 0, "line 1"},
		{"decimal index", "1 2.0:1\n", 0, "line 1"},
		{"exponent index", "1 1e1:1\n", 0, "line 1"},
		{"hex index", "1 0x1:1\n", 0, "line 1"},
		{"index overflow", "1 99999999999999999999999:1\n", 0, "line 1"},
		{"index above dim", "1 1:1\n1 4:1\n", 3, "line 2"},
		{"duplicate index", "1 2:1 2:1\n", 0, "line 1"},
		{"descending index", "1 3:1 2:1\n", 0, "line 1"},
		{"comment", "1 1:1 # note\n", 0, "line 1"},
		{"error after blank line", "1 1:1\n\n-1 2:1 x\n", 0, "line 3"},
		{"error on last line without newline", "1 1:1\n-1 1:1 1:1", 0, "line 2"},
		{"NUL byte", "1 1:1\x00\n", 0, "line 1"},
		{"inferred dimension too large", "1 300000000:1\n", 0, "line 1"},
		{"fixed dimension too large", "1 1:1\n", math.MaxInt, ""},
		{"rows × dim too large", "1 1:1\n2 1:1\n3 1:1\n", 1 << 27, ""},
	}
	for _, tc := range cases {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic: %v", tc.name, p)
				}
			}()
			X, y, err := ParseLIBSVM(strings.NewReader(tc.input), tc.dim)
			if err == nil {
				t.Errorf("%s: expected an error", tc.name)
				return
			}
			if X != nil || y != nil {
				t.Errorf("%s: non-nil result with error %v", tc.name, err)
			}
			if !strings.Contains(err.Error(), tc.line) {
				t.Errorf("%s: error %q does not name %q", tc.name, err, tc.line)
			}
		}()
	}
}

// TestParseLIBSVMLimit exercises the element limit with a small value.
func TestParseLIBSVMLimit(t *testing.T) {
	in := "1 1:1\n2 2:1\n3 3:1 4:1\n" // 3 rows × 4 columns
	if _, _, err := parseLIBSVM(strings.NewReader(in), 0, 12); err != nil {
		t.Errorf("12 elements, limit 12: %v", err)
	}
	if _, _, err := parseLIBSVM(strings.NewReader(in), 0, 11); err == nil {
		t.Error("12 elements, limit 11: expected an error")
	}
	if _, _, err := parseLIBSVM(strings.NewReader(in), 5, 14); err == nil {
		t.Error("15 elements, limit 14: expected an error")
	}
	if _, _, err := parseLIBSVM(strings.NewReader("1 1:1\n"), 0, 1); err != nil {
		t.Errorf("1 element, limit 1: %v", err)
	}
}

func TestParseLIBSVMReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("1 1:1\n-1 2:"), iotest.ErrReader(boom))
	_, _, err := ParseLIBSVM(r, 0)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("got error %v, want one wrapping %v at line 2", err, boom)
	}
	// A reader that returns data one byte at a time works.
	X, y, err := ParseLIBSVM(iotest.OneByteReader(strings.NewReader("1 2:3\n")), 0)
	if err != nil || X.At(0, 1) != 3 || y[0] != 1 {
		t.Fatalf("OneByteReader: X=%v y=%v err=%v", X, y, err)
	}
}

// fuzzMaxElements is the element limit used when fuzzing with an inferred
// dimension, so that an input such as "1 99999999:1" cannot make each
// iteration allocate hundreds of megabytes.
const fuzzMaxElements = 1 << 20

// FuzzParseLIBSVM: whatever the input, the parser does not panic; an error leaves X and
// y nil and wraps exactly one ikpca kind and data's sentinel of it (the reader, a
// strings.Reader, never fails); a result has one row a data line, finite entries, and
// survives a round trip through the format.
func FuzzParseLIBSVM(f *testing.F) {
	seeds := []struct {
		input string
		dim   int
	}{
		{"-1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 83:1 \n", 123},
		{"-1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 83:1 \n", 0},
		{"+1 1:0.5 3:-2\n-1 2:1e-3\n", 0},
		{"\n 1\t1:1  2:3 \r\n\r\n0 2:7", 0},
		{"3\n-2 1:1\n", 2},
		{"1 01:-0 2:0x1p-2\n", 0},
		{"", 0},
		{"1\n", 0},
		{"NaN 1:1\n", 0},
		{"1 1:Inf\n", 0},
		{"1 0:1\n", 0},
		{"1 2:1 2:1\n", 0},
		{"1 3:1 2:1\n", 0},
		{"1 4:1\n", 3},
		{"1 3:1:2\n", 0},
		{"1 :1\n", 0},
		{"1 3:\n", 0},
		{"1 -2:1\n", 0},
		{"1 99999999999999999999:1\n", 0},
		{"1 1048577:1\n", 0},
		{"1 1e400:1\n", 0},
		{"1 1:1 # c\n", 0},
		{"\x00\xff 1:1\n", 0},
	}
	for _, s := range seeds {
		f.Add(s.input, s.dim)
	}
	f.Fuzz(func(t *testing.T, input string, dim int) {
		d := dim % 200 // keep fixed dimensions small: rows × d stays bounded
		var (
			X   *mat.Dense
			y   []float64
			err error
		)
		if d > 0 {
			X, y, err = ParseLIBSVM(strings.NewReader(input), d)
		} else {
			X, y, err = parseLIBSVM(strings.NewReader(input), d, fuzzMaxElements)
		}
		if err != nil {
			if X != nil || y != nil {
				t.Fatalf("non-nil result with error %v", err)
			}
			if p := sentinels.Check(err, nil); p != "" {
				t.Fatal(p)
			}
			return
		}
		r, c := X.Dims()
		rows := 0
		for line := range strings.SplitSeq(input, "\n") {
			if len(strings.Fields(line)) > 0 {
				rows++
			}
		}
		if r != rows || len(y) != r {
			t.Fatalf("X is %d×%d with %d labels, input has %d data lines", r, c, len(y), rows)
		}
		if d > 0 && c != d {
			t.Fatalf("X has %d columns, want dim %d", c, d)
		}
		if c < 1 || (d <= 0 && r*c > fuzzMaxElements) {
			t.Fatalf("X is %d×%d", r, c)
		}
		for i := range r {
			for j := range c {
				if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("X[%d,%d] = %v", i, j, v)
				}
			}
			if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
				t.Fatalf("y[%d] = %v", i, y[i])
			}
		}
		// Writing X and y back in LIBSVM format and parsing again must give
		// the same data.
		var b strings.Builder
		for i := range r {
			b.WriteString(strconv.FormatFloat(y[i], 'g', -1, 64))
			for j := range c {
				if v := X.At(i, j); v != 0 {
					fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(v, 'g', -1, 64))
				}
			}
			b.WriteByte('\n')
		}
		X2, y2, err := ParseLIBSVM(strings.NewReader(b.String()), c)
		if err != nil {
			t.Fatalf("re-parsing %q: %v", b.String(), err)
		}
		if !mat.Equal(X, X2) || !slices.Equal(y, y2) {
			t.Fatalf("round trip changed the data: %q", b.String())
		}
	})
}

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
