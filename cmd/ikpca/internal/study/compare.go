package study

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/native"
)

// The measures by which the studies compare a model's spectrum with an exact reference.

// Transformer is a model that scores points on its top components (kpca.Model,
// nystrom.Model, stream.SKPCA, chinsuter.Model, ...).
type Transformer interface {
	Transform(dst *mat.Dense, X mat.Matrix, k int) error
}

// Scores returns the model's scores of the rows of X on its top k components, in blocks
// of rows, so that a random-feature model's features of all the points are never held
// at once.
func Scores(m Transformer, X *mat.Dense, k int) (*mat.Dense, error) {
	n, d := X.Dims()
	sc := mat.NewDense(n, k, nil)
	for from := 0; from < n; from += 1024 {
		to := min(from+1024, n)
		if err := m.Transform(sc.Slice(from, to, 0, k).(*mat.Dense), X.Slice(from, to, 0, d), k); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// EigenErrors returns max |got − want|/want and max |got − want|/want₁ over the entries
// of want.
func EigenErrors(got, want []float64) (rel, l1 float64) {
	for j := range want {
		e := math.Abs(got[j] - want[j])
		rel = math.Max(rel, e/want[j])
		l1 = math.Max(l1, e/want[0])
	}
	return rel, l1
}

// BestGap returns the j in [1, len(v)−1] with the largest gap v[j−1] − v[j].
func BestGap(v []float64) int {
	best := 1
	for j := 2; j < len(v); j++ {
		if v[j-1]-v[j] > v[best-1]-v[best] {
			best = j
		}
	}
	return best
}

// Sines returns, for j = 1…k, the sine of the largest principal angle between the
// spans of the first j columns of U (n×≥k, orthonormal) and of A (n×≥k): ‖(I − UⱼUⱼᵀ)Qⱼ‖₂
// with Qⱼ an orthonormal basis of the first j columns of A (one QR factorisation gives
// every Qⱼ), which unlike √(1 − cos²) keeps its accuracy for small angles.
func Sines(U, A *mat.Dense, k int) ([]float64, error) {
	n, _ := A.Dims()
	var qr mat.QR
	qr.Factorize(A.Slice(0, n, 0, k))
	var Q mat.Dense
	qr.QTo(&Q)
	out := make([]float64, k)
	for j := 1; j <= k; j++ {
		Qj := mat.DenseCopyOf(Q.Slice(0, n, 0, j))
		Uj := mat.DenseCopyOf(U.Slice(0, n, 0, j))
		c := mat.NewDense(j, j, nil)
		native.Gemm(blas.Trans, blas.NoTrans, 1, Uj.RawMatrix(), Qj.RawMatrix(), 0, c.RawMatrix())
		native.Gemm(blas.NoTrans, blas.NoTrans, -1, Uj.RawMatrix(), c.RawMatrix(), 1, Qj.RawMatrix())
		g := mat.NewSymDense(j, nil)
		native.Syrk(blas.Trans, 1, Qj.RawMatrix(), 0, g.RawSymmetric())
		v, err := native.EigenSym(nil, nil, g)
		if err != nil {
			return nil, err
		}
		out[j-1] = math.Sqrt(math.Max(v[j-1], 0))
	}
	return out, nil
}
