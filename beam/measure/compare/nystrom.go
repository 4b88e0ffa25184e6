package main

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
)

// rounding bounds the error of either model's feature covariance C (p'×p'), relative to
// λ₁, in the 2-norm: its sums are compensated across blocks and plain within blocks of
// 64 (about 64ε relative per entry, docs/design.md, "Nyström kernel PCA"), and the
// eigensolver adds about p'·ε. 1e-10 leaves a margin of 100 over 200 landmarks'
// worst case, and any real disagreement — a point lost or counted twice, another
// landmark — is far above it (one point of a million moves C by about 1e-6·λ₁).
const rounding = 1e-10

// compareNystrom fits nystrom.Model on the pipeline model's landmarks, kernel,
// tolerance and centring to the points in file order and compares: the eigenvalues, to
// rounding·λ₁; the span of the top k components, whose largest principal angle is at
// most rounding·λ₁/(λₖ − λₖ₊₁) (Davis–Kahan); and the scores of the probe points on
// the leading components that are each separated by more than 1e-4·λ₁, to 1e-6 of the
// largest score (Davis–Kahan again: each direction moves by at most rounding/1e-4).
func compareNystrom(pipe *ikpcabeam.Nystrom, files []string, probes, k int) error {
	var L mat.Dense
	pipe.Landmarks(&L)
	start := time.Now()
	single, err := nystrom.New(pipe.Kernel(), &L, nystrom.Options{Tolerance: pipe.Options().Tolerance, Uncentred: pipe.Options().Uncentred})
	if err != nil {
		return err
	}
	d := pipe.Dim()
	var P []float64 // the probe points, the first read
	err = readPoints(files, d, func(X *mat.Dense) error {
		n, _ := X.Dims()
		for i := 0; i < n && len(P) < probes*d; i++ {
			P = append(P, X.RawRowView(i)...)
		}
		return single.AddBatch(X)
	})
	if err != nil {
		return err
	}
	a, c := pipe.Values(nil), single.Values(nil)
	elapsed := time.Since(start)
	r, _ := L.Dims()
	spec := pipe.Kernel().(kernel.Specified).Spec()
	fmt.Printf("Nyström KPCA: %d landmarks, %d features, kernel %s σ = %.6g\n", r, pipe.Features(), spec.Name, spec.Sigma)
	fmt.Printf("points: pipeline %d, single process %d\n", pipe.Len(), single.Len())
	fmt.Printf("single-process fit (reading included): %v\n", elapsed.Round(time.Millisecond))
	if pipe.Len() != single.Len() || len(a) != len(c) || len(c) < 2 {
		return fmt.Errorf("the models differ: %d and %d points, %d and %d components", pipe.Len(), single.Len(), len(a), len(c))
	}
	var failed []string
	if eigenvaluesDiffer(a, c) {
		failed = append(failed, "eigenvalues")
	}
	k = min(k, len(c)-1)
	if spansDiffer(pipe, single, c, k) {
		failed = append(failed, "principal angles")
	}
	differ, err := scoresDiffer(pipe, single, c, k, P, d)
	if err != nil {
		return err
	}
	if differ {
		failed = append(failed, "scores")
	}
	if failed != nil {
		return fmt.Errorf("the models differ beyond rounding: %v", failed)
	}
	return nil
}

// eigenvaluesDiffer prints the largest difference of the pipeline's eigenvalues a and the
// single process's c, relative to λ₁ = c[0], and reports whether it exceeds rounding·λ₁:
// both models sum the same points, so their eigenvalues should differ by rounding alone.
func eigenvaluesDiffer(a, c []float64) bool {
	lambda1 := c[0]
	var worst float64
	for i := range c {
		worst = math.Max(worst, math.Abs(a[i]-c[i]))
	}
	fmt.Printf("eigenvalues: λ₁ = %.6g, largest difference %.3g·λ₁ over %d (bound %g)\n", lambda1, worst/lambda1, len(c), rounding)
	return worst > rounding*lambda1
}

// spansDiffer prints the largest principal angle between the spans of the two models' top
// k components and reports whether its sine exceeds the Davis–Kahan bound
// rounding·λ₁/(λₖ − λₖ₊₁), c being the single process's eigenvalues (k < len(c)). The
// spans compare only when the two models share a feature map; when they do not, it says
// so and reports no difference, leaving the comparison to the scores.
func spansDiffer(pipe *ikpcabeam.Nystrom, single *nystrom.Model, c []float64, k int) bool {
	lambda1 := c[0]
	gap := c[k-1] - c[k]
	var V, W mat.Dense
	pipe.VectorsTo(&V)
	single.VectorsTo(&W)
	if err := pipe.Empty().Merge(single); err != nil {
		// Another feature map (it cannot be, the same process built both from the same
		// landmarks): the directions are in other coordinates, and only the scores compare.
		fmt.Printf("principal angles: not comparable, the feature maps differ (%v)\n", err)
		return false
	}
	sin := sinLargestAngle(V.Slice(0, pipe.Features(), 0, k), W.Slice(0, pipe.Features(), 0, k))
	bound := rounding * lambda1 / gap
	fmt.Printf("top %d components: largest principal angle sin θ = %.3g (bound %.3g, gap λ%d − λ%d = %.3g·λ₁)\n", k, sin, bound, k, k+1, gap/lambda1)
	return sin > bound
}

// scoresDiffer prints the largest difference of the two models' scores of the probe
// points P (rows of d numbers) on the leading components among the top k that are each
// separated from the next by more than 1e-4·λ₁, relative to the largest score, and
// reports whether it exceeds 1e-6. Only separated components are compared because the
// direction of a component close to its neighbour is not pinned down to 1e-6 by the
// Davis–Kahan bound; with none separated, it says so and reports no difference.
func scoresDiffer(pipe *ikpcabeam.Nystrom, single *nystrom.Model, c []float64, k int, P []float64, d int) (bool, error) {
	lambda1 := c[0]
	ks := 0
	for ks < k && c[ks]-c[ks+1] > 1e-4*lambda1 {
		ks++
	}
	if ks == 0 {
		fmt.Printf("scores: λ₁ − λ₂ = %.3g·λ₁, no component separated by 1e-4·λ₁ to compare\n", (c[0]-c[1])/lambda1)
		return false, nil
	}
	X := mat.NewDense(len(P)/d, d, P)
	var Y, Z mat.Dense
	if err := pipe.Transform(&Y, X, ks); err != nil {
		return false, err
	}
	if err := single.Transform(&Z, X, ks); err != nil {
		return false, err
	}
	diff := scoreDifference(&Y, &Z)
	fmt.Printf("scores of %d probe points on the top %d components: largest difference %.3g of the largest score (bound 1e-6)\n", len(P)/d, ks, diff)
	return diff > 1e-6, nil
}

// sinLargestAngle returns the sine of the largest principal angle between the spans of
// the orthonormal columns of V and W: ‖W − V·VᵀW‖₂, W's part outside V's span.
func sinLargestAngle(V, W mat.Matrix) float64 {
	var VtW, R mat.Dense
	VtW.Mul(V.T(), W)
	R.Mul(V, &VtW)
	R.Sub(W, &R)
	var svd mat.SVD
	if !svd.Factorize(&R, mat.SVDNone) {
		return math.NaN()
	}
	return svd.Values(nil)[0]
}

// scoreDifference returns the largest difference of Y's and Z's scores relative to the
// largest of Z's, each column of Y signed as Z's (a direction's sign is a convention).
func scoreDifference(Y, Z *mat.Dense) float64 {
	_, k := Z.Dims()
	var worst, big float64
	for _, v := range Z.RawMatrix().Data {
		big = math.Max(big, math.Abs(v))
	}
	for j := range k {
		y, z := mat.Col(nil, j, Y), mat.Col(nil, j, Z)
		if floats.Dot(y, z) < 0 {
			floats.Scale(-1, y)
		}
		worst = math.Max(worst, floats.Distance(y, z, math.Inf(1)))
	}
	return worst / big
}
