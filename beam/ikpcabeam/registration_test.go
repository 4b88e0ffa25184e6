package ikpcabeam

import (
	"go/ast"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/reflectx"

	"github.com/ikpca/ikpca/internal/errtest"
)

// TestRegistration checks the registration rule (docs/design.md, "Registration"): every
// DoFn and combiner of the package is registered, so that a remote worker finds its type
// by name; those called once per element have the register package's generated
// wrappers, which call them without reflection; the others have none, since a
// generated wrapper costs the compiler seconds and saves such a DoFn nothing. The lists
// below must name every type of the package's source with a ProcessElement or
// MergeAccumulators method, so that a new DoFn is classified when it is written.
func TestRegistration(t *testing.T) {
	perElement := []any{
		&parseCSVFn{}, &parseLIBSVMFn{}, &checkFn{}, &foldFn{}, &countFn{}, &projectFn{},
		&sampleFn{}, &polishCheckFn{}, &shardPointsFn{},
	}
	perBundle := []any{
		&mergeFn{}, &checkRecordsFn{}, &rangesFn{}, &readRangeFn{}, &formatDeadLetterFn{},
		&prototypeFn{}, &landmarksFn{}, &startFn{}, &startFromFn{}, &stepFn{}, &reduceFn{},
		&fanFn{}, &tileFn{}, &sumTilesFn{}, &scoresFn{}, &certificateFn{}, &ritzRowsFn{},
		&polishedModelFn{}, &smallestFn{}, &readFileFn{}, &writeFileFn{},
		&skpcaPrototypeFn{}, &writeTempFn{}, &planFn{}, &moveFn{}, &commitFn{},
	}
	var listed []string
	for i, fns := range [][]any{perElement, perBundle} {
		for _, fn := range fns {
			typ := reflect.TypeOf(fn).Elem()
			listed = append(listed, typ.Name())
			if key, ok := runtime.TypeKey(typ); !ok {
				t.Errorf("%v has no type key", typ)
			} else if _, ok := runtime.LookupType(key); !ok {
				t.Errorf("%v is not registered: a remote worker would not find it", typ)
			}
			m, wrapped := reflectx.WrapMethods(fn)
			switch {
			case i == 0 && (!wrapped || m["ProcessElement"] == nil):
				t.Errorf("%v, called once per element, has no generated ProcessElement wrapper: register it with the register package", typ)
			case i == 1 && wrapped:
				t.Errorf("%v, called once per bundle or fewer, has generated wrappers: register it with perBundle", typ)
			}
		}
	}
	slices.Sort(listed)
	if found := doFnTypes(t); !slices.Equal(found, listed) {
		t.Errorf("the DoFns of the source are %v, the lists name %v", found, listed)
	}
}

// doFnTypes returns the sorted names of the types of the package's source (its files
// other than tests) that have a ProcessElement or MergeAccumulators method.
func doFnTypes(t *testing.T) []string {
	t.Helper()
	_, methods := errtest.Decls(t, ".", func(fd *ast.FuncDecl) bool {
		return fd.Recv != nil && (fd.Name.Name == "ProcessElement" || fd.Name.Name == "MergeAccumulators")
	})
	var names []string
	for _, m := range methods {
		typ, _, _ := strings.Cut(m, ".")
		names = append(names, typ)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
