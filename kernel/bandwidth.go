package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// BandwidthSample is the number of points [DefaultBandwidth] looks at: the
// median distance of a data set of n points is estimated from
// min(n, BandwidthSample) of them.
//
// The median of the pairwise distances of m points is a U-quantile: its
// standard error falls like 1/√m, so m = 1000 points (499 500 pairs) pin the
// bandwidth to about a percent or two, far closer than kernel PCA's
// sensitivity to σ, while the cost stays fixed whatever n: 499 500 distances
// (O(m²·d) flops) and 4 MB of scratch. This is also the subsample size of
// Hallgren and Northrop's experiments.
const BandwidthSample = 1000

// bandwidthSeed seeds the subsample of DefaultBandwidth, so that the same data
// give the same bandwidth on every run and machine.
const bandwidthSeed = 0x1D_C0FFEE

// DefaultBandwidth returns the default bandwidth σ of an [RBF] or [Laplacian]
// kernel for the points in the rows of X: the median Euclidean distance
// between pairs of points (the "median heuristic"; see [MedianDistance]).
//
// With more than [BandwidthSample] rows it uses a subsample of
// BandwidthSample distinct rows drawn uniformly at random with a fixed seed:
// the result depends only on X, and a file sorted by class (as the UCI MAGIC
// data are) does not bias it the way its first rows would. With at most
// BandwidthSample rows it uses them all and is exactly MedianDistance(X, n).
//
// It returns an error wrapping [ErrArgument] if X is nil (or a nil pointer), [ErrEmpty]
// if it has fewer than two rows or no columns, [ErrNonFinite] if the rows used hold NaN
// or ±Inf, and ErrArgument if the median distance overflows or is zero (more than half
// of the pairs coincide), which is no bandwidth at all.
func DefaultBandwidth(X mat.Matrix) (float64, error) {
	// Only the sample is read, and copied: the whole of X, 10,000 Fashion-MNIST
	// images held by the command as bytes, would be 63 MB read through At (kinds.Rows).
	var rows []int
	sample, n, d, err := kinds.Rows(X, func(n int) []int { rows = bandwidthRows(n); return rows })
	if err != nil {
		return 0, err
	}
	if n < 2 || d < 1 {
		return 0, fmt.Errorf("%w: DefaultBandwidth: %d×%d points, need at least 2 rows", ErrEmpty, n, d)
	}
	for p, i := range rows {
		for j, v := range sample.RawRowView(p) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: DefaultBandwidth: X[%d,%d] = %v is not finite", ErrNonFinite, i, j, v)
			}
		}
	}
	// The sample is finite and has at least two rows: MedianDistance fails only if the
	// median distance overflows.
	sigma, err := MedianDistance(sample, len(rows))
	if err != nil {
		return 0, err
	}
	if sigma == 0 {
		return 0, fmt.Errorf("%w: DefaultBandwidth: the median distance is 0 (most points coincide); choose σ yourself", ErrArgument)
	}
	return sigma, nil
}

// bandwidthRows returns the rows of n that DefaultBandwidth looks at, in increasing
// order: all of them up to BandwidthSample, else BandwidthSample distinct rows drawn
// uniformly by Floyd's algorithm (O(BandwidthSample) draws), seeded by bandwidthSeed
// and n, so that the same data give the same rows on every run and machine.
func bandwidthRows(n int) []int {
	rows := make([]int, 0, min(n, BandwidthSample))
	if n <= BandwidthSample {
		for i := range n {
			rows = append(rows, i)
		}
		return rows
	}
	rng := rand.New(rand.NewPCG(bandwidthSeed, uint64(n)))
	chosen := make(map[int]bool, BandwidthSample)
	for j := n - BandwidthSample; j < n; j++ {
		t := rng.IntN(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
		rows = append(rows, t)
	}
	// In file order: the order does not change the median.
	slices.Sort(rows)
	return rows
}
