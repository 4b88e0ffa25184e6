// Package stats holds the summary statistics the studies under internal/study report,
// on top of gonum's stat package: the mean with the sample standard deviation, the
// median, and the exponent of a power law fitted on logarithmic axes.
package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// MeanSD returns the mean and the sample standard deviation (n − 1 in the denominator)
// of v. The deviation of a single value is 0; the mean of none is NaN.
func MeanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	mean, sd = stat.MeanStdDev(v, nil)
	if len(v) < 2 {
		sd = 0
	}
	return mean, sd
}

// Median returns the median of v, the mean of the two middle values for an even count;
// NaN for an empty v. v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// LogSlope returns the exponent b of the power law y = a·xᵇ fitted by least squares on
// logarithmic axes (log y = log a + b·log x). The values must be positive.
func LogSlope(xs, ys []float64) float64 {
	lx, ly := make([]float64, len(xs)), make([]float64, len(ys))
	for i := range xs {
		lx[i], ly[i] = math.Log(xs[i]), math.Log(ys[i])
	}
	_, b := stat.LinearRegression(lx, ly, nil, false)
	return b
}
