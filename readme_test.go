package ikpca_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeBlocksAreExamples: every Go block of README.md is the body of a runnable
// example of the module (func ExampleXxx in a _test.go file), so that the README's code
// is compiled and run by go test — its output checked — and cannot drift from the
// library. A README block shows the body without its "// Output:" comment.
func TestReadmeBlocksAreExamples(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks(string(readme))
	if len(blocks) < 3 {
		t.Fatalf("README.md has %d Go blocks; the quick start shows at least three examples", len(blocks))
	}
	bodies := exampleBodies(t, ".")
	for i, b := range blocks {
		if _, ok := bodies[b]; !ok {
			t.Errorf("README.md's Go block %d is not the body of any Example function:\n%s", i+1, b)
		}
	}
}

// goBlocks returns the contents of the ```go fences of a Markdown text, trimmed.
func goBlocks(md string) []string {
	var out []string
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		var b []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b = append(b, lines[i])
		}
		out = append(out, strings.TrimSpace(strings.Join(b, "\n")))
	}
	return out
}

// exampleBodies returns the bodies of the Example functions of the module's test files
// under root (the nested beam module excluded), dedented by one tab, without the
// "// Output:" comment and what follows it, trimmed; the value names the function.
func exampleBodies(t *testing.T, root string) map[string]string {
	out := make(map[string]string)
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "beam" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") || fn.Body == nil {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			var kept []string
			for _, l := range strings.Split(body, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "// Output:") || strings.HasPrefix(strings.TrimSpace(l), "// Unordered output:") {
					break
				}
				kept = append(kept, strings.TrimPrefix(l, "\t"))
			}
			out[strings.TrimSpace(strings.Join(kept, "\n"))] = path + ": " + fn.Name.Name
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
