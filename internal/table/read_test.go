package table

import (
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"
)

// rows returns the rows of X.
func rows(X mat.Matrix) [][]float64 {
	r, c := X.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = X.At(i, j)
		}
	}
	return out
}

func TestRead(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		opts  Options
		want  [][]float64
		names []string
		lines []int
	}{
		{
			name:  "csv header auto",
			in:    "a,b,c\n1,2,3\n4,5,6\n",
			want:  [][]float64{{1, 2, 3}, {4, 5, 6}},
			names: []string{"a", "b", "c"},
			lines: []int{2, 3},
		},
		{
			name:  "csv no header auto",
			in:    "1,2\n3,4",
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"c1", "c2"},
			lines: []int{1, 2},
		},
		{
			name:  "tsv header auto",
			in:    "x\ty\n1\t2\n3\t4\n",
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"x", "y"},
			lines: []int{2, 3},
		},
		{
			name:  "tsv no header auto",
			in:    "1\t2\n3\t4\n",
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"c1", "c2"},
			lines: []int{1, 2},
		},
		{
			name:  "tsv detected after blank and space lines",
			in:    "\n   \n1.5\t2,5\n",
			opts:  Options{Columns: "1"},
			want:  [][]float64{{1.5}},
			names: []string{"c1"},
			lines: []int{3},
		},
		{
			name:  "tsv keeps empty fields of unselected columns",
			in:    "x\tnote\ty\n1\t\t2\n3\tok\t4\n",
			opts:  Options{Columns: "x,y"},
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"x", "y"},
			lines: []int{2, 3},
		},
		{
			name:  "blank lines keep line numbers",
			in:    "\n\na,b\n\n1,2\n  \n\n3,4\n\n",
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"a", "b"},
			lines: []int{5, 8},
		},
		{
			name:  "crlf",
			in:    "a,b\r\n1,2\r\n\r\n3,4\r\n",
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"a", "b"},
			lines: []int{2, 4},
		},
		{
			name:  "bom",
			in:    "\xEF\xBB\xBFa,b\n1,2\n",
			want:  [][]float64{{1, 2}},
			names: []string{"a", "b"},
			lines: []int{2},
		},
		{
			name:  "bom tsv no header",
			in:    "\xEF\xBB\xBF1\t2\n",
			want:  [][]float64{{1, 2}},
			names: []string{"c1", "c2"},
			lines: []int{1},
		},
		{
			name:  "quoted fields",
			in:    "\"a\",\"b, c\"\n\"1\", \" 2 \"\n",
			want:  [][]float64{{1, 2}},
			names: []string{"a", "b, c"},
			lines: []int{2},
		},
		{
			name:  "spaces around numbers and names",
			in:    " a , b \n 1 , 2 \n\t3,\t4\t\n",
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"a", "b"},
			lines: []int{2, 3},
		},
		{
			name:  "number syntax",
			in:    "1e-3,+2,.5,-0,1E+2,0x1p-2,1e-400\n",
			want:  [][]float64{{1e-3, 2, 0.5, math.Copysign(0, -1), 100, 0.25, 0}},
			names: []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7"},
			lines: []int{1},
		},
		{
			name:  "select index",
			in:    "a,b,c\n1,2,3\n",
			opts:  Options{Columns: "3"},
			want:  [][]float64{{3}},
			names: []string{"c"},
			lines: []int{2},
		},
		{
			name:  "select range and index, order kept",
			in:    "1,2,3,4,5\n6,7,8,9,10\n",
			opts:  Options{Columns: "4 - 5, 1"},
			want:  [][]float64{{4, 5, 1}, {9, 10, 6}},
			names: []string{"c4", "c5", "c1"},
			lines: []int{1, 2},
		},
		{
			name:  "select open range",
			in:    "id,x,y\nfoo,1,2\nbar,3,4\n",
			opts:  Options{Columns: "2-"},
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"x", "y"},
			lines: []int{2, 3},
		},
		{
			name:  "select names",
			in:    "id,x,y\nfoo,1,2\nbar,3,4\n",
			opts:  Options{Columns: "y,x"},
			want:  [][]float64{{2, 1}, {4, 3}},
			names: []string{"y", "x"},
			lines: []int{2, 3},
		},
		{
			name:  "names make a numeric first line a header",
			in:    "1.0,2.0\n3,4\n",
			opts:  Options{Columns: "2.0"},
			want:  [][]float64{{4}},
			names: []string{"2.0"},
			lines: []int{2},
		},
		{
			name:  "name that looks like a range",
			in:    "a-b,1-2\n1,2\n",
			opts:  Options{Columns: "a-b"},
			want:  [][]float64{{1}},
			names: []string{"a-b"},
			lines: []int{2},
		},
		{
			name:  "header auto only looks at selected columns",
			in:    "x,1\n4,5\n",
			opts:  Options{Columns: "2"},
			want:  [][]float64{{1}, {5}},
			names: []string{"c2"},
			lines: []int{1, 2},
		},
		{
			name:  "header yes with numeric header",
			in:    "1,2\n3,4\n",
			opts:  Options{Header: HeaderYes},
			want:  [][]float64{{3, 4}},
			names: []string{"1", "2"},
			lines: []int{2},
		},
		{
			name:  "header no",
			in:    "1,2\n3,4\n",
			opts:  Options{Header: HeaderNo},
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"c1", "c2"},
			lines: []int{1, 2},
		},
		{
			name:  "explicit separator",
			in:    "a;b\n1,5;2\n",
			opts:  Options{Comma: ';', Columns: "b"},
			want:  [][]float64{{2}},
			names: []string{"b"},
			lines: []int{2},
		},
		{
			name:  "multi-line quoted field",
			in:    "id,x\n\"first\nsecond\",1\n\"c\",2\n",
			opts:  Options{Columns: "x"},
			want:  [][]float64{{1}, {2}},
			names: []string{"x"},
			lines: []int{2, 4},
		},
		{
			name:  "one column",
			in:    "v\n1\n\n2\n   \n3\n",
			want:  [][]float64{{1}, {2}, {3}},
			names: []string{"v"},
			lines: []int{2, 4, 6},
		},
		// Runs of spaces and tabs separate fields, chosen explicitly or detected, with
		// line numbers kept.
		{
			name:  "detected, aligned columns",
			in:    "  1.5   2\n 10    -3.25\n",
			want:  [][]float64{{1.5, 2}, {10, -3.25}},
			names: []string{"c1", "c2"},
			lines: []int{1, 2},
		},
		{
			name:  "detected, header, blank lines, CRLF",
			in:    "\n x  y \r\n\r\n1 2\r\n   \r\n3   4\r\n",
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"x", "y"},
			lines: []int{4, 6},
		},
		{
			name:  "explicit, tabs and spaces mixed",
			in:    "1\t 2  \t3\n4 5\t\t6\n",
			opts:  Options{Comma: Space},
			want:  [][]float64{{1, 2, 3}, {4, 5, 6}},
			names: []string{"c1", "c2", "c3"},
			lines: []int{1, 2},
		},
		{
			name:  "yeast-like rows, name and class columns",
			in:    "ADT1_YEAST  0.58  0.61  0.47  MIT\nADT2_YEAST  0.43  0.67  0.48  MIT\n",
			opts:  Options{Columns: "2-4"},
			want:  [][]float64{{0.58, 0.61, 0.47}, {0.43, 0.67, 0.48}},
			names: []string{"c2", "c3", "c4"},
			lines: []int{1, 2},
		},
		{
			name:  "one column whose header has a space is not split",
			in:    "sepal length\n1\n2\n",
			want:  [][]float64{{1}, {2}},
			names: []string{"sepal length"},
			lines: []int{2, 3},
		},
		{
			name:  "a comma anywhere in the first two lines means CSV",
			in:    "a b,c\n1,2\n",
			want:  [][]float64{{1, 2}},
			names: []string{"a b", "c"},
			lines: []int{2},
		},
		{
			name:  "no final newline",
			in:    "1 2\n3 4",
			opts:  Options{Comma: Space},
			want:  [][]float64{{1, 2}, {3, 4}},
			names: []string{"c1", "c2"},
			lines: []int{1, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Name = "in.csv"
			tab, err := Read(strings.NewReader(tt.in), tt.opts)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if got := rows(tab.X); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("X = %v, want %v", got, tt.want)
			}
			for i, row := range tt.want {
				for j, v := range row {
					if math.Signbit(v) != math.Signbit(tab.X.At(i, j)) {
						t.Errorf("X[%d,%d] sign differs", i, j)
					}
				}
			}
			if !reflect.DeepEqual(tab.Names, tt.names) {
				t.Errorf("Names = %q, want %q", tab.Names, tt.names)
			}
			if !reflect.DeepEqual(tab.Lines, tt.lines) {
				t.Errorf("Lines = %v, want %v", tab.Lines, tt.lines)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts Options
		want []string // substrings of the message
		not  []string // strings the message must not contain
	}{
		{
			name: "bare quote",
			in:   "a,b\n1,2\n3,x\"y\n",
			want: []string{"f.csv:3:", `bare "`},
		},
		{
			name: "unterminated quote",
			in:   "a,b\n1,\"2\n3,4\n",
			want: []string{"f.csv:", `extraneous or missing "`, "starts on line 2"},
		},
		{
			name: "text after quote",
			in:   "a,b\n1,\"2\" x\n",
			want: []string{"f.csv:2:", `extraneous or missing "`},
		},
		{
			name: "ragged short",
			in:   "a,b,c,d,e,f,g,h,i,j,k\n" + strings.Repeat("1,2,3,4,5,6,7,8,9,10,11\n", 15) + "1,2,3,4,5,6,7,8,9\n",
			want: []string{"f.csv:17: 9 fields, want 11 (as in line 1)"},
		},
		{
			name: "ragged long after blank lines",
			in:   "\n1,2\n3,4,5\n",
			want: []string{"f.csv:3: 3 fields, want 2 (as in line 2)"},
		},
		{
			name: "ragged line of spaces in tsv",
			in:   "1\t2\n \t \n",
			want: []string{"f.csv:2:", "not a number"},
		},
		{
			name: "not a number with header, implicit",
			in:   "x,y,fAlpha\n1,2,3\n4,5,abc\n",
			want: []string{`f.csv:3: column 3 ("fAlpha"): "abc" is not a number; select numeric columns with --columns`},
		},
		{
			name: "not a number with header, explicit",
			in:   "x,y,fAlpha\n1,2,3\n4,5,abc\n",
			opts: Options{Columns: "2-3"},
			want: []string{`f.csv:3: column 3 ("fAlpha"): "abc" is not a number`},
			not:  []string{"--columns"},
		},
		{
			name: "not a number without header",
			in:   "1,2,3\n4,5,abc\n",
			want: []string{`f.csv:2: column 3: "abc" is not a number; select numeric columns with --columns`},
			not:  []string{"(\""},
		},
		{
			name: "header no makes text an error",
			in:   "a,b\n1,2\n",
			opts: Options{Header: HeaderNo},
			want: []string{`f.csv:1: column 1: "a" is not a number`},
		},
		{
			name: "empty field in first row is not a header",
			in:   "1,,3\n4,5,6\n",
			want: []string{`f.csv:1: column 2: "" is not a number`},
		},
		{
			name: "empty field",
			in:   "a,b\n1, \n",
			want: []string{`f.csv:2: column 2 ("b"): "" is not a number`},
		},
		{
			name: "long value is shortened",
			in:   "a\n" + strings.Repeat("x", 1000) + "\n",
			want: []string{`f.csv:2: column 1 ("a"): "xxxxxxxx`, `"... is not a number`},
		},
		{
			name: "hex without exponent",
			in:   "a\n0x10\n",
			want: []string{`f.csv:2: column 1 ("a"): "0x10" is not a number`},
		},
		{
			name: "error line of a field in a multi-line record",
			in:   "a,b\n\"x\ny\",z\n",
			opts: Options{Columns: "2"},
			want: []string{`f.csv:3: column 2 ("b"): "z" is not a number`},
		},
		{
			name: "NaN",
			in:   "1,NaN\n",
			want: []string{`f.csv:1: column 2: "NaN" is not a finite number`},
		},
		{
			name: "nan lower case with header",
			in:   "a,b\n1,2\n3, nan \n",
			want: []string{`f.csv:3: column 2 ("b"): "nan" is not a finite number`},
		},
		{
			name: "Inf",
			in:   "a,b\n1,2\n3,+Inf\n",
			want: []string{`f.csv:3: column 2 ("b"): "+Inf" is not a finite number`},
		},
		{
			name: "-Infinity",
			in:   "-Infinity\n",
			want: []string{`f.csv:1: column 1: "-Infinity" is not a finite number`},
		},
		{
			name: "overflow",
			in:   "x\n1e400\n",
			want: []string{`f.csv:2: column 1 ("x"): "1e400" is not a finite number`},
		},
		{
			name: "negative overflow in first row",
			in:   "1,-1e400\n",
			want: []string{`f.csv:1: column 2: "-1e400" is not a finite number`},
		},
		{
			name: "empty input",
			in:   "",
			want: []string{"f.csv: no data rows"},
		},
		{
			name: "blank lines only",
			in:   "\n\r\n  \n\n",
			want: []string{"f.csv: no data rows"},
		},
		{
			name: "bom only",
			in:   "\xEF\xBB\xBF",
			want: []string{"f.csv: no data rows"},
		},
		{
			name: "header only",
			in:   "a,b\n\n",
			want: []string{"f.csv: no data rows"},
		},
		{
			name: "header yes, one line",
			in:   "1,2\n",
			opts: Options{Header: HeaderYes},
			want: []string{"f.csv: no data rows"},
		},
		{
			name: "utf-16",
			in:   "\xFF\xFEa\x00,\x00b\x00",
			want: []string{"f.csv:1:", "UTF-16"},
		},
		{
			name: "column 0",
			in:   "1,2\n",
			opts: Options{Columns: "0"},
			want: []string{"f.csv:", `item "0"`, "column 0"},
		},
		{
			name: "column 0 in range",
			in:   "1,2\n",
			opts: Options{Columns: "0-2"},
			want: []string{"f.csv:", `item "0-2"`},
		},
		{
			name: "column beyond width",
			in:   "1,2,3\n",
			opts: Options{Columns: "1,4"},
			want: []string{"f.csv:", `item "4"`, "column 4 does not exist", "3 fields"},
		},
		{
			name: "range beyond width",
			in:   "1,2,3\n",
			opts: Options{Columns: "2-9"},
			want: []string{"f.csv:", `item "2-9"`, "column 9"},
		},
		{
			name: "open range beyond width",
			in:   "1,2,3\n",
			opts: Options{Columns: "4-"},
			want: []string{"f.csv:", `item "4-"`, "column 4"},
		},
		{
			name: "huge index",
			in:   "1,2,3\n",
			opts: Options{Columns: "99999999999999999999999"},
			want: []string{"f.csv:", `item "99999999999999999999999"`},
		},
		{
			name: "reversed range",
			in:   "1,2,3\n",
			opts: Options{Columns: "3-2"},
			want: []string{"f.csv:", `item "3-2"`, "reversed"},
		},
		{
			name: "unknown name",
			in:   "a,b\n1,2\n",
			opts: Options{Columns: "a,zz"},
			want: []string{"f.csv:", `item "zz"`, "line 1"},
		},
		{
			name: "name in other case",
			in:   "alpha,b\n1,2\n",
			opts: Options{Columns: "Alpha"},
			want: []string{"f.csv:", `item "Alpha"`, `did you mean "alpha"?`},
		},
		{
			name: "name without header",
			in:   "1,2\n",
			opts: Options{Header: HeaderNo, Columns: "a"},
			want: []string{"f.csv:", `item "a"`, "header"},
		},
		{
			name: "ambiguous name",
			in:   "a,b,a\n1,2,3\n",
			opts: Options{Columns: "a"},
			want: []string{"f.csv:", `item "a"`, "columns 1 and 3"},
		},
		{
			name: "duplicate index",
			in:   "1,2,3\n",
			opts: Options{Columns: "2,2"},
			want: []string{"f.csv:", `item "2"`, "column 2", "twice"},
		},
		{
			name: "duplicate through range",
			in:   "1,2,3\n",
			opts: Options{Columns: "1-2,2"},
			want: []string{"f.csv:", `item "2"`, `item "1-2"`},
		},
		{
			name: "duplicate through name",
			in:   "a,b\n1,2\n",
			opts: Options{Columns: "2,b"},
			want: []string{"f.csv:", `item "b"`, "column 2"},
		},
		{
			name: "empty item",
			in:   "1,2\n",
			opts: Options{Columns: "1,,2"},
			want: []string{"f.csv:", "empty item", `"1,,2"`},
		},
		{
			name: "invalid separator",
			in:   "1,2\n",
			opts: Options{Comma: '"'},
			want: []string{"f.csv:", "separator"},
		},
		{
			name: "invalid header mode",
			in:   "1,2\n",
			opts: Options{Header: 7},
			want: []string{"f.csv:", "header mode"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Name = "f.csv"
			tab, err := Read(strings.NewReader(tt.in), tt.opts)
			if err == nil {
				t.Fatalf("Read succeeded with %v, want an error", rows(tab.X))
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(msg, w) {
					t.Errorf("error %q contains %q", msg, w)
				}
			}
		})
	}
}

func TestReadStdinName(t *testing.T) {
	_, err := Read(strings.NewReader(""), Options{})
	if err == nil || err.Error() != "<stdin>: no data rows" {
		t.Errorf("err = %v, want <stdin>: no data rows", err)
	}
	_, err = Read(nil, Options{Name: "x"})
	if err == nil || !strings.HasPrefix(err.Error(), "x:") {
		t.Errorf("nil reader: err = %v", err)
	}
}

func TestReadIOError(t *testing.T) {
	boom := errors.New("boom")
	for _, r := range []io.Reader{
		iotest.ErrReader(boom),
		io.MultiReader(strings.NewReader("a,b\n1,2\n"), iotest.ErrReader(boom)),
		io.MultiReader(strings.NewReader("a,b"), iotest.ErrReader(boom)),
	} {
		for _, comma := range []rune{0, ','} {
			_, err := Read(r, Options{Name: "f.csv", Comma: comma})
			if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "f.csv: read error") {
				t.Errorf("err = %v, want f.csv: read error: boom", err)
			}
		}
	}
}

func TestReadSmallReads(t *testing.T) {
	in := "\xEF\xBB\xBF\n x\t y\n1\t2\n\n3\t4\n"
	tab, err := Read(iotest.OneByteReader(strings.NewReader(in)), Options{Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float64{{1, 2}, {3, 4}}; !reflect.DeepEqual(rows(tab.X), want) {
		t.Errorf("X = %v, want %v", rows(tab.X), want)
	}
	if want := []int{3, 5}; !reflect.DeepEqual(tab.Lines, want) {
		t.Errorf("Lines = %v, want %v", tab.Lines, want)
	}
	if want := []string{"x", "y"}; !reflect.DeepEqual(tab.Names, want) {
		t.Errorf("Names = %q, want %q", tab.Names, want)
	}
}

func TestReadLongFirstLine(t *testing.T) {
	// The first line is longer than the detection buffer.
	var sb strings.Builder
	for j := 0; j < 20000; j++ {
		if j > 0 {
			sb.WriteByte('\t')
		}
		sb.WriteString("1.25")
	}
	line := sb.String()
	tab, err := Read(strings.NewReader(line+"\n"+line+"\n"), Options{Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := tab.X.Dims(); r != 2 || c != 20000 {
		t.Errorf("dims %d×%d, want 2×20000", r, c)
	}
}

// TestReadLarge reads 20 000 × 123 values and checks that allocations do
// not grow with the number of fields.
func TestReadLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const r, c = 20000, 123
	X := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			X.Set(i, j, float64(i*c+j)/7)
		}
	}
	var sb strings.Builder
	if err := Write(&sb, nil, X, ','); err != nil {
		t.Fatal(err)
	}
	in := sb.String()
	var tab *Table
	allocs := testing.AllocsPerRun(1, func() {
		var err error
		tab, err = Read(strings.NewReader(in), Options{Name: "big.csv"})
		if err != nil {
			t.Fatal(err)
		}
	})
	if !mat.Equal(tab.X, X) {
		t.Error("X differs")
	}
	if tab.Lines[r-1] != r {
		t.Errorf("last line = %d, want %d", tab.Lines[r-1], r)
	}
	if allocs > 3*r {
		t.Errorf("%v allocations for %d rows", allocs, r)
	}
	t.Logf("%v allocations for %d rows", allocs, r)
}

func BenchmarkRead(b *testing.B) {
	const r, c = 20000, 123
	X := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			X.Set(i, j, float64(i*c+j)/7)
		}
	}
	var sb strings.Builder
	if err := Write(&sb, nil, X, ','); err != nil {
		b.Fatal(err)
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Read(strings.NewReader(in), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
