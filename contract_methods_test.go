package ikpca_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/kaf"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/pca"
	"github.com/ikpca/ikpca/preimage"
	"github.com/ikpca/ikpca/sketch"
	"github.com/ikpca/ikpca/stream"
)

// The error contract of the models' methods, beside the constructors'
// (TestConstructorContract): a zero value of every model type (TestZeroValueContract),
// hostile matrices — sizes negative, beyond any array or changing between calls of
// Dims, an At that panics or returns NaN (errtest.Matrices) — given to every method that
// takes a matrix (TestHostileMatrixContract), and cancelled contexts
// (TestCancelContract). The methods are found by reflection, so that one added later is
// walked too.

// subject is one model type of the module: a zero value of it (a pointer), a model of
// the walker's points, and its package (for its sentinels).
type subject struct {
	name  string
	pkg   string
	zero  func() any
	built func() (any, error)
}

// subjects returns every model type of the module.
func subjects() []subject {
	two := func(v any, err error) (any, error) { return v, err }
	return []subject{
		{"kpca.Model", "kpca", func() any { return new(kpca.Model) },
			func() (any, error) { return two(kpca.Fit(rbf, points, kpca.Options{Components: 2})) }},
		{"kpca.Model (tracked)", "kpca", func() any { return new(kpca.Model) },
			func() (any, error) { return two(kpca.Fit(rbf, points, kpca.Options{Components: 2, Rank: 3})) }},
		{"nystrom.Model", "nystrom", func() any { return new(nystrom.Model) },
			func() (any, error) { return two(nystrom.Fit(rbf, points, nystrom.Options{Landmarks: 4})) }},
		{"nystrom.Approximation", "nystrom", func() any { return new(nystrom.Approximation) },
			func() (any, error) {
				a, err := nystrom.NewApproximation(rbf, points, nystrom.ApproximationOptions{})
				if err == nil {
					err = a.Grow(4)
				}
				return a, err
			}},
		{"pca.Model", "pca", func() any { return new(pca.Model) },
			func() (any, error) { return two(pca.Fit(points, pca.Options{Components: 2, Window: 20})) }},
		{"chinsuter.Model", "chinsuter", func() any { return new(chinsuter.Model) },
			func() (any, error) { return two(chinsuter.Fit(rbf, points, chinsuter.Options{Components: 2})) }},
		{"stream.SKPCA", "stream", func() any { return new(stream.SKPCA) },
			func() (any, error) {
				return added(stream.NewSKPCA(rbf, 2, stream.SKPCAOptions{Features: 16, Sketch: 3}))
			}},
		{"stream.RNCA", "stream", func() any { return new(stream.RNCA) },
			func() (any, error) { return added(stream.NewRNCA(rbf, 2, stream.RNCAOptions{Features: 16})) }},
		{"stream.KRQA", "stream", func() any { return new(stream.KRQA) },
			func() (any, error) { return added(stream.NewKRQA(rbf, 2, stream.KRQAOptions{Components: 2})) }},
		{"stream.KHA", "stream", func() any { return new(stream.KHA) },
			func() (any, error) { return added(stream.NewKHA(rbf, 2, stream.KHAOptions{Components: 2, Rate: 0.1})) }},
		{"preimage.KRR", "preimage", func() any { return new(preimage.KRR) },
			func() (any, error) {
				return two(preimage.FitKRR(rbf, mat.NewDense(8, 2, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}), points, 0.1))
			}},
		{"kaf.SPEED", "kaf", func() any { return new(kaf.SPEED) },
			func() (any, error) { return two(kaf.NewSPEED(rbf, points, kaf.SPEEDOptions{Components: 2})) }},
		// Types walked as zero values only (built nil): the filters, the sketch and the
		// feature maps, which take no matrix of points or none the other walkers try.
		{"kaf.KLMS", "kaf", func() any { return new(kaf.KLMS) }, nil},
		{"kaf.LMS", "kaf", func() any { return new(kaf.LMS) }, nil},
		{"kaf.RLS", "kaf", func() any { return new(kaf.RLS) }, nil},
		{"kaf.SPEEDFilter", "kaf", func() any { return new(kaf.SPEEDFilter) }, nil},
		{"sketch.FD", "sketch", func() any { return new(sketch.FD) }, nil},
		{"features.RFF", "features", func() any { return new(features.RFF) }, nil},
		{"features.Taylor", "features", func() any { return new(features.Taylor) }, nil},
		{"features.Quadrature", "features", func() any { return new(features.Quadrature) }, nil},
	}
}

// added returns m after adding the walker's points to it.
func added[M interface{ AddBatch(mat.Matrix) error }](m M, err error) (any, error) {
	if err == nil {
		err = m.AddBatch(points)
	}
	return m, err
}

// argument returns a plausible value of type t for an argument of a method of recv —
// points for a matrix, a point for a slice of floats, an empty destination, k = 1 —
// so that a call fails only for what the walker makes hostile; zero gives a zero model
// for an argument of the receiver's own type.
func argument(t reflect.Type, recv reflect.Value) reflect.Value {
	switch t {
	case reflect.TypeFor[mat.Matrix]():
		return reflect.ValueOf(mat.DenseCopyOf(points))
	case reflect.TypeFor[*mat.Dense]():
		return reflect.ValueOf(&mat.Dense{})
	case reflect.TypeFor[[]float64]():
		return reflect.ValueOf([]float64{0.5, -0.25})
	case reflect.TypeFor[context.Context]():
		return reflect.ValueOf(context.Background())
	case reflect.TypeFor[io.Writer]():
		return reflect.ValueOf(&bytes.Buffer{})
	case reflect.TypeFor[io.Reader]():
		return reflect.ValueOf(bytes.NewReader([]byte("junk")))
	case reflect.TypeFor[[]byte]():
		return reflect.ValueOf([]byte("junk"))
	case reflect.TypeFor[kernel.Kernel]():
		return reflect.ValueOf(rbf)
	}
	switch t.Kind() {
	case reflect.Int:
		return reflect.ValueOf(1).Convert(t)
	case reflect.Float64:
		return reflect.ValueOf(0.5).Convert(t)
	case reflect.Pointer:
		if t == recv.Type() {
			return reflect.New(t.Elem()) // a zero model of the receiver's type
		}
	}
	return reflect.Zero(t)
}

// call calls method m of v with args, and returns its error result (nil if it returns
// none) or errtest.ErrPanicked, failing t, if it panics.
func call(t *testing.T, what string, m reflect.Value, args []reflect.Value) error {
	t.Helper()
	return errtest.Try(t, what, func() error {
		out := m.Call(args)
		if n := len(out); n > 0 && out[n-1].Type() == reflect.TypeFor[error]() && !out[n-1].IsNil() {
			return out[n-1].Interface().(error)
		}
		return nil
	})
}

// zeroMaySucceed are the methods a zero model may call without error, as documented:
// decoding into it, reading it, a copy into it of a valid model.
var zeroMaySucceed = []string{"Orthogonality", "CopyFrom"}

// TestZeroValueContract calls every exported method of a zero value of every model type,
// with plausible arguments: none may panic, and every error must be the package's
// ErrArgument (a zero model is an invalid receiver), except decoding, whose junk bytes
// are an ErrEncoding. Methods without an error read the zero model as empty.
func TestZeroValueContract(t *testing.T) {
	calls := 0
	for _, s := range subjects() {
		if strings.Contains(s.name, "(") {
			continue // the same type as another subject
		}
		t.Run(s.name, func(t *testing.T) {
			v := reflect.ValueOf(s.zero())
			for i := range v.NumMethod() {
				name := v.Type().Method(i).Name
				m := v.Method(i)
				args := make([]reflect.Value, m.Type().NumIn())
				for j := range args {
					args[j] = argument(m.Type().In(j), v)
				}
				if m.Type().IsVariadic() {
					args = args[:len(args)-1]
				}
				err := call(t, s.name+"."+name, m, args)
				calls++
				returnsErr := false
				for j := range m.Type().NumOut() {
					returnsErr = returnsErr || m.Type().Out(j) == reflect.TypeFor[error]()
				}
				want := error(ikpca.ErrArgument)
				if strings.HasPrefix(name, "Unmarshal") {
					want = ikpca.ErrEncoding
				}
				switch {
				case err == errtest.ErrPanicked || !returnsErr:
				case err == nil && slices.Contains(zeroMaySucceed, name):
				default:
					if p := sentinels[s.pkg].Check(err, want); p != "" {
						t.Errorf("zero %s.%s: %s", s.name, name, p)
					}
				}
			}
		})
	}
	t.Logf("%d calls of the methods of zero models", calls)
}

// state is what a refused call must leave as it was: Values, Len, Dim and the scores of
// the walker's points on every component, bit for bit.
func state(m any) string {
	md, ok := m.(ikpca.Model)
	if !ok {
		return fmt.Sprintf("%T", m)
	}
	var b strings.Builder
	v := md.Values(nil)
	fmt.Fprintf(&b, "%d %d %v", md.Len(), md.Dim(), v)
	if len(v) > 0 {
		var s mat.Dense
		if err := md.Transform(&s, points, len(v)); err == nil {
			fmt.Fprintf(&b, " %v", s.RawMatrix().Data)
		}
	}
	return b.String()
}

// TestHostileMatrixContract gives every hostile matrix (errtest.Matrices) to every
// method of every model that takes a matrix, in each matrix argument in turn, the others
// plausible: none may panic, each must return the hostile matrix's kind under the
// package's sentinel, and the model must be left as it was.
func TestHostileMatrixContract(t *testing.T) {
	calls := 0
	for _, s := range subjects() {
		if s.built == nil {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			for i := 0; ; i++ {
				model, err := s.built()
				if err != nil {
					t.Fatal(err)
				}
				v := reflect.ValueOf(model)
				if i == v.NumMethod() {
					break
				}
				m, name := v.Method(i), v.Type().Method(i).Name
				for pos := range m.Type().NumIn() {
					if m.Type().In(pos) != reflect.TypeFor[mat.Matrix]() {
						continue
					}
					d := 2
					if strings.HasPrefix(name, "InverseTransform") {
						d = model.(interface{ Components() int }).Components() // scores of k columns
					}
					for _, h := range errtest.Matrices(d) {
						args := make([]reflect.Value, m.Type().NumIn())
						for j := range args {
							args[j] = argument(m.Type().In(j), v)
						}
						args[pos] = reflect.ValueOf(h.New())
						before := state(model)
						what := fmt.Sprintf("%s.%s, argument %d: %s", s.name, name, pos, h.Name)
						err := call(t, what, m, args)
						calls++
						if err == errtest.ErrPanicked {
							continue
						}
						if p := sentinels[s.pkg].Check(err, h.Kind); p != "" {
							t.Errorf("%s: %s", what, p)
						}
						if after := state(model); after != before {
							t.Errorf("%s: the model changed", what)
						}
					}
				}
			}
		})
	}
	t.Logf("%d calls with hostile matrices", calls)
	if calls < 250 {
		t.Errorf("only %d calls: the walker found too few methods taking a matrix", calls)
	}
}

// TestCancelContract stops every method of the module that takes a context — kpca's
// PolishContext, CertifyContext and AddRows — with a context cancelled plainly, one
// cancelled with a cause of the caller's, and one past its deadline: each error wraps
// the context's cause and its Err, begins with the package's name, wraps no ikpca kind
// (a stop is not a fault of the input, errors.go), and leaves the model as it was.
func TestCancelContract(t *testing.T) {
	cause := errors.New("the caller's reason")
	contexts := func() map[string]context.Context {
		plain, cancel := context.WithCancel(context.Background())
		cancel()
		caused, cancelCause := context.WithCancelCause(context.Background())
		cancelCause(cause)
		late, cancelLate := context.WithTimeout(context.Background(), -1)
		cancelLate()
		return map[string]context.Context{"cancelled": plain, "cancelled with a cause": caused, "past its deadline": late}
	}
	methods := map[string]func(md *kpca.Model, ctx context.Context) error{
		"PolishContext": func(md *kpca.Model, ctx context.Context) error { return md.PolishContext(ctx, 2) },
		"CertifyContext": func(md *kpca.Model, ctx context.Context) error {
			_, err := md.CertifyContext(ctx, kpca.CertifyOptions{})
			return err
		},
		"AddRows": func(md *kpca.Model, ctx context.Context) error {
			_, err := md.AddRows(ctx, points, nil)
			return err
		},
	}
	for name, f := range methods {
		for what, ctx := range contexts() {
			md, err := kpca.Fit(rbf, points, kpca.Options{Components: 2, Rank: 3})
			if err != nil {
				t.Fatal(err)
			}
			before := state(md)
			err = errtest.Try(t, name+", "+what, func() error { return f(md, ctx) })
			switch {
			case err == errtest.ErrPanicked:
				continue
			case err == nil:
				t.Errorf("%s, %s: no error", name, what)
				continue
			case !errors.Is(err, context.Cause(ctx)) || !errors.Is(err, ctx.Err()):
				t.Errorf("%s, %s: %v does not wrap the cause %v and %v", name, what, err, context.Cause(ctx), ctx.Err())
			case len(errtest.KindsOf(err)) != 0:
				t.Errorf("%s, %s: %v wraps %v", name, what, err, errtest.KindsOf(err))
			case !strings.HasPrefix(err.Error(), "kpca: "):
				t.Errorf("%s, %s: %q does not begin with the package's name", name, what, err)
			}
			if state(md) != before {
				t.Errorf("%s, %s: the model changed", name, what)
			}
		}
	}
}

// TestDestinationContract calls every method of every model that writes into a
// destination matrix and cannot fail — VectorsTo, Points, Landmarks, DualCoefTo: a
// func(dst *mat.Dense), with or without a bool result — with a dst of the wrong shape,
// a view into a larger matrix: none may panic (README: nothing panics on user input),
// dst must then hold what an empty dst receives, and the matrix it was a view of must be
// untouched. A nil dst is left alone.
func TestDestinationContract(t *testing.T) {
	calls := 0
	for _, s := range subjects() {
		if s.built == nil {
			continue
		}
		model, err := s.built()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		v := reflect.ValueOf(model)
		for i := range v.NumMethod() {
			m, name := v.Method(i), v.Type().Method(i).Name
			mt := m.Type()
			if mt.NumIn() != 1 || mt.In(0) != reflect.TypeFor[*mat.Dense]() || mt.NumOut() > 1 ||
				mt.NumOut() == 1 && mt.Out(0).Kind() != reflect.Bool {
				continue
			}
			what := s.name + "." + name
			var want mat.Dense
			if call(t, what+"(empty)", m, []reflect.Value{reflect.ValueOf(&want)}) == errtest.ErrPanicked {
				continue
			}
			parent := mat.NewDense(6, 7, nil)
			for r := range 6 {
				for c := range 7 {
					parent.Set(r, c, 7)
				}
			}
			dst := parent.Slice(1, 2, 1, 2).(*mat.Dense) // 1×1: the wrong shape for every model here
			calls++
			if call(t, what+"(wrong shape)", m, []reflect.Value{reflect.ValueOf(dst)}) == errtest.ErrPanicked {
				continue
			}
			if want.IsEmpty() != dst.IsEmpty() || !want.IsEmpty() && !mat.Equal(&want, dst) {
				t.Errorf("%s: a dst of the wrong shape got other values than an empty one", what)
			}
			if mat.Sum(parent) != 7*6*7 {
				t.Errorf("%s: wrote into the matrix a wrong-shaped dst was a view of", what)
			}
			call(t, what+"(nil)", m, []reflect.Value{reflect.ValueOf((*mat.Dense)(nil))})
		}
	}
	t.Logf("%d methods with a destination", calls)
	if calls < 12 {
		t.Errorf("only %d methods with a destination: the walker found too few", calls)
	}
}
