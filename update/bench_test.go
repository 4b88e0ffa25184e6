package update

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/yardstick"
	"github.com/ikpca/ikpca/native"
)

var (
	benchSizes = flag.String("ikpca.sizes", "250,500,1000,2000",
		"comma-separated matrix orders for BenchmarkBorder, BenchmarkRankOne and BenchmarkRemove (add 4000 for the README table)")
	benchBatchMax = flag.Int("ikpca.batchmax", -1,
		"largest order at which the batch eigensolver is timed as the baseline (-1: 4000 with OpenBLAS, 1000 with pure-Go gonum, whose Dsyev takes minutes beyond)")
	benchThreads = flag.Int("ikpca.threads", 0,
		"OpenBLAS threads for the benchmarks (0: leave as configured, e.g. by OPENBLAS_NUM_THREADS)")
)

// Benchmarks time one update at each order n against two yardsticks measured in the same
// run, on the same backend and threads:
//
//   - dgemm-ms: one n×n×n dgemm, the floor of an exact update (the product U·Ũ). One
//     dgemm is timed in every iteration, interleaved with the update, so that the ratio
//     x-dgemm compares like with like even when the machine's speed drifts;
//   - batch-ms: a batch eigendecomposition of an n×n matrix (dsyevd with OpenBLAS,
//     gonum's Dsyev otherwise), the recompute-from-scratch alternative, timed before and
//     after the loop (median).
//
// x-dgemm and x-batch are the update time divided by them, GFLOP/s counts the 2n³ flops
// of the product. The matrices are random, so nothing deflates: the worst case. Kernel
// matrices deflate heavily and update faster (see bench/).
func sizes(b *testing.B) []int {
	if testing.Short() {
		return []int{250}
	}
	var out []int
	for _, f := range strings.Split(*benchSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			b.Fatalf("bad -ikpca.sizes entry %q", f)
		}
		out = append(out, n)
	}
	return out
}

var benchSetup sync.Once

func setupBench(b *testing.B) {
	benchSetup.Do(func() {
		if *benchThreads > 0 {
			if err := native.SetThreads(*benchThreads); err != nil {
				b.Logf("threads: %v", err)
			}
		}
	})
	b.Logf("backend %v", native.Active())
}

// phases sums the phase times of the updates of a benchmark.
type phases [3]time.Duration // project, solve, assemble

func (p *phases) add(st Stats) {
	p[0] += st.Project
	p[1] += st.Solve
	p[2] += st.Assemble
}

// report adds the yardstick and phase metrics for an update producing an n×n
// decomposition.
func report(b *testing.B, n int, y *yardstick.Stick, p phases) {
	per := b.Elapsed() / time.Duration(b.N)
	fn := float64(n)
	gemm := y.MeanDgemm()
	b.ReportMetric(float64(gemm.Microseconds())/1000, "dgemm-ms")
	b.ReportMetric(float64(per)/float64(gemm), "x-dgemm")
	b.ReportMetric(2*fn*fn*fn/per.Seconds()/1e9, "GFLOP/s")
	for i, name := range []string{"project-ms", "solve-ms", "assemble-ms"} {
		b.ReportMetric(float64(p[i].Microseconds())/1000/float64(b.N), name)
	}
	if batch := y.MedianBatch(); batch > 0 {
		b.ReportMetric(float64(batch.Microseconds())/1000, "batch-ms")
		b.ReportMetric(float64(per)/float64(batch), "x-batch")
	}
}

// benchBase returns a decomposition of a random symmetric matrix of order n (random
// orthogonal eigenvectors, eigenvalues uniform in [−1, 1]) and a random vector.
func benchBase(b *testing.B, n int) (*Sym, []float64) {
	rng := rand.New(rand.NewPCG(uint64(n), 2))
	values := make([]float64, n)
	v := make([]float64, n)
	for i := range values {
		values[i] = 2*rng.Float64() - 1
		v[i] = rng.NormFloat64()
	}
	var s Sym
	s.Reserve(n + 1)
	if err := s.SetEigen(values, synth.RandomOrthogonal(n, rng)); err != nil {
		b.Fatal(err)
	}
	return &s, v
}

// benchUpdate times step, an update of a copy of base producing an n×n decomposition,
// against the yardsticks of order n.
func benchUpdate(b *testing.B, n int, base *Sym, step func(*Sym) error) {
	y := yardstick.New(n)
	y.Batch(*benchBatchMax)
	var p phases
	var s Sym
	s.Reserve(n)
	s.CopyFrom(base)
	if err := step(&s); err != nil { // warm the solver's workspace
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s.CopyFrom(base)
		y.Dgemm()
		b.StartTimer()
		if err := step(&s); err != nil {
			b.Fatal(err)
		}
		p.add(s.Stats())
	}
	b.StopTimer()
	y.Batch(*benchBatchMax)
	report(b, n, y, p)
}

// BenchmarkBorder times A ← [[A, a], [aᵀ, c]] from order n−1 to n.
func BenchmarkBorder(b *testing.B) {
	setupBench(b)
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			base, a := benchBase(b, n-1)
			av := vd(a)
			benchUpdate(b, n, base, func(s *Sym) error { return s.Border(av, 0.3) })
		})
	}
}

// BenchmarkRemove times the deletion of a middle row and column, from order n to n−1:
// one secular solve and one n×(n−1)×n dgemm, reported against the yardsticks of order n
// (x-dgemm: an n×n×n dgemm), the order removed from. The eigenvectors are Haar-random,
// so nothing deflates: the worst case.
func BenchmarkRemove(b *testing.B) {
	setupBench(b)
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			base, _ := benchBase(b, n)
			benchUpdate(b, n, base, func(s *Sym) error { return s.Remove(n / 2) })
		})
	}
}

// BenchmarkRankOne times A ← A + ρ·v·vᵀ at order n.
func BenchmarkRankOne(b *testing.B) {
	setupBench(b)
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			base, v := benchBase(b, n)
			vv := vd(v)
			benchUpdate(b, n, base, func(s *Sym) error { return s.RankOne(0.7, vv) })
		})
	}
}
