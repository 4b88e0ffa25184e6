package kpca

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/allocs"
	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// withPassTile makes a pass's tiles of the given order for the duration of a test or
// benchmark.
func withPassTile(tb testing.TB, tile int) {
	saved := passTile
	passTile = func(int) int { return tile }
	tb.Cleanup(func() { passTile = saved })
}

// passTiles returns the number of blocks and of tiles of a pass over m points.
func passTiles(m int) (blocks, tiles int) {
	t := max(1, min(passTile(m), m))
	blocks = (m + t - 1) / t
	return blocks, blocks * (blocks + 1) / 2
}

// randomVectors returns an m×c matrix of standard normal entries, a view with a stride
// larger than c, its columns centred if centred.
func randomVectors(m, c int, centred bool, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 2))
	big := mat.NewDense(m, c+3, nil)
	Q := big.Slice(0, m, 1, c+1).(*mat.Dense)
	for i := range m {
		for j := range c {
			Q.Set(i, j, rng.NormFloat64())
		}
	}
	if centred {
		centreColumns(Q)
	}
	return Q
}

// TestPassEqualsFormed: a pass, K′·Q from the upper triangle of K in tiles, equals the
// product with the formed matrix (kernel.Matrix, centred by kernel.Centre) to rounding,
// centred and uncentred, for RBF (the distance identity), a polynomial kernel and the
// Laplacian (entry by entry), on a model of all its points and on a window; with one
// tile of all the points, with tiles of a few points — 300 points, not a multiple of 7
// or 64, so that the last block is short, and in an even and an odd number of blocks
// (the schedule's two cases, tileRounds) — and with tiles of a single entry. W is a
// strided view filled with NaN before the pass, which must overwrite it.
//
// The tolerance is 1e-13·‖K′‖₂·‖Q‖₂ on the largest row sum of |W − K′Q|: the entries
// of a block and of kernel.Matrix are each within (τ + 10ε)·max(1, v)·k ≤ 1.1e-13 of the
// true value (τ = 1e-13, docs/design.md, "Kernel blocks"; for the RBF, v·e^(−v) ≤ 1),
// and are both computed as the same dgemm's or dsyrk's dot products in the other
// kernels; the products then differ by the order of summation, γ_m·‖K‖·‖Q‖ with
// m = 300 (3e-14·‖K‖·‖Q‖). The error measured is 1e-16–1e-15 of the scale.
func TestPassEqualsFormed(t *testing.T) {
	const m, c = 300, 7
	x := shuffled(t, "yeast", m, 3)
	_, d := x.Dims()
	kernels := []kernel.Kernel{rbfMedian(t, x), kernel.Polynomial{Degree: 2, Gamma: 0.5, Coef0: 1}, kernel.Laplacian{Sigma: 0.5}}
	shapes := []struct {
		what string
		tile int
	}{
		{"one tile", 1024},
		{"tiles of 64", 64},
		{"tiles of 7", 7},
		{"tiles of 50", 50},
		{"single entries", 1},
	}
	windows := []bool{false, true}
	if raceEnabled {
		// The race detector watches the tiles' goroutines, which are the same for every
		// kernel of one route (a dgemm's products, or entry by entry) and for a window's
		// points: the RBF and the Laplacian, on every point. Building the windows, 250
		// exact steps instrumented, took most of the test's 24 s.
		kernels, windows = []kernel.Kernel{kernels[0], kernels[2]}, []bool{false}
	}
	for _, k := range kernels {
		for _, uncentred := range []bool{false, true} {
			for _, window := range windows {
				var md *Model
				if window {
					// A window of 250 points after 350: the stored points are the
					// window's, oldest first.
					more := shuffled(t, "yeast", m+50, 4)
					md = fitModel(t, k, more.Slice(0, 100, 0, d), Options{Components: All, Uncentred: uncentred, Window: m - 50})
					if _, err := md.AddRows(context.Background(), more.Slice(100, m+50, 0, d), nil); err != nil {
						t.Fatal(err)
					}
				} else {
					md = fitModel(t, k, x, Options{Components: All, Uncentred: uncentred})
				}
				n := md.Len()
				Q := randomVectors(n, c, !uncentred, 1)
				var want mat.Dense
				a := pointsTarget(md)
				want.Mul(a, Q)
				scale := twoNorm(mat.DenseCopyOf(a)) * twoNorm(Q)
				for _, sh := range shapes {
					if raceEnabled && sh.tile == 1 {
						// 45,000 one-entry tiles: the same synchronisation as tiles of 7,
						// at a minute under the race detector.
						continue
					}
					withPassTile(t, sh.tile)
					W := mat.NewDense(n, c+2, nil).Slice(0, n, 2, c+2).(*mat.Dense)
					for i := range n {
						for j := range c {
							W.Set(i, j, math.NaN())
						}
					}
					if err := md.pass(context.Background(), W, Q); err != nil {
						t.Fatal(err)
					}
					var diff mat.Dense
					diff.Sub(W, &want)
					what := fmt.Sprintf("%v %s, %d points", k, modeName(uncentred), n)
					if window {
						what += " (window)"
					}
					blocks, tiles := passTiles(n)
					what += fmt.Sprintf(", %s (%d blocks, %d tiles)", sh.what, blocks, tiles)
					e := mat.Norm(&diff, math.Inf(1))
					if !(e <= 1e-13*scale) {
						t.Errorf("%s: a pass differs from the formed product by %.3g (scale %.3g)", what, e, scale)
					}
					if testing.Verbose() {
						t.Logf("%s: %.2g of the scale", what, e/scale)
					}
				}
			}
		}
	}
}

// TestPassNoCopy: a pass with a Cross that keeps no shifted copy of the points
// (kernel.NewCrossNoCopy, the passer's when the points take more than an eighth of the
// pass memory: PassMemory 1 here) is the pass with a Cross that keeps one
// (kernel.NewCross, the passer's otherwise), bit for bit. Its tiles are BlockPointsTo's,
// which kernel's TestBlockPoints and TestCrossNoCopy check are the copy's bit for bit
// (the same shift, norms and choice of direct evaluations, and a dgemm given the same
// operands in the same shape), and the rest of the pass the same dgemms of the same
// tiles. RBF kernels of the median bandwidth and of a tenth of it (where close pairs
// are evaluated directly), centred and uncentred, on MAGIC (d = 10) and a9a (d = 123),
// with the shapes of TestPassEqualsFormed but the single entries. And making a passer
// without the copy allocates less than half the m·d numbers of a copy
// (runtime.MemStats: the shift and the norms, d + m numbers and a row of scratch, 1.1%
// of a copy of a9a's points and 14% of MAGIC's), and with the default PassMemory the
// passer of these few points keeps the copy.
func TestPassNoCopy(t *testing.T) {
	const m, c = 300, 7
	shapes := []int{1024, 64, 7, 50}
	for _, set := range []string{"magic", "a9a"} {
		x := shuffled(t, set, m, 5)
		med := rbfMedian(t, x)
		for _, k := range []kernel.RBF{med, {Sigma: med.Sigma / 10}} {
			for _, uncentred := range []bool{false, true} {
				md := fitModel(t, k, x, Options{Components: 20, Rank: 20, Uncentred: uncentred})
				if md.passer().cross.ByProducts() && !copies(md.passer()) {
					t.Errorf("%s, %v: the passer of %d points keeps no shifted copy", set, k, m)
				}
				md.opts.PassMemory = 1
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				ps := md.passer()
				runtime.ReadMemStats(&after)
				if n, copied := after.TotalAlloc-before.TotalAlloc, 8*md.m*md.d; 2*n >= uint64(copied) {
					t.Errorf("%s, %v: a passer allocates %d bytes, a copy of the points %d", set, k, n, copied)
				}
				Q := randomVectors(m, c, !uncentred, 2)
				for _, sh := range shapes {
					withPassTile(t, sh)
					what := fmt.Sprintf("%s, %v %s, tiles of %d", set, k, modeName(uncentred), sh)
					var got, want mat.Dense
					if err := ps.pass(context.Background(), &got, Q); err != nil {
						t.Fatal(err)
					}
					copying := md.passer()
					copying.cross = kernel.NewCross(md.kern, &md.view)
					if err := copying.pass(context.Background(), &want, Q); err != nil {
						t.Fatal(err)
					}
					for i := range m {
						for j := range c {
							if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
								t.Fatalf("%s: W[%d][%d] is %v, with the copy %v", what, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// brittle is an RBF until broken, then NaN for every pair involving the point bad: a
// kernel value that is not finite at the time of a pass (the Eval of a kernel.Func).
type brittle struct {
	kernel.RBF
	bad    []float64
	broken bool
}

func (k *brittle) eval(x, y []float64) float64 {
	if k.broken && (slices.Equal(x, k.bad) || slices.Equal(y, k.bad)) {
		return math.NaN()
	}
	return k.RBF.Eval(x, y)
}

// TestPassNonFinite: a kernel value that is not finite fails a pass, a Polish and a
// Certify with an ErrNonFinite naming a pair whose value it is — one of whose points is
// the bad one — whichever tile holds it, and a failed Polish leaves the model
// as it was.
func TestPassNonFinite(t *testing.T) {
	x := shuffled(t, "yeast", 200, 5)
	named := regexp.MustCompile(`kernel value of point (\d+) with point (\d+) is NaN`)
	for _, bad := range []int{0, 57, 199} {
		k := &brittle{RBF: rbfMedian(t, x), bad: x.RawRowView(bad)}
		md := fitModel(t, kernel.Func{Name: "brittle", F: k.eval}, x, Options{Components: 10, Rank: 10})
		k.broken = true
		before := capture(md)
		for _, sh := range []int{1, 7, 64, 256} {
			withPassTile(t, sh)
			Q := randomVectors(200, 3, true, 7)
			var W mat.Dense
			err := md.pass(context.Background(), &W, Q)
			sub := named.FindStringSubmatch(fmt.Sprint(err))
			if !errors.Is(err, ErrNonFinite) || sub == nil || sub[1] != strconv.Itoa(bad) && sub[2] != strconv.Itoa(bad) {
				t.Errorf("point %d bad, tiles of %d: %v, want an ErrNonFinite naming a pair with point %d", bad, sh, err, bad)
			}
			if err := md.Polish(2); !errors.Is(err, ErrNonFinite) {
				t.Errorf("point %d bad: Polish: %v", bad, err)
			}
			if _, err := md.Certify(); !errors.Is(err, ErrNonFinite) {
				t.Errorf("point %d bad: Certify: %v", bad, err)
			}
			if !capture(md).equal(before) {
				t.Fatalf("point %d bad: a failed Polish changed the model", bad)
			}
		}
	}
}

// TestPassAllocations: a passer's second pass allocates nothing — each worker's tile of
// kernel values, its scratch and headers, the schedule's rounds and the centring's
// means are the passer's — with one thread and with two. With OpenBLAS that means zero,
// every allocation counted; gonum's pure-Go dgemm allocates a few objects for its
// goroutines, so there the bound is what the pass's dgemms allocate by themselves, the
// same products on arrays of their own.
func TestPassAllocations(t *testing.T) {
	const m, c, tile = 400, 5, 64
	withPassTile(t, tile)
	x := shuffled(t, "magic", m, 9)
	_, d := x.Dims()
	md := fitModel(t, rbfMedian(t, x), x, Options{Components: 20, Rank: 20})
	ps := md.passer()
	Q := randomVectors(m, c, true, 3)
	W := mat.NewDense(m, c, nil)
	run := func() {
		if err := ps.pass(context.Background(), W, Q); err != nil {
			t.Fatal(err)
		}
	}
	run()
	// The pass's dgemms alone, of the same shapes on arrays of their own: the distances'
	// (kernel.Cross.BlockColumnsTo) and the two products of every tile.
	kb := make([]float64, tile*tile)
	pts := blas64.General{Rows: m, Cols: d, Stride: d, Data: make([]float64, m*d)}
	w := blas64.General{Rows: m, Cols: c, Stride: c, Data: make([]float64, m*c)}
	gemms := testing.AllocsPerRun(3, func() {
		for i0 := 0; i0 < m; i0 += tile {
			for j0 := i0; j0 < m; j0 += tile {
				i1, j1 := min(i0+tile, m), min(j0+tile, m)
				k := blas64.General{Rows: i1 - i0, Cols: j1 - j0, Stride: j1 - j0, Data: kb}
				native.Gemm(blas.NoTrans, blas.Trans, -2, rowsOf(pts, i0, i1), rowsOf(pts, j0, j1), 0, k)
				native.Gemm(blas.NoTrans, blas.NoTrans, 1, k, rowsOf(w, j0, j1), 1, rowsOf(w, i0, i1))
				if i0 != j0 {
					native.Gemm(blas.Trans, blas.NoTrans, 1, k, rowsOf(w, i0, i1), 1, rowsOf(w, j0, j1))
				}
			}
		}
	})
	single := testing.AllocsPerRun(3, run)
	threads := allocs.Count(2, 1, 3, run)
	if native.Compiled == "openblas" && (single != 0 || threads != 0) {
		t.Errorf("a pass allocates %v times with OpenBLAS, %d in 3 with two threads; want 0", single, threads)
	}
	t.Logf("a pass: %v allocations, its dgemms alone %v", single, gemms)
	if single > gemms {
		t.Errorf("a pass allocates %v times; its dgemms alone %v", single, gemms)
	}
}

// passFull is the pass before the triangle (kept for BenchmarkPass): every strip of b
// rows against all m points, b = 16 MiB/(8m), then one dgemm, each kernel value off the
// diagonal computed twice.
func passFull(p *passer, W, Q *mat.Dense, work *kernel.BlockWork, scratch *[]float64) error {
	md := p.md
	m, c := Q.Dims()
	rows := max(1, min(m, (16<<20)/(8*m)))
	if cap(*scratch) < rows*m {
		*scratch = make([]float64, rows*m)
	}
	for lo := 0; lo < m; lo += rows {
		hi := min(lo+rows, m)
		kb := mat.NewDense(hi-lo, m, (*scratch)[:(hi-lo)*m])
		p.cross.BlockTo(kb, md.view.Slice(lo, hi, 0, md.d).(*mat.Dense), work)
		for i := range hi - lo {
			if !vec.Finite(kb.RawRowView(i)) {
				return blocks.NonFinite(ErrNonFinite, p.cross, &md.view, lo+i, "point")
			}
		}
		native.Mul(W.Slice(lo, hi, 0, c).(*mat.Dense), kb, Q)
	}
	if !md.opts.Uncentred {
		centreColumns(W)
	}
	return nil
}

var (
	benchPassN      = flag.Int("ikpca.pass-n", 4000, "BenchmarkPass: points (the first n Fashion-MNIST images, or MAGIC's if absent)")
	benchPassTiles  = flag.String("ikpca.pass-tiles", "256,512", "BenchmarkPass: comma-separated orders of a pass's tiles")
	benchPassMemory = flag.Int("ikpca.pass-memory", 1, "BenchmarkPass: the model's Options.PassMemory (1: every pass computes its kernel values; 0: the default)")
	benchPassCopy   = flag.Bool("ikpca.pass-copy", false, "BenchmarkPass: also time each tile with a Cross that keeps the shifted copy of the points (kernel.NewCross), as passes did before")
)

// benchImages returns the first -ikpca.pass-n Fashion-MNIST images (MAGIC's points if
// the data are not installed) and their default bandwidth.
func benchImages(b *testing.B) (*mat.Dense, float64) {
	n := *benchPassN
	var X *mat.Dense
	if ds, err := data.FashionMNIST("", n); err == nil {
		X = ds.X
	} else {
		b.Logf("Fashion-MNIST: %v; MAGIC instead", err)
		X = shuffled(b, "magic", n, 1)
	}
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		b.Fatal(err)
	}
	return X, sigma
}

// BenchmarkPass times one pass, K′·Q with c = 50 vectors, over the first -ikpca.pass-n
// images of Fashion-MNIST (d = 784; MAGIC's points, d = 10, if the data are not
// installed) with an RBF of the default bandwidth: "full", the strips of every row
// against all the points (passFull, 16 MiB as before the triangle), and "tile-T", the
// pass in tiles of order T for each T of -ikpca.pass-tiles; with -ikpca.pass-copy,
// "copy-T" too, the same pass with a Cross that keeps the shifted copy of the points
// (kernel.NewCross), as passes did before they shifted each block's points on the fly
// (kernel.NewCrossNoCopy). "full" keeps the copy, as before. Each iteration is a round
// that runs every variant once, so that a machine's changing load falls on all of
// them; it reports each variant's median seconds over the rounds, its median ratio to
// "full" in the same round and, for "tile-T", to "copy-T". Run with -benchtime Nx for N
// rounds; -ikpca.pass-tiles with "nofull" leaves "full" out.
func BenchmarkPass(b *testing.B) {
	X, sigma := benchImages(b)
	m, d := X.Dims()
	md := &Model{kern: kernel.RBF{Sigma: sigma}, d: d, m: m, opts: Options{PassMemory: *benchPassMemory}}
	md.view.SetRawMatrix(X.RawMatrix())
	Q := randomVectors(m, 50, true, 11)
	W := mat.NewDense(m, 50, nil)
	ps := md.passer()
	copying := md.passer()
	copying.cross = kernel.NewCross(md.kern, &md.view)
	var fullWork kernel.BlockWork
	var fullScratch []float64
	type variant struct {
		name         string
		tile         int
		full, copy   bool
		times, ratio []float64
		vsCopy       []float64 // tile-T: the ratio to copy-T, the variant before it
	}
	var vs []*variant
	full := true
	for _, f := range strings.Split(*benchPassTiles, ",") {
		if strings.TrimSpace(f) == "nofull" {
			full = false
			continue
		}
		tile, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || tile < 1 {
			b.Fatalf("bad -ikpca.pass-tiles entry %q", f)
		}
		if *benchPassCopy {
			vs = append(vs, &variant{name: fmt.Sprintf("copy-%d", tile), tile: tile, copy: true})
		}
		vs = append(vs, &variant{name: fmt.Sprintf("tile-%d", tile), tile: tile})
	}
	if full {
		vs = append([]*variant{{name: "full", full: true}}, vs...)
	}
	saved := passTile
	b.Cleanup(func() { passTile = saved })
	for b.Loop() {
		for i, v := range vs {
			passTile = func(int) int { return v.tile }
			t := time.Now()
			var err error
			switch {
			case v.full:
				err = passFull(copying, W, Q, &fullWork, &fullScratch)
			case v.copy:
				err = copying.pass(context.Background(), W, Q)
			default:
				err = ps.pass(context.Background(), W, Q)
			}
			if err != nil {
				b.Fatal(err)
			}
			v.times = append(v.times, time.Since(t).Seconds())
			last := v.times[len(v.times)-1]
			if full {
				v.ratio = append(v.ratio, last/vs[0].times[len(vs[0].times)-1])
			}
			if *benchPassCopy && !v.full && !v.copy {
				c := vs[i-1].times
				v.vsCopy = append(v.vsCopy, last/c[len(c)-1])
			}
		}
	}
	b.Logf("m = %d, d = %d, %d rounds", m, d, len(vs[0].times))
	for _, v := range vs {
		b.Logf("%s: seconds %.3g, ratio to full %.3g", v.name, v.times, v.ratio)
		b.ReportMetric(vec.Median(slices.Clone(v.times)), v.name+"-s")
		if !v.full && full {
			b.ReportMetric(vec.Median(v.ratio), v.name+"/full")
		}
		if len(v.vsCopy) > 0 {
			b.Logf("%s: ratio to copy %.3g", v.name, v.vsCopy)
			b.ReportMetric(vec.Median(slices.Clone(v.vsCopy)), v.name+"/copy")
		}
	}
}

// TestTileRounds: the schedule of a pass's tiles has every tile (I, J), I ≤ J, of nb
// blocks exactly once, no block twice in a round — so that a round's tiles write
// distinct rows of W — and nb rounds of at most ⌈nb/2⌉ tiles, for nb from 1 to 40.
func TestTileRounds(t *testing.T) {
	var buf []tilePair
	for nb := 1; nb <= 40; nb++ {
		seen := make(map[tilePair]int)
		rounds := 0
		tileRounds(nb, &buf, func(round []tilePair) bool {
			rounds++
			used := make(map[int]bool)
			if len(round) > (nb+1)/2 && !(nb%2 == 0 && rounds == 1) {
				t.Errorf("nb = %d: round %d has %d tiles", nb, rounds, len(round))
			}
			for _, p := range round {
				if p.i > p.j || p.i < 0 || p.j >= nb {
					t.Fatalf("nb = %d: tile %v", nb, p)
				}
				if used[p.i] || used[p.j] {
					t.Errorf("nb = %d: round %d uses a block of %v twice", nb, rounds, p)
				}
				used[p.i], used[p.j] = true, true
				seen[p]++
			}
			return true
		})
		if rounds != nb {
			t.Errorf("nb = %d: %d rounds", nb, rounds)
		}
		for i := range nb {
			for j := i; j < nb; j++ {
				if seen[tilePair{i, j}] != 1 {
					t.Errorf("nb = %d: tile (%d, %d) scheduled %d times", nb, i, j, seen[tilePair{i, j}])
				}
			}
		}
		stops := 0
		tileRounds(nb, &buf, func([]tilePair) bool { stops++; return false })
		if stops != 1 {
			t.Errorf("nb = %d: %d rounds after the first returned false", nb, stops)
		}
	}
}

// TestPassWorkers: a pass gives the same bits on one goroutine and on several (2, 3 and
// 8 of them): its tiles are the same whatever the number of workers, each computed on
// one core (native.OwnCores: OpenBLAS single-threaded), and each block of W receives
// its tiles' products in the order of the rounds. MAGIC and a9a, centred, with tiles of
// 64 (an even and an odd number of blocks).
func TestPassWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	withPassTile(t, 64)
	for _, c := range []struct {
		set string
		m   int
	}{{"magic", 700}, {"a9a", 600}} {
		x := shuffled(t, c.set, c.m, 6)
		md := fitModel(t, rbfMedian(t, x), x, Options{Components: 20, Rank: 20})
		Q := randomVectors(c.m, 9, true, 4)
		runtime.GOMAXPROCS(1)
		var want mat.Dense
		if err := md.pass(context.Background(), &want, Q); err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{2, 3, 8} {
			runtime.GOMAXPROCS(procs)
			var got mat.Dense
			if err := md.pass(context.Background(), &got, Q); err != nil {
				t.Fatal(err)
			}
			for i := range c.m {
				for j := range 9 {
					if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("%s, GOMAXPROCS %d: W[%d][%d] = %v, with one %v", c.set, procs, i, j, g, w)
					}
				}
			}
		}
	}
}

// TestPassMemory: a Polish and a Certify that keep the kernel values of their first pass
// (Options.PassMemory) give the same bits as ones that keep none, and compute the
// values once: a kernel.Func that counts its evaluations is called a pass's worth of
// times (the tiles' entries, m² + m·T over two for tiles of T with the diagonal tiles
// whole) by a Polish of 3 passes whose tiles all fit, three times that with PassMemory
// 1 (less than a tile), and between the two when a budget holds a third of them — a
// budget that holds less than a quarter keeps none. Tiles of 64 over 500 points, 8 blocks and 36
// tiles of 32 KiB.
func TestPassMemory(t *testing.T) {
	const n, r, tile = 500, 10, 64
	withPassTile(t, tile)
	x := shuffled(t, "yeast", n, 21)
	rbf := rbfMedian(t, x)
	var calls atomic.Int64
	count := kernel.Func{Name: "counted", F: func(a, b []float64) float64 {
		calls.Add(1)
		return rbf.Eval(a, b)
	}}
	const tileBytes = 8 * tile * tile
	var perPass int64
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := i0; j0 < n; j0 += tile {
			perPass += int64(min(tile, n-i0) * min(tile, n-j0))
		}
	}
	var want []float64
	var wantCert Certificate
	for _, c := range []struct {
		memory      int
		least, most int64 // evaluations by the Polish, in passes' worth
	}{
		{1, 3 * perPass, 3 * perPass},
		{0, perPass, perPass},
		{36 * tileBytes, perPass, perPass},
		{12 * tileBytes, perPass + 1, 3*perPass - 1},
		{8 * tileBytes, 3 * perPass, 3 * perPass},
	} {
		md := fitModel(t, count, x.Slice(0, 100, 0, 8), Options{Components: r, Rank: r, PassMemory: c.memory})
		if _, err := md.AddRows(context.Background(), x.Slice(100, n, 0, 8), nil); err != nil {
			t.Fatal(err)
		}
		calls.Store(0)
		if err := md.Polish(3); err != nil {
			t.Fatal(err)
		}
		if got := calls.Load(); got < c.least || got > c.most {
			t.Errorf("PassMemory %d: %d evaluations in a Polish of 3 passes, want %d to %d (a pass %d)", c.memory, got, c.least, c.most, perPass)
		}
		cert, err := md.Certify()
		if err != nil {
			t.Fatal(err)
		}
		got := md.Values(nil)
		vectors := mat.NewDense(n, r, nil)
		md.VectorsTo(vectors)
		got = append(got, vectors.RawMatrix().Data...)
		if want == nil {
			want, wantCert = got, cert
			continue
		}
		if !vec.SameBits(got, want) {
			t.Errorf("PassMemory %d: the polished pairs differ from those without kept values", c.memory)
		}
		if !vec.SameBits(cert.Lower, wantCert.Lower) || !vec.SameBits(cert.Upper, wantCert.Upper) || !vec.SameBits(cert.Sine, wantCert.Sine) {
			t.Errorf("PassMemory %d: the certificate differs from that without kept values", c.memory)
		}
	}
}

// TestPassMemoryDimension: a pass keeps the values of a kernel of products (here the
// RBF) only on points of passMemoryDim coordinates or more, and those of a kernel
// evaluated entry by entry (the Laplacian) whatever the dimension; none when the
// budget holds less than a quarter of the tiles.
func TestPassMemoryDimension(t *testing.T) {
	withPassTile(t, 16)
	for _, c := range []struct {
		d      int
		k      kernel.Kernel
		memory int
		keeps  bool
	}{
		{8, kernel.RBF{Sigma: 1}, 0, false},
		{passMemoryDim - 1, kernel.RBF{Sigma: 1}, 0, false},
		{passMemoryDim, kernel.RBF{Sigma: 1}, 0, true},
		{8, kernel.Laplacian{Sigma: 1}, 0, true},
		{passMemoryDim, kernel.RBF{Sigma: 1}, 8 * 16 * 16 * 10, false}, // 10 of 55 tiles
		{passMemoryDim, kernel.RBF{Sigma: 1}, 8 * 16 * 16 * 14, true},  // 14 of 55
	} {
		x := mat.NewDense(160, c.d, nil)
		for i := range 160 {
			for j := range c.d {
				x.Set(i, j, math.Sin(float64(i*c.d+j)))
			}
		}
		md := fitModel(t, c.k, x, Options{Components: 5, Rank: 5, PassMemory: c.memory})
		p := md.passer()
		if got := p.cacheTiles(160, 16) > 0; got != c.keeps {
			t.Errorf("d = %d, %v, PassMemory %d: keeps %v, want %v", c.d, c.k, c.memory, got, c.keeps)
		}
	}
}

// copies reports whether the passer's Cross keeps a shifted copy of the points: whether
// making another of the same points allocates as much as the points.
func copies(p *passer) bool {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p.md.passer()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc-before.TotalAlloc >= uint64(8*p.md.m*p.md.d)
}

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
	var team parallel.Team
	for b.Loop() {
		for p, part := range parts {
			start := time.Now()
			team.Run(workers, workers, 1, func(g, _ int) { // worker g's tiles, as a pass's Team runs them
				w := blas64.General{Rows: T, Cols: 50, Stride: 50, Data: make([]float64, T*50)}
				for t := range tiles {
					part.run(&works[g], w, (g+t)%nb, (g+3*t+1)%nb)
				}
			})
			times[p] = append(times[p], time.Since(start).Seconds()/tiles*1e3)
		}
	}
	for p, part := range parts {
		b.ReportMetric(vec.Median(times[p]), part.name+"-ms/tile")
	}
}
