package kpca

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ikpca/ikpca/internal/hugepage"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/parallel"
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

	// The pass in progress, read by the workers: W and Q, the tile size, the schedule of
	// the tiles and which are done, the errors of the tiles by their number in it, and
	// the first tile that failed or before which the context stopped the pass.
	w, q   blas64.General
	tile   int
	sched  schedule
	done   []atomic.Bool
	bad    []error
	stopAt atomic.Int64
	ctx    context.Context
	ctxMu  sync.Mutex
	team   parallel.Team
	tileFn func(lo, hi int) // p.tiles, bound once
	work   []tileWork       // one per worker, taken through free
	free   chan *tileWork

	// The kernel values of the first cached tiles of the schedule, T² numbers each,
	// computed by the first pass and read by the others (cacheTiles); filled once a
	// pass has completed.
	cache  []float64
	unmap  func() // gives the cache's memory back (hugepage.Map)
	cached int
	filled bool
	// adopted is the KeepKernel values the cache holds (adopt), nil if the passer's own;
	// unshifted, that they are still the raw values, without the offset below, which the
	// first pass then subtracts from each tile as it reads it.
	adopted   *keptKernel
	unshifted bool

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

// passer returns a passer over the model's points, their Cross made for the pass memory
// of its options: with the points' shifted copy when they take at most an eighth of it
// (docs/design.md, "Passes over the points").
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
// (docs/design.md, "Who owns the cores"), in the order of the rounds of a round-robin
// tournament between the blocks (tileRounds, schedule): the tiles of a round touch
// distinct blocks of W, and a tile's products wait for the tiles of the round before
// that touch its blocks, so that no two write the same rows at once and each block of
// W receives its tiles' products in the order of the rounds, whatever the number of
// workers — the result does not depend on it. No worker waits for a whole round: one
// that is done takes the next tile, and computes its kernel values, which depend on no
// other tile, while the round before ends (a round has about m/(2T) tiles, fewer than
// 16 cores below 16,384 points). (Not ProjectTo, which projects each kernel row by a dgemv
// while it is in cache: right for a Transform's few components, but here Q has m·c
// entries, far beyond the cache, and each row would read all of them from memory.) It
// checks ctx before each round and returns its error, and ErrNonFinite for a kernel
// value that is not finite, naming a point of the pair (blocks.NonFinite: the first
// value of its row that is not finite; of the tiles, the first in the schedule): the
// first failure in the schedule's order, as on one goroutine. W is then partly written, and the callers, which own it as scratch, discard
// it. (Written in place: a copy for an all-or-nothing W was m·c numbers of garbage a
// pass.) W must not share storage with Q.
func (p *passer) pass(ctx context.Context, W, Q *mat.Dense) error {
	md := p.md
	m, c := Q.Dims()
	if W.IsEmpty() {
		*W = *newDense(m, c)
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
	if p.sched.nb != nb || p.sched.tiles == nil {
		p.sched = newSchedule(nb)
		p.done = make([]atomic.Bool, len(p.sched.tiles))
		p.bad = make([]error, len(p.sched.tiles))
	}
	tiles := len(p.sched.tiles)
	for g := range tiles {
		p.done[g].Store(false)
		p.bad[g] = nil
	}
	p.stopAt.Store(math.MaxInt64)
	p.ctx = ctx
	workers := max(1, min(runtime.GOMAXPROCS(0), tiles))
	p.ready(workers)
	release := native.OwnCores(workers)
	defer release()
	p.team.Run(workers, tiles, 1, p.tileFn)
	p.ctx = nil
	p.w, p.q = blas64.General{}, blas64.General{}
	if at := p.stopAt.Load(); at < int64(tiles) {
		return p.bad[at]
	}
	p.filled, p.unshifted = true, false
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

// pass is one pass with a passer of its own (tests, and a single pass).
func (md *Model) pass(ctx context.Context, W, Q *mat.Dense) error {
	p := md.passer()
	defer p.release()
	return p.pass(ctx, W, Q)
}
