// Package yardstick times the references that performance figures are measured
// against in the same run: one n×n×n dgemm, the floor of an exact eigen-update, and a
// batch symmetric eigendecomposition, the recompute-from-scratch alternative. It is used
// by the benchmarks of several packages so that their ratios mean the same thing.
package yardstick

import (
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/native"
)

// Stick times dgemms and batch eigendecompositions of one order n.
type Stick struct {
	n       int
	g, c    blas64.General
	sym     []float64
	w       []float64
	gemm    time.Duration // accumulated over Dgemm calls
	count   int
	batches []time.Duration
}

// New prepares the yardsticks of order n (random matrices; one warm-up dgemm).
func New(n int) *Stick {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	a := make([]float64, n*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	s := &Stick{
		n: n,
		g: blas64.General{Rows: n, Cols: n, Stride: n, Data: a},
		c: blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)},
	}
	native.Gemm(blas.NoTrans, blas.Trans, 1, s.g, s.g, 0, s.c)
	return s
}

// Dgemm times one n×n×n product, adds it to the total and returns its time. Benchmarks
// call it in every iteration, interleaved with the operation they measure, so that the
// ratio compares like with like even when the machine's speed drifts.
func (s *Stick) Dgemm() time.Duration {
	start := time.Now()
	native.Gemm(blas.NoTrans, blas.Trans, 1, s.g, s.g, 0, s.c)
	d := time.Since(start)
	s.gemm += d
	s.count++
	return d
}

// MeanDgemm returns the mean time of the timed dgemms.
func (s *Stick) MeanDgemm() time.Duration {
	if s.count == 0 {
		return 0
	}
	return s.gemm / time.Duration(s.count)
}

// DefaultBatchMax is the largest order at which Batch times the batch eigensolver by
// default: 4000 with OpenBLAS, 1000 in pure Go (gonum's Dsyev takes minutes beyond).
func DefaultBatchMax() int {
	if native.Compiled == "openblas" {
		return 4000
	}
	return 1000
}

// Batch times one batch eigendecomposition (values and vectors) of a random symmetric
// matrix, if n ≤ limit (a negative limit means DefaultBatchMax).
func (s *Stick) Batch(limit int) {
	if limit < 0 {
		limit = DefaultBatchMax()
	}
	if s.n > limit {
		return
	}
	if s.sym == nil {
		rng := rand.New(rand.NewPCG(uint64(s.n), 5))
		s.sym = make([]float64, s.n*s.n)
		for i := range s.n {
			for j := i; j < s.n; j++ {
				v := rng.NormFloat64()
				s.sym[i*s.n+j], s.sym[j*s.n+i] = v, v
			}
		}
		s.w = make([]float64, s.n)
	}
	copy(s.c.Data, s.sym)
	start := time.Now()
	if err := native.EigenSymInPlace(s.n, s.c.Data, s.n, s.w, true); err != nil {
		panic(err)
	}
	s.batches = append(s.batches, time.Since(start))
}

// MedianBatch returns the median batch time, or 0 if none was timed.
func (s *Stick) MedianBatch() time.Duration {
	if len(s.batches) == 0 {
		return 0
	}
	b := slices.Clone(s.batches)
	slices.Sort(b)
	return b[len(b)/2]
}
