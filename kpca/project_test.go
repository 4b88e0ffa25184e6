package kpca

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// batchKPCA is an independent batch kernel PCA: the eigendecomposition of K or CKC and
// the projection of new points with the full centring formula of docs/design.md,
// "Projection of new points": k'ₓ = kₓ − K1/m − 1(1ᵀkₓ)/m + 1(1ᵀK1)/m².
type batchKPCA struct {
	k         kernel.Kernel
	x         *mat.Dense
	uncentred bool
	values    []float64  // descending, trivial dropped
	vectors   *mat.Dense // matching columns
	rowSum    []float64
	total     float64
}

func newBatch(t *testing.T, k kernel.Kernel, x *mat.Dense, uncentred bool) *batchKPCA {
	t.Helper()
	m, _ := x.Dims()
	km := kernel.Matrix(k, x)
	b := &batchKPCA{k: k, x: x, uncentred: uncentred, rowSum: make([]float64, m)}
	for i := range m {
		for j := range m {
			b.rowSum[i] += km.At(i, j)
		}
		b.total += b.rowSum[i]
	}
	a := km
	if !uncentred {
		a = kernel.Centre(km)
	}
	var v mat.Dense
	values, err := native.EigenSym(nil, &v, a)
	if err != nil {
		t.Fatal(err)
	}
	drop := -1
	if !uncentred {
		drop = 0
		for i := range values {
			if math.Abs(values[i]) < math.Abs(values[drop]) {
				drop = i
			}
		}
	}
	b.vectors = mat.NewDense(m, m, nil)
	q := 0
	for j := m - 1; j >= 0; j-- {
		if j == drop {
			continue
		}
		b.values = append(b.values, values[j])
		b.vectors.SetCol(q, mat.Col(nil, j, &v))
		q++
	}
	return b
}

func (b *batchKPCA) project(x []float64, k int) []float64 {
	m, _ := b.x.Dims()
	kx := make([]float64, m)
	kernel.Column(kx, b.k, b.x, x)
	if !b.uncentred {
		var s float64
		for _, v := range kx {
			s += v
		}
		fm := float64(m)
		for i := range kx {
			kx[i] = kx[i] - b.rowSum[i]/fm - s/fm + b.total/(fm*fm)
		}
	}
	out := make([]float64, k)
	for j := range k {
		out[j] = mat.Dot(b.vectors.ColView(j), mat.NewVecDense(m, kx)) / math.Sqrt(b.values[j])
	}
	return out
}

// TestTransform: projections of held-out points and training scores equal a batch
// kernel PCA's, up to the sign of each component, in every mode and method.
func TestTransform(t *testing.T) {
	x := points(t, "magic", 260)
	train := mat.DenseCopyOf(x.Slice(0, 200, 0, 10))
	test := x.Slice(200, 260, 0, 10)
	k := rbfMedian(t, train)
	const comps = 6
	for _, opts := range allOptions {
		for _, nm := range exactModels(t, k, train.Slice(0, 20, 0, 10), opts) {
			md := nm.md
			if _, err := md.AddRows(context.Background(), train.Slice(20, 200, 0, 10), nil); err != nil {
				t.Fatal(err)
			}
			b := newBatch(t, k, train, opts.Uncentred)
			var got mat.Dense
			if err := md.Transform(&got, test, comps); err != nil {
				t.Fatal(err)
			}
			sign := make([]float64, comps)
			worst := 0.0
			for i := range 60 {
				want := b.project(mat.Row(nil, i, test), comps)
				for j := range comps {
					if sign[j] == 0 {
						sign[j] = math.Copysign(1, got.At(i, j)*want[j])
					}
					worst = math.Max(worst, math.Abs(sign[j]*got.At(i, j)-want[j]))
				}
			}
			if worst > 1e-10 {
				t.Errorf("%s: held-out projections differ from batch by %.3g", nm.name, worst)
			}
			// Training scores: U·Λ^½, and Transform of the training points gives them too.
			var scores, self mat.Dense
			if err := md.Scores(&scores, comps); err != nil {
				t.Fatal(err)
			}
			if err := md.Transform(&self, train, comps); err != nil {
				t.Fatal(err)
			}
			var worstS, worstSelf float64
			for i := range 200 {
				for j := range comps {
					want := b.vectors.At(i, j) * math.Sqrt(b.values[j])
					worstS = math.Max(worstS, math.Abs(math.Abs(scores.At(i, j))-math.Abs(want)))
					worstSelf = math.Max(worstSelf, math.Abs(self.At(i, j)-scores.At(i, j)))
				}
			}
			if worstS > 1e-10 || worstSelf > 1e-10 {
				t.Errorf("%s: training scores off by %.3g; Transform of training points off by %.3g", nm.name, worstS, worstSelf)
			}
			t.Logf("%-20s held-out %.2e, scores %.2e, self %.2e", nm.name, worst, worstS, worstSelf)
		}
	}
}

// TestZeroComponents: components with zero eigenvalues (three distinct points repeated)
// project to zero, never Inf or NaN.
func TestZeroComponents(t *testing.T) {
	y := points(t, "yeast", 3)
	x := mat.NewDense(30, 8, nil)
	for i := range 30 {
		x.SetRow(i, y.RawRowView(i%3))
	}
	k := rbfMedian(t, points(t, "yeast", 100))
	for _, opts := range allOptions {
		for _, nm := range exactModels(t, k, x, opts) {
			md := nm.md
			var out, scores mat.Dense
			if err := md.Transform(&out, points(t, "yeast", 10), md.Components()); err != nil {
				t.Fatal(err)
			}
			if err := md.Scores(&scores, md.Components()); err != nil {
				t.Fatal(err)
			}
			rank := 3
			if !opts.Uncentred {
				rank = 2
			}
			for _, m := range []*mat.Dense{&out, &scores} {
				r, c := m.Dims()
				for i := range r {
					for j := range c {
						v := m.At(i, j)
						if math.IsNaN(v) || math.IsInf(v, 0) || (j >= rank && v != 0) {
							t.Fatalf("%s: entry (%d, %d) = %g", nm.name, i, j, v)
						}
					}
				}
			}
		}
	}
}

// TestTransformErrors: bad arguments are errors, never panics.
func TestTransformErrors(t *testing.T) {
	x := points(t, "yeast", 40)
	md := fitModel(t, rbfMedian(t, x), x, Options{Components: All})
	var out mat.Dense
	bad := mat.DenseCopyOf(x.Slice(0, 2, 0, 8))
	bad.Set(1, 1, math.Inf(-1))
	for _, c := range []struct {
		dst  *mat.Dense
		x    mat.Matrix
		k    int
		want error
	}{
		{&out, nil, 2, ErrArgument},
		{&out, (*mat.Dense)(nil), 2, ErrArgument},
		{nil, x, 2, ErrArgument},
		{&out, x.Slice(0, 0, 0, 8), 2, ErrEmpty},
		{&out, mat.NewDense(2, 3, nil), 2, ErrDimension},
		{&out, x, 0, ErrArgument},
		{&out, x, 40, ErrArgument},
		{&out, bad, 2, ErrNonFinite},
		{mat.NewDense(3, 3, nil), x, 2, ErrDimension},
	} {
		if err := md.Transform(c.dst, c.x, c.k); !errorsIs(err, c.want) {
			t.Errorf("Transform(%d): got %v, want %v", c.k, err, c.want)
		}
	}
	if err := md.Scores(&out, 0); !errorsIs(err, ErrArgument) {
		t.Errorf("Scores(0): %v", err)
	}
}

// TestTransformNonFiniteKernel: a point whose polynomial kernel values overflow, in the
// first block or a later one, is an ErrNonFinite naming the point and a stored point,
// and dst is left as it was.
func TestTransformNonFiniteKernel(t *testing.T) {
	x := points(t, "yeast", 40)
	md := fitModel(t, kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, x, Options{Components: All})
	for _, at := range []int{0, 600} {
		X := mat.NewDense(700, 8, nil)
		for i := range 700 {
			copy(X.RawRowView(i), x.RawRowView(i%40))
		}
		for l := range 8 {
			X.Set(at, l, 1e110)
		}
		dst := mat.NewDense(700, 2, nil)
		dst.Set(3, 1, 7)
		err := md.Transform(dst, X, 2)
		if !errorsIs(err, ErrNonFinite) || !strings.Contains(err.Error(), fmt.Sprintf("kernel value of point %d with point ", at)) {
			t.Errorf("huge point %d: %v", at, err)
		}
		if dst.At(3, 1) != 7 || dst.At(0, 0) != 0 {
			t.Errorf("huge point %d: dst changed", at)
		}
	}
	// An RBF model and a point with a NaN coordinate, on both of a Transform's routes
	// (with and without the shifted copy of the points: transformCopyBytes): refused
	// before any block, by the check of the input.
	rbf := fitModel(t, rbfMedian(t, x), x, Options{Components: All})
	for _, copyBytes := range []int{transformCopyBytes, 0} {
		X := mat.DenseCopyOf(x)
		X.Set(33, 4, math.NaN())
		dst := mat.NewDense(40, 2, nil)
		dst.Set(3, 1, 7)
		saved := transformCopyBytes
		transformCopyBytes = copyBytes
		err := rbf.Transform(dst, X, 2)
		transformCopyBytes = saved
		if !errorsIs(err, ErrNonFinite) || !strings.Contains(err.Error(), "point 33") {
			t.Errorf("RBF, copy up to %d bytes, NaN point 33: %v", copyBytes, err)
		}
		if dst.At(3, 1) != 7 || dst.At(0, 0) != 0 {
			t.Errorf("RBF, copy up to %d bytes: dst changed", copyBytes)
		}
	}
}
