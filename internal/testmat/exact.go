package testmat

import (
	"math"
	"math/big"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// The exact reference of the certificates' tests: the matrix of the points computed at
// 128 bits and rounded once, and its eigenvalues with rigorous error bounds, so that a
// certificate is checked against values more accurate than the code under test
// (docs/design.md, "Certificates").

// refPrec is the precision of the reference kernel matrices: the squared distances of
// float64 points are exact in it, and the exponentials and the centring carry errors
// near 2⁻¹²⁰ that rounding to float64 swamps.
const refPrec = 128

// bigExpNeg returns e^(−v) for v ≥ 0 at refPrec bits: the Taylor series of e^(−v/2ⁿ),
// v/2ⁿ < 2⁻⁸, squared n times (each squaring doubles a relative error near 2⁻¹²⁰, n ≤ 18
// here). Below e^(−800) it returns 0: float64 rounds such a value to 0 (the smallest
// subnormal is e^(−744.4)).
func bigExpNeg(v *big.Float) *big.Float {
	if v.Cmp(big.NewFloat(800)) > 0 {
		return new(big.Float).SetPrec(refPrec)
	}
	n := max(0, v.MantExp(nil)+8)
	s := new(big.Float).SetPrec(refPrec).SetMantExp(v, -n)
	sum := new(big.Float).SetPrec(refPrec).SetInt64(1)
	term := new(big.Float).SetPrec(refPrec).SetInt64(1)
	for i := 1; term.Sign() != 0 && term.MantExp(nil) > -refPrec-8; i++ {
		term.Mul(term, s)
		term.Quo(term, new(big.Float).SetPrec(refPrec).SetInt64(int64(-i)))
		sum.Add(sum, term)
	}
	for range n {
		sum.Mul(sum, sum)
	}
	return sum
}

// ExactMatrix returns A = C·K·C (or K, uncentred) for the rows of x and an RBF,
// Laplacian, polynomial, sigmoid or cosine kernel, every entry the float64 nearest the value computed at
// refPrec bits from the exact distances or products of the float64 points: within
// ε·|Aᵢⱼ| (plus 2⁻¹⁰⁷⁴) of the exact A, so ‖Â − A‖₂ ≤ ‖Â − A‖_F ≤ ε·‖A‖_F (1 + ε) — the
// reference's only error before its eigendecomposition (ExactEigen).
func ExactMatrix(t testing.TB, k kernel.Kernel, x *mat.Dense, uncentred bool) *mat.SymDense {
	t.Helper()
	m, _ := x.Dims()
	K := make([]*big.Float, m*m)
	for i := range m {
		for j := i; j < m; j++ {
			v, ok := bigKernel(k, x, i, j)
			if !ok {
				t.Fatalf("reference: kernel %T", k)
			}
			K[i*m+j], K[j*m+i] = v, v
		}
	}
	if !uncentred {
		bigCentre(K, m)
	}
	a := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			f, _ := K[i*m+j].Float64()
			a.SetSym(i, j, f)
		}
	}
	return a
}

// bigFloat returns v at refPrec bits.
func bigFloat(v float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(v) }

// bigKernel returns k(xᵢ, xⱼ) at refPrec bits, xᵢ the rows of x, and false for a kernel
// it does not know.
func bigKernel(k kernel.Kernel, x *mat.Dense, i, j int) (*big.Float, bool) {
	_, d := x.Dims()
	acc := new(big.Float).SetPrec(refPrec)
	switch k := k.(type) {
	case kernel.RBF:
		for l := range d {
			diff := bigFloat(x.At(i, l))
			diff.Sub(diff, bigFloat(x.At(j, l)))
			acc.Add(acc, diff.Mul(diff, diff))
		}
		return bigExpNeg(exponent(acc, k.Sigma, k.Gamma, 2)), true
	case kernel.Laplacian:
		for l := range d {
			diff := bigFloat(x.At(i, l))
			diff.Sub(diff, bigFloat(x.At(j, l)))
			acc.Add(acc, diff.Abs(diff))
		}
		return bigExpNeg(exponent(acc, k.Sigma, k.Gamma, 1)), true
	case kernel.Polynomial:
		base := bigAffine(x, i, j, k.Gamma, k.Coef0)
		v := new(big.Float).SetPrec(refPrec).SetInt64(1)
		for range k.Degree {
			v.Mul(v, base)
		}
		return v, true
	case kernel.Sigmoid:
		return bigTanh(bigAffine(x, i, j, k.Gamma, k.Coef0)), true
	case kernel.Cosine:
		nx, ny := new(big.Float).SetPrec(refPrec), new(big.Float).SetPrec(refPrec)
		for l := range d {
			p := bigFloat(x.At(i, l))
			acc.Add(acc, new(big.Float).SetPrec(refPrec).Mul(p, bigFloat(x.At(j, l))))
			nx.Add(nx, p.Mul(p, p))
			q := bigFloat(x.At(j, l))
			ny.Add(ny, q.Mul(q, q))
		}
		nx.Mul(nx, ny)
		if nx.Sign() == 0 {
			return new(big.Float).SetPrec(refPrec), true
		}
		return acc.Quo(acc, nx.Sqrt(nx)), true
	}
	return nil, false
}

// bigCentre replaces the symmetric m×m matrix K, whose entries may alias across the
// diagonal, by CKC, C = I − 11ᵀ/m: Kᵢⱼ − meanᵢ − meanⱼ + mean, at refPrec bits.
func bigCentre(K []*big.Float, m int) {
	mean := make([]*big.Float, m)
	total := new(big.Float).SetPrec(refPrec)
	for i := range m {
		s := new(big.Float).SetPrec(refPrec)
		for j := range m {
			s.Add(s, K[i*m+j])
		}
		total.Add(total, s)
		mean[i] = s.Quo(s, bigFloat(float64(m)))
	}
	total.Quo(total, bigFloat(float64(m)*float64(m)))
	for i := range m {
		for j := i; j < m; j++ {
			v := new(big.Float).SetPrec(refPrec).Sub(K[i*m+j], mean[i])
			v.Sub(v, mean[j])
			v.Add(v, total)
			K[i*m+j], K[j*m+i] = v, v
		}
	}
}

// bigAffine returns γ·xᵢᵀxⱼ + c at refPrec bits, xᵢ the rows of x.
func bigAffine(x *mat.Dense, i, j int, gamma, coef0 float64) *big.Float {
	_, d := x.Dims()
	acc := new(big.Float).SetPrec(refPrec)
	for l := range d {
		p := bigFloat(x.At(i, l))
		acc.Add(acc, p.Mul(p, bigFloat(x.At(j, l))))
	}
	acc.Mul(acc, bigFloat(gamma))
	return acc.Add(acc, bigFloat(coef0))
}

// bigTanh returns tanh(x) = sign(x)·(1 − e^(−2|x|))/(1 + e^(−2|x|)) at refPrec bits.
func bigTanh(x *big.Float) *big.Float {
	a := new(big.Float).SetPrec(refPrec).Abs(x)
	e := bigExpNeg(a.Mul(a, new(big.Float).SetPrec(refPrec).SetInt64(2)))
	one := new(big.Float).SetPrec(refPrec).SetInt64(1)
	num := new(big.Float).SetPrec(refPrec).Sub(one, e)
	num.Quo(num, new(big.Float).SetPrec(refPrec).Add(one, e))
	if x.Sign() < 0 {
		num.Neg(num)
	}
	return num
}

// exponent returns the exponent of an RBF (power 2) or Laplacian (power 1) kernel from
// the distance dist (squared for the RBF): dist·γ if gamma is not zero, otherwise
// dist/(2σ²) or dist/σ.
func exponent(dist *big.Float, sigma, gamma float64, power int) *big.Float {
	if gamma != 0 {
		return dist.Mul(dist, bigFloat(gamma))
	}
	den := bigFloat(sigma)
	if power == 2 {
		den.Mul(den, bigFloat(sigma))
		den.Mul(den, bigFloat(2))
	}
	return dist.Quo(dist, den)
}

// ExactEigen returns the eigenvalues of the exact matrix A of which a is the rounded
// reference (ExactMatrix), in descending order, the first n with error bounds:
// λⱼ(A) ∈ [vals[j] − errs[j], vals[j] + errs[j]]. The pairs are gonum's (testmat.Eigen:
// LAPACK dsyev in Go, independent of the backend under test); each residual ‖a·v − λv‖
// is summed by Dot2 (vec.Dot2: within ε|r| + γ²ₘ₊₂·Σ|terms| a row) and bounds the distance
// of λ to an eigenvalue of a. Pairs whose residual intervals overlap make a cluster,
// whose c eigenvalues lie within the cluster's span plus ‖R‖_F of its computed ones, in
// order (Kahan's theorem for the Rayleigh quotient of orthonormal vectors, their
// orthogonality being LAPACK's). The rounding of the reference adds ε·‖a‖_F.
func ExactEigen(t testing.TB, a *mat.SymDense, n int) (vals, errs []float64) {
	t.Helper()
	m := a.SymmetricDim()
	desc, vecs := Eigen(t, a)
	n = min(n, m)
	vals = desc[:n]
	res := make([]float64, n)
	g := vec.Gamma(m + 2)
	// rᵢ = aᵢᵀv − λ·vᵢ as one Dot2 of m + 1 products.
	row, v := make([]float64, m+1), make([]float64, m+1)
	for j := range n {
		mat.Col(v[:m], j, vecs)
		row[m] = -vals[j]
		var r2 float64
		for i := range m {
			mat.Row(row[:m], i, a)
			v[m] = v[i]
			s, abs := vec.Dot2(row, v, 0)
			r := math.Abs(s)*(1+2*vec.Roundoff) + g*g*abs
			r2 += r * r
		}
		res[j] = math.Sqrt(r2) * (1 + float64(m)*vec.Roundoff)
	}
	frob := mat.Norm(a, 2) * (1 + 2*vec.Roundoff)
	errs = make([]float64, n)
	for j := 0; j < n; {
		// The cluster of j: the overlapping residual intervals that follow.
		end := j + 1
		for end < n && vals[end-1]-res[end-1] <= vals[end]+res[end] {
			end++
		}
		var r2 float64
		for i := j; i < end; i++ {
			r2 += res[i] * res[i]
		}
		span := vals[j] - vals[end-1]
		for i := j; i < end; i++ {
			errs[i] = span + math.Sqrt(r2) + vec.Roundoff*frob + 0x1p-1060
		}
		j = end
	}
	return vals, errs
}

// WithNearDuplicates returns the n points of base with duplicates and near-duplicates
// added, the hardest inputs of the certificates' sweeps: every tenth point again, and
// every tenth point moved by a relative 1e-9 in one coordinate (a kernel value within
// 1e-18 of 1 at the median bandwidth, and the identity's cancellation at the smallest).
func WithNearDuplicates(base *mat.Dense) *mat.Dense {
	n, d := base.Dims()
	extra := n / 10
	x := mat.NewDense(n+2*extra, d, nil)
	x.Slice(0, n, 0, d).(*mat.Dense).Copy(base)
	for e := range extra {
		src := base.RawRowView(10 * e)
		x.SetRow(n+e, src)
		near := append([]float64(nil), src...)
		near[e%d] *= 1 + 1e-9
		if near[e%d] == 0 {
			near[e%d] = 1e-12
		}
		x.SetRow(n+extra+e, near)
	}
	return x
}
