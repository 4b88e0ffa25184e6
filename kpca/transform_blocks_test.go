package kpca

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// transformReference is Model.Transform by the element path, from the model's public
// reads: each point's kernel column against the stored points by kernel.Column (bit for
// bit Eval), centred by K1/m recomputed the same way (Centred), times the signed unit
// eigenvectors of VectorsTo over √λ (zero for λ at most m·2⁻⁵²·max|λ|, Transform's
// rule). It also returns the scale of each score against which rounding is measured:
// S_q(x) = Σᵢ |u_iq|·(sizeᵢ + Aᵢ)/√λ_q, sizeᵢ = testmat.KernelValueSize of k(x, xᵢ) and
// Aᵢ = Σⱼ|k(xᵢ, xⱼ)|/m the size of the centring term K1ᵢ/m.
func transformReference(md *Model, X *mat.Dense, comps int) (res, scale *mat.Dense) {
	var P, U mat.Dense
	md.Points(&P)
	md.VectorsTo(&U)
	values := md.Values(nil)
	m, k := md.Len(), md.kern
	centred := !md.opts.Uncentred
	var big float64
	for _, v := range values {
		big = math.Max(big, math.Abs(v))
	}
	tol := float64(m) * 0x1p-52 * big
	inv := make([]float64, comps)
	for q := range comps {
		if values[q] > tol {
			inv[q] = 1 / math.Sqrt(values[q])
		}
	}
	// K1/m and Σⱼ|k(xᵢ, xⱼ)|/m from the stored points.
	mean, abs := make([]float64, m), make([]float64, m)
	col := make([]float64, m)
	for i := range m {
		kernel.Column(col, k, &P, P.RawRowView(i))
		for _, v := range col {
			mean[i] += v
			abs[i] += math.Abs(v)
		}
		mean[i] /= float64(m)
		abs[i] /= float64(m)
	}
	n, _ := X.Dims()
	res, scale = mat.NewDense(n, comps, nil), mat.NewDense(n, comps, nil)
	size := make([]float64, m)
	for r := range n {
		x := X.RawRowView(r)
		kernel.Column(col, k, &P, x)
		for i, v := range col {
			size[i] = testmat.KernelValueSize(k, x, P.RawRowView(i), v)
			if centred {
				col[i] = v - mean[i]
			}
		}
		for q := range comps {
			var s, t float64
			for i := range m {
				u := U.At(i, q)
				s += u * col[i]
				t += math.Abs(u) * (size[i] + abs[i])
			}
			res.Set(r, q, s*inv[q])
			scale.Set(r, q, t*inv[q])
		}
	}
	return res, scale
}

// TestTransformBlocks compares Model.Transform (kernel blocks, kernel.Cross, and one
// product per block) with the element path (transformReference) for centred and
// uncentred models of 100 points, started in one batch and grown point by point, on the
// stored points, copies at distances from 1e-8 to 1e3 of their norm, one-ulp
// near-duplicates of them and far points; RBF (the median distance and a twentieth of
// it), a quadratic and the linear kernel; on Yeast (d = 8), the same offset by 1e4, and
// split in two clusters 1e3 apart (points far from their mean, where the distance
// identity cancels unless evaluated directly).
//
// Tolerance. By docs/design.md, "Kernel blocks", a block's RBF value is within
// (τ + 4ε)·max(1, e)·v of the true one (τ = 1e-13) and Eval's within (d + 3)·ε·max(1, e)·v,
// so the two within (τ + (d + 7)·ε)·size; a polynomial or linear value within
// 2(d + 4)·ε·size of Eval's: with d = 8 at most 1.02e-13·size. The centring term K1ᵢ/m
// is a sum of m = 100 values, maintained by the model and recomputed here, each within
// m·ε·Aᵢ (1.1e-14·Aᵢ); the score sums m terms uᵢ·k'ᵢ in two orders (2m·ε = 2.2e-14 of
// Σ|uᵢ·k'ᵢ|). So the scores agree within about 1.5e-13·S_q; the test allows 1e-12·S_q,
// over six times that, and far below a wrong value, component or sign, which moves a
// score by a fraction of S_q. Each model is projected with and without the shifted copy
// of its points (transformCopyBytes), the two routes of a Transform.
func TestTransformBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	base := points(t, "yeast", 100)
	med := rbfMedian(t, base).Sigma
	for name, x := range testmat.BlockSets("yeast", base) {
		X := testmat.NearPoints(rng, x, []float64{1e-8, 1e-6, 1e-4, 1e-2, 1, 10, 1e3}, 3*med)
		n, _ := X.Dims()
		for _, k := range testmat.BlockKernels(med) {
			for _, uncentred := range []bool{false, true} {
				for _, grown := range []bool{false, true} {
					what := fmt.Sprintf("%s %v %v grown %v", name, k, modeName(uncentred), grown)
					var md *Model
					if grown {
						md = fitModel(t, k, x.Slice(0, 10, 0, 8), Options{Components: All, Uncentred: uncentred})
						testmat.AddRows(t, md, x, 10, 100)
					} else {
						md = fitModel(t, k, x, Options{Components: All, Uncentred: uncentred})
					}
					comps := min(6, md.Components())
					want, scale := transformReference(md, X, comps)
					// Both routes: the shifted copy of the points, each row projected in
					// cache, and, as for a model whose copy would exceed
					// transformCopyBytes, none (kernel.NewCrossNoCopy), the block then
					// projected by one dgemm.
					for _, copyBytes := range []int{transformCopyBytes, 0} {
						saved := transformCopyBytes
						transformCopyBytes = copyBytes
						var got mat.Dense
						err := md.Transform(&got, X, comps)
						transformCopyBytes = saved
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						for i := range n {
							for q := range comps {
								if d := math.Abs(got.At(i, q) - want.At(i, q)); !(d <= 1e-12*scale.At(i, q)) {
									t.Fatalf("%s, copy up to %d bytes, point %d component %d: %v, element path %v (|Δ| = %.3g, S = %.3g)",
										what, copyBytes, i, q, got.At(i, q), want.At(i, q), d, scale.At(i, q))
								}
							}
						}
					}
				}
			}
		}
	}
}
