package kpca

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// The tiles of a pass (docs/design.md, "Passes over the points"): each worker's products
// W_I += K_IJ·Q_J and W_J += K_IJᵀ·Q_I of a tile of the upper triangle of K, and the
// rounds of a round-robin tournament between the blocks in which the tiles run, no two
// of a round writing the same rows of W.

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
	} else if p.unshifted && p.offset != 0 {
		// Adopted values, as computed: less the offset, as the pass would have kept
		// them, the same bits (the subtraction above of the same values).
		for i, v := range kb.Data[:b*n] {
			kb.Data[i] = v - p.offset
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
