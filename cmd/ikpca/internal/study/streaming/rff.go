package streaming

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/stats"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/kernel"
)

// RFFOptions configure RFF: the kernel error of random Fourier features on N points of
// Dataset for D = 2⁴ … 2^MaxLog features, averaged over Seeds feature maps.
type RFFOptions struct {
	Dataset          string
	N, Seeds, MaxLog int
	Seed             uint64
	Progress         func(done, total int)
}

// RFFResult is the convergence of random Fourier features to the Gaussian kernel: for
// each feature dimension D, the root-mean-square and the largest error of z(x)ᵀz(y)
// over all pairs of the points, averaged over seeds, for both forms; Slope is the
// least-squares exponent of the RMS error in D (−½ for the O(1/√D) rate).
type RFFResult struct {
	Dataset  string
	N, Seeds int
	Sigma    float64
	Dims     []int
	RMS, Max map[features.Form][]float64
	Slope    map[features.Form]float64
}

// rffForms are the two forms of random Fourier features, in table order.
var rffForms = []features.Form{features.CosSin, features.RandomPhase}

// RFF measures the convergence. It stops early with ctx's error when ctx is done.
func RFF(ctx context.Context, o RFFOptions) (*RFFResult, error) {
	if !slices.Contains(DataSets, o.Dataset) {
		return nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, o.Dataset, DataSets)
	}
	if err := o.check(rows(o.Dataset)); err != nil {
		return nil, err
	}
	X, _, err := load(o.Dataset, o.N, 1, o.Seed)
	if err != nil {
		return nil, err
	}
	n, d := X.Dims()
	sigma, err := kernel.MedianDistance(X, n)
	if err != nil {
		return nil, err
	}
	G := kernel.Matrix(kernel.RBF{Sigma: sigma}, X)
	res := &RFFResult{Dataset: o.Dataset, N: n, Seeds: o.Seeds, Sigma: sigma,
		RMS: map[features.Form][]float64{}, Max: map[features.Form][]float64{}, Slope: map[features.Form]float64{}}
	for l := 4; l <= o.MaxLog; l++ {
		res.Dims = append(res.Dims, 1<<l)
	}
	done, total := 0, len(rffForms)*len(res.Dims)
	for _, form := range rffForms {
		for _, D := range res.Dims {
			var ss, worst float64
			for s := range o.Seeds {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				r, err := features.NewRFF(kernel.RBF{Sigma: sigma}, d, features.RFFOptions{Dim: D, Form: form, Seed: o.Seed + uint64(s)})
				if err != nil {
					return nil, err
				}
				var Z, ZZ mat.Dense
				if err := r.Transform(&Z, X); err != nil {
					return nil, err
				}
				ZZ.Mul(&Z, Z.T())
				for i := range n {
					for j := i + 1; j < n; j++ {
						e := ZZ.At(i, j) - G.At(i, j)
						ss += e * e
						worst = math.Max(worst, math.Abs(e))
					}
				}
			}
			pairs := float64(n*(n-1)/2) * float64(o.Seeds)
			res.RMS[form] = append(res.RMS[form], math.Sqrt(ss/pairs))
			res.Max[form] = append(res.Max[form], worst)
			if done++; o.Progress != nil {
				o.Progress(done, total)
			}
		}
		dims := make([]float64, len(res.Dims))
		for i, D := range res.Dims {
			dims[i] = float64(D)
		}
		res.Slope[form] = stats.LogSlope(dims, res.RMS[form])
	}
	return res, nil
}
