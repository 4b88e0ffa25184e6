package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/yardstick"
)

// A runner is one operation prepared at one size. reset restores the state before a step
// (untimed); step performs the step (timed); detail describes the step just performed.
// rep numbers the repetitions, so that a runner can vary its input (the next point).
type runner interface {
	reset(rep int)
	step(rep int) error
	detail() detail
}

// detail is what a step did, where the operation can tell: the components deflated, the
// eigen-updates and their secular sizes, and the time of their phases (package update's
// Project, Solve and Assemble).
type detail struct {
	deflated, updates, secular int
	project, solve, assemble   time.Duration
}

// sample is one timed step and the dgemm timed just before it.
type sample struct {
	time, dgemm   time.Duration
	allocs, bytes uint64
	detail        detail
}

// measure performs one untimed warm-up step (workspaces, page faults) and then reps timed
// steps, each paired with one dgemm of the stick timed just before it: the ratio of the
// two is then immune to the drifts of the machine's speed, which on a shared virtual
// machine reach a factor of two within minutes. Allocations are counted around the step
// alone (runtime.MemStats, read outside the timed interval).
func measure(r runner, stick *yardstick.Stick, reps int) ([]sample, error) {
	r.reset(0)
	if err := r.step(0); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	out := make([]sample, reps)
	var before, after runtime.MemStats
	for i := range reps {
		r.reset(i)
		g := stick.Dgemm()
		runtime.ReadMemStats(&before)
		start := time.Now()
		err := r.step(i)
		d := time.Since(start)
		runtime.ReadMemStats(&after)
		if err != nil {
			return nil, fmt.Errorf("repetition %d: %w", i, err)
		}
		out[i] = sample{time: d, dgemm: g, allocs: after.Mallocs - before.Mallocs,
			bytes: after.TotalAlloc - before.TotalAlloc, detail: r.detail()}
	}
	return out, nil
}

// summary condenses the samples of one operation at one size and thread count.
type summary struct {
	reps             int
	median, min, max time.Duration // of the step
	mean             time.Duration
	dgemm            time.Duration // median of the paired dgemms
	xDgemm           float64       // median of the paired ratios step/dgemm
	allocs, bytes    float64       // per step
	detail                         // means per step
}

func summarize(s []sample) summary {
	n := len(s)
	times := make([]time.Duration, n)
	gemms := make([]time.Duration, n)
	ratios := make([]float64, n)
	var out summary
	out.reps = n
	var det [6]float64
	var total time.Duration
	for i, x := range s {
		total += x.time
		times[i], gemms[i] = x.time, x.dgemm
		ratios[i] = float64(x.time) / float64(x.dgemm)
		out.allocs += float64(x.allocs)
		out.bytes += float64(x.bytes)
		det[0] += float64(x.detail.deflated)
		det[1] += float64(x.detail.updates)
		det[2] += float64(x.detail.secular)
		det[3] += float64(x.detail.project)
		det[4] += float64(x.detail.solve)
		det[5] += float64(x.detail.assemble)
	}
	fn := float64(n)
	out.allocs /= fn
	out.bytes /= fn
	out.deflated = int(math.Round(det[0] / fn))
	out.updates = int(math.Round(det[1] / fn))
	out.secular = int(math.Round(det[2] / fn))
	out.project = time.Duration(det[3] / fn)
	out.solve = time.Duration(det[4] / fn)
	out.assemble = time.Duration(det[5] / fn)
	out.median, out.min, out.max = medianDuration(times), slices.Min(times), slices.Max(times)
	out.mean = total / time.Duration(n)
	out.dgemm = medianDuration(gemms)
	out.xDgemm = median(ratios)
	return out
}

// median returns the median of x (the mean of the middle two for even lengths); x is
// reordered.
var median = vec.Median

func medianDuration(x []time.Duration) time.Duration {
	f := make([]float64, len(x))
	for i, v := range x {
		f[i] = float64(v)
	}
	return time.Duration(median(f))
}

// exponent fits t = c·mᵖ by least squares on log t against log m and returns p, or NaN
// with fewer than two distinct sizes.
func exponent(m []int, t []time.Duration) float64 {
	if len(m) != len(t) || len(m) < 2 {
		return math.NaN()
	}
	var sx, sy, sxx, sxy float64
	for i := range m {
		x, y := math.Log(float64(m[i])), math.Log(t[i].Seconds())
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	n := float64(len(m))
	den := n*sxx - sx*sx
	if den <= 1e-12*n*sxx {
		return math.NaN()
	}
	return (n*sxy - sx*sy) / den
}
