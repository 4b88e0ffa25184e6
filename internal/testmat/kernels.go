package testmat

import (
	"errors"
	"fmt"
	"math"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
)

// BadKernel is a kernel that every constructor taking a kernel.Kernel must refuse with
// an error wrapping ikpca.ErrArgument, and its name for a test's messages.
type BadKernel struct {
	Name   string
	Kernel kernel.Kernel
}

// BadKernels returns the kernels every constructor must refuse (the error contract of
// the root package's errors.go): nil ones, and kernels whose parameters are invalid or
// make them identically zero, constant or not finite. The error tests of the models'
// packages and the root package's constructor walker share them; package kernel's own
// tests, which cannot import this package, keep their own.
func BadKernels() []BadKernel {
	nan, inf := math.NaN(), math.Inf(1)
	return []BadKernel{
		{"nil", nil},
		{"(*RBF)(nil)", (*kernel.RBF)(nil)},
		{"(*Polynomial)(nil)", (*kernel.Polynomial)(nil)},
		{"(*Func)(nil)", (*kernel.Func)(nil)},
		{"RBF{}", kernel.RBF{}},
		{"RBF{Sigma: −1}", kernel.RBF{Sigma: -1}},
		{"RBF{Sigma: NaN}", kernel.RBF{Sigma: nan}},
		{"RBF{Sigma: +Inf}", kernel.RBF{Sigma: inf}},
		{"RBF{Sigma: 1e-300} (1/(2σ²) overflows)", kernel.RBF{Sigma: 1e-300}},
		{"RBF{Sigma: 1e300} (γ underflows)", kernel.RBF{Sigma: 1e300}},
		{"RBF{Gamma: 1e-320} (subnormal)", kernel.RBF{Gamma: 1e-320}},
		{"RBF{Gamma: +Inf}", kernel.RBF{Gamma: inf}},
		{"RBF{Gamma: −Inf}", kernel.RBF{Gamma: -inf}},
		{"RBF{Sigma: 1, Gamma: 1}", kernel.RBF{Sigma: 1, Gamma: 1}},
		{"&RBF{}", &kernel.RBF{}},
		{"Laplacian{}", kernel.Laplacian{}},
		{"Laplacian{Sigma: −1}", kernel.Laplacian{Sigma: -1}},
		{"Laplacian{Sigma: NaN}", kernel.Laplacian{Sigma: nan}},
		{"Laplacian{Gamma: NaN}", kernel.Laplacian{Gamma: nan}},
		{"Polynomial{}", kernel.Polynomial{}},
		{"Polynomial{Degree: 3} (γ = 0: identically c³ = 0)", kernel.Polynomial{Degree: 3}},
		{"Polynomial{Degree: 3, Gamma: NaN}", kernel.Polynomial{Degree: 3, Gamma: nan}},
		{"Polynomial{Degree: 0, Gamma: 1} (constant)", kernel.Polynomial{Degree: 0, Gamma: 1}},
		{"Polynomial{Degree: −1, Gamma: 1}", kernel.Polynomial{Degree: -1, Gamma: 1}},
		{"Polynomial{Degree: 2, Gamma: 1, Coef0: +Inf}", kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: inf}},
		{"Func{} (nil F)", kernel.Func{}},
		{"Func{Name: \"f\"} (nil F)", kernel.Func{Name: "f"}},
		{"Func named like a built-in", kernel.Func{Name: "RBF", F: dot}},
		{"a kernel whose Validate refuses it", refusing{errors.New("refused")}},
		{"a kernel whose Validate reports ErrNonFinite", refusing{fmt.Errorf("overflows: %w", ikpca.ErrNonFinite)}},
	}
}

// BadRBFs returns the kernels of BadKernels that a constructor typed kernel.RBF can be
// given.
func BadRBFs() []BadKernel {
	var out []BadKernel
	for _, b := range BadKernels() {
		if _, ok := b.Kernel.(kernel.RBF); ok {
			out = append(out, b)
		}
	}
	return out
}

// refusing is a user kernel whose Validate method returns err: a constructor refuses it
// with ErrArgument, whatever kind err has.
type refusing struct{ err error }

func (refusing) Eval(x, y []float64) float64 { return dot(x, y) }
func (r refusing) Validate() error           { return r.err }

// dot returns xᵀy: the kernel function of the Funcs of BadKernels, and the norms of
// NearPoints and KernelValueSize.
func dot(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}
