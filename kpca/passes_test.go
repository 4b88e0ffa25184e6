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
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/allocs"
	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// withPassBlocks sets passStripRows and passPanelBytes for the duration of a test or
// benchmark.
func withPassBlocks(tb testing.TB, rows, bytes int) {
	savedRows, savedBytes := passStripRows, passPanelBytes
	passStripRows, passPanelBytes = rows, bytes
	tb.Cleanup(func() { passStripRows, passPanelBytes = savedRows, savedBytes })
}

// passBlocks returns the number of strips and of kernel blocks of a pass over m points,
// as pass takes them: for each panel, a block for each strip that starts before its end.
func passBlocks(m int) (strips, blocks int) {
	strips = (m + passStripRows - 1) / passStripRows
	panel := max(1, passPanelBytes/(8*passStripRows))
	for j0 := 0; j0 < m; j0 += panel {
		j1 := min(j0+panel, m)
		blocks += (j1 + passStripRows - 1) / passStripRows
	}
	return strips, blocks
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

// TestPassEqualsFormed: a pass, K′·Q from the upper triangle of K in strips, equals the
// product with the formed matrix (kernel.Matrix, centred by kernel.Centre) to rounding,
// centred and uncentred, for RBF (the distance identity), a polynomial kernel and the
// Laplacian (entry by entry), on a model of all its points and on a window; with one
// strip of all the rows, with strips of a few rows growing as the triangle narrows —
// 300 points, not a multiple of the first strip's 7 rows — and with strips of a single
// row, the first m − 1 of which have a second product (the rows below) and the last
// none. W is a strided view filled with NaN before the pass, which must overwrite it.
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
		what        string
		rows, bytes int
	}{
		{"one block", 1024, 64 << 20},
		{"strips of 64 rows, one panel each", 64, 8 * 64 * m},
		{"strips of 7 rows, panels of 20 points", 7, 8 * 7 * 20},
		{"strips of 50 rows, panels of 30 points", 50, 8 * 50 * 30},
		{"single entries", 1, 8},
	}
	for _, k := range kernels {
		for _, uncentred := range []bool{false, true} {
			for _, window := range []bool{false, true} {
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
					withPassBlocks(t, sh.rows, sh.bytes)
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
					strips, blocks := passBlocks(n)
					what += fmt.Sprintf(", %s (%d strips, %d blocks)", sh.what, strips, blocks)
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

// TestPassNoCopy: a pass with the passer's Cross, which keeps no shifted copy of the
// points (kernel.NewCrossNoCopy), is the pass with a Cross that keeps one
// (kernel.NewCross), bit for bit. Its blocks are BlockColumnsTo's of the same columns,
// which kernel's TestCrossNoCopy checks are the copy's bit for bit (the same shift,
// norms and choice of direct evaluations, and a dgemm given the same operands in the
// same shape), and the rest of the pass the same dgemms of the same blocks. RBF
// kernels of the median bandwidth and of a tenth of it (where close pairs are
// evaluated directly), centred and uncentred, on MAGIC (d = 10) and a9a (d = 123),
// with the shapes of TestPassEqualsFormed but the single entries. And making a passer
// allocates less than half the m·d numbers of a copy (runtime.MemStats: the shift and
// the norms, d + m numbers and a row of scratch, 1.1% of a copy of a9a's points and
// 14% of MAGIC's).
func TestPassNoCopy(t *testing.T) {
	const m, c = 300, 7
	shapes := [][2]int{{1024, 64 << 20}, {64, 8 * 64 * m}, {7, 8 * 7 * 20}, {50, 8 * 50 * 30}}
	for _, set := range []string{"magic", "a9a"} {
		x := shuffled(t, set, m, 5)
		med := rbfMedian(t, x)
		for _, k := range []kernel.RBF{med, {Sigma: med.Sigma / 10}} {
			for _, uncentred := range []bool{false, true} {
				md := fitModel(t, k, x, Options{Components: 20, Rank: 20, Uncentred: uncentred})
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				ps := md.passer()
				runtime.ReadMemStats(&after)
				if n, copied := after.TotalAlloc-before.TotalAlloc, 8*md.m*md.d; 2*n >= uint64(copied) {
					t.Errorf("%s, %v: a passer allocates %d bytes, a copy of the points %d", set, k, n, copied)
				}
				Q := randomVectors(m, c, !uncentred, 2)
				for _, sh := range shapes {
					withPassBlocks(t, sh[0], sh[1])
					what := fmt.Sprintf("%s, %v %s, strips of %d rows, blocks of %d bytes", set, k, modeName(uncentred), sh[0], sh[1])
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
// the bad one — whichever strip and panel hold it, and a failed Polish leaves the model
// as it was.
func TestPassNonFinite(t *testing.T) {
	x := shuffled(t, "yeast", 200, 5)
	named := regexp.MustCompile(`kernel value of point (\d+) with point (\d+) is NaN`)
	for _, bad := range []int{0, 57, 199} {
		k := &brittle{RBF: rbfMedian(t, x), bad: x.RawRowView(bad)}
		md := fitModel(t, kernel.Func{Name: "brittle", F: k.eval}, x, Options{Components: 10, Rank: 10})
		k.broken = true
		before := capture(md)
		for _, sh := range [][2]int{{1, 8}, {7, 8 * 7 * 20}, {64, 8 * 64 * 100}, {256, 64 << 20}} {
			withPassBlocks(t, sh[0], sh[1])
			Q := randomVectors(200, 3, true, 7)
			var W mat.Dense
			err := md.pass(context.Background(), &W, Q)
			sub := named.FindStringSubmatch(fmt.Sprint(err))
			if !errors.Is(err, ErrNonFinite) || sub == nil || sub[1] != strconv.Itoa(bad) && sub[2] != strconv.Itoa(bad) {
				t.Errorf("point %d bad, strips of %d rows, panels of %d bytes: %v, want an ErrNonFinite naming a pair with point %d", bad, sh[0], sh[1], err, bad)
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

// TestPassAllocations: a passer's second pass allocates nothing — its block of kernel
// values, the block's scratch and headers and the centring's means are the passer's —
// with one thread and with two. With OpenBLAS that means zero, every allocation counted;
// gonum's pure-Go dgemm allocates a few objects for its goroutines, so there the bound is
// what the pass's dgemms allocate by themselves, the same products on arrays of their
// own.
func TestPassAllocations(t *testing.T) {
	const m, c = 400, 5
	withPassBlocks(t, 64, 8*64*150)
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
	// (kernel.Cross.BlockColumnsTo) and the two products.
	kb := make([]float64, len(ps.kb))
	pts := blas64.General{Rows: m, Cols: d, Stride: d, Data: make([]float64, m*d)}
	w := blas64.General{Rows: m, Cols: c, Stride: c, Data: make([]float64, m*c)}
	rowsOf := func(a blas64.General, lo, hi int) blas64.General {
		return blas64.General{Rows: hi - lo, Cols: a.Cols, Stride: a.Stride, Data: a.Data[lo*a.Stride:]}
	}
	gemms := testing.AllocsPerRun(3, func() {
		panel := max(1, passPanelBytes/(8*passStripRows))
		for j0 := 0; j0 < m; j0 += panel {
			j1 := min(j0+panel, m)
			for lo := 0; lo < j1; lo += passStripRows {
				hi := min(lo+passStripRows, m)
				b, c0 := hi-lo, max(j0, lo)
				n := j1 - c0
				k := blas64.General{Rows: b, Cols: n, Stride: n, Data: kb[:b*n]}
				native.Gemm(blas.NoTrans, blas.Trans, -2, rowsOf(pts, lo, hi), rowsOf(pts, c0, j1), 0, k)
				native.Gemm(blas.NoTrans, blas.NoTrans, 1, k, rowsOf(w, c0, j1), 1, rowsOf(w, lo, hi))
				if r := max(c0, hi); r < j1 {
					right := blas64.General{Rows: b, Cols: j1 - r, Stride: n, Data: kb[r-c0:]}
					native.Gemm(blas.Trans, blas.NoTrans, 1, right, rowsOf(w, lo, hi), 1, rowsOf(w, r, j1))
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
func passFull(p *passer, W, Q *mat.Dense) error {
	md := p.md
	m, c := Q.Dims()
	rows := max(1, min(m, (16<<20)/(8*m)))
	if cap(p.kb) < rows*m {
		p.kb = make([]float64, rows*m)
	}
	for lo := 0; lo < m; lo += rows {
		hi := min(lo+rows, m)
		kb := mat.NewDense(hi-lo, m, p.kb[:(hi-lo)*m])
		p.cross.BlockTo(kb, md.view.Slice(lo, hi, 0, md.d).(*mat.Dense), &p.work)
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
	benchPassShapes = flag.String("ikpca.pass-shapes", "256:16,256:64,512:16", "BenchmarkPass: comma-separated strip shapes ROWS:MiB, the strips' rows and the blocks' size")
	benchPassCopy   = flag.Bool("ikpca.pass-copy", false, "BenchmarkPass: also time each shape with a Cross that keeps the shifted copy of the points (kernel.NewCross), as passes did before")
)

// BenchmarkPass times one pass, K′·Q with c = 50 vectors, over the first -ikpca.pass-n
// images of Fashion-MNIST (d = 784; MAGIC's points, d = 10, if the data are not
// installed) with an RBF of the default bandwidth: "full", the strips of every row
// against all the points (passFull, 16 MiB as before the triangle), and "tri-R:S", the
// pass, with strips of R rows and blocks of S MiB for each R:S of -ikpca.pass-shapes;
// with -ikpca.pass-copy, "copy-R:S" too, the same pass with a Cross that keeps the
// shifted copy of the points (kernel.NewCross), as passes did before they shifted each
// block's points on the fly (kernel.NewCrossNoCopy). "full" keeps the copy, as before.
// Each iteration is a round that runs every variant once, so that a machine's changing
// load falls on all of them; it reports each variant's median seconds over the rounds,
// its median ratio to "full" in the same round and, for "tri-R:S", to "copy-R:S". Run
// with -benchtime Nx for N rounds; -ikpca.pass-shapes with "nofull" leaves "full" out.
func BenchmarkPass(b *testing.B) {
	n := *benchPassN
	var X *mat.Dense
	if ds, err := data.FashionMNIST("", n); err == nil {
		X = ds.X
	} else {
		b.Logf("Fashion-MNIST: %v; MAGIC instead", err)
		X = shuffled(b, "magic", n, 1)
	}
	m, d := X.Dims()
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		b.Fatal(err)
	}
	md := &Model{kern: kernel.RBF{Sigma: sigma}, d: d, m: m}
	md.view.SetRawMatrix(X.RawMatrix())
	Q := randomVectors(m, 50, true, 11)
	W := mat.NewDense(m, 50, nil)
	ps := md.passer()
	copying := md.passer()
	copying.cross = kernel.NewCross(md.kern, &md.view)
	type variant struct {
		name         string
		rows, bytes  int
		full, copy   bool
		times, ratio []float64
		vsCopy       []float64 // tri-R:S: the ratio to copy-R:S, the variant before it
	}
	var vs []*variant
	full := true
	for _, f := range strings.Split(*benchPassShapes, ",") {
		if strings.TrimSpace(f) == "nofull" {
			full = false
			continue
		}
		r, mib, ok := strings.Cut(strings.TrimSpace(f), ":")
		rows, err1 := strconv.Atoi(r)
		size, err2 := strconv.Atoi(mib)
		if !ok || err1 != nil || err2 != nil || rows < 1 || size < 1 {
			b.Fatalf("bad -ikpca.pass-shapes entry %q", f)
		}
		if *benchPassCopy {
			vs = append(vs, &variant{name: fmt.Sprintf("copy-%d:%d", rows, size), rows: rows, bytes: size << 20, copy: true})
		}
		vs = append(vs, &variant{name: fmt.Sprintf("tri-%d:%d", rows, size), rows: rows, bytes: size << 20})
	}
	if full {
		vs = append([]*variant{{name: "full", full: true}}, vs...)
	}
	withPassBlocks(b, passStripRows, passPanelBytes)
	for b.Loop() {
		for i, v := range vs {
			passStripRows, passPanelBytes = v.rows, v.bytes
			t := time.Now()
			switch {
			case v.full:
				err = passFull(copying, W, Q)
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
		b.ReportMetric(median(slices.Clone(v.times)), v.name+"-s")
		if !v.full && full {
			b.ReportMetric(median(v.ratio), v.name+"/full")
		}
		if len(v.vsCopy) > 0 {
			b.Logf("%s: ratio to copy %.3g", v.name, v.vsCopy)
			b.ReportMetric(median(slices.Clone(v.vsCopy)), v.name+"/copy")
		}
	}
}

// median returns the median of x (sorted in place).
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}
