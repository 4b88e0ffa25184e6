package ikpca_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// levels are the layers of docs/design.md, "Layout": a package may import only
// packages of a lower level. The applications (cmd/…, bench/…) are above every level.
var levels = map[string]int{
	".": 0,

	"internal/vec": 1, "internal/parallel": 1, "internal/wire": 1, "internal/sign": 1,
	"internal/hugepage": 1,
	"internal/backend":  1,
	// Helpers of the programs (and tests) that import nothing of the module.
	"internal/resident": 1, "internal/synth": 1,
	// Test support (testSupport) that imports nothing of the module but level 0.
	"internal/oracle": 1, "internal/lapackref": 1, "internal/allocs": 1,
	"internal/errtest": 1,

	"internal/check": 2, "internal/wiretest": 2,
	// The command's tables, read on the cores.
	"internal/table": 2,

	// Beside the numerical core: the data sets and their reader.
	"data": 3,

	"native": 3, "secular": 3,

	"internal/probe": 4, "internal/lanczos": 4, "internal/rbfrow": 4, "internal/yardstick": 4,

	"update": 5, "kernel": 5,

	"features": 6, "sketch": 6, "internal/blocks": 6, "internal/testmat": 6, "internal/truncation": 6,
	"internal/featurespace": 6, "internal/kernelwire": 6, "internal/preimagecall": 6,

	// Pre-images take their kernel values a block at a time (internal/blocks).
	"preimage": 7,

	"kpca": 8, "nystrom": 8, "chinsuter": 8, "stream": 8, "pca": 8,

	"kaf": 9, "modeltest": 9,
}

// application is the level of the programs: the command, its studies, the harness.
const application = 100

// testSupport are the packages that only tests may import (docs/design.md, "Layout"):
// the oracles, tables and checks that the tests of several packages share, and the
// public conformance suite. Their paths stay where they are (a move would rewrite the
// imports of a hundred test files); this set, the table's "test support" rows and
// TestTestSupport make the line between them and the foundations.
var testSupport = map[string]bool{
	"internal/testmat": true, "internal/oracle": true, "internal/lapackref": true,
	"internal/allocs": true, "internal/errtest": true, "internal/wiretest": true,
	"modeltest":                          true,
	"cmd/ikpca/internal/study/studytest": true,
	"beam/internal/beamtest":             true,
}

// TestLayout: every package of the module (the beam module apart) has a level, and
// imports — in its non-test files — only packages of a lower level; no package under
// internal/ imports a model or an application.
func TestLayout(t *testing.T) {
	const module = "github.com/ikpca/ikpca"
	imports := packageImports(t, module, false)
	level := func(pkg string) (int, bool) {
		if strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "bench") {
			return application, true
		}
		l, ok := levels[pkg]
		return l, ok
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		lp, ok := level(p)
		if !ok {
			t.Errorf("package %s has no level in layout_test.go (and docs/design.md, \"Layout\")", p)
			continue
		}
		for _, q := range imports[p] {
			lq, ok := level(q)
			if !ok {
				continue // reported for q itself
			}
			if lq >= lp && !(lp == application && lq == application) {
				t.Errorf("%s (level %d) imports %s (level %d): an import may only go down", p, lp, q, lq)
			}
			if strings.HasPrefix(p, "internal/") && lq >= levels["kpca"] {
				t.Errorf("%s imports %s: internal/ holds foundations, never what uses the models", p, q)
			}
		}
	}
	if len(pkgs) < len(levels) {
		t.Errorf("%d packages found, %d levels listed: a package was removed without its level", len(pkgs), len(levels))
	}
}

// TestTestSupport: no non-test file outside testSupport — of the library, the command
// and its studies, the harness or the beam module — imports a package of testSupport,
// or package testing, so that no program links the tests' oracles and `go list -deps`
// of a non-test package shows none of them (docs/design.md, "Layout"). A package whose
// non-test files import testing is test support: it belongs in testSupport.
func TestTestSupport(t *testing.T) {
	imports := packageImports(t, "github.com/ikpca/ikpca", true)
	for p := range testSupport {
		if _, ok := imports[p]; !ok {
			t.Errorf("testSupport lists %s, which is not a package", p)
		}
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if testSupport[p] {
			continue
		}
		for _, q := range imports[p] {
			if testSupport[q] || q == "testing" {
				t.Errorf("%s imports %s in a file that is not a test: only tests, and test support, may", p, q)
			}
		}
	}
}

// packageImports returns, for every package directory of the module under the current
// directory (testdata and hidden directories excluded, and the beam module unless beam
// is set), the module packages its non-test files import, as paths relative to the
// module ("." for the root; the beam module's are "beam/…"), and package testing as
// "testing" (which has no level, so TestLayout passes over it).
func packageImports(t *testing.T, module string, beam bool) map[string][]string {
	out := make(map[string][]string)
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && ((path == "beam" && !beam) || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		seen := make(map[string]bool)
		for _, q := range out[dir] {
			seen[q] = true
		}
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			var rel string
			switch {
			case imp == "testing":
				rel = imp
			case imp == module:
				rel = "."
			case strings.HasPrefix(imp, module+"/"):
				rel = strings.TrimPrefix(imp, module+"/")
			default:
				continue
			}
			if !seen[rel] {
				seen[rel] = true
				out[dir] = append(out[dir], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLayoutTable: the table of docs/design.md, "Layout", names every package of levels
// at its level, and no other: a row "| N, role | packages |" lists its packages before
// each "→" (what follows an arrow is what they import), parts separated by ";". The rows
// whose role is "test support" list exactly the packages of testSupport that have a
// level (those under cmd/ and beam/ are applications).
func TestLayoutTable(t *testing.T) {
	doc, err := os.ReadFile("docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "\n## Layout\n")
	section, _, _ = strings.Cut(section, "\n## ")
	seen := map[string]int{}
	support := map[string]bool{} // the packages of the rows "N, test support"
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		head, role, _ := strings.Cut(strings.TrimSpace(cells[1]), ",")
		level, err := strconv.Atoi(head)
		if err != nil {
			continue // the header, the rule, and the rows without a level (applications, beam)
		}
		for _, part := range strings.Split(cells[2], ";") {
			own, _, _ := strings.Cut(part, "→")
			if i := strings.Index(own, " ("); i >= 0 {
				own = own[:i] // "`ikpca` (the root package: `model.go`, …)"
			}
			for _, name := range strings.Split(own, ",") {
				name = strings.Trim(strings.TrimSpace(name), "`")
				if name == "ikpca" {
					name = "."
				}
				if name == "" {
					continue
				}
				seen[name] = level
				if strings.TrimSpace(role) == "test support" {
					support[name] = true
					if !testSupport[name] {
						t.Errorf("docs/design.md lists %s as test support, and layout_test.go's testSupport does not", name)
					}
				} else if testSupport[name] {
					t.Errorf("docs/design.md lists %s in a row that is not test support", name)
				}
				if want, ok := levels[name]; !ok {
					t.Errorf("docs/design.md lists %s at level %d, and layout_test.go has no level for it", name, level)
				} else if want != level {
					t.Errorf("docs/design.md lists %s at level %d, layout_test.go at %d", name, level, want)
				}
			}
		}
	}
	for name, level := range levels {
		if _, ok := seen[name]; !ok {
			t.Errorf("layout_test.go puts %s at level %d, and docs/design.md's table does not list it", name, level)
		}
		if testSupport[name] && !support[name] {
			t.Errorf("layout_test.go's testSupport has %s, and docs/design.md's rows of test support do not", name)
		}
	}
}
