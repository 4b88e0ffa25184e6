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
	if err := checkShape("the points", X); err != nil {
		return State{}, Part{}, err
	}
	n := X.Rows
	if len(ids) != n {
		return State{}, Part{}, fmt.Errorf("sharded: %d identities for %d points", len(ids), n)
	}
	st := State{Shard: shard, N: n, IDs: append([]uint64(nil), ids...), Q: newMatrix(n, 0), Z: newMatrix(n, o.Rank)}
	var self, kmax float64
	for i := range n {
		x := X.row(i)
		v := k.Eval(x, x)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return State{}, Part{}, fmt.Errorf("sharded: k(x, x) = %g at point %d of shard %d", v, i, shard)
		}
		self += v
		kmax = math.Max(kmax, math.Abs(v))
		StartRow(st.Z.row(i), o.Seed, ids[i])
	}
	return st, Part{Shard: shard, Data: []float64{float64(n), self, kmax}}, nil
}
