package kpca

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/hugepage"
)

// capacity is the number of points the buffers hold.
func (md *Model) capacity() int {
	if md.d == 0 {
		if md.precomputed() {
			return len(md.rowSum) // no coordinates: the row sums hold one number a point
		}
		return 0
	}
	return cap(md.x) / md.d
}

// Reserve makes room for n points, so that adding (and removing) points up to that
// number allocates nothing: the decomposition's buffers — two n×n matrices, or two
// n×(Rank+2) at rank r — are allocated here. The model grows by itself as points are
// added; Reserve only spares the reallocations and lets a caller allocate everything up
// front. A zero Model (no kernel, no dimension yet), a negative n, and an n whose
// buffers would hold more than 2³⁰ numbers (docs/design.md, "Sizes": an exact model
// beyond 2¹⁵ points, n·d coordinates, n·(Rank+2) at rank r) are ErrArgument errors, and
// leave the model as it was.
func (md *Model) Reserve(n int) error {
	if err := md.ready(); err != nil {
		return err
	}
	if err := md.checkReserve(n); err != nil {
		return err
	}
	md.reserve(n)
	return nil
}

// checkReserve is Reserve's check of n.
func (md *Model) checkReserve(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: Reserve(%d): a negative number of points", ErrArgument, n)
	}
	if _, err := kinds.Floats("the points", n, md.d); err != nil {
		return err
	}
	_, err := kinds.Floats("the decomposition", n+1, md.columns(n+1))
	return err
}

// reserve is Reserve of an n the data chose (ensure, fit), not the caller: the sizes
// grow with the points added and are not bounded (docs/design.md, "Sizes").
func (md *Model) reserve(n int) {
	if md.reserveStore(n) {
		md.thin.Reserve(n+1, md.columns(n+1))
	}
}

// reserveStore is reserve of the points, the row sums and the workspaces, which a
// RankOneModel shares, and reports whether they grew.
func (md *Model) reserveStore(n int) bool {
	if md.d == 0 && !md.precomputed() || n <= md.capacity() && len(md.rowSum) >= n && len(md.col) >= n+1 {
		return false
	}
	// The points and row sums are kept where they are if they have room (a decoded
	// model's, taken by UnmarshalBinary), and the workspaces sized below in any case.
	if n > md.capacity() {
		x := hugepage.Floats(md.m*md.d, n*md.d)
		copy(x, md.x[:md.m*md.d])
		md.x = x
	}
	md.x = md.x[:n*md.d]
	if len(md.rowSum) < n {
		rowSum := make([]float64, n)
		copy(rowSum, md.rowSum)
		md.rowSum = rowSum
	}
	md.col = make([]float64, n+1)
	md.work = make([]float64, n+1)
	md.work2 = make([]float64, n+1)
	md.work3 = make([]float64, n+1)
	md.spare.reserve(n, md.d)
	md.setView()
	return true
}

// columns is the number of eigenpairs a decomposition of n points holds, with room for
// the two a Border adds before truncating.
func (md *Model) columns(n int) int {
	if md.rank > 0 {
		return min(md.rank+2, n)
	}
	return n
}

// ensure makes room for n points, growing by a factor of 1.25 at least so that points
// added one by one reallocate only now and then (amortised O(m²) copying per point,
// negligible next to an O(m³) update).
func (md *Model) ensure(n int) {
	if r := md.room(n); r > 0 {
		md.reserve(r)
	}
}

// room returns the number of points to reserve room for before n are held, or 0 if
// there is room.
func (md *Model) room(n int) int {
	switch {
	case n > md.capacity() || len(md.rowSum) < n:
		return max(n, md.capacity()+md.capacity()/4, 16)
	case len(md.col) < n+1: // points with room but no workspaces (UnmarshalBinary)
		return md.capacity()
	}
	return 0
}
