package data

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ikpca/ikpca"
)

// errorCase is one call of an exported function that returns an error, with the ikpca
// kind its error must wrap.
type errorCase struct {
	fn   string // the function's name, for TestErrorsCoverEveryFunction
	name string
	call func() error
	kind error
}

// errorCases are zero-valued and hostile arguments for every exported function of the
// package that returns an error.
func errorCases() []errorCase {
	parse := func(r io.Reader, dim int) func() error {
		return func() error { _, _, err := ParseLIBSVM(r, dim); return err }
	}
	text := func(s string, dim int) func() error { return parse(strings.NewReader(s), dim) }
	line := func(s string, dim int) func() error {
		return func() error { _, _, err := ParseLIBSVMLine(make([]float64, 3), s, dim); return err }
	}
	arg, empty, nonFinite := ikpca.ErrArgument, ikpca.ErrEmpty, ikpca.ErrNonFinite
	return []errorCase{
		{"ParseLIBSVM", "nil reader", parse(nil, 3), arg},
		{"ParseLIBSVM", "nil *strings.Reader", parse((*strings.Reader)(nil), 3), arg},
		{"ParseLIBSVM", "nil *bytes.Buffer", parse((*bytes.Buffer)(nil), 0), arg},
		{"ParseLIBSVM", "empty", text("", 0), empty},
		{"ParseLIBSVM", "blank lines", text("\n \t\r\n", 3), empty},
		{"ParseLIBSVM", "labels only, dim inferred", text("1\n-1\n", 0), empty},
		{"ParseLIBSVM", "labels only, dim MinInt", text("1\n", math.MinInt), empty},
		{"ParseLIBSVM", "dim MaxInt", text("1 1:1\n", math.MaxInt), arg},
		{"ParseLIBSVM", "rows × dim too large", text("1 1:1\n2 1:1\n3 1:1\n", 1<<27), arg},
		{"ParseLIBSVM", "inferred dim too large", text("1 300000000:1\n", 0), arg},
		{"ParseLIBSVM", "label NaN", text("NaN 1:1\n", 0), nonFinite},
		{"ParseLIBSVM", "label +Inf", text("+Inf 1:1\n", 0), nonFinite},
		{"ParseLIBSVM", "label overflows", text("1e400 1:1\n", 0), nonFinite},
		{"ParseLIBSVM", "label not a number", text("abc 1:1\n", 0), arg},
		{"ParseLIBSVM", "value NaN", text("1 1:nan\n", 0), nonFinite},
		{"ParseLIBSVM", "value −Inf on line 2", text("1 1:1\n1 2:-inf\n", 0), nonFinite},
		{"ParseLIBSVM", "value overflows", text("1 1:-1e999\n", 0), nonFinite},
		{"ParseLIBSVM", "value not a number", text("1 1:x\n", 0), arg},
		{"ParseLIBSVM", "empty value", text("1 3:\n", 0), arg},
		{"ParseLIBSVM", "missing colon", text("1 3\n", 0), arg},
		{"ParseLIBSVM", "empty index", text("1 :1\n", 0), arg},
		{"ParseLIBSVM", "index 0", text("1 0:1\n", 0), arg},
		{"ParseLIBSVM", "signed index", text("1 +2:1\n", 0), arg},
		{"ParseLIBSVM", "index overflows int", text("1 99999999999999999999999:1\n", 0), arg},
		{"ParseLIBSVM", "index above dim", text("1 4:1\n", 3), arg},
		{"ParseLIBSVM", "index repeated", text("1 2:1 2:1\n", 0), arg},
		{"ParseLIBSVM", "index descending", text("1 3:1 2:1\n", 0), arg},
		{"ParseLIBSVM", "NUL byte", text("1 1:1\x00\n", 0), arg},
		{"ParseLIBSVM", "invalid UTF-8", text("\xff 1:1\n", 0), arg},
		{"ParseLIBSVMLine", "dim 0", line("1 1:1", 0), arg},
		{"ParseLIBSVMLine", "dim MinInt", line("1 1:1", math.MinInt), arg},
		{"ParseLIBSVMLine", "dim MaxInt", line("1 1:1", math.MaxInt), arg},
		{"ParseLIBSVMLine", "empty", line("", 3), empty},
		{"ParseLIBSVMLine", "blank", line(" \t\r\n", 3), empty},
		{"ParseLIBSVMLine", "label NaN", line("NaN 1:1", 3), nonFinite},
		{"ParseLIBSVMLine", "value Inf", line("1 1:Inf", 3), nonFinite},
		{"ParseLIBSVMLine", "value overflows", line("1 1:1e309", 3), nonFinite},
		{"ParseLIBSVMLine", "index above dim", line("1 4:1", 3), arg},
		{"ParseLIBSVMLine", "index descending", line("1 3:1 2:1", 3), arg},
		{"ParseLIBSVMLine", "malformed token", line("1 x:1", 3), arg},
		{"ParseLIBSVMLine", "two lines", line("1 1:1\n2 2:1", 3), arg},
	}
}

// kinds pairs each ikpca kind with the package's sentinel of the same name (nil: the
// package never returns that kind).
var kinds = []struct{ kind, own error }{
	{ikpca.ErrDimension, nil}, {ikpca.ErrNonFinite, ErrNonFinite}, {ikpca.ErrEmpty, ErrEmpty},
	{ikpca.ErrArgument, ErrArgument}, {ikpca.ErrEncoding, nil}, {ikpca.ErrNotConverged, nil},
}

// checkKind reports whether err wraps exactly one ikpca kind and the package's sentinel
// of it, and returns that kind.
func checkKind(err error) (kind error, ok bool) {
	n := 0
	for _, k := range kinds {
		if errors.Is(err, k.kind) {
			n++
			kind = k.kind
			ok = k.own != nil && errors.Is(err, k.own)
		}
	}
	return kind, ok && n == 1 && strings.HasPrefix(err.Error(), "data: ")
}

// TestErrorKinds runs every exported function of the package that returns an error
// with zero-valued and hostile arguments: each call returns an error — it does not
// panic — that wraps the expected ikpca kind, the package's sentinel for it, and no
// other kind.
func TestErrorKinds(t *testing.T) {
	for _, c := range errorCases() {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s(%s) panics: %v", c.fn, c.name, r)
				}
			}()
			err = c.call()
		}()
		if err == nil {
			t.Errorf("%s(%s) = nil, want an error wrapping %v", c.fn, c.name, c.kind)
			continue
		}
		if kind, ok := checkKind(err); !ok || kind != c.kind {
			t.Errorf("%s(%s) = %v, want an error wrapping exactly %v and data's sentinel of it", c.fn, c.name, err, c.kind)
		}
	}
}

// TestReaderError: the reader's own error is returned as it is, under the line number,
// and wraps no kind of the module's, which it is not the package's to choose.
func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := ParseLIBSVM(io.MultiReader(strings.NewReader("1 1:1\n"), iotest.ErrReader(boom)), 0)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("got %v, want the reader's error at line 2", err)
	}
	for _, k := range kinds {
		if errors.Is(err, k.kind) {
			t.Errorf("the reader's error %v wraps %v", err, k.kind)
		}
	}
}

// TestErrorsCoverEveryFunction reads the package's source and checks that errorCases
// calls every exported function that returns an error, so that a new one cannot be
// added without its hostile arguments.
func TestErrorsCoverEveryFunction(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() || fd.Type.Results == nil {
				continue
			}
			for _, r := range fd.Type.Results.List {
				if id, ok := r.Type.(*ast.Ident); ok && id.Name == "error" {
					name := fd.Name.Name
					if fd.Recv != nil {
						name = "method " + name
					}
					want = append(want, name)
				}
			}
		}
	}
	t.Logf("exported functions that return an error: %v", want)
	if len(want) == 0 {
		t.Fatal("found no function that returns an error: the parse is wrong")
	}
	var have []string
	for _, c := range errorCases() {
		have = append(have, c.fn)
	}
	for _, name := range want {
		if !slices.Contains(have, name) {
			t.Errorf("%s returns an error but errorCases does not call it", name)
		}
	}
}
