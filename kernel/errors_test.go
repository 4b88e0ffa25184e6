package kernel

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// errorCase is one call of an exported function that returns an error, with the
// ikpca kind its error must wrap.
type errorCase struct {
	fn   string // the function's name, for TestErrorsCoverEveryFunction
	name string
	call func() error
	kind error
}

// errorCases are zero-valued and hostile arguments for every exported function of the
// package that returns an error.
func errorCases() []errorCase {
	nan, inf := math.NaN(), math.Inf(1)
	validate := func(k Kernel) func() error { return func() error { return Validate(k) } }
	newSpec := func(s Spec) func() error { return func() error { _, err := New(s); return err } }
	bandwidth := func(X mat.Matrix) func() error {
		return func() error { _, err := DefaultBandwidth(X); return err }
	}
	median := func(X *mat.Dense, limit int) func() error {
		return func() error { _, err := MedianDistance(X, limit); return err }
	}
	register := func(f Func) func() error { return func() error { return Register(f) } }
	arg, empty, nonFinite := ikpca.ErrArgument, ikpca.ErrEmpty, ikpca.ErrNonFinite
	return []errorCase{
		{"Validate", "nil", validate(nil), arg},
		{"Validate", "nil *RBF", validate((*RBF)(nil)), arg},
		{"Validate", "nil *Func", validate((*Func)(nil)), arg},
		{"Validate", "nil user pointer", validate((*checked)(nil)), arg},
		{"Validate", "nil user func", validate(funcKernel(nil)), arg},
		{"Validate", "zero RBF", validate(RBF{}), arg},
		{"Validate", "zero Laplacian", validate(Laplacian{}), arg},
		{"Validate", "zero Polynomial", validate(Polynomial{}), arg},
		{"Validate", "zero Func", validate(Func{}), arg},
		{"Validate", "RBF σ and γ", validate(RBF{Sigma: 1, Gamma: 1}), arg},
		{"Validate", "RBF σ NaN", validate(RBF{Sigma: nan}), arg},
		{"Validate", "RBF γ Inf", validate(RBF{Gamma: inf}), arg},
		{"Validate", "RBF γ −1", validate(RBF{Gamma: -1}), arg},
		{"Validate", "RBF σ underflows", validate(RBF{Sigma: 1e-300}), arg},
		{"Validate", "RBF σ overflows", validate(RBF{Sigma: 1e300}), arg},
		{"Validate", "RBF γ subnormal", validate(RBF{Gamma: 5e-324}), arg},
		{"Validate", "Laplacian σ subnormal", validate(Laplacian{Sigma: 5e-324}), arg},
		{"Validate", "Laplacian γ max", validate(Laplacian{Gamma: math.MaxFloat64}), arg},
		{"Validate", "Polynomial γ 0", validate(Polynomial{Degree: 2, Coef0: 1}), arg},
		{"Validate", "Polynomial c NaN", validate(Polynomial{Degree: 2, Gamma: 1, Coef0: nan}), arg},
		{"Validate", "Polynomial degree −1", validate(Polynomial{Degree: -1, Gamma: 1}), arg},
		{"Validate", "Func named rbf", validate(Func{Name: "Rbf", F: minKernel}), arg},
		{"Validate", "user error", validate(checked{}), arg},
		{"Validate", "user error with a kind", validate(kinded{}), nonFinite},
		{"New", "zero Spec", newSpec(Spec{}), arg},
		{"New", "unknown name", newSpec(Spec{Name: "gaussian", Sigma: 1}), arg},
		{"New", "unregistered Func", newSpec(Spec{Name: "test-errors-unregistered"}), arg},
		{"New", "rbf without σ or γ", newSpec(Spec{Name: "rbf"}), arg},
		{"New", "rbf σ −0", newSpec(Spec{Name: "rbf", Sigma: math.Copysign(0, -1)}), arg},
		{"New", "laplacian NaN", newSpec(Spec{Name: "laplacian", Gamma: nan}), arg},
		{"New", "polynomial zero", newSpec(Spec{Name: "polynomial"}), arg},
		{"New", "polynomial huge degree, γ 0", newSpec(Spec{Name: "polynomial", Degree: math.MaxInt}), arg},
		{"DefaultBandwidth", "nil", bandwidth(nil), arg},
		{"DefaultBandwidth", "nil *Dense", bandwidth((*mat.Dense)(nil)), arg},
		{"DefaultBandwidth", "empty Dense", bandwidth(&mat.Dense{}), empty},
		{"DefaultBandwidth", "one row", bandwidth(line(3)), empty},
		{"DefaultBandwidth", "no columns", bandwidth(emptyCols{}), empty},
		{"DefaultBandwidth", "NaN", bandwidth(line(1, nan)), nonFinite},
		{"DefaultBandwidth", "−Inf", bandwidth(line(1, -inf, 2)), nonFinite},
		{"DefaultBandwidth", "coincident", bandwidth(line(4, 4)), arg},
		{"DefaultBandwidth", "overflow", bandwidth(line(-math.MaxFloat64, math.MaxFloat64)), arg},
		{"MedianDistance", "nil", median(nil, 10), arg},
		{"MedianDistance", "empty", median(&mat.Dense{}, 10), empty},
		{"MedianDistance", "zero limit", median(line(1, 2), 0), arg},
		{"MedianDistance", "limit min int", median(line(1, 2), math.MinInt), arg},
		{"MedianDistance", "one row", median(line(1), 10), empty},
		{"MedianDistance", "Inf", median(line(1, inf), 10), nonFinite},
		{"MedianDistance", "overflow", median(line(-1e300, 1e300), 2), arg},
		{"Register", "zero Func", register(Func{}), arg},
		{"Register", "nil F", register(Func{Name: "test-errors-nil"}), arg},
		{"Register", "built-in name", register(Func{Name: "LINEAR", F: minKernel}), arg},
		{"Register", "invalid UTF-8", register(Func{Name: "\xc3", F: minKernel}), arg},
	}
}

// packageKind maps an ikpca kind to the package's sentinel that wraps it.
var packageKind = map[error]error{
	ikpca.ErrArgument: ErrArgument, ikpca.ErrEmpty: ErrEmpty, ikpca.ErrNonFinite: ErrNonFinite,
	ikpca.ErrDimension: ErrDimension,
}

// TestErrorKinds runs every exported function of the package that returns an error
// with zero-valued and hostile arguments: each call returns an error — it does not
// panic — that wraps the expected ikpca kind and the package's sentinel for it, and no
// other kind.
func TestErrorKinds(t *testing.T) {
	all := []error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument, ikpca.ErrEncoding, ikpca.ErrNotConverged}
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
		if !errors.Is(err, c.kind) {
			t.Errorf("%s(%s) = %v, want an error wrapping %v", c.fn, c.name, err, c.kind)
		}
		if pk, ok := packageKind[c.kind]; ok && !errors.Is(err, pk) {
			t.Errorf("%s(%s) = %v, want an error wrapping the package's %v", c.fn, c.name, err, pk)
		}
		for _, k := range all {
			if k != c.kind && errors.Is(err, k) {
				t.Errorf("%s(%s) = %v wraps %v as well as %v", c.fn, c.name, err, k, c.kind)
			}
		}
		if !strings.HasPrefix(err.Error(), "kernel: ") {
			t.Errorf("%s(%s) = %q, want the package's prefix", c.fn, c.name, err)
		}
	}
}

// TestErrorsCoverEveryFunction reads the package's source and checks that
// errorCases calls every exported function that returns an error, so that a new one
// cannot be added without its hostile arguments.
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
