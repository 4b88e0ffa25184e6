package kpca

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestTxnBoundary: transact is called only in exported methods of Model, and no code
// that can run inside a txn calls an exported method that begins one — an unexported
// function or method, or a function literal (transact's body) — so that transactions
// never nest, and no call allocates buffers for a nested one (txn's second invariant).
func TestTxnBoundary(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var decls []*ast.FuncDecl
	for _, e := range entries {
		f := e.Name()
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				decls = append(decls, fd)
			}
		}
	}
	calls := func(n ast.Node, name string) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				// A method of the model: its receiver is md throughout the package.
				if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == name {
					if id, ok := s.X.(*ast.Ident); ok && id.Name == "md" {
						found = true
					}
				}
			}
			return !found
		})
		return found
	}
	var transactional []string
	for _, fd := range decls {
		if calls(fd.Body, "transact") {
			if !fd.Name.IsExported() || fd.Recv == nil {
				t.Errorf("%s calls transact: only exported methods of Model begin a txn", fd.Name.Name)
			}
			transactional = append(transactional, fd.Name.Name)
		}
	}
	if len(transactional) < 8 {
		t.Fatalf("only %v begin a txn", transactional)
	}
	for _, fd := range decls {
		for _, name := range transactional {
			if !fd.Name.IsExported() && calls(fd.Body, name) {
				t.Errorf("%s, which may run inside a txn, calls %s, which begins one", fd.Name.Name, name)
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok && calls(lit.Body, name) {
					t.Errorf("a function literal in %s calls %s, which begins a txn", fd.Name.Name, name)
				}
				return true
			})
		}
	}
	t.Logf("methods that begin a txn: %v", transactional)
}
