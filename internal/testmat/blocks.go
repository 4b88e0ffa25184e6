package testmat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// What the tests of the models' kernel blocks share (kpca's and nystrom's Transform and
// AddBatch against their element paths, docs/design.md, "Kernel blocks"): the data and
// the kernels they run on, and the size against which a kernel value's rounding is
// measured.

// BlockSets returns the data sets of the kernel-block tests made from base, named name:
// base itself; base offset by 1e4 in every coordinate (name+"+1e4": points far from the
// origin and from their mean); and base with its second half moved by 1e3 in every
// coordinate ("two clusters" 1e3 apart: points far from their mean, where the distance
// identity cancels unless evaluated directly).
func BlockSets(name string, base *mat.Dense) map[string]*mat.Dense {
	n, d := base.Dims()
	offset, split := mat.DenseCopyOf(base), mat.DenseCopyOf(base)
	for i := range n {
		for l := range d {
			offset.Set(i, l, offset.At(i, l)+1e4)
			if i >= n/2 {
				split.Set(i, l, split.At(i, l)+1e3)
			}
		}
	}
	return map[string]*mat.Dense{name: base, name + "+1e4": offset, "two clusters": split}
}

// BlockKernels returns the kernels of the kernel-block tests for data of median
// distance med: RBF of bandwidth med and med/20, a quadratic and the linear kernel.
func BlockKernels(med float64) []kernel.Kernel {
	return []kernel.Kernel{
		kernel.RBF{Sigma: med},
		kernel.RBF{Sigma: med / 20},
		kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1},
		kernel.Linear{},
	}
}

// MedianRBF returns the kernel of the seed paper's experiments for the points X: the
// RBF whose σ is the median distance between the first 1000 rows (kernel.MedianDistance),
// failing the test if there is none.
func MedianRBF(t testing.TB, X *mat.Dense) kernel.RBF {
	t.Helper()
	s, err := kernel.MedianDistance(X, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return kernel.RBF{Sigma: s}
}

// BuiltinKernels returns every built-in kernel for data of median distance med, the
// RBF and the Laplacian given by σ and by γ: the kernels whose Spec the models'
// encodings must store and rebuild exactly (docs/design.md, "Encodings").
func BuiltinKernels(med float64) []kernel.Kernel {
	return []kernel.Kernel{
		kernel.RBF{Sigma: med}, kernel.RBF{Gamma: 1 / (2 * med * med)},
		kernel.Laplacian{Sigma: 3 * med}, kernel.Laplacian{Gamma: 1 / (3 * med)},
		kernel.Polynomial{Degree: 2, Gamma: 0.3, Coef0: 0.7}, kernel.Linear{},
		kernel.Sigmoid{Gamma: 0.3, Coef0: -0.5}, kernel.Cosine{},
	}
}

// NearPoints returns, for each row x of X, x itself, copies of x moved by δ·‖x‖ in a
// random direction for each δ of deltas, and a copy one ulp away in one coordinate —
// near-duplicates of the stored points or landmarks among the rows, where the RBF
// identity cancels — then 3 points far away, of coordinates far·N(0, 1); all drawn
// from rng.
func NearPoints(rng *rand.Rand, X *mat.Dense, deltas []float64, far float64) *mat.Dense {
	n, d := X.Dims()
	per := len(deltas) + 2
	out := mat.NewDense(n*per+3, d, nil)
	dir := make([]float64, d)
	for i := range n {
		xi := X.RawRowView(i)
		nrm := math.Sqrt(dot(xi, xi))
		copy(out.RawRowView(i*per), xi)
		for q, delta := range deltas {
			for l := range dir {
				dir[l] = rng.NormFloat64()
			}
			nd := math.Sqrt(dot(dir, dir))
			row := out.RawRowView(i*per + 1 + q)
			for l := range row {
				row[l] = xi[l] + delta*nrm*dir[l]/nd
			}
		}
		row := out.RawRowView(i*per + per - 1)
		copy(row, xi)
		j := rng.IntN(d)
		row[j] = math.Nextafter(row[j], math.Inf(1))
	}
	for r := n * per; r < n*per+3; r++ {
		for l := range d {
			out.Set(r, l, far*rng.NormFloat64())
		}
	}
	return out
}

// KernelValueSize returns the size against which the rounding of a kernel value
// v = k(x, y) is measured (docs/design.md, "Kernel blocks"): for RBF max(1, e)·v,
// e = ‖x − y‖²/2σ² (or γ·‖x − y‖²) its exponent (exp's condition number), plus the smallest normal
// number, below which values are subnormal and have fewer digits; for a polynomial
// deg·M^deg and for the linear kernel M, M = |γ|‖x‖‖y‖ + |c| the size of the products'
// terms. It panics for another kernel.
func KernelValueSize(k kernel.Kernel, x, y []float64, v float64) float64 {
	nxy := math.Sqrt(dot(x, x)) * math.Sqrt(dot(y, y))
	switch k := k.(type) {
	case kernel.RBF:
		var d2 float64
		for i := range x {
			d2 += (x[i] - y[i]) * (x[i] - y[i])
		}
		e := d2 / (2 * k.Sigma * k.Sigma)
		if k.Gamma != 0 {
			e = k.Gamma * d2
		}
		return max(1, e)*v + 0x1p-1022
	case kernel.Polynomial:
		return float64(k.Degree) * math.Pow(math.Abs(k.Gamma)*nxy+math.Abs(k.Coef0), float64(k.Degree))
	case kernel.Linear:
		return nxy
	}
	panic(fmt.Sprintf("testmat: KernelValueSize: no bound for the kernel %v", k))
}
