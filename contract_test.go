package ikpca_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/errtest"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kaf"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/pca"
	"github.com/ikpca/ikpca/preimage"
	"github.com/ikpca/ikpca/sketch"
	"github.com/ikpca/ikpca/stream"
	"github.com/ikpca/ikpca/update"
)

// The error contract of the module (errors.go): every error of every exported function
// wraps exactly one of the ikpca kinds, and no constructor accepts a kernel whose
// parameters make it identically zero, constant or not finite. TestConstructorContract
// walks every constructor of the library — every exported function named New…, Fit… or
// Choose that returns an error, which TestContractCoversEveryConstructor finds in the
// source — with every bad kernel, zero-valued and hostile options, and bad matrices and
// dimensions.

var nan, inf = math.NaN(), math.Inf(1)

// inputCase is a call with a bad matrix, dimension or other argument, and the kind its
// error must wrap (nil: the argument is documented as valid, and the call succeeds).
type inputCase struct {
	name string
	call func() error
	kind error
}

// constructor is one constructor of the library and how to try it.
type constructor struct {
	name string // "pkg.Func", as TestContractCoversEveryConstructor finds it
	// kernel calls the constructor with k and valid other arguments; rbf, for a
	// constructor typed kernel.RBF, the same with an RBF. Nil if it takes no kernel.
	kernel func(k kernel.Kernel) error
	rbf    func(k kernel.RBF) error
	// options is a valid value of the constructor's options — its options struct, or a
	// struct of the test's gathering its numeric positional arguments — and with calls
	// it with other options and valid other arguments. Nil if it has none.
	options any
	with    func(opts any) error
	// zeroOK says the zero value of the options is documented as valid.
	zeroOK bool
	// valid lists hostile options documented as valid ("Field=value", as
	// hostileOptions names them, or "Field=*" for every value): they may succeed.
	valid []string
	// inputs are bad matrices, dimensions and other arguments.
	inputs []inputCase
}

// documented reports whether the hostile option name ("Field=value") is documented as
// valid for c.
func (c constructor) documented(name string) bool {
	field, _, _ := strings.Cut(name, "=")
	return slices.Contains(c.valid, name) || slices.Contains(c.valid, field+"=*")
}

// The arguments every constructor is tried with.
var (
	rbf      = kernel.RBF{Sigma: 1}
	points   = mat.NewDense(8, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.25, 2, -1, -1, 0.5, 0.3, -0.7})
	withNaN  = withEntry(points, 3, 1, nan)
	withInf  = withEntry(points, 5, 0, -inf)
	noRows   = mat.NewDense(1, 2, nil).Slice(0, 0, 0, 2)
	noCols   = mat.NewDense(3, 1, nil).Slice(0, 3, 0, 0)
	nilDense *mat.Dense
)

// withEntry returns a copy of X with X[i, j] = v.
func withEntry(X *mat.Dense, i, j int, v float64) *mat.Dense {
	c := mat.DenseCopyOf(X)
	c.Set(i, j, v)
	return c
}

// matrixCases are the bad matrices of points for a constructor that takes them (and
// learns their dimension from them): call(X) with valid other arguments. They include
// the hostile matrices of errtest.Matrices — sizes negative, beyond any array or
// changing between calls of Dims, an At that panics or returns NaN.
func matrixCases(call func(X mat.Matrix) error) []inputCase {
	cases := []inputCase{
		{"nil X", func() error { return call(nil) }, ikpca.ErrArgument},
		{"(*mat.Dense)(nil)", func() error { return call(nilDense) }, ikpca.ErrArgument},
		{"(*mat.SymDense)(nil)", func() error { return call((*mat.SymDense)(nil)) }, ikpca.ErrArgument},
		{"X without rows", func() error { return call(noRows) }, ikpca.ErrEmpty},
		{"X with a NaN", func() error { return call(withNaN) }, ikpca.ErrNonFinite},
		{"X with −Inf", func() error { return call(withInf) }, ikpca.ErrNonFinite},
	}
	for _, h := range errtest.Matrices(2) {
		cases = append(cases, inputCase{"hostile X: " + h.Name, func() error { return call(h.New()) }, h.Kind})
	}
	return cases
}

// dimCases are the bad dimensions d for a constructor of d-dimensional points.
func dimCases(what string, call func(d int) error) []inputCase {
	var out []inputCase
	for _, d := range []int{0, -1, math.MinInt, math.MaxInt} {
		out = append(out, inputCase{fmt.Sprintf("%s %d", what, d), func() error { return call(d) }, ikpca.ErrArgument})
	}
	return out
}

// errNotApplicable is returned by a kernel function of a constructor that cannot be
// given that kernel at all (kernel.New takes a Spec, which a nil kernel does not have).
var errNotApplicable = errors.New("not applicable")

// constructors is the walker's table: every constructor of the library.
func constructors() []constructor {
	var cs []constructor
	add := func(c ...constructor) { cs = append(cs, c...) }
	arg, dim, nonFinite := ikpca.ErrArgument, ikpca.ErrDimension, ikpca.ErrNonFinite

	// unbounded names the integer options that are caps or counts without a limit, for
	// which math.MaxInt is documented as valid.
	unbounded := func(fields ...string) []string {
		var out []string
		for _, f := range fields {
			out = append(out, fmt.Sprint(f, "=", math.MaxInt))
		}
		return out
	}
	updateCaps := []string{"Update.Workers", "Update.Serial", "Update.MaxIterations"}

	// kpca.
	kpcaOK := kpca.Options{Components: 2}
	kpcaValid := append(unbounded(append([]string{"Window", "Block", "CheckEvery", "BatchMax", "PassMemory"}, updateCaps...)...),
		"Components=-1",        // All
		"WindowPolish.Every=*") // any count; negative turns the self-polish off
	add(constructor{
		name:    "kpca.Fit",
		kernel:  func(k kernel.Kernel) error { _, err := kpca.Fit(k, points, kpcaOK); return err },
		options: kpcaOK,
		with:    func(o any) error { _, err := kpca.Fit(rbf, points, o.(kpca.Options)); return err },
		valid:   kpcaValid,
		inputs: append(matrixCases(func(X mat.Matrix) error { _, err := kpca.Fit(rbf, X, kpcaOK); return err }),
			inputCase{"X without columns", func() error { _, err := kpca.Fit(rbf, noCols, kpcaOK); return err }, ikpca.ErrEmpty}),
	}, constructor{
		name:    "kpca.New",
		kernel:  func(k kernel.Kernel) error { _, err := kpca.New(k, 2, kpcaOK); return err },
		options: kpcaOK,
		with:    func(o any) error { _, err := kpca.New(rbf, 2, o.(kpca.Options)); return err },
		valid:   kpcaValid,
		inputs:  dimCases("d", func(d int) error { _, err := kpca.New(rbf, d, kpcaOK); return err }),
	})
	fromOK, from := kpca.Options{Components: 2}, kpca.Start{Passes: 2}
	add(constructor{
		name:    "kpca.FitFrom",
		kernel:  func(k kernel.Kernel) error { _, err := kpca.FitFrom(k, points, from, fromOK); return err },
		options: fromOK,
		with:    func(o any) error { _, err := kpca.FitFrom(rbf, points, from, o.(kpca.Options)); return err },
		valid:   kpcaValid,
		inputs: append(matrixCases(func(X mat.Matrix) error { _, err := kpca.FitFrom(rbf, X, from, fromOK); return err }),
			inputCase{"X without columns", func() error { _, err := kpca.FitFrom(rbf, noCols, from, fromOK); return err }, ikpca.ErrEmpty},
			inputCase{"one point", func() error { _, err := kpca.FitFrom(rbf, points.Slice(0, 1, 0, 2), from, fromOK); return err }, ikpca.ErrEmpty}),
	}, constructor{
		name: "kpca.FitFromContext",
		kernel: func(k kernel.Kernel) error {
			_, err := kpca.FitFromContext(context.Background(), k, points, from, fromOK)
			return err
		},
		options: fromOK,
		with: func(o any) error {
			_, err := kpca.FitFromContext(context.Background(), rbf, points, from, o.(kpca.Options))
			return err
		},
		valid: kpcaValid,
		inputs: matrixCases(func(X mat.Matrix) error {
			_, err := kpca.FitFromContext(context.Background(), rbf, X, from, fromOK)
			return err
		}),
	})
	rankOneOK := kpca.Options{Components: kpca.All} // a RankOneModel keeps every pair
	add(constructor{
		name:    "kpca.FitRankOne",
		kernel:  func(k kernel.Kernel) error { _, err := kpca.FitRankOne(k, points, rankOneOK); return err },
		options: rankOneOK,
		with:    func(o any) error { _, err := kpca.FitRankOne(rbf, points, o.(kpca.Options)); return err },
		valid:   kpcaValid,
		inputs: append(matrixCases(func(X mat.Matrix) error { _, err := kpca.FitRankOne(rbf, X, rankOneOK); return err }),
			inputCase{"X without columns", func() error { _, err := kpca.FitRankOne(rbf, noCols, rankOneOK); return err }, ikpca.ErrEmpty}),
	}, constructor{
		name:    "kpca.NewRankOne",
		kernel:  func(k kernel.Kernel) error { _, err := kpca.NewRankOne(k, 2, rankOneOK); return err },
		options: rankOneOK,
		with:    func(o any) error { _, err := kpca.NewRankOne(rbf, 2, o.(kpca.Options)); return err },
		valid:   kpcaValid,
		inputs:  dimCases("d", func(d int) error { _, err := kpca.NewRankOne(rbf, d, rankOneOK); return err }),
	})

	// pca.
	pcaOK := pca.Options{Components: 2}
	pcaValid := append(unbounded("Window"), "Components=-1") // All
	add(constructor{
		name:    "pca.Fit",
		options: pcaOK,
		with:    func(o any) error { _, err := pca.Fit(points, o.(pca.Options)); return err },
		valid:   pcaValid,
		inputs: append(matrixCases(func(X mat.Matrix) error { _, err := pca.Fit(X, pcaOK); return err }),
			inputCase{"X without columns", func() error { _, err := pca.Fit(noCols, pcaOK); return err }, ikpca.ErrEmpty},
			inputCase{"Components beyond d", func() error { _, err := pca.Fit(points, pca.Options{Components: 3}); return err }, arg},
			inputCase{"Rank d", func() error { _, err := pca.Fit(points, pca.Options{Components: 1, Rank: 2}); return err }, arg}),
	}, constructor{
		name:    "pca.New",
		options: pcaOK,
		with:    func(o any) error { _, err := pca.New(2, o.(pca.Options)); return err },
		valid:   pcaValid,
		inputs: append(dimCases("d", func(d int) error { _, err := pca.New(d, pcaOK); return err }),
			inputCase{"Components beyond d", func() error { _, err := pca.New(1, pcaOK); return err }, arg}),
	})

	// nystrom.
	nyOK := nystrom.Options{Landmarks: 3}
	landmarks := points.Slice(0, 3, 0, 2)
	add(constructor{
		name:    "nystrom.Fit",
		kernel:  func(k kernel.Kernel) error { _, err := nystrom.Fit(k, points, nyOK); return err },
		options: nyOK,
		with:    func(o any) error { _, err := nystrom.Fit(rbf, points, o.(nystrom.Options)); return err },
		inputs:  matrixCases(func(X mat.Matrix) error { _, err := nystrom.Fit(rbf, X, nyOK); return err }),
	}, constructor{
		name:    "nystrom.New",
		kernel:  func(k kernel.Kernel) error { _, err := nystrom.New(k, landmarks, nyOK); return err },
		options: nyOK,
		with:    func(o any) error { _, err := nystrom.New(rbf, landmarks, o.(nystrom.Options)); return err },
		zeroOK:  true, // Landmarks zero: L's rows
		inputs: append(matrixCases(func(L mat.Matrix) error { _, err := nystrom.New(rbf, L, nystrom.Options{}); return err }),
			inputCase{"Landmarks other than L's rows", func() error {
				_, err := nystrom.New(rbf, landmarks, nystrom.Options{Landmarks: 4})
				return err
			}, arg},
			inputCase{"coincident landmarks of a zero kernel matrix", func() error {
				_, err := nystrom.New(kernel.Linear{}, mat.NewDense(2, 2, nil), nystrom.Options{})
				return err
			}, arg}),
	}, constructor{
		name:    "nystrom.Choose",
		kernel:  func(k kernel.Kernel) error { _, err := nystrom.Choose(k, points, nyOK); return err },
		options: nyOK,
		with:    func(o any) error { _, err := nystrom.Choose(rbf, points, o.(nystrom.Options)); return err },
		inputs: append(matrixCases(func(X mat.Matrix) error { _, err := nystrom.Choose(rbf, X, nyOK); return err }),
			inputCase{"more landmarks than rows", func() error {
				_, err := nystrom.Choose(rbf, points, nystrom.Options{Landmarks: 9})
				return err
			}, arg}),
	}, constructor{
		name: "nystrom.NewApproximation",
		kernel: func(k kernel.Kernel) error {
			_, err := nystrom.NewApproximation(k, points, nystrom.ApproximationOptions{})
			return err
		},
		options: nystrom.ApproximationOptions{},
		with: func(o any) error {
			_, err := nystrom.NewApproximation(rbf, points, o.(nystrom.ApproximationOptions))
			return err
		},
		zeroOK: true, // a random order of all rows
		valid:  unbounded(updateCaps...),
		inputs: append(matrixCases(func(X mat.Matrix) error {
			_, err := nystrom.NewApproximation(rbf, X, nystrom.ApproximationOptions{})
			return err
		}), approximationOrders()...),
	})

	// preimage: FitKRR(k, scores, X, alpha), alpha gathered as its options.
	type krrArgs struct{ Alpha float64 }
	scores := mat.NewDense(8, 1, []float64{0, 1, 2, 3, 4, 5, 6, 7}) // distinct scores
	fitKRR := func(k kernel.Kernel, S, X mat.Matrix, alpha float64) error {
		_, err := preimage.FitKRR(k, S, X, alpha)
		return err
	}
	add(constructor{
		name:    "preimage.FitKRR",
		kernel:  func(k kernel.Kernel) error { return fitKRR(k, scores, points, 1) },
		options: krrArgs{Alpha: 1},
		with:    func(o any) error { return fitKRR(rbf, scores, points, o.(krrArgs).Alpha) },
		zeroOK:  true, // alpha 0: distinct scores make K_S positive definite
		inputs: append(append(matrixCases(func(S mat.Matrix) error { return fitKRR(rbf, S, points, 1) }),
			matrixCases(func(X mat.Matrix) error { return fitKRR(rbf, scores, X, 1) })...),
			inputCase{"scores without columns", func() error { return fitKRR(rbf, noCols, points.Slice(0, 3, 0, 2), 1) }, ikpca.ErrEmpty},
			inputCase{"fewer scores than points", func() error { return fitKRR(rbf, scores.Slice(0, 7, 0, 1), points, 1) }, dim},
			inputCase{"coinciding scores without a ridge", func() error {
				return fitKRR(rbf, mat.NewDense(8, 1, nil), points, 0)
			}, arg}),
	})

	// chinsuter.
	csOK := chinsuter.Options{Components: 2, Compression: &chinsuter.Compression{PreImages: 3}}
	add(constructor{
		name:    "chinsuter.Fit",
		kernel:  func(k kernel.Kernel) error { _, err := chinsuter.Fit(k, points, chinsuter.Options{}); return err },
		options: csOK,
		with:    func(o any) error { _, err := chinsuter.Fit(rbf, points, o.(chinsuter.Options)); return err },
		zeroOK:  true, // every component, no compression
		valid:   unbounded("Compression.MaxIter"),
		inputs: append(matrixCases(func(X mat.Matrix) error { _, err := chinsuter.Fit(rbf, X, chinsuter.Options{}); return err }),
			inputCase{"compression of a Laplacian kernel", func() error {
				_, err := chinsuter.Fit(kernel.Laplacian{Sigma: 1}, points, csOK)
				return err
			}, arg},
			inputCase{"compression without a cap", func() error {
				_, err := chinsuter.Fit(rbf, points, chinsuter.Options{Compression: &chinsuter.Compression{PreImages: 3}})
				return err
			}, arg}),
	}, constructor{
		name:    "chinsuter.New",
		kernel:  func(k kernel.Kernel) error { _, err := chinsuter.New(k, 2, chinsuter.Options{}); return err },
		options: csOK,
		with:    func(o any) error { _, err := chinsuter.New(rbf, 2, o.(chinsuter.Options)); return err },
		zeroOK:  true,
		valid:   unbounded("Compression.MaxIter"),
		inputs:  dimCases("d", func(d int) error { _, err := chinsuter.New(rbf, d, chinsuter.Options{}); return err }),
	})

	// stream.
	skOK := stream.SKPCAOptions{Features: 16, Sketch: 3}
	rnOK := stream.RNCAOptions{Features: 16}
	krOK := stream.KRQAOptions{Components: 2}
	khOK := stream.KHAOptions{Components: 2, Rate: 0.1}
	add(constructor{
		name:    "stream.NewSKPCA",
		kernel:  func(k kernel.Kernel) error { _, err := stream.NewSKPCA(k, 2, skOK); return err },
		options: skOK,
		with:    func(o any) error { _, err := stream.NewSKPCA(rbf, 2, o.(stream.SKPCAOptions)); return err },
		inputs: append(dimCases("d", func(d int) error { _, err := stream.NewSKPCA(rbf, d, skOK); return err }),
			inputCase{"a Laplacian kernel", func() error { _, err := stream.NewSKPCA(kernel.Laplacian{Sigma: 1}, 2, skOK); return err }, arg}),
	}, constructor{
		name:    "stream.NewRNCA",
		kernel:  func(k kernel.Kernel) error { _, err := stream.NewRNCA(k, 2, rnOK); return err },
		options: rnOK,
		with:    func(o any) error { _, err := stream.NewRNCA(rbf, 2, o.(stream.RNCAOptions)); return err },
		inputs: append(dimCases("d", func(d int) error { _, err := stream.NewRNCA(rbf, d, rnOK); return err }),
			inputCase{"a linear kernel", func() error { _, err := stream.NewRNCA(kernel.Linear{}, 2, rnOK); return err }, arg}),
	}, constructor{
		name:    "stream.NewKRQA",
		kernel:  func(k kernel.Kernel) error { _, err := stream.NewKRQA(k, 2, krOK); return err },
		options: krOK,
		with:    func(o any) error { _, err := stream.NewKRQA(rbf, 2, o.(stream.KRQAOptions)); return err },
		inputs:  dimCases("d", func(d int) error { _, err := stream.NewKRQA(rbf, d, krOK); return err }),
	}, constructor{
		name:    "stream.NewKHA",
		kernel:  func(k kernel.Kernel) error { _, err := stream.NewKHA(k, 2, khOK); return err },
		options: khOK,
		with:    func(o any) error { _, err := stream.NewKHA(rbf, 2, o.(stream.KHAOptions)); return err },
		inputs:  dimCases("d", func(d int) error { _, err := stream.NewKHA(rbf, d, khOK); return err }),
	})

	// features.
	rffOK := features.RFFOptions{Dim: 16}
	taylorOK := features.TaylorOptions{Degree: 2}
	gqOK := features.QuadratureOptions{Dim: 8}
	add(constructor{
		name:    "features.NewRFF",
		rbf:     func(k kernel.RBF) error { _, err := features.NewRFF(k, 2, rffOK); return err },
		options: rffOK,
		with:    func(o any) error { _, err := features.NewRFF(rbf, 2, o.(features.RFFOptions)); return err },
		inputs: append(dimCases("d", func(d int) error { _, err := features.NewRFF(rbf, d, rffOK); return err }),
			inputCase{"odd Dim for CosSin", func() error { _, err := features.NewRFF(rbf, 2, features.RFFOptions{Dim: 15}); return err }, arg}),
	}, constructor{
		name:    "features.NewTaylor",
		rbf:     func(k kernel.RBF) error { _, err := features.NewTaylor(k, 2, taylorOK); return err },
		options: taylorOK,
		with:    func(o any) error { _, err := features.NewTaylor(rbf, 2, o.(features.TaylorOptions)); return err },
		inputs: append(dimCases("d", func(d int) error { _, err := features.NewTaylor(rbf, d, taylorOK); return err }),
			inputCase{"Dim above C(d+p, p)", func() error {
				_, err := features.NewTaylor(rbf, 2, features.TaylorOptions{Degree: 2, Dim: 7})
				return err
			}, arg}),
	}, constructor{
		name:    "features.NewQuadrature",
		rbf:     func(k kernel.RBF) error { _, err := features.NewQuadrature(k, 2, gqOK); return err },
		options: gqOK,
		with: func(o any) error {
			_, err := features.NewQuadrature(rbf, 2, o.(features.QuadratureOptions))
			return err
		},
		zeroOK: true, // the full rule of 5 points a dimension
		inputs: append(dimCases("d", func(d int) error { _, err := features.NewQuadrature(rbf, d, gqOK); return err }),
			inputCase{"odd Dim", func() error { _, err := features.NewQuadrature(rbf, 2, features.QuadratureOptions{Dim: 7}); return err }, arg},
			inputCase{"full rule beyond 2²¹ nodes", func() error {
				_, err := features.NewQuadrature(rbf, 40, features.QuadratureOptions{})
				return err
			}, arg}),
	})

	// sketch.
	add(constructor{
		name:    "sketch.New",
		options: sketch.Options{},
		with:    func(o any) error { _, err := sketch.New(3, 2, o.(sketch.Options)); return err },
		zeroOK:  true, // a buffer of 2ℓ
		inputs: append(dimCases("ℓ", func(ell int) error { _, err := sketch.New(ell, 2, sketch.Options{}); return err }),
			dimCases("d", func(d int) error { _, err := sketch.New(3, d, sketch.Options{}); return err })...),
	})

	// kaf.
	type lmsArgs struct {
		M   int
		Eta float64
	}
	type klmsArgs struct{ Eta, Epsilon float64 }
	speed, err := kaf.NewSPEED(rbf, points, kaf.SPEEDOptions{Components: 3})
	if err != nil {
		panic(err)
	}
	factory := func(m int) (kaf.Filter, error) { return kaf.NewLMS(m, 0.1) }
	add(constructor{
		name:    "kaf.NewLMS",
		options: lmsArgs{M: 3, Eta: 0.1},
		with:    func(o any) error { a := o.(lmsArgs); _, err := kaf.NewLMS(a.M, a.Eta); return err },
	}, constructor{
		name:    "kaf.NewRLS",
		options: kaf.RLSOptions{},
		with:    func(o any) error { _, err := kaf.NewRLS(3, o.(kaf.RLSOptions)); return err },
		zeroOK:  true,                 // λ = 1, δ = 1
		valid:   []string{"Alpha=-1"}, // ignored by RLS
		inputs:  dimCases("m", func(m int) error { _, err := kaf.NewRLS(m, kaf.RLSOptions{}); return err }),
	}, constructor{
		name:    "kaf.NewExRLS",
		options: kaf.RLSOptions{},
		with:    func(o any) error { _, err := kaf.NewExRLS(3, o.(kaf.RLSOptions)); return err },
		zeroOK:  true,
		valid:   []string{"Alpha=-1"}, // a state model w(i+1) = −w(i)
		inputs:  dimCases("m", func(m int) error { _, err := kaf.NewExRLS(m, kaf.RLSOptions{}); return err }),
	}, constructor{
		name:    "kaf.NewKLMS",
		kernel:  func(k kernel.Kernel) error { _, err := kaf.NewKLMS(k, 2, 0.1, 0); return err },
		options: klmsArgs{Eta: 0.1},
		with:    func(o any) error { a := o.(klmsArgs); _, err := kaf.NewKLMS(rbf, 2, a.Eta, a.Epsilon); return err },
		inputs:  dimCases("d", func(d int) error { _, err := kaf.NewKLMS(rbf, d, 0.1, 0); return err }),
	}, constructor{
		name: "kaf.NewSPEED",
		kernel: func(k kernel.Kernel) error {
			_, err := kaf.NewSPEED(k, points, kaf.SPEEDOptions{Components: 3})
			return err
		},
		options: kaf.SPEEDOptions{Components: 3},
		with:    func(o any) error { _, err := kaf.NewSPEED(rbf, points, o.(kaf.SPEEDOptions)); return err },
		valid:   unbounded("Components"), // at most the dictionary's size
		inputs: matrixCases(func(X mat.Matrix) error {
			_, err := kaf.NewSPEED(rbf, X, kaf.SPEEDOptions{Components: 3})
			return err
		}),
	}, constructor{
		name:    "kaf.NewSPEEDFilter",
		options: kaf.SPEEDFilterOptions{},
		with: func(o any) error {
			_, err := kaf.NewSPEEDFilter(speed, factory, o.(kaf.SPEEDFilterOptions))
			return err
		},
		zeroOK: true,                                               // iSPEED, no cap
		valid:  append(unbounded("MaxDictionary"), "Threshold=-1"), // -1: a frozen dictionary
		inputs: []inputCase{
			{"nil map", func() error { _, err := kaf.NewSPEEDFilter(nil, factory, kaf.SPEEDFilterOptions{}); return err }, arg},
			{"zero map", func() error {
				_, err := kaf.NewSPEEDFilter(&kaf.SPEED{}, factory, kaf.SPEEDFilterOptions{})
				return err
			}, arg},
			{"nil factory", func() error { _, err := kaf.NewSPEEDFilter(speed, nil, kaf.SPEEDFilterOptions{}); return err }, arg},
		},
	})

	// update.
	eye := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	column := mat.NewDense(3, 1, []float64{1, 0, 0})
	var unfactorized mat.EigenSym
	var noVectors mat.EigenSym
	if !noVectors.Factorize(mat.NewSymDense(2, []float64{2, 1, 1, 2}), false) {
		panic("EigenSym failed")
	}
	sym := func(values []float64, vectors mat.Matrix) func() error {
		return func() error { _, err := update.NewSym(values, vectors); return err }
	}
	thin := func(values []float64, vectors mat.Matrix) func() error {
		return func() error { _, err := update.NewThin(values, vectors); return err }
	}
	add(constructor{
		name: "update.NewSym",
		inputs: []inputCase{
			{"nil vectors", sym([]float64{1, 2}, nil), arg},
			{"(*mat.Dense)(nil) vectors", sym([]float64{1, 2}, nilDense), arg},
			{"no values for 2×2 vectors", sym(nil, eye), dim},
			{"3 values for 2×2 vectors", sym([]float64{1, 2, 3}, eye), dim},
			{"2×1 vectors", sym([]float64{1, 2}, column.Slice(0, 2, 0, 1)), dim},
			{"NaN value", sym([]float64{1, nan}, eye), nonFinite},
			{"−Inf in vectors", sym([]float64{1, 2}, withEntry(eye, 1, 0, -inf)), nonFinite},
			{"vectors not orthonormal", sym([]float64{1, 2}, mat.NewDense(2, 2, []float64{1, 1, 0, 1})), arg},
			{"empty: documented valid", sym(nil, &mat.Dense{}), nil},
		},
	}, constructor{
		name: "update.NewSymFromEigen",
		inputs: []inputCase{
			{"nil", func() error { _, err := update.NewSymFromEigen(nil); return err }, arg},
			{"not factorized", func() error { _, err := update.NewSymFromEigen(&unfactorized); return err }, arg},
			{"factorized without vectors", func() error { _, err := update.NewSymFromEigen(&noVectors); return err }, arg},
		},
	}, constructor{
		name: "update.NewThin",
		inputs: []inputCase{
			{"nil vectors", thin([]float64{1}, nil), arg},
			{"(*mat.Dense)(nil) vectors", thin([]float64{1}, nilDense), arg},
			{"no values", thin(nil, column), dim},
			{"2 values for 1 column", thin([]float64{1, 2}, column), dim},
			{"NaN value", thin([]float64{nan}, column), nonFinite},
			{"+Inf in vectors", thin([]float64{1}, withEntry(column, 2, 0, inf)), nonFinite},
			{"a column not of unit norm", thin([]float64{1}, mat.NewDense(3, 1, []float64{1, 1, 0})), arg},
			{"more columns than rows", thin([]float64{1, 2, 3}, mat.NewDense(2, 3, []float64{1, 0, 0, 0, 1, 0})), dim},
		},
	})
	// Hostile vectors: 3×2 (or lying) for two values, read once (check.Kinds.Matrix).
	for _, h := range errtest.Matrices(2) {
		cs[len(cs)-1].inputs = append(cs[len(cs)-1].inputs, inputCase{"hostile vectors: " + h.Name,
			func() error { _, err := update.NewThin([]float64{1, 2}, h.New()); return err }, h.Kind})
	}

	// kernel.New: a Spec for each bad kernel that has one, and hostile Specs.
	add(constructor{
		name: "kernel.New",
		kernel: func(k kernel.Kernel) error {
			s, ok := k.(kernel.Specified)
			if !ok || reflect.ValueOf(k).Kind() == reflect.Pointer {
				return errNotApplicable
			}
			_, err := kernel.New(s.Spec())
			return err
		},
		options: kernel.Spec{Name: "rbf", Sigma: 1},
		with:    func(o any) error { _, err := kernel.New(o.(kernel.Spec)); return err },
		// The fields a kernel does not have are ignored, as documented.
		valid: []string{"Degree=*", "Coef0=*"},
		inputs: []inputCase{
			{"unknown name", func() error { _, err := kernel.New(kernel.Spec{Name: "gauss", Sigma: 1}); return err }, arg},
			{"an unregistered Func's name", func() error { _, err := kernel.New(kernel.Spec{Name: "contract-test"}); return err }, arg},
			{"polynomial, γ NaN", func() error {
				_, err := kernel.New(kernel.Spec{Name: "polynomial", Degree: 2, Gamma: nan})
				return err
			}, arg},
			{"laplacian, σ −0", func() error {
				_, err := kernel.New(kernel.Spec{Name: "laplacian", Sigma: math.Copysign(0, -1)})
				return err
			}, arg},
		},
	})
	add(constructor{
		name:    "kernel.New",
		options: kernel.Spec{Name: "polynomial", Degree: 2, Gamma: 1, Coef0: 1},
		with:    func(o any) error { _, err := kernel.New(o.(kernel.Spec)); return err },
		// σ is not the polynomial's; (γxᵀy − 1)² is a kernel, and so is any degree ≥ 1
		// (overflowing where |γxᵀy + c| > 1, which a model reports as ErrNonFinite).
		valid: append(unbounded("Degree"), "Sigma=*", "Coef0=-1"),
	})
	add(constructor{
		name:    "kernel.New",
		options: kernel.Spec{Name: "sigmoid", Gamma: 1, Coef0: 1},
		with:    func(o any) error { _, err := kernel.New(o.(kernel.Spec)); return err },
		// σ and the degree are not the sigmoid's; its offset c is any finite number.
		valid: []string{"Sigma=*", "Degree=*", "Coef0=-1"},
	})
	add(constructor{
		name:    "kernel.New",
		options: kernel.Spec{Name: "cosine"}, // no parameter: every field is ignored
		with:    func(o any) error { _, err := kernel.New(o.(kernel.Spec)); return err },
		valid:   []string{"Sigma=*", "Gamma=*", "Degree=*", "Coef0=*"},
	})
	// data: a reader of IDX files, which takes no kernel and no matrix; its options are
	// tried on a valid file of two 2×2 images.
	idxFile := []byte{0, 0, 0x08, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8}
	readIDX := func(b []byte) func() error {
		return func() error { _, err := data.NewIDXReader(bytes.NewReader(b), data.IDXOptions{}); return err }
	}
	add(constructor{
		name:    "data.NewIDXReader",
		options: data.IDXOptions{Limit: 1},
		with: func(o any) error {
			_, err := data.NewIDXReader(bytes.NewReader(idxFile), o.(data.IDXOptions))
			return err
		},
		zeroOK: true, // every item
		valid:  unbounded("Limit"),
		inputs: []inputCase{
			{"nil reader", func() error { _, err := data.NewIDXReader(nil, data.IDXOptions{}); return err }, arg},
			{"(*bytes.Reader)(nil)", func() error { _, err := data.NewIDXReader((*bytes.Reader)(nil), data.IDXOptions{}); return err }, arg},
			{"no bytes", readIDX(nil), ikpca.ErrEmpty},
			{"text", readIDX([]byte("1,2\n")), arg},
			{"cut short", readIDX(idxFile[:len(idxFile)-5]), arg},
		},
	})
	return cs
}

// approximationOrders are nystrom.NewApproximation's bad landmark orders.
func approximationOrders() []inputCase {
	order := func(o ...int) func() error {
		return func() error {
			_, err := nystrom.NewApproximation(rbf, points, nystrom.ApproximationOptions{Order: o})
			return err
		}
	}
	return []inputCase{
		{"Order with −1", order(0, -1), ikpca.ErrArgument},
		{"Order with MinInt", order(math.MinInt), ikpca.ErrArgument},
		{"Order beyond the rows", order(8), ikpca.ErrArgument},
		{"Order with a row twice", order(1, 2, 1), ikpca.ErrArgument},
		{"Order, empty: documented valid (no landmark yet)", order(), nil},
	}
}

// hostile is an option struct with one field made hostile, named "Field=value" (a
// nested field "Outer.Field=value").
type hostile struct {
	name string
	opts any
}

// hostileOptions returns copies of base, a struct, each with one numeric field — at any
// depth, through nested structs and pointers to structs — set to a hostile value: −1,
// MinInt and MaxInt for an integer (an enumeration included), NaN, −Inf, +Inf and −1
// for a float. Unsigned fields (seeds) and booleans take every value, and are left.
func hostileOptions(base any) []hostile {
	var out []hostile
	var walk func(path []int, names []string, t reflect.Type)
	walk = func(path []int, names []string, t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			p := append(slices.Clone(path), i)
			n := append(slices.Clone(names), f.Name)
			ft := f.Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				ft = ft.Elem()
			}
			var values []any
			switch ft.Kind() {
			case reflect.Struct:
				walk(p, n, ft)
				continue
			case reflect.Int, reflect.Int64, reflect.Int32:
				values = []any{int64(-1), int64(math.MinInt), int64(math.MaxInt)}
			case reflect.Float64:
				values = []any{nan, -inf, inf, -1.0}
			default:
				continue
			}
			for _, v := range values {
				out = append(out, hostile{fmt.Sprintf("%s=%v", strings.Join(n, "."), v), setField(base, p, v)})
			}
		}
	}
	walk(nil, nil, reflect.TypeOf(base))
	return out
}

// setField returns a copy of base with the field at path set to v, copying every
// struct a pointer on the path leads to (a nil pointer becomes a zero struct) so that
// base is not changed.
func setField(base any, path []int, v any) any {
	c := reflect.New(reflect.TypeOf(base)).Elem()
	c.Set(reflect.ValueOf(base))
	cur := c
	for _, i := range path {
		f := cur.Field(i)
		if f.Kind() == reflect.Pointer {
			p := reflect.New(f.Type().Elem())
			if !f.IsNil() {
				p.Elem().Set(f.Elem())
			}
			f.Set(p)
			f = p.Elem()
		}
		cur = f
	}
	switch x := v.(type) {
	case int64:
		cur.SetInt(x)
	case float64:
		cur.SetFloat(x)
	}
	return c.Interface()
}

// sentinels are the sentinel errors of every package that has a constructor, by name.
var sentinels = map[string]errtest.Sentinels{
	"data": errtest.Of(data.ErrNonFinite, data.ErrEmpty, data.ErrArgument),
	"chinsuter": errtest.Of(chinsuter.ErrDimension, chinsuter.ErrNonFinite, chinsuter.ErrEmpty, chinsuter.ErrArgument,
		chinsuter.ErrEncoding, chinsuter.ErrNotConverged),
	"features": errtest.Of(features.ErrDimension, features.ErrNonFinite, features.ErrEmpty, features.ErrArgument,
		features.ErrNotConverged),
	"kaf":    errtest.Of(kaf.ErrDimension, kaf.ErrNonFinite, kaf.ErrEmpty, kaf.ErrArgument, kaf.ErrNotConverged),
	"kernel": errtest.Of(kernel.ErrDimension, kernel.ErrNonFinite, kernel.ErrEmpty, kernel.ErrArgument),
	"kpca": errtest.Of(kpca.ErrDimension, kpca.ErrNonFinite, kpca.ErrEmpty, kpca.ErrArgument, kpca.ErrEncoding,
		kpca.ErrNotConverged),
	"nystrom": errtest.Of(nystrom.ErrDimension, nystrom.ErrNonFinite, nystrom.ErrEmpty, nystrom.ErrArgument,
		nystrom.ErrEncoding, nystrom.ErrNotConverged),
	"pca": errtest.Of(pca.ErrDimension, pca.ErrNonFinite, pca.ErrEmpty, pca.ErrArgument, pca.ErrEncoding,
		pca.ErrNotConverged),
	"preimage": errtest.Of(preimage.ErrDimension, preimage.ErrNonFinite, preimage.ErrEmpty, preimage.ErrArgument),
	"sketch": errtest.Of(sketch.ErrDimension, sketch.ErrNonFinite, sketch.ErrEmpty, sketch.ErrArgument,
		sketch.ErrEncoding, sketch.ErrNotConverged),
	"stream": errtest.Of(stream.ErrDimension, stream.ErrNonFinite, stream.ErrEmpty, stream.ErrArgument,
		stream.ErrEncoding, stream.ErrNotConverged),
	"update": errtest.Of(update.ErrDimension, update.ErrNonFinite, update.ErrArgument, update.ErrNotConverged),
}

// TestConstructorContract walks every constructor with every bad kernel
// (testmat.BadKernels: an error wrapping ikpca.ErrArgument), zero-valued options (an error wrapping one kind, or
// success where the zero value is documented as valid), every hostile option (an error
// wrapping one kind, or success where documented), and bad matrices, dimensions and
// other arguments (the documented kind). No call may panic.
func TestConstructorContract(t *testing.T) {
	counts := map[string]int{}
	for _, c := range constructors() {
		t.Run(c.name, func(t *testing.T) {
			// want checks one call's error (errtest.Sentinels.Check): exactly one
			// kind, that one if kind is not nil, and the package's sentinel of it
			// first ("kpca: invalid argument: …"); or success if documented.
			pkg, _, _ := strings.Cut(c.name, ".")
			want := func(what string, err error, kind error, mayPass bool) {
				t.Helper()
				if err == errNotApplicable || err == errtest.ErrPanicked {
					return
				}
				counts[c.name]++
				if err == nil && mayPass {
					return
				}
				if p := sentinels[pkg].Check(err, kind); p != "" {
					t.Errorf("%s: %s", what, p)
				}
				// The kind is named once: "kpca: invalid argument: kernel: …", not
				// "kpca: invalid argument: kernel: invalid argument: …" (check.Wrap).
				for _, k := range errtest.KindsOf(err) {
					if n := strings.Count(err.Error(), k.Error()); n > 1 {
						t.Errorf("%s: %q names %q %d times", what, err, k, n)
					}
				}
			}
			if c.kernel != nil {
				if err := errtest.Try(t, "a valid kernel", func() error { return c.kernel(rbf) }); err != nil {
					t.Fatalf("with a valid kernel: %v", err)
				}
				for _, b := range testmat.BadKernels() {
					err := errtest.Try(t, b.Name, func() error { return c.kernel(b.Kernel) })
					want("kernel "+b.Name, err, ikpca.ErrArgument, false)
					// An error that carries kernel.Validate's ErrArgument is package
					// kernel's too (check.Kernel): errors.Is holds with its sentinel.
					verr := kernel.Validate(b.Kernel)
					about := errors.Is(verr, ikpca.ErrArgument) && err != nil &&
						strings.Contains(err.Error(), strings.TrimPrefix(fmt.Sprint(verr), "kernel: invalid argument: "))
					if about && err != errNotApplicable && err != errtest.ErrPanicked && !errors.Is(err, kernel.ErrArgument) {
						t.Errorf("kernel %s: %v does not wrap kernel.ErrArgument", b.Name, err)
					}
				}
			}
			if c.rbf != nil {
				if err := errtest.Try(t, "a valid kernel", func() error { return c.rbf(rbf) }); err != nil {
					t.Fatalf("with a valid kernel: %v", err)
				}
				for _, b := range testmat.BadRBFs() {
					want("kernel "+b.Name, errtest.Try(t, b.Name, func() error { return c.rbf(b.Kernel.(kernel.RBF)) }), ikpca.ErrArgument, false)
				}
			}
			if c.options != nil {
				if err := errtest.Try(t, "valid options", func() error { return c.with(c.options) }); err != nil {
					t.Fatalf("with valid options %+v: %v", c.options, err)
				}
				zero := reflect.Zero(reflect.TypeOf(c.options)).Interface()
				err := errtest.Try(t, "zero options", func() error { return c.with(zero) })
				if c.zeroOK && err != nil {
					t.Errorf("zero options, documented as valid: %v", err)
				}
				want("zero options", err, nil, c.zeroOK)
				for _, h := range hostileOptions(c.options) {
					want("option "+h.name, errtest.Try(t, h.name, func() error { return c.with(h.opts) }), nil, c.documented(h.name))
				}
			}
			for _, in := range c.inputs {
				err := errtest.Try(t, in.name, in.call)
				if in.kind == nil && err != nil && err != errtest.ErrPanicked {
					t.Errorf("%s, documented as valid: %v", in.name, err)
				}
				want(in.name, err, in.kind, in.kind == nil)
			}
		})
	}
	t.Logf("%d constructors, %d calls", len(counts), sum(counts))
	logged := map[string]bool{}
	for _, c := range constructors() {
		if !logged[c.name] {
			logged[c.name] = true
			t.Logf("%-26s %3d calls", c.name, counts[c.name])
		}
	}
}

func sum(m map[string]int) (s int) {
	for _, v := range m {
		s += v
	}
	return s
}

// TestContractCoversEveryConstructor parses the source of every library package (not
// internal/, cmd/, bench/, beam/ or modeltest) and checks that the walker has an entry
// for every exported top-level function whose name starts with New or Fit, or is Choose,
// and that returns an error: a constructor added later cannot escape it.
func TestContractCoversEveryConstructor(t *testing.T) {
	have := map[string]bool{}
	for _, c := range constructors() {
		have[c.name] = true
	}
	skip := map[string]bool{"internal": true, "cmd": true, "bench": true, "beam": true, "modeltest": true, "testdata": true}
	var found []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != "." && (skip[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		pkg, funcs := errtest.Funcs(t, path)
		for _, n := range funcs {
			if !strings.Contains(n, ".") && (strings.HasPrefix(n, "New") || strings.HasPrefix(n, "Fit") || n == "Choose") {
				found = append(found, pkg+"."+n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	t.Logf("constructors in the source: %v", found)
	if len(found) < 20 {
		t.Fatalf("found %d constructors: the parse is wrong", len(found))
	}
	for _, name := range found {
		if !have[name] {
			t.Errorf("%s is a constructor that returns an error, but the walker (constructors) has no entry for it", name)
		}
	}
	for name := range have {
		if !slices.Contains(found, name) {
			t.Errorf("the walker has an entry for %s, which the source does not define", name)
		}
	}
}

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
		{"kpca.RankOneModel", "kpca", func() any { return new(kpca.RankOneModel) },
			func() (any, error) { return two(kpca.FitRankOne(rbf, points, kpca.Options{Components: kpca.All})) }},
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
// PolishContext, CertifyContext, AddRows and KeepKernelContext, and RankOneModel's
// AddRows — with a context cancelled plainly, one
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
	// Each method, on a model of its own: the model, and the call.
	fit := func() *kpca.Model {
		md, err := kpca.Fit(rbf, points, kpca.Options{Components: 2, Rank: 3})
		if err != nil {
			t.Fatal(err)
		}
		return md
	}
	methods := map[string]func() (ikpca.Model, func(ctx context.Context) error){
		"PolishContext": func() (ikpca.Model, func(context.Context) error) {
			md := fit()
			return md, func(ctx context.Context) error { return md.PolishContext(ctx, 2) }
		},
		"CertifyContext": func() (ikpca.Model, func(context.Context) error) {
			md := fit()
			return md, func(ctx context.Context) error { _, err := md.CertifyContext(ctx, kpca.CertifyOptions{}); return err }
		},
		"AddRows": func() (ikpca.Model, func(context.Context) error) {
			md := fit()
			return md, func(ctx context.Context) error { _, err := md.AddRows(ctx, points, nil); return err }
		},
		"KeepKernelContext": func() (ikpca.Model, func(context.Context) error) {
			md := fit()
			return md, func(ctx context.Context) error { return md.KeepKernelContext(ctx, points) }
		},
		"RankOneModel.AddRows": func() (ikpca.Model, func(context.Context) error) {
			md, err := kpca.FitRankOne(rbf, points, kpca.Options{Components: kpca.All})
			if err != nil {
				t.Fatal(err)
			}
			return md, func(ctx context.Context) error { _, err := md.AddRows(ctx, points, nil); return err }
		},
	}
	for name, build := range methods {
		for what, ctx := range contexts() {
			md, f := build()
			before := state(md)
			err := errtest.Try(t, name+", "+what, func() error { return f(ctx) })
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
