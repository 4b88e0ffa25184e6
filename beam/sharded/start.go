package sharded

import (
	"fmt"
	"math"

	"github.com/ikpca/ikpca/kernel"
)

// StartRow sets row to the row of the random start of the point with identity id: entries
// uniform in [−½, ½) from an xorshift64 sequence seeded by the seed and the identity. A
// point's row depends on nothing but the two, so the start is the same however the
// points are sharded, and a one-process fit given the same rows (kpca.Start.Vectors)
// starts from the same subspace.
func StartRow(row []float64, seed, id uint64) {
	state := splitmix(seed ^ splitmix(id))
	if state == 0 {
		state = 1 // xorshift's one fixed point
	}
	for j := range row {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		row[j] = float64(state>>11)/(1<<53) - 0.5
	}
}

// splitmix is SplitMix64's finaliser: a bijection that spreads nearby seeds apart.
func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// NewState returns the state of a shard of points X (N×d, in the shard's fixed order)
// with identities ids, and its part of the Start step: N, Σk(x, x) and max k(x, x). Its
// block in progress is the random start, Rank columns (StartRow). A point whose k(x, x)
// is not finite is an error: the caller's checks keep such points out.
func NewState(shard int, k kernel.Kernel, X Matrix, ids []uint64, o Options) (State, Part, error) {
	return newState(shard, k, X, ids, Matrix{Rows: X.Rows, Cols: o.Rank}, o)
}

// NewStateFrom is NewState from a given start: start holds the shard's rows of the
// starting block, N×c with Components ≤ c ≤ Rank, finite — for example a model's scores
// of the shard's points (ikpca.Model.Transform), its eigenvectors lifted to the points
// up to each column's scale, as kpca.Start.Vectors takes them. Only the span of the
// whole block matters; centred, its part along 1 is removed. Every shard's start must
// have the same c.
func NewStateFrom(shard int, k kernel.Kernel, X Matrix, ids []uint64, start Matrix, o Options) (State, Part, error) {
	switch {
	case checkShape("the start", start) != nil:
		return State{}, Part{}, checkShape("the start", start)
	case start.Rows != X.Rows || start.Cols < o.Components || start.Cols > o.Rank:
		return State{}, Part{}, fmt.Errorf("sharded: a start of %d×%d for %d points (want %d rows and %d to %d columns: Components to Rank)",
			start.Rows, start.Cols, X.Rows, X.Rows, o.Components, o.Rank)
	}
	for i, v := range start.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return State{}, Part{}, fmt.Errorf("sharded: the start has %g at point %d of shard %d", v, i/start.Cols, shard)
		}
	}
	return newState(shard, k, X, ids, start, o)
}

// newState is NewState from the start z, whose data, if nil, are the random start's.
func newState(shard int, k kernel.Kernel, X Matrix, ids []uint64, z Matrix, o Options) (State, Part, error) {
	if err := checkShape("the points", X); err != nil {
		return State{}, Part{}, err
	}
	n := X.Rows
	if len(ids) != n {
		return State{}, Part{}, fmt.Errorf("sharded: %d identities for %d points", len(ids), n)
	}
	random := z.Data == nil
	if random {
		z = newMatrix(n, z.Cols)
	} else {
		z = Matrix{Rows: z.Rows, Cols: z.Cols, Data: append([]float64(nil), z.Data...)}
	}
	st := State{Shard: shard, N: n, IDs: append([]uint64(nil), ids...), Q: newMatrix(n, 0), Z: z}
	var self, kmax float64
	for i := range n {
		x := X.row(i)
		v := k.Eval(x, x)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return State{}, Part{}, fmt.Errorf("sharded: k(x, x) = %g at point %d of shard %d", v, i, shard)
		}
		self += v
		kmax = math.Max(kmax, math.Abs(v))
		if random {
			StartRow(st.Z.row(i), o.Seed, ids[i])
		}
	}
	return st, Part{Shard: shard, Data: []float64{float64(n), self, kmax}}, nil
}
