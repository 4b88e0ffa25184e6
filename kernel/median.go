package kernel

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
)

// medianChunk is how many rows of MedianDistance's pairs a goroutine takes at a time:
// 16 rows of 784 coordinates, 100 KB, stay in a core's L2 cache.
const medianChunk = 16

// MedianDistance returns the median of the Euclidean distances ‖X_i − X_j‖
// over all pairs i < j of the first m = min(rows, limit) rows of X — the
// "median heuristic" for the bandwidth σ of an [RBF] or [Laplacian] kernel
// (Hallgren & Northrop use limit = 1000). [DefaultBandwidth] applies it to a
// seeded random subsample instead of the first rows. For an even number of pairs it
// returns the mean of the two middle values. Duplicate rows contribute zero
// distances like any other pair.
//
// The m(m−1)/2 squared distances, each summed from the differences of
// coordinates (not from norms, which lose close pairs to cancellation), are
// computed on up to GOMAXPROCS goroutines into a scratch slice (8 bytes per
// pair, about 4 MB for m = 1000), and the middle one is found by quickselect
// in O(m²) expected time, after which only one or two square roots are
// taken. The result does not depend on GOMAXPROCS.
//
// MedianDistance returns an error wrapping [ErrArgument] if limit < 2 or X is nil,
// [ErrEmpty] if X is empty or has fewer than 2 rows, [ErrNonFinite] if the m rows used
// contain NaN or ±Inf (rows beyond m are not examined), and ErrArgument if the median
// distance overflows.
func MedianDistance(X *mat.Dense, limit int) (float64, error) {
	if limit < 2 {
		return 0, fmt.Errorf("%w: MedianDistance: limit %d < 2", ErrArgument, limit)
	}
	if X == nil {
		return 0, fmt.Errorf("%w: MedianDistance: nil X", ErrArgument)
	}
	if X.IsEmpty() {
		return 0, fmt.Errorf("%w: MedianDistance: X is empty", ErrEmpty)
	}
	raw := X.RawMatrix()
	if raw.Rows < 2 {
		return 0, fmt.Errorf("%w: MedianDistance: %d row, need at least 2", ErrEmpty, raw.Rows)
	}
	m, d, s := min(raw.Rows, limit), raw.Cols, raw.Stride
	for i := range m {
		for j, v := range raw.Data[i*s : i*s+d] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: MedianDistance: X[%d,%d] = %v is not finite", ErrNonFinite, i, j, v)
			}
		}
	}

	p := m * (m - 1) / 2
	sq := make([]float64, p)
	// Row i's pairs (i, j > i) fill sq from offset i·m − i(i+1)/2 on, whichever
	// goroutine computes them: the array, and so the median, does not depend on
	// GOMAXPROCS. Rows are handed out a few at a time, for their lengths fall with i.
	// A chunk's rows i meet each row j > lo in turn, so that row j is read once from
	// memory for the whole chunk: row by row, the m rows of 784 coordinates (6 MB)
	// streamed from the last-level cache for every i, and a second core gained nothing.
	pairs := func(lo, hi int) {
		for j := lo + 1; j < m; j++ {
			xj := raw.Data[j*s : j*s+d]
			for i := lo; i < min(hi, j); i++ {
				sq[i*m-i*(i+1)/2+j-i-1] = vec.SqDist(raw.Data[i*s:i*s+d], xj)
			}
		}
	}
	var team parallel.Team
	team.Run(workers(p, d, m), m, medianChunk, pairs)

	// Square root is monotone, so the order statistics of the squared
	// distances are the squares of those of the distances.
	hi := p / 2
	selectKth(sq, hi)
	med := math.Sqrt(sq[hi])
	if p%2 == 0 {
		// After selection every element of sq[:hi] is ≤ sq[hi]; the
		// other middle value is the largest of them.
		med = (math.Sqrt(slices.Max(sq[:hi])) + med) / 2
	}
	if math.IsInf(med, 0) {
		return 0, fmt.Errorf("%w: MedianDistance: the median distance overflows float64", ErrArgument)
	}
	return med, nil
}

// selectKth reorders a so that a[k] is the value at index k of sorted(a),
// every element of a[:k] is ≤ a[k] and every element of a[k+1:] is ≥ a[k].
// a must not contain NaN; 0 ≤ k < len(a).
//
// It is quickselect with pseudo-random pivots and three-way partitioning, so
// runs of equal values (such as the zero distances of duplicate rows) are
// settled in one pass: O(len(a)) expected time. Should an unlucky pivot
// sequence make it exceed 4·log₂(len(a)) + 8 rounds, it sorts the remaining
// range instead, bounding the worst case by O(len(a)·log len(a)).
func selectKth(a []float64, k int) {
	lo, hi := 0, len(a)-1 // inclusive bounds of the range holding index k
	rng := uint64(0x9e3779b97f4a7c15)
	budget := 8
	for n := len(a); n > 1; n >>= 1 {
		budget += 4
	}
	for lo < hi {
		if budget == 0 {
			slices.Sort(a[lo : hi+1])
			return
		}
		budget--
		// xorshift64 pseudo-random pivot in [lo, hi].
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		pivot := a[lo+int(rng%uint64(hi-lo+1))]

		// Dijkstra's three-way partition of a[lo:hi+1] into
		// < pivot | == pivot | > pivot.
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch v := a[i]; {
			case v < pivot:
				a[lt], a[i] = v, a[lt]
				lt++
				i++
			case v > pivot:
				a[i], a[gt] = a[gt], v
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return // a[lt:gt+1] are all equal to pivot and contain k
		}
	}
}
