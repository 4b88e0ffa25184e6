package kpca

import (
	"context"
	"math"
	"runtime"

	"github.com/ikpca/ikpca/internal/hugepage"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// A pass is one product of the matrix of the points, K′ (centred: C·K·C) or K, with a
// block of vectors, computed from the stored points a block of K at a time and never
// formed (docs/design.md, "Passes over the points"): K is symmetric, so a pass computes
// only its upper triangle, in square tiles that run in parallel —
// O(m²·(d + 2c)) flops for c vectors, m²·d for the distances where the full rows took
// 2m²·d, at the speed of the kernel blocks' dgemm, in O(m·c) memory beyond the points
// and one tile a worker. Polish and Certify are made of passes.

// passer computes passes over a model's points: the points prepared for kernel blocks
// once — for an RBF the shift, the points' squared norms and, if the points take at
// most an eighth of the pass memory, their shifted copy (kernel.NewCross); otherwise no
// copy, each tile's points shifted into its worker's BlockWork when the tile is
// computed (kernel.NewCrossNoCopy): the copy is m·d numbers, as large as the model's
// points (439 MB at 70,000 Fashion-MNIST images), for values that are the same bit for
// bit — and each worker's tile of kernel values, its scratch and the header that points
// into it, reused by every pass, so that a Polish of several passes allocates them once
// (docs/design.md, "Passes over the points").
type passer struct {
	md    *Model
	cross *kernel.Cross
	mean  []float64 // centreColumns' scratch
	// raw makes a pass return K·Q, not centred whatever the model: the decoder's check
	// of a stored model against its points (verifyPoints) takes the row sums K·1, and
	// the scale of their rounding (abs), from one pass.
	raw bool

	// The pass in progress, read by the workers: W and Q, the tile size, and the tiles
	// of the current round.
	w, q   blas64.General
	tile   int
	round  []tilePair
	team   parallel.Team
	tileFn func(lo, hi int) // p.tiles, bound once
	work   []tileWork       // one per worker, taken through free
	free   chan *tileWork
	bad    []error    // the round's errors, by tile
	pairs  []tilePair // tileRounds' buffer
	first  int        // the number in the schedule of the round's first tile

	// The kernel values of the first cached tiles of the schedule, T² numbers each,
	// computed by the first pass and read by the others (cacheTiles); filled once a
	// pass has completed.
	cache  []float64
	unmap  func() // gives the cache's memory back (hugepage.Map)
	cached int
	filled bool

	// abs, when not nil, receives the row sums of |K̂|, the absolute values of the kernel
	// values the pass computes, less offset (m numbers, added to): a Certify's scale of
	// the products' rounding (docs/design.md, "Certificates"), and the decoder's of the
	// row sums' (verifyPoints).
	abs []float64
	// offset, centred, is subtracted from every kernel value as it is computed (and
	// kept): C·(K − c·11ᵀ)·C = C·K·C exactly, and the products then sum values of the
	// size of K′'s rather than of K's (docs/design.md, "Certificates").
	offset float64
	// own, for a Certify, makes each tile's dgemm write a product of its own, of T terms
	// an entry, which the pass then adds to W: an entry of W is then summed to a depth
	// of T + ⌈m/T⌉ roundings, the depth a certificate's allowance can count on whatever
	// the BLAS does inside a call, where accumulating in W is a sum of m terms in an
	// order the BLAS chooses. The column means are then summed compensated (Sum2).
	own bool
}

// tileWork is what a worker of a pass holds: its block of kernel values, the block's
// scratch (a BlockWork of one worker: the tiles are the pass's parallelism) and the
// header of the block.
type tileWork struct {
	work kernel.BlockWork
	kb   []float64
	kd   mat.Dense // SetRawMatrix: no allocation
	prod []float64 // a tile's product, when the passer sums them itself (passer.own)
}

// tilePair is a tile (I, J), I ≤ J, of the upper triangle of K, by the numbers of its
// blocks of rows and columns.
type tilePair struct{ i, j int }

// passTile returns the order T of the square tiles a pass over m points computes K in:
// 256 below 16,384 points, 512 from there. The tile sets the parallelism — a round of
// the schedule has about m/(2T) tiles, at least 16 from 16,384 points on — and the cost
// of each tile's calls: on two cores a pass over 20,000 Fashion-MNIST images (d = 784)
// took 6.3 s in tiles of 512 and 7.1 s in tiles of 256 (two dgemms of (512×784)·(784×512)
// side by side ran at 81 GFLOP/s, of 256 at 76), and a tile of 512 keeps its 2 MiB of
// kernel values in its core's cache between the dgemm, the exponentials and the two
// products that read them (docs/design.md, "Passes over the points"). A variable, so
// that tests can make tiles of a single entry.
var passTile = func(m int) int {
	if m >= 16384 {
		return 512
	}
	return 256
}

func (md *Model) passer() *passer {
	p := &passer{md: md}
	budget := md.opts.PassMemory
	if budget == 0 {
		budget = DefaultPassMemory
	}
	if 8*md.m*md.d <= budget/8 {
		// Points that take at most an eighth of the pass memory are shifted once, into
		// the Cross's copy, rather than in every tile that reads them (each point is in
		// ⌈m/T⌉ + 1 tiles): 20,000 Fashion-MNIST images are 125 MB.
		p.cross = kernel.NewCross(md.kern, &md.view)
	} else {
		p.cross = kernel.NewCrossNoCopy(md.kern, &md.view)
	}
	p.tileFn = p.tiles
	return p
}

// DefaultPassMemory is the memory a Polish or a Certify may give to the kernel values of
// its first pass, for its later passes to read rather than compute again, when
// Options.PassMemory is zero: 2 GiB, the upper triangle of K at up to 23,000 points.
const DefaultPassMemory = 2 << 30

// passMemoryDim is the least dimension of the points for which a pass keeps kernel
// values computed from a matrix product of the points (kernel.Cross.ByProducts): below
// it a value costs hardly more to compute again — 2·d flops and an exponential — than
// to read back from memory first touched for it. On all of MAGIC (d = 10) a Polish of
// 4 passes took 5.2–5.4 s keeping nothing and 6.4–6.9 s keeping the whole triangle; at
// 10,000 Fashion-MNIST images (d = 784) a pass that reads its values took 0.2 s against
// 2.1 s for one that computes them.
const passMemoryDim = 64

// cacheTiles returns how many of the tiles of a pass over m points, in tiles of order
// tile, the passer keeps (docs/design.md, "Passes over the points"): none if the kernel's
// values are cheap to compute again (a kernel of products, kernel.Cross.ByProducts, on
// points of fewer than passMemoryDim coordinates), otherwise the first of the schedule,
// as many as Options.PassMemory holds (DefaultPassMemory when zero) — if they are at
// least a quarter of all, or none: a few would save little of each pass for memory
// that the bounded models are chosen to save (at 70,000 Fashion-MNIST images, 2 GiB
// holds a tenth of the tiles).
func (p *passer) cacheTiles(m, tile int) int {
	if p.cross.ByProducts() && p.md.d < passMemoryDim {
		return 0
	}
	budget := p.md.opts.PassMemory
	if budget == 0 {
		budget = DefaultPassMemory
	}
	nb := (m + tile - 1) / tile
	tiles := nb * (nb + 1) / 2
	fit := min(tiles, budget/8/(tile*tile))
	if 4*fit < tiles {
		return 0
	}
	return fit
}

// pass sets W (m×c, resized if empty) to K′·Q for the m×c matrix Q, whose columns must
// be orthogonal to 1 when the model is centred: then C·Q = Q and K′Q = C·(K·Q), so the
// pass computes K·Q and subtracts each column's mean. K is symmetric, and K·Q is
// computed from its upper triangle alone, in square tiles of T rows and columns
// (passTile): the points in B = ⌈m/T⌉ blocks, and for each tile (I, J), I ≤ J, the
// kernel block K_IJ (kernel.Cross.BlockColumnsTo, a dgemm of distances for an RBF),
// then
//
//	W_I += K_IJ·Q_J
//	W_J += K_IJᵀ·Q_I     (I < J: by symmetry the tile (J, I))
//
// two dgemms, so that every kernel value outside the diagonal tiles is computed once,
// where the full rows computed it twice. The tiles run in parallel, each on one core
// (docs/design.md, "Who owns the cores"), in the rounds of a round-robin tournament
// between the blocks (tileRounds): the tiles of a round touch distinct blocks of W,
// so that no two write the same rows at once, and each block of W receives its tiles'
// products in the order of the rounds, whatever the number of workers — the result
// does not depend on it. (Not ProjectTo, which projects each kernel row by a dgemv
// while it is in cache: right for a Transform's few components, but here Q has m·c
// entries, far beyond the cache, and each row would read all of them from memory.) It
// checks ctx before each round and returns its error, and ErrNonFinite for a kernel
// value that is not finite, naming a point of the pair (blocks.NonFinite: the first
// value of its row that is not finite; of the round's tiles, the first in the round's
// order). W is then partly written, and the callers, which own it as scratch, discard
// it. (Written in place: a copy for an all-or-nothing W was m·c numbers of garbage a
// pass.) W must not share storage with Q.
func (p *passer) pass(ctx context.Context, W, Q *mat.Dense) error {
	md := p.md
	m, c := Q.Dims()
	if W.IsEmpty() {
		W.ReuseAs(m, c)
	}
	p.w, p.q = W.RawMatrix(), Q.RawMatrix()
	for i := range m {
		clear(p.w.Data[i*p.w.Stride : i*p.w.Stride+c])
	}
	if tile := max(1, min(passTile(m), m)); tile != p.tile {
		p.release()
		p.tile = tile
		if p.cached = p.cacheTiles(m, tile); p.cached > 0 {
			p.cache, p.unmap = hugepage.Map(p.cached * tile * tile)
		}
	}
	nb := (m + p.tile - 1) / p.tile
	workers := max(1, min(runtime.GOMAXPROCS(0), (nb+1)/2))
	p.ready(workers)
	release := native.OwnCores(workers)
	defer release()
	var err error
	p.first = 0
	tileRounds(nb, &p.pairs, func(round []tilePair) bool {
		if ctx.Err() != nil {
			err = kinds.Stopped(ctx, "") // context.Cause's error, as AddRows's
			return false
		}
		p.round = round
		if cap(p.bad) < len(round) {
			p.bad = make([]error, len(round))
		}
		p.bad = p.bad[:len(round)]
		p.team.Run(workers, len(round), 1, p.tileFn)
		p.first += len(round)
		for _, e := range p.bad {
			if e != nil {
				err = e
				return false
			}
		}
		return true
	})
	p.round = nil
	p.w, p.q = blas64.General{}, blas64.General{}
	if err != nil {
		return err
	}
	p.filled = true
	if !md.opts.Uncentred && !p.raw {
		if cap(p.mean) < c {
			p.mean = make([]float64, c)
		}
		if p.own {
			centreColumnsSum2(W, p.mean[:c])
		} else {
			centreColumnsWith(W, p.mean[:c])
		}
	}
	return nil
}

// release gives back the memory of the kept kernel values: a Polish or a Certify calls it
// when its passes are done, so that the next one does not hold its own beside them.
func (p *passer) release() {
	if p.unmap != nil {
		p.unmap()
	}
	p.cache, p.unmap, p.cached, p.filled, p.tile = nil, nil, 0, false, 0
}

// ready gives the passer a tileWork for each of workers goroutines.
func (p *passer) ready(workers int) {
	if len(p.work) >= workers {
		return
	}
	p.work = append(p.work, make([]tileWork, workers-len(p.work))...)
	p.free = make(chan *tileWork, len(p.work))
	for i := range p.work {
		p.work[i].work.Workers = 1
		p.free <- &p.work[i]
	}
}

// tiles computes the tiles lo…hi−1 of the current round, on one worker.
func (p *passer) tiles(lo, hi int) {
	tw := <-p.free
	for t := lo; t < hi; t++ {
		p.bad[t] = p.tileProduct(tw, p.round[t], p.first+t)
	}
	p.free <- tw
}

// tileProduct adds the products of the tile (I, J), number g of the schedule, to W:
// W_I += K_IJ·Q_J and, off the diagonal, W_J += K_IJᵀ·Q_I. The tile's kernel values
// are computed in the worker's scratch, or in the cache if the tile is one it keeps,
// unless the cache holds them already.
func (p *passer) tileProduct(tw *tileWork, t tilePair, g int) error {
	md := p.md
	m := p.q.Rows
	i0, i1 := t.i*p.tile, min((t.i+1)*p.tile, m)
	j0, j1 := t.j*p.tile, min((t.j+1)*p.tile, m)
	b, n := i1-i0, j1-j0
	var kb blas64.General
	if g < p.cached {
		size := p.tile * p.tile
		kb = blas64.General{Rows: b, Cols: n, Stride: n, Data: p.cache[g*size : g*size+b*n]}
	} else {
		if cap(tw.kb) < b*n {
			tw.kb = make([]float64, p.tile*p.tile)
		}
		kb = blas64.General{Rows: b, Cols: n, Stride: n, Data: tw.kb[:b*n]}
	}
	if g >= p.cached || !p.filled {
		tw.kd.SetRawMatrix(kb)
		p.cross.BlockPointsTo(&tw.kd, i0, i1, j0, j1, &tw.work)
		for i := range b {
			if !vec.Finite(kb.Data[i*n : i*n+n]) {
				return blocks.NonFinite(ErrNonFinite, p.cross, &md.view, i0+i, "point")
			}
		}
		if p.offset != 0 {
			for i, v := range kb.Data[:b*n] {
				kb.Data[i] = v - p.offset
			}
		}
	}
	if p.abs != nil {
		// The rows I and J are the tile's own, as W's are: no other tile of the round
		// writes them.
		rows, cols := p.abs[i0:i1], p.abs[j0:j1]
		for i := range b {
			var s float64
			for j, v := range kb.Data[i*n : i*n+n] {
				s += math.Abs(v)
				if t.i != t.j {
					cols[j] += math.Abs(v)
				}
			}
			rows[i] += s
		}
	}
	if p.own {
		p.ownProduct(tw, blas.NoTrans, kb, rowsOf(p.q, j0, j1), rowsOf(p.w, i0, i1))
		if t.i != t.j {
			p.ownProduct(tw, blas.Trans, kb, rowsOf(p.q, i0, i1), rowsOf(p.w, j0, j1))
		}
		return nil
	}
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, kb, rowsOf(p.q, j0, j1), 1, rowsOf(p.w, i0, i1))
	if t.i != t.j {
		native.Gemm(blas.Trans, blas.NoTrans, 1, kb, rowsOf(p.q, i0, i1), 1, rowsOf(p.w, j0, j1))
	}
	return nil
}

// ownProduct adds op(kb)·q to w through the worker's scratch: the dgemm writes the
// product alone (β = 0), and the loop adds it (passer.own).
func (p *passer) ownProduct(tw *tileWork, tr blas.Transpose, kb, q, w blas64.General) {
	rows, c := w.Rows, w.Cols
	if tr == blas.NoTrans {
		rows = kb.Rows
	} else {
		rows = kb.Cols
	}
	if cap(tw.prod) < rows*c {
		tw.prod = make([]float64, p.tile*c)
	}
	prod := blas64.General{Rows: rows, Cols: c, Stride: c, Data: tw.prod[:rows*c]}
	native.Gemm(tr, blas.NoTrans, 1, kb, q, 0, prod)
	for i := range rows {
		dst := w.Data[i*w.Stride : i*w.Stride+c]
		for j, v := range prod.Data[i*c : i*c+c] {
			dst[j] += v
		}
	}
}

// rowsOf returns the rows lo…hi−1 of a.
func rowsOf(a blas64.General, lo, hi int) blas64.General {
	return blas64.General{Rows: hi - lo, Cols: a.Cols, Stride: a.Stride, Data: a.Data[lo*a.Stride:]}
}

// tileRounds calls round with each round of a schedule of the tiles (I, J), 0 ≤ I ≤ J <
// nb, of the upper triangle of a matrix in nb blocks, in which no block appears twice
// within a round, stopping when round returns false: the circle method of a
// round-robin tournament. The blocks, with a bye added when nb is odd, play in
// pairs; in round r the last one stays put and plays r, and the others pair up around
// the circle, (r + i, r − i) mod (nb′ − 1). A block paired with the bye computes its
// diagonal tile instead; when nb is even, the nb diagonal tiles make a round of their
// own, the first. Every tile is in exactly one round, nb rounds (nb + 1 when nb is
// even, nb − 1 off the diagonal), each of about nb/2 tiles. The slice passed to round
// is *buf, reused.
func tileRounds(nb int, buf *[]tilePair, round func([]tilePair) bool) {
	if cap(*buf) < nb {
		*buf = make([]tilePair, 0, nb)
	}
	pairs := (*buf)[:0]
	order := func(a, b int) tilePair { return tilePair{min(a, b), max(a, b)} }
	n := nb
	if n%2 == 0 {
		for i := range nb {
			pairs = append(pairs, tilePair{i, i})
		}
		if !round(pairs) {
			return
		}
	} else {
		n++ // a bye, numbered nb
	}
	for r := range n - 1 {
		pairs = pairs[:0]
		add := func(a, b int) {
			switch {
			case a == nb:
				pairs = append(pairs, tilePair{b, b})
			case b == nb:
				pairs = append(pairs, tilePair{a, a})
			default:
				pairs = append(pairs, order(a, b))
			}
		}
		add(n-1, r)
		for i := 1; i < n/2; i++ {
			add((r+i)%(n-1), (r-i+n-1)%(n-1))
		}
		if !round(pairs) {
			return
		}
	}
}

// pass is one pass with a passer of its own (tests, and a single pass).
func (md *Model) pass(ctx context.Context, W, Q *mat.Dense) error {
	p := md.passer()
	defer p.release()
	return p.pass(ctx, W, Q)
}

// centreColumns subtracts from each column of A its mean: A ← C·A.
func centreColumns(A *mat.Dense) {
	_, c := A.Dims()
	centreColumnsWith(A, make([]float64, c))
}

// centreColumnsWith is centreColumns with the scratch mean, of A's number of columns.
func centreColumnsWith(A *mat.Dense, mean []float64) {
	r, _ := A.Dims()
	clear(mean)
	for i := range r {
		for j, v := range A.RawRowView(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(r)
	}
	for i := range r {
		row := A.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
}

// centreColumnsSum2 is centreColumnsWith with each column's sum compensated (Sum2, Ogita,
// Rump and Oishi 2005: within ε·|s| + γ²ₘ·Σ|aᵢⱼ| of the exact sum, where the plain sum's
// bound is γₘ·Σ|aᵢⱼ|), for a certificate (passer.own). mean must have A's number of
// columns; the compensations take a second scratch of that length, allocated.
func centreColumnsSum2(A *mat.Dense, mean []float64) {
	r, c := A.Dims()
	comp := make([]float64, c)
	clear(mean)
	for i := range r {
		for j, v := range A.RawRowView(i) {
			s := mean[j]
			t := s + v
			z := t - s
			comp[j] += (s - (t - z)) + (v - z)
			mean[j] = t
		}
	}
	for j := range mean {
		mean[j] = (mean[j] + comp[j]) / float64(r)
	}
	for i := range r {
		row := A.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
}

// maxColumnNorm returns the largest Euclidean norm of a column of A: ‖A‖₂ within a
// factor √c. It sums the squares a row at a time rather than calling BLAS's dnrm2 on each
// column (mat.Norm), which reaches gonum's blas64 registry instead of package native — and
// a window's self-polish runs in Add's path (TestBackendRoute). The products it measures
// are finite and far from overflow.
func maxColumnNorm(A *mat.Dense) float64 {
	r, c := A.Dims()
	sums := make([]float64, c)
	for i := range r {
		for j, v := range A.RawRowView(i) {
			sums[j] += v * v
		}
	}
	var best float64
	for _, s := range sums {
		best = math.Max(best, s)
	}
	return math.Sqrt(best)
}
