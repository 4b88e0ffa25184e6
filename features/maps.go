package features

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/kernel"
)

// What the three maps (RFF, Taylor, Quadrature) share: the kernel they approximate, their
// dimensions and the checks of the arguments of Map and Transform.

// shape is what the three maps share beside their options and features: the dimension
// d of the points, the feature dimension D and the kernel they approximate.
type shape struct {
	d, dim int
	kern   kernel.RBF
}

// InDim returns the dimension d of the points.
func (m *shape) InDim() int { return m.d }

// OutDim returns the feature dimension D: the options' Dim, or, where they take 0, the
// dimension 0 stands for (every monomial of Taylor, the full rule of Quadrature).
func (m *shape) OutDim() int { return m.dim }

// Kernel returns the kernel the map approximates, as it was given.
func (m *shape) Kernel() kernel.RBF { return m.kern }

// spectralScale checks the Gaussian kernel k (kernel.Validate: exactly one of σ and γ,
// in range) and the dimension d of the points (check.Kinds.Dim), and returns s = 1/σ,
// or √(2γ) for a kernel given by γ: k(x, y) = exp(−s²·‖x−y‖²/2), whose spectral
// density is N(0, s²·I). An invalid kernel or dimension is an ErrArgument.
func spectralScale(k kernel.RBF, d int) (float64, error) {
	if err := kinds.Kernel(kernel.Validate(k)); err != nil {
		return 0, err
	}
	if err := kinds.Dim(d); err != nil {
		return 0, err
	}
	if k.Gamma != 0 {
		return math.Sqrt(2 * k.Gamma), nil
	}
	return 1 / k.Sigma, nil
}

// checkArgs reports a destination whose length is not the feature dimension D, or a
// point x whose length is not d or with a non-finite coordinate (check.Kinds.Point).
func (m *shape) checkArgs(dst, x []float64) error {
	if err := m.ready(); err != nil {
		return err
	}
	if len(dst) != m.dim {
		return fmt.Errorf("%w: destination length %d, want %d", kinds.Dimension, len(dst), m.dim)
	}
	return kinds.Point(x, m.d)
}

// checkBatch validates the points X of a Transform and sizes dst: reallocated to n×D if
// empty, otherwise it must be n×D already. It returns the matrix to read the points
// from (kinds.Matrix) and n. On error dst is unchanged.
func (m *shape) checkBatch(dst *mat.Dense, X mat.Matrix) (mat.Matrix, int, error) {
	if err := m.ready(); err != nil {
		return nil, 0, err
	}
	d, dim := m.d, m.dim
	if dst == nil {
		return nil, 0, fmt.Errorf("%w: nil destination", kinds.Argument)
	}
	X, n, err := kinds.Points(X, d)
	if err != nil {
		return nil, 0, err
	}
	if _, err := kinds.Floats("the features of the points", n, dim); err != nil {
		return nil, 0, err
	}
	if err := kinds.Dst(dst, n, dim); err != nil {
		return nil, 0, err
	}
	check.Reuse(dst, n, dim)
	return X, n, nil
}

// bound checks that a map of d-dimensional points to D features through f frequencies
// can be allocated: the d×f frequencies and a feature vector of D numbers each within
// check.MaxFloats (docs/design.md, "Sizes").
func bound(d, f, D int) error {
	if _, err := kinds.Floats("the frequencies", d, f); err != nil {
		return err
	}
	_, err := kinds.Floats("a feature vector", D)
	return err
}

// ready reports a zero map, one never made by its constructor (ErrArgument), which has
// no dimensions to check points against.
func (m *shape) ready() error {
	if m.dim == 0 {
		return fmt.Errorf("%w: a zero feature map: make one with NewRFF, NewTaylor or NewQuadrature", kinds.Argument)
	}
	return nil
}
