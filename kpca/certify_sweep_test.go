package kpca

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

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

// referenceMatrix returns A = C·K·C (or K, uncentred) for the rows of x and an RBF,
// Laplacian, polynomial, sigmoid or cosine kernel, every entry the float64 nearest the value computed at
// refPrec bits from the exact distances or products of the float64 points: within
// ε·|Aᵢⱼ| (plus 2⁻¹⁰⁷⁴) of the exact A, so ‖Â − A‖₂ ≤ ‖Â − A‖_F ≤ ε·‖A‖_F (1 + ε) — the
// reference's only error before its eigendecomposition (refEigen).
func referenceMatrix(t *testing.T, k kernel.Kernel, x *mat.Dense, uncentred bool) *mat.SymDense {
	t.Helper()
	m, d := x.Dims()
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(v) }
	K := make([]*big.Float, m*m)
	for i := range m {
		for j := i; j < m; j++ {
			acc := new(big.Float).SetPrec(refPrec)
			var v *big.Float
			switch k := k.(type) {
			case kernel.RBF:
				for l := range d {
					diff := nf(x.At(i, l))
					diff.Sub(diff, nf(x.At(j, l)))
					acc.Add(acc, diff.Mul(diff, diff))
				}
				v = bigExpNeg(exponent(acc, k.Sigma, k.Gamma, 2))
			case kernel.Laplacian:
				for l := range d {
					diff := nf(x.At(i, l))
					diff.Sub(diff, nf(x.At(j, l)))
					acc.Add(acc, diff.Abs(diff))
				}
				v = bigExpNeg(exponent(acc, k.Sigma, k.Gamma, 1))
			case kernel.Polynomial:
				base := bigAffine(x, i, j, k.Gamma, k.Coef0)
				v = new(big.Float).SetPrec(refPrec).SetInt64(1)
				for range k.Degree {
					v.Mul(v, base)
				}
			case kernel.Sigmoid:
				v = bigTanh(bigAffine(x, i, j, k.Gamma, k.Coef0))
			case kernel.Cosine:
				nx, ny := new(big.Float).SetPrec(refPrec), new(big.Float).SetPrec(refPrec)
				for l := range d {
					p := nf(x.At(i, l))
					acc.Add(acc, new(big.Float).SetPrec(refPrec).Mul(p, nf(x.At(j, l))))
					nx.Add(nx, p.Mul(p, p))
					q := nf(x.At(j, l))
					ny.Add(ny, q.Mul(q, q))
				}
				nx.Mul(nx, ny)
				if nx.Sign() == 0 {
					v = new(big.Float).SetPrec(refPrec)
				} else {
					v = acc.Quo(acc, nx.Sqrt(nx))
				}
			default:
				t.Fatalf("reference: kernel %T", k)
			}
			K[i*m+j], K[j*m+i] = v, v
		}
	}
	a := mat.NewSymDense(m, nil)
	if uncentred {
		for i := range m {
			for j := i; j < m; j++ {
				f, _ := K[i*m+j].Float64()
				a.SetSym(i, j, f)
			}
		}
		return a
	}
	mean := make([]*big.Float, m)
	total := new(big.Float).SetPrec(refPrec)
	for i := range m {
		s := new(big.Float).SetPrec(refPrec)
		for j := range m {
			s.Add(s, K[i*m+j])
		}
		total.Add(total, s)
		mean[i] = s.Quo(s, nf(float64(m)))
	}
	total.Quo(total, nf(float64(m)*float64(m)))
	for i := range m {
		for j := i; j < m; j++ {
			v := new(big.Float).SetPrec(refPrec).Sub(K[i*m+j], mean[i])
			v.Sub(v, mean[j])
			v.Add(v, total)
			f, _ := v.Float64()
			a.SetSym(i, j, f)
		}
	}
	return a
}

// bigAffine returns γ·xᵢᵀxⱼ + c at refPrec bits, xᵢ the rows of x.
func bigAffine(x *mat.Dense, i, j int, gamma, coef0 float64) *big.Float {
	_, d := x.Dims()
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(v) }
	acc := new(big.Float).SetPrec(refPrec)
	for l := range d {
		p := nf(x.At(i, l))
		acc.Add(acc, p.Mul(p, nf(x.At(j, l))))
	}
	acc.Mul(acc, nf(gamma))
	return acc.Add(acc, nf(coef0))
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
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(v) }
	if gamma != 0 {
		return dist.Mul(dist, nf(gamma))
	}
	den := nf(sigma)
	if power == 2 {
		den.Mul(den, nf(sigma))
		den.Mul(den, nf(2))
	}
	return dist.Quo(dist, den)
}

// refEigen returns the eigenvalues of the exact matrix A of which a is the rounded
// reference (referenceMatrix), in descending order, the first n with error bounds:
// λⱼ(A) ∈ [vals[j] − errs[j], vals[j] + errs[j]]. The pairs are gonum's (testmat.Eigen:
// LAPACK dsyev in Go, independent of the backend under test); each residual ‖a·v − λv‖
// is summed by Dot2 (dot2: within ε|r| + γ²ₘ₊₂·Σ|terms| a row) and bounds the distance
// of λ to an eigenvalue of a. Pairs whose residual intervals overlap make a cluster,
// whose c eigenvalues lie within the cluster's span plus ‖R‖_F of its computed ones, in
// order (Kahan's theorem for the Rayleigh quotient of orthonormal vectors, their
// orthogonality being LAPACK's). The rounding of the reference adds ε·‖a‖_F.
func refEigen(t *testing.T, a *mat.SymDense, n int) (vals, errs []float64) {
	t.Helper()
	m := a.SymmetricDim()
	desc, vecs := testmat.Eigen(t, a)
	n = min(n, m)
	vals = desc[:n]
	res := make([]float64, n)
	g := gammaN(m + 2)
	// rᵢ = aᵢᵀv − λ·vᵢ as one Dot2 of m + 1 products.
	row, v := make([]float64, m+1), make([]float64, m+1)
	for j := range n {
		mat.Col(v[:m], j, vecs)
		row[m] = -vals[j]
		var r2 float64
		for i := range m {
			mat.Row(row[:m], i, a)
			v[m] = v[i]
			s, abs := dot2(row, v, 0)
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

// sweepPoints returns the first n points of Yeast or n standard normal points in 8
// dimensions, with duplicates and near-duplicates added: every tenth point again, and
// every tenth point moved by a relative 1e-9 in one coordinate (a kernel value within
// 1e-18 of 1 at the median bandwidth, and the identity's cancellation at the smallest).
func sweepPoints(t *testing.T, set string, n int) *mat.Dense {
	t.Helper()
	var base *mat.Dense
	switch set {
	case "issue":
		return points(t, "yeast", n) // as the issue took them
	case "yeast":
		base = points(t, "yeast", n)
	case "normal":
		rng := rand.New(rand.NewPCG(3, 5))
		base = mat.NewDense(n, 8, nil)
		for i := range n {
			for l := range 8 {
				base.Set(i, l, rng.NormFloat64())
			}
		}
	}
	_, d := base.Dims()
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

// TestCertifySweep: the certificate holds at every bandwidth. Yeast (with duplicates and
// near-duplicates added, sweepPoints), RBF kernels of σ from 0.01× to 1000× the median
// distance, centred and uncentred, tracked at rank 20 from Options{Components: 5,
// BatchMax: 200} and polished by three passes (the setting), certified; also
// N(0, 1) data with γ = 1e-6, and Laplacian, polynomial, sigmoid and cosine kernels. The
// reference is the exact matrix of the points computed at 128 bits and rounded
// (referenceMatrix), its eigenvalues with rigorous error bounds (refEigen), which must
// stay below a hundredth of each interval's width: every interval Lower ≤ λⱼ ≤ Upper and the tail must hold against
// them. It counts the intervals that hold and fails on any that misses. At 1× the
// median, each of the top 5 intervals is at most 20× the model's eigenvalue error wide,
// or 3 times the certificate's Rounding, whichever is larger (the interval is
// θ ± Rounding around the Ritz value, plus the quadratic residual term, whose residual
// is widened by Rounding too). The widths
// (relative to λ₁) at 0.01×, 1× and 100× are logged.
func TestCertifySweep(t *testing.T) {
	n := 200
	scales := []float64{0.01, 0.1, 1, 10, 100, 300, 1000}
	if testing.Short() {
		n = 100
		scales = []float64{0.01, 1, 100, 1000}
	}
	type sweepCase struct {
		set       string
		k         func(med float64) kernel.Kernel
		scale     float64
		uncentred bool
	}
	// The case first: the first 400 points of Yeast as they are, σ = 100× the
	// median, where the old allowance put λ₁ below its lower bound.
	cases := []sweepCase{{"issue", func(med float64) kernel.Kernel { return kernel.RBF{Sigma: 100 * med} }, 100, false}}
	for _, s := range scales {
		for _, unc := range []bool{false, true} {
			s := s
			cases = append(cases, sweepCase{"yeast", func(med float64) kernel.Kernel {
				return kernel.RBF{Sigma: s * med}
			}, s, unc})
		}
	}
	cases = append(cases,
		sweepCase{"normal", func(float64) kernel.Kernel { return kernel.RBF{Gamma: 1e-6} }, math.NaN(), false},
		sweepCase{"yeast", func(med float64) kernel.Kernel { return kernel.Laplacian{Gamma: 1 / (100 * med)} }, 100, false},
		sweepCase{"yeast", func(float64) kernel.Kernel { return kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1} }, math.NaN(), false},
		sweepCase{"normal", func(float64) kernel.Kernel { return kernel.Sigmoid{Gamma: 0.01, Coef0: 0.5} }, math.NaN(), false},
		sweepCase{"yeast", func(float64) kernel.Kernel { return kernel.Cosine{} }, math.NaN(), true},
	)
	held, total := 0, 0
	for _, c := range cases {
		x := sweepPoints(t, c.set, n)
		if c.set == "issue" {
			x = sweepPoints(t, c.set, 400)
		}
		m, d := x.Dims()
		med, err := kernel.MedianDistance(x, 1000)
		if err != nil {
			t.Fatal(err)
		}
		k := c.k(med)
		what := fmt.Sprintf("%s %v %s", c.set, k, modeName(c.uncentred))
		first := min(200, m/2)
		md := fitModel(t, k, x.Slice(0, first, 0, d), Options{Components: 5, Rank: 20, BatchMax: 200, Uncentred: c.uncentred})
		if _, err := md.AddRows(t.Context(), x.Slice(first, m, 0, d), nil); err != nil {
			t.Fatal(err)
		}
		if err := md.Polish(3); err != nil {
			t.Fatal(err)
		}
		cert, err := md.Certify()
		if err != nil {
			t.Fatal(err)
		}
		r := len(cert.Lower)
		want, errs := refEigen(t, referenceMatrix(t, k, x, c.uncentred), r+1)
		got := md.Values(nil)
		for j := range r {
			total++
			ok := cert.Lower[j] <= want[j]+errs[j] && want[j]-errs[j] <= cert.Upper[j]
			if ok {
				held++
			} else {
				t.Errorf("%s: λ%d = %.16g ± %.2g outside [%.16g, %.16g]", what, j, want[j], errs[j], cert.Lower[j], cert.Upper[j])
			}
			// The reference must resolve the interval, to find a miss of its size.
			if w := cert.Upper[j] - cert.Lower[j]; !(errs[j] <= 0.01*w) {
				t.Errorf("%s: λ%d's reference error %.3g is not below a hundredth of the interval's width %.3g", what, j, errs[j], w)
			}
		}
		total++
		if want[r]-errs[r] <= cert.Tail {
			held++
		} else {
			t.Errorf("%s: λ%d = %.16g above the tail bound %.16g", what, r, want[r], cert.Tail)
		}
		var width float64
		for j := range 5 {
			w := cert.Upper[j] - cert.Lower[j]
			width = math.Max(width, w)
			if c.scale == 1 {
				allowed := math.Max(20*math.Abs(got[j]-want[j]), 3*cert.Rounding)
				if !(w <= allowed) {
					t.Errorf("%s: λ%d's interval %.3g wide, the model's error %.3g, the rounding allowance %.3g", what, j, w, math.Abs(got[j]-want[j]), cert.Rounding)
				}
			}
		}
		t.Logf("%-44s m = %d: top-5 widths ≤ %.3g·λ₁, Rounding %.3g·λ₁, λ₁ = %.6g", what, m, width/want[0], cert.Rounding/want[0], want[0])
	}
	t.Logf("%d of %d intervals and tails held", held, total)
}
