package testmat

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// Centring evaluates kernel columns against a fixed set of points P, centred as kernel
// PCA centres the kernel matrix of P (Schölkopf, Smola & Müller 1998):
// k̃ₓ = kₓ − K1/n − (1ᵀkₓ/n)·1 + (1ᵀK1/n²)·1, with K the kernel matrix of P. It is the
// textbook formula computed from scratch, an oracle for the models' own bookkeeping.
type Centring struct {
	kern   kernel.Kernel
	p      *mat.Dense
	rowAvg []float64 // K·1/n
	avg    float64   // 1ᵀK1/n²
}

// NewCentring prepares the centring on the rows of P (a copy is kept).
func NewCentring(k kernel.Kernel, P mat.Matrix) *Centring {
	c := &Centring{kern: k, p: mat.DenseCopyOf(P)}
	K := kernel.Matrix(k, c.p)
	n := K.SymmetricDim()
	c.rowAvg = make([]float64, n)
	for i := range n {
		for j := range n {
			c.rowAvg[i] += K.At(i, j) / float64(n)
		}
		c.avg += c.rowAvg[i] / float64(n)
	}
	return c
}

// Column writes to dst (length n) the kernel column of x against the points, centred
// if centred is true and as it is otherwise.
func (c *Centring) Column(dst, x []float64, centred bool) {
	kernel.Column(dst, c.kern, c.p, x)
	if !centred {
		return
	}
	var mean float64
	for _, v := range dst {
		mean += v / float64(len(dst))
	}
	for i := range dst {
		dst[i] += c.avg - c.rowAvg[i] - mean
	}
}

// Scores returns, for the rows x of X, the inner products of the (centred) kernel
// column of x with the first k columns of C, each scaled by scale[j] (nil: 1): the
// scores uⱼᵀk̃ₓ/√λⱼ of kernel PCA for C = U and scale[j] = 1/√λⱼ.
func (c *Centring) Scores(X mat.Matrix, C mat.Matrix, k int, scale []float64, centred bool) *mat.Dense {
	rows, _ := X.Dims()
	n, _ := c.p.Dims()
	out := mat.NewDense(rows, k, nil)
	kx := make([]float64, n)
	for i := range rows {
		c.Column(kx, mat.Row(nil, i, X), centred)
		for j := range k {
			var s float64
			for l, v := range kx {
				s += v * C.At(l, j)
			}
			if scale != nil {
				s *= scale[j]
			}
			out.Set(i, j, s)
		}
	}
	return out
}
