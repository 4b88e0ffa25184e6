package kpca

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// BenchmarkTileParts times the two parts of a pass's tile (tileProduct) apart, on
// GOMAXPROCS workers at once, each on tiles of its own, as a pass runs them: "kernel",
// the tile's kernel values (kernel.Cross.BlockPointsTo: for an RBF the distance dgemm and
// the exponentials), and "products", its two dgemms with c = 50 vectors, W_I += K_IJ·Q_J
// and W_J += K_IJᵀ·Q_I. It reports each part's milliseconds per tile and worker; run
// with -cpu 1,2,… to see what each part gains from more cores: equal times mean
// perfectly parallel tiles (docs/performance.md, "Phases and threads", where a VM that
// sometimes runs a lone core faster shows in the one-worker times). Tiles of order 512
// over all of MAGIC's points (d = 10), in the pass's own shape, with the backend
// single-threaded as in a pass (native.OwnCores).
func BenchmarkTileParts(b *testing.B) {
	X := shuffled(b, "magic", 19020, 1)
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		b.Fatal(err)
	}
	m, d := X.Dims()
	md := &Model{kern: kernel.RBF{Sigma: sigma}, d: d, m: m}
	md.view.SetRawMatrix(X.RawMatrix())
	ps := md.passer()
	q := randomVectors(m, 50, true, 11).RawMatrix()
	const T = 512
	nb := m / T
	workers := runtime.GOMAXPROCS(0)
	release := native.OwnCores(workers)
	defer release()
	// Each worker computes tiles (I, J) of its own in turn, I from its own blocks.
	parts := []struct {
		name string
		run  func(tw *tileWork, w blas64.General, i, j int)
	}{
		{"kernel", func(tw *tileWork, _ blas64.General, i, j int) {
			ps.cross.BlockPointsTo(&tw.kd, i*T, i*T+T, j*T, j*T+T, &tw.work)
		}},
		{"products", func(tw *tileWork, w blas64.General, i, j int) {
			kb := tw.kd.RawMatrix()
			native.Gemm(blas.NoTrans, blas.NoTrans, 1, kb, rowsOf(q, j*T, j*T+T), 1, w)
			native.Gemm(blas.Trans, blas.NoTrans, 1, kb, rowsOf(q, i*T, i*T+T), 1, w)
		}},
	}
	works := make([]tileWork, workers)
	for g := range works {
		works[g].work.Workers = 1
		works[g].kb = make([]float64, T*T)
		works[g].kd.SetRawMatrix(blas64.General{Rows: T, Cols: T, Stride: T, Data: works[g].kb})
		parts[0].run(&works[g], blas64.General{}, g%nb, (g+1)%nb)
	}
	const tiles = 20 // per worker and part, a round
	times := make([][]float64, len(parts))
	for b.Loop() {
		for p, part := range parts {
			var wg sync.WaitGroup
			start := time.Now()
			for g := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					w := blas64.General{Rows: T, Cols: 50, Stride: 50, Data: make([]float64, T*50)}
					for t := range tiles {
						part.run(&works[g], w, (g+t)%nb, (g+3*t+1)%nb)
					}
				}()
			}
			wg.Wait()
			times[p] = append(times[p], time.Since(start).Seconds()/tiles*1e3)
		}
	}
	for p, part := range parts {
		b.ReportMetric(vec.Median(times[p]), part.name+"-ms/tile")
	}
}
