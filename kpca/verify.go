package kpca

import (
	"context"
	"fmt"
	"math"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/probe"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// verifyProbes is the number of random probes of the residual in verify: one bad pair j
// goes unseen only if every probe's entry xⱼ is near zero (uniform in [−½, ½): below
// 1e-2 of ½ with probability 1e-2 each). The tolerances are check.SumsTolerance and
// check.PairsTolerance.
const verifyProbes = 2

// verify checks that a decoded model's decomposition b and running sums belong to its
// points (docs/design.md, "Encodings"), the check UnmarshalBinary makes after the
// structural ones: with Sᵢ = Σⱼ|k(xᵢ, xⱼ)| the row sums of the kernel values' magnitudes,
//
//   - the trace Σk(xᵢ, xᵢ) recomputed, within check.SumsTolerance·Σ|k(xᵢ, xᵢ)|;
//   - the row sums K·1, within check.SumsTolerance·Sᵢ each, and the total 1ᵀK1 within
//     check.SumsTolerance·ΣSᵢ (both also within the running sums' own rounding record, the
//     certificate's SumErr);
//   - for verifyProbes random x (seeded by seed), ‖K′·V·x − V·Λ·x‖ ≤ β·‖V·x‖, with
//     β = ErrorBound() (zero for the exact model) + check.PairsTolerance·max|λ| +
//     4·m·ε·max Sᵢ: since K′V − VΛ = (K′ − K̃)V, a tracked model's residual is at most
//     its documented bound; the last term is the rounding of the product K·(Vx)
//     (Higham §3.5: |fl(Ky) − Ky| ≤ γₘ·|K|·|y|, and ‖|K|‖₂ ≤ max Sᵢ) and of the stored
//     pairs, which is of the kernel values' scale, not of ‖K′‖: at a wide bandwidth the
//     entries are near 1 and ‖K′‖ far below;
//   - for the exact model, the trace identity Σλ = trace K′ (centred Σk(xᵢ, xᵢ) −
//     1ᵀK1/m), within check.PairsTolerance·Σ|λ| and the rounding of the sums.
//
// A model of kernel.Precomputed has no kernel to recompute anything from: only the
// total against the row sums and the trace identity are checked. A model without
// points has nothing to check. The cost is one pass over the points for
// verifyProbes + 1 vectors, O(m²·d) (kernel values in tiles, as Polish's passes: a pass
// over 20,000 Fashion-MNIST images takes 6 s on two cores), and O(m·n) for the probes.
// It returns the largest ratio of a deviation to its tolerance (at most 1 when the
// model passes), the margin the tests report.
func (md *Model) verify(seed uint64, b basis) (float64, error) {
	m := md.m
	if m == 0 {
		return 0, nil
	}
	var margin check.Margin
	within := margin.Within
	var sumAbs, big float64
	for _, v := range b.values {
		sumAbs += math.Abs(v)
		big = math.Max(big, math.Abs(v))
	}
	if md.precomputed() {
		return margin.Worst, md.verifyColumns(b.values, sumAbs, within)
	}
	var diag, diagAbs float64
	for i := range m {
		v := md.kern.Eval(md.point(i), md.point(i))
		diag += v
		diagAbs += math.Abs(v)
	}
	// The certificate's SumErr is the running sums' own record of their rounding (of
	// Σk(xᵢ, xᵢ) + 1ᵀK1/m, method Bordered).
	if !within(md.self, diag, check.SumsTolerance*diagAbs+md.cert.SumErr) {
		return margin.Worst, fmt.Errorf("%w: the trace %g is not that of the points, %g", ErrEncoding, md.self, diag)
	}

	// One pass: K·(C·V·X) and K·1, with X the probes of the exact model (n×verifyProbes)
	// or, tracked, the identity: V itself, each pair checked on its own.
	X, Q, vx := md.probeMatrix(b, seed)
	tests := len(vx)
	var W mat.Dense
	pr := md.passer()
	pr.raw, pr.abs = true, make([]float64, m)
	err := pr.pass(context.Background(), &W, Q)
	pr.release()
	if err != nil {
		return margin.Worst, fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	maxS, err := md.verifyRowSums(W.ColView(tests), pr.abs, within)
	if err != nil {
		return margin.Worst, err
	}
	if err := md.verifyTrace(b.values, sumAbs, within); err != nil || len(b.values) == 0 {
		return margin.Worst, err
	}
	if !md.opts.Uncentred {
		centreColumns(W.Slice(0, m, 0, tests).(*mat.Dense)) // K′·V·X
	}
	return margin.Worst, md.verifyPairs(b, X, &W, vx, check.PairsTolerance*big+4*float64(m)*vec.Roundoff*maxS, within)
}

// verifyColumns is verify for a model of kernel.Precomputed, which has no kernel to
// recompute anything from: the total against the row sums, and the trace identity.
func (md *Model) verifyColumns(values []float64, sumAbs float64, within func(got, want, tol float64) bool) error {
	sum, abs := vec.Sums(md.rowSum[:md.m])
	if !within(sum, md.total, check.SumsTolerance*abs+float64(md.m)*md.cert.SumErr) {
		return fmt.Errorf("%w: the total %g is not the sum %g of the row sums", ErrEncoding, md.total, sum)
	}
	return md.verifyTrace(values, sumAbs, within)
}

// probeMatrix returns verify's probes X (n×tests: verifyProbes random vectors of the
// exact model, seeded by seed, or the identity of a tracked one), the m×(tests+1)
// matrix Q = [C·V·X, 1] a pass multiplies by K, and the norms ‖V·x‖ of its probes.
func (md *Model) probeMatrix(b basis, seed uint64) (X, Q *mat.Dense, vx []float64) {
	m, n := md.m, len(b.values)
	tests := verifyProbes
	if md.rank > 0 {
		tests = n
	}
	X = mat.NewDense(max(n, 1), max(tests, 1), nil)
	x := make([]float64, n)
	for p := range tests {
		if md.rank > 0 {
			X.Set(p, p, 1)
			continue
		}
		probe.Fill(x, seed^uint64(p+1)*0x9E3779B97F4A7C15|1)
		for j, v := range x {
			X.Set(j, p, v)
		}
	}
	Q = mat.NewDense(m, tests+1, nil)
	vx = make([]float64, tests) // ‖V·x‖
	for p := range tests {
		y := Q.ColView(p).(*mat.VecDense)
		if n > 0 {
			xp := X.ColView(p).(*mat.VecDense).RawVector()
			xp.N = n
			native.Gemv(blas.NoTrans, 1, b.vecs, xp, 0, y.RawVector())
		}
		var yy float64 // ‖V·x‖, summed here: mat.Norm would reach gonum's BLAS registry
		for i := range m {
			yy += y.AtVec(i) * y.AtVec(i)
		}
		vx[p] = math.Sqrt(yy)
	}
	if !md.opts.Uncentred {
		centreColumns(Q.Slice(0, m, 0, tests).(*mat.Dense))
	}
	for i := range m {
		Q.Set(i, tests, 1)
	}
	return X, Q, vx
}

// verifyRowSums checks the row sums and their total against K·1 as a pass computed it
// (k1), with abs the row sums Sᵢ of the kernel values' magnitudes, and returns max Sᵢ.
func (md *Model) verifyRowSums(k1 mat.Vector, abs []float64, within func(got, want, tol float64) bool) (float64, error) {
	var sum, maxS, sumS float64
	for i, r := range md.rowSum[:md.m] {
		got, s := k1.AtVec(i), abs[i]
		if !within(r, got, check.SumsTolerance*s) {
			return 0, fmt.Errorf("%w: row sum %d is %g, the points give %g", ErrEncoding, i, r, got)
		}
		sum += got
		maxS = math.Max(maxS, s)
		sumS += s
	}
	if !within(md.total, sum, check.SumsTolerance*sumS+float64(md.m)*md.cert.SumErr) {
		return 0, fmt.Errorf("%w: the total %g is not that of the points, %g", ErrEncoding, md.total, sum)
	}
	return maxS, nil
}

// verifyPairs checks each probe's residual ‖K′·V·x − V·Λ·x‖ ≤ β·‖V·x‖ (verify), for
// W = K′·V·X and β = the certificate's range + rnd, the rounding; at rank r, where
// each probe is one pair, also the pair's eigenvalue against its Rayleigh quotient.
func (md *Model) verifyPairs(b basis, X, W *mat.Dense, vx []float64, rnd float64, within func(got, want, tol float64) bool) error {
	m, n := md.m, len(b.values)
	below, above := md.errorRange()
	beta := math.Max(below, above) + rnd
	lx := make([]float64, n)
	ys := make([]float64, m)
	for p := range vx {
		x := X.RawMatrix()
		for j := range n {
			lx[j] = b.values[j] * x.Data[j*x.Stride+p]
		}
		for i := range m {
			ys[i] = W.At(i, p)
		}
		var rho float64 // (V·x)ᵀK′(V·x), tracked: the Rayleigh quotient of pair p
		if md.rank > 0 {
			for i := range m {
				rho += ys[i] * b.vecs.Data[i*b.vecs.Stride+p]
			}
		}
		native.Gemv(blas.NoTrans, -1, b.vecs, blas64.Vector{N: n, Inc: 1, Data: lx}, 1, blas64.Vector{N: m, Inc: 1, Data: ys})
		if res := vec.Norm(ys); !within(res, 0, beta*vx[p]) {
			return fmt.Errorf("%w: the eigenpairs are not those of the points: ‖K′Vx − VΛx‖ = %.3g > %.3g·‖Vx‖",
				ErrEncoding, res, beta)
		}
		if md.rank > 0 {
			// ρ − λ = vᵀEv = vᵀPv − vᵀNv lies within [−‖N‖, ‖P‖] (certificate).
			d := rho - b.values[p]
			if !within(d, math.Max(-below, math.Min(d, above)), rnd) {
				return fmt.Errorf("%w: pair %d's eigenvalue %g against its Rayleigh quotient %g, beyond the certificate's [−%g, %g]",
					ErrEncoding, p, b.values[p], rho, below, above)
			}
		}
	}
	return nil
}

// verifyTrace checks the trace identity (verify), the sum of the eigenvalues'
// magnitudes sumAbs, through verify's within: trace E = trace K′ − Σλ is zero for the
// exact model and, for a tracked one, trace P − trace N with 0 ≤ trace P ≤ Σθ⁺ and
// 0 ≤ trace N ≤ Σθ⁻ (certificate): within [−Σθ⁻, Σθ⁺]. The tolerance is the rounding
// of the sums (check.SumsTolerance, the certificate's SumErr), of the pairs (check.PairsTolerance
// of Σ|λ|, and the deflations' slack, a step's rounding in each of the n values).
func (md *Model) verifyTrace(values []float64, sumAbs float64, within func(got, want, tol float64) bool) error {
	var sum float64
	for _, v := range values {
		sum += v
	}
	m := float64(md.m)
	c := md.cert
	trE := md.traceK() - sum
	tol := check.PairsTolerance*sumAbs + (check.SumsTolerance+4*m*vec.Roundoff)*(math.Abs(md.self)+math.Abs(md.total)/m) +
		c.SumErr + float64(len(values))*c.Slack
	// want is the nearest point of the interval: the deviation is the distance to it.
	want := c.Nearest(trE)
	if md.rank == 0 {
		want = 0
	}
	if !within(trE, want, tol) {
		return fmt.Errorf("%w: the eigenvalues sum to %g, the trace of the points' matrix is %g (the truncations dropped %g and %g)",
			ErrEncoding, sum, md.traceK(), c.PosTrace, -c.NegTrace)
	}
	return nil
}
