package errtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// Funcs returns the name of the package in dir and its exported functions and methods
// that return an error, as "Func" or "Type.Method" (a method of an unexported type
// included: an interface reaches it), parsed from dir's Go files other than tests,
// whatever their build tags.
func Funcs(t testing.TB, dir string) (pkg string, names []string) {
	t.Helper()
	return Decls(t, dir, func(fd *ast.FuncDecl) bool { return fd.Name.IsExported() && returnsError(fd.Type) })
}

// Decls returns the name of the package in dir and the functions and methods that keep
// accepts, as "Func" or "Type.Method", parsed from dir's Go files other than tests,
// whatever their build tags.
func Decls(t testing.TB, dir string, keep func(*ast.FuncDecl) bool) (pkg string, names []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		pkg = f.Name.Name
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !keep(fd) {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil {
				name = receiver(fd.Recv.List[0].Type) + "." + name
			}
			names = append(names, name)
		}
	}
	return pkg, names
}

// returnsError reports whether one of the results of a function of type ft is an error.
func returnsError(ft *ast.FuncType) bool {
	if ft.Results == nil {
		return false
	}
	for _, r := range ft.Results.List {
		if id, ok := r.Type.(*ast.Ident); ok && id.Name == "error" {
			return true
		}
	}
	return false
}

// receiver returns the name of a method's receiver type: T of T, *T, T[P] or *T[P].
func receiver(x ast.Expr) string {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return "?"
		}
	}
}

// Cover fails t for every exported function and method of the package in the current
// directory (Funcs) that returns an error and that no case calls, so that one cannot be
// added without its hostile arguments. A case calls the function its name begins with:
// "Model.Add: nil" and "Model.Add(nil)" call Model.Add. Cover stops t if it finds fewer
// than min functions: the parse would be wrong.
func (c Cases) Cover(t testing.TB, min int) {
	t.Helper()
	c.cover(t, ".", min)
}

// cover is Cover of the package in dir.
func (c Cases) cover(t testing.TB, dir string, min int) {
	t.Helper()
	_, want := Funcs(t, dir)
	t.Logf("exported functions that return an error: %v", want)
	if len(want) < min {
		t.Fatalf("found %d functions that return an error, want at least %d: the parse is wrong", len(want), min)
	}
	var have []string
	for _, x := range c {
		have = append(have, called(x.Name))
	}
	for _, name := range want {
		if !slices.Contains(have, name) {
			t.Errorf("%s returns an error but no case calls it", name)
		}
	}
}

// called returns the function a case's name begins with: its leading letters, digits,
// underscores and dots.
func called(name string) string {
	end := strings.IndexFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '.'
	})
	if end < 0 {
		return name
	}
	return name[:end]
}
