package kpca

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// KeepKernel is KeepKernelContext without a deadline or cancellation.
func (md *Model) KeepKernel(X mat.Matrix) error {
	return md.KeepKernelContext(context.Background(), X)
}

// KeepKernelContext computes, once, the kernel values among the model's points and the
// rows of X, which the caller is about to add with AddBatch, and keeps them for the
// block steps of those calls and for the next Polish (docs/design.md, "The kernel kept
// for a polish"). A tracked fit followed by a Polish otherwise computes every kernel
// value twice: each block step computes its points' kernel columns against the points
// before them — the whole triangle of K, in narrow blocks that also shift every stored
// point again — and the Polish's first pass the same triangle once more. With the
// values kept, the steps read their columns, and every pass of the Polish reads them
// too, as a Polish reads those its own first pass kept (Options.PassMemory).
//
// The values are computed as a Polish's first pass computes them — in its square tiles,
// a tile a core — and kept in the same form, so the Polish reads the values it would have
// computed itself, bit for bit, and gives the same pairs. The block steps read values
// that differ from those they compute by rounding (another shift, other products:
// docs/design.md, "Kernel blocks"), within the kernel accuracy their certificate counts:
// the tracked model is the same to rounding, not bit for bit.
//
// The values are kept only where a Polish would keep its own: a model tracked at a rank
// (Rank() > 0), of method Bordered, without a Window, of a kernel that has a kernel
// function, whose points' whole upper triangle of K fits in
// Options.PassMemory, and whose values are dear to compute (a kernel of products on
// points of 64 coordinates or more, or any kernel evaluated entry by entry). Otherwise
// KeepKernel keeps nothing and returns nil: the calls that follow compute their values
// as they would have. The memory (n²/2 values for n points in all: 1.6 GB at 20,000) is
// held through the next Polish, which reads the values and keeps them, until the next
// Certify, which reads them, less its offset, and uses them up; and given back at once
// by DropKernel, or if anything but AddBatch's block steps of exactly the rows of X, in
// order, changes the points (Add, Remove, another AddBatch, a decoding), or a Polish or
// a Certify starts before they are all added. The Certify's certificate is the one it
// computes from the points, bit for bit.
//
// It checks ctx before it starts and between tiles. A nil ctx, a nil or zero Model and X
// of another dimension are errors (ErrArgument, ErrDimension), and so are X's NaN or
// infinite entries (ErrNonFinite), a kernel value that is not finite, which names a point
// of the pair, and a model of kernel.Precomputed (ErrNoKernel: it has only the columns it
// was given). On error nothing is kept, and the model is as it was.
func (md *Model) KeepKernelContext(ctx context.Context, X mat.Matrix) error {
	if md == nil {
		return fmt.Errorf("%w: KeepKernel: a nil Model", ErrArgument)
	}
	if ctx == nil {
		return fmt.Errorf("%w: KeepKernel: nil context", ErrArgument)
	}
	if err := md.ready(); err != nil {
		return err
	}
	if err := md.needKernel("KeepKernel"); err != nil {
		return err
	}
	X, r, err := kinds.Points(X, md.d)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return kinds.Stopped(ctx, "KeepKernel")
	}
	md.dropKept()
	if md.rank == 0 || md.opts.Window > 0 || md.m == 0 {
		return nil
	}
	m, d := md.m, md.d
	n := m + r
	kk := &keptKernel{n: n, d: d, expect: -1}
	kk.tile = max(1, min(passTile(n), n))
	kk.nb = (n + kk.tile - 1) / kk.tile
	tiles := kk.nb * (kk.nb + 1) / 2
	// Whether a Polish would keep them all is decided before anything is copied: at
	// 70,000 Fashion-MNIST images it would not, and the copy would be 439 MB for nothing.
	// (The probe's Cross, of the model's points, only says how the kernel's values are
	// computed.)
	probe := &passer{md: md, cross: kernel.NewCrossNoCopy(md.kern, &md.view)}
	if probe.cacheTiles(n, kk.tile) < tiles {
		return nil // a Polish would keep some of the triangle or none: the steps need all
	}
	if err := md.Reserve(n); err != nil {
		return err
	}
	// The rows to come are written after the model's points, where the steps that add
	// them will copy them: storage beyond md.m, not the model's state.
	for i := range r {
		mat.Row(md.x[(m+i)*d:(m+i+1)*d], i, X)
	}
	kk.pts = md.x[:n*d]
	all := mat.NewDense(n, d, kk.pts)
	cross := kernel.NewCrossNoCopy(md.kern, all)
	kk.cache, kk.unmap = hugepage.Map(tiles * kk.tile * kk.tile)
	if err := kk.fill(ctx, cross, all); err != nil {
		kk.release()
		return err
	}
	md.kept = kk
	return nil
}

// keptKernel is the upper triangle of K over a model's points and the points it is
// about to add (KeepKernelContext), in the square tiles of a pass over all of them and in
// the order of its schedule (tileRounds), so that a Polish's passer adopts it as the
// values its first pass would keep.
type keptKernel struct {
	n, d     int
	tile, nb int
	pts      []float64 // the n points the values are of (the model's storage)
	index    []int     // nb×nb: the number in the schedule of tile (I, J), I ≤ J
	cache    []float64 // tile g at g·T², (rows × columns of the tile), row-major
	unmap    func()
	// expect is the number of points after the block step in progress, which read its
	// kernel values from the kept ones: setView keeps them only at that count.
	expect int
}

// fill computes every tile, a core each, and checks the values finite.
func (kk *keptKernel) fill(ctx context.Context, cross *kernel.Cross, all *mat.Dense) error {
	var pairs []tilePair
	var order []tilePair
	tileRounds(kk.nb, &pairs, func(round []tilePair) bool {
		order = append(order, round...)
		return true
	})
	kk.index = make([]int, kk.nb*kk.nb)
	for g, t := range order {
		kk.index[t.i*kk.nb+t.j] = g
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(order)))
	release := native.OwnCores(workers)
	defer release()
	free := make(chan *kernel.BlockWork, workers)
	for range workers {
		free <- &kernel.BlockWork{Workers: 1}
	}
	bad := make([]error, len(order))
	var team parallel.Team
	team.Run(workers, len(order), 1, func(lo, hi int) {
		work := <-free
		defer func() { free <- work }()
		var kd mat.Dense
		for g := lo; g < hi; g++ {
			if ctx.Err() != nil {
				bad[g] = kinds.Stopped(ctx, "")
				return
			}
			t := order[g]
			i0, i1 := t.i*kk.tile, min((t.i+1)*kk.tile, kk.n)
			j0, j1 := t.j*kk.tile, min((t.j+1)*kk.tile, kk.n)
			b, w := i1-i0, j1-j0
			kb := blas64.General{Rows: b, Cols: w, Stride: w, Data: kk.tileData(g)[:b*w]}
			kd.SetRawMatrix(kb)
			cross.BlockPointsTo(&kd, i0, i1, j0, j1, work)
			for i := range b {
				if !vec.Finite(kb.Data[i*w : i*w+w]) {
					bad[g] = blocks.NonFinite(ErrNonFinite, cross, all, i0+i, "point")
					break
				}
			}
		}
	})
	for _, e := range bad {
		if e != nil {
			return e
		}
	}
	return nil
}

// tileData returns the storage of tile g.
func (kk *keptKernel) tileData(g int) []float64 {
	size := kk.tile * kk.tile
	return kk.cache[g*size : (g+1)*size]
}

// width returns the number of points of block J.
func (kk *keptKernel) width(J int) int { return min(kk.tile, kk.n-J*kk.tile) }

// at returns k(xᵢ, xⱼ) from the tile that holds the pair (i, j) or, by symmetry, (j, i).
func (kk *keptKernel) at(i, j int) float64 {
	if i > j {
		i, j = j, i
	}
	I, J := i/kk.tile, j/kk.tile
	return kk.tileData(kk.index[I*kk.nb+J])[(i-I*kk.tile)*kk.width(J)+j-J*kk.tile]
}

// covers reports whether the b rows of X are the kept points m…m+b−1, bit for bit, and the
// model's m points the kept ones before them — which setView ensures: it drops the
// values at any other change of the points.
func (kk *keptKernel) covers(m int, X *mat.Dense) bool {
	b, _ := X.Dims()
	if kk == nil || m+b > kk.n {
		return false
	}
	for i := range b {
		want := kk.pts[(m+i)*kk.d : (m+i+1)*kk.d]
		for l, v := range X.RawRowView(i) {
			if math.Float64bits(v) != math.Float64bits(want[l]) {
				return false
			}
		}
	}
	return true
}

// blockTo sets A (m×b) to the kernel columns of points m…m+b−1 against points 0…m−1,
// and the upper triangle of C (b×b) to their own kernel matrix, from the kept tiles: a
// row of A is copied a tile at a time, as many numbers as the tile's columns it meets.
func (kk *keptKernel) blockTo(A blas64.General, C blas64.Symmetric, m, b int) {
	T := kk.tile
	for J := m / T; J*T < m+b; J++ {
		j0, j1 := max(m, J*T), min(m+b, (J+1)*T)
		w := kk.width(J)
		for I := 0; I*T < m && I <= J; I++ {
			tile := kk.tileData(kk.index[I*kk.nb+J])
			for i := I * T; i < min(m, (I+1)*T); i++ {
				src := tile[(i-I*T)*w+j0-J*T : (i-I*T)*w+j1-J*T]
				copy(A.Data[i*A.Stride+j0-m:], src)
			}
		}
	}
	for i := range b {
		row := C.Data[i*C.Stride : i*C.Stride+b]
		for j := i; j < b; j++ {
			row[j] = kk.at(m+i, m+j)
		}
	}
}

// release gives back the memory of the kept values.
func (kk *keptKernel) release() {
	if kk.unmap != nil {
		kk.unmap()
	}
	kk.cache, kk.unmap = nil, nil
}

// DropKernel gives back the memory of the kernel values KeepKernel kept, if any: a
// Polish and a Certify then compute their own. A nil or zero Model is left as it is.
func (md *Model) DropKernel() {
	if md != nil {
		md.dropKept()
	}
}

// dropKept gives back the kept kernel values, if any.
func (md *Model) dropKept() {
	if md.kept != nil {
		md.kept.release()
		md.kept = nil
	}
}

// adopt gives the passer the kept values of all the model's points, as if its first
// pass had computed and kept them; the passer then holds them, and releases them unless
// giveBack returns them.
func (p *passer) adopt(kk *keptKernel) {
	p.release()
	p.tile = kk.tile
	p.cache, p.unmap = kk.cache, kk.unmap
	p.cached = kk.nb * (kk.nb + 1) / 2
	p.filled, p.unshifted, p.adopted = true, true, kk
	kk.cache, kk.unmap = nil, nil
}

// giveBack returns the kept values the passer adopted, as they were, for the model to
// keep: nil if it adopted none, or if a pass changed them (a Certify's, which subtracts
// its offset: adding it back would not give the same bits).
func (p *passer) giveBack() *keptKernel {
	kk := p.adopted
	if kk == nil || p.cache == nil || !p.unshifted && p.offset != 0 {
		return nil
	}
	kk.cache, kk.unmap = p.cache, p.unmap
	kk.expect = -1
	p.cache, p.unmap, p.cached, p.filled, p.tile, p.adopted = nil, nil, 0, false, 0, nil
	return kk
}

// adoptKept gives ps the values KeepKernel kept, if they are of every point, and takes
// them from the model: the passes of a Polish or a Certify read them as their own first
// pass's (docs/design.md, "The kernel kept for a polish").
func (md *Model) adoptKept(ps *passer) {
	if kk := md.kept; kk != nil {
		if kk.n == md.m {
			ps.adopt(kk)
		}
		md.dropKept()
	}
}
