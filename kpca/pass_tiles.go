package kpca

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// The tiles of a pass (docs/design.md, "Passes over the points"): each worker's products
// W_I += K_IJ·Q_J and W_J += K_IJᵀ·Q_I of a tile of the upper triangle of K, and the
// schedule of the tiles: the rounds of a round-robin tournament between the blocks, no
// two tiles of a round writing the same rows of W, taken one after the other, each
// tile's products waiting only for the tiles before it that write its rows.

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

// tiles computes the tiles lo…hi−1 of the schedule, on one worker, and marks each done.
func (p *passer) tiles(lo, hi int) {
	tw := <-p.free
	for g := lo; g < hi; g++ {
		p.oneTile(tw, g)
		p.done[g].Store(true)
	}
	p.free <- tw
}

// oneTile computes tile g of the schedule, unless a tile before it failed or the pass was
// stopped before it: at the first tile of a round the context is checked, as a pass
// on one goroutine checks it between its rounds. The tile's kernel values need no
// other tile; its products wait for the tiles before it that write the same rows of W
// (schedule.after), so that each block of W receives its products in the order of the
// schedule whatever the number of workers, and no two tiles write the same rows at
// once. An error is recorded in p.bad[g], and the tiles after g are then skipped.
func (p *passer) oneTile(tw *tileWork, g int) {
	if int64(g) > p.stopAt.Load() {
		return
	}
	if p.sched.first[g] && p.checkContext(g) {
		return
	}
	t := p.sched.tiles[g]
	kb, err := p.tileValues(tw, t, g)
	if err != nil {
		p.fail(g, err)
		return
	}
	for _, d := range p.sched.after[g] {
		for d >= 0 && !p.done[d].Load() {
			runtime.Gosched()
		}
	}
	p.tileProducts(tw, t, kb)
}

// checkContext checks the pass's context before tile g, the first of a round, and
// reports whether it was stopped. The checks are serialised: a context's Err need not be
// safe for concurrent calls (a test's counts them).
func (p *passer) checkContext(g int) bool {
	p.ctxMu.Lock()
	err := p.ctx.Err()
	p.ctxMu.Unlock()
	if err == nil {
		return false
	}
	p.fail(g, kinds.Stopped(p.ctx, "")) // context.Cause's error, as AddRows's
	return true
}

// fail records the error of tile g and skips the tiles after it that have not started.
func (p *passer) fail(g int, err error) {
	p.bad[g] = err
	for {
		at := p.stopAt.Load()
		if int64(g) >= at || p.stopAt.CompareAndSwap(at, int64(g)) {
			return
		}
	}
}

// tileValues returns the kernel values of the tile (I, J), number g of the schedule,
// less the pass's offset: computed in the worker's scratch, or in the cache if the tile
// is one it keeps, unless the cache holds them already. A value that is not finite is
// an error naming a point of its row.
func (p *passer) tileValues(tw *tileWork, t tilePair, g int) (blas64.General, error) {
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
				return kb, blocks.NonFinite(ErrNonFinite, p.cross, &md.view, i0+i, "point")
			}
		}
		if p.offset != 0 {
			for i, v := range kb.Data[:b*n] {
				kb.Data[i] = v - p.offset
			}
		}
	} else if p.unshifted && p.offset != 0 {
		// Adopted values, as computed: less the offset, as the pass would have kept
		// them, the same bits (the subtraction above of the same values).
		for i, v := range kb.Data[:b*n] {
			kb.Data[i] = v - p.offset
		}
	}
	return kb, nil
}

// tileProducts adds the products of the tile (I, J) of kernel values kb to W:
// W_I += K_IJ·Q_J and, off the diagonal, W_J += K_IJᵀ·Q_I; and the absolute values
// of its rows and columns to p.abs, when wanted.
func (p *passer) tileProducts(tw *tileWork, t tilePair, kb blas64.General) {
	i0, i1 := t.i*p.tile, t.i*p.tile+kb.Rows
	j0, j1 := t.j*p.tile, t.j*p.tile+kb.Cols
	b, n := kb.Rows, kb.Cols
	if p.abs != nil {
		// The rows I and J are the tile's own, as W's are: no tile writes them at once.
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
		return
	}
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, kb, rowsOf(p.q, j0, j1), 1, rowsOf(p.w, i0, i1))
	if t.i != t.j {
		native.Gemm(blas.Trans, blas.NoTrans, 1, kb, rowsOf(p.q, i0, i1), 1, rowsOf(p.w, j0, j1))
	}
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

// schedule is the order of a pass's tiles: the rounds of tileRounds one after the other.
// For each tile it holds the tiles before it that write the same rows of W — the last
// one of block I and of block J, each of the round before (−1: none) — and whether the
// tile is the first of its round.
type schedule struct {
	nb    int
	tiles []tilePair
	after [][2]int32
	first []bool
}

// newSchedule returns the schedule of the tiles of nb blocks.
func newSchedule(nb int) schedule {
	s := schedule{nb: nb}
	last := make([]int32, nb) // the last tile of each block so far
	for i := range last {
		last[i] = -1
	}
	var pairs []tilePair
	tileRounds(nb, &pairs, func(round []tilePair) bool {
		for r, t := range round {
			g := int32(len(s.tiles))
			after := [2]int32{last[t.i], -1}
			if t.j != t.i {
				after[1] = last[t.j]
			}
			s.tiles = append(s.tiles, t)
			s.after = append(s.after, after)
			s.first = append(s.first, r == 0)
			last[t.i], last[t.j] = g, g
		}
		return true
	})
	return s
}
