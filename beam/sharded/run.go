package sharded

import (
	"context"
	"fmt"

	"github.com/ikpca/ikpca/kernel"
)

// Shard is a shard's points, N×d in the shard's fixed order, their identities and,
// unless it is empty (no Data), the shard's rows of the start (NewStateFrom); empty, the
// start is random (NewState).
type Shard struct {
	X     Matrix
	IDs   []uint64
	Start Matrix
}

// Result is what a run computes: its final Global (the values, the certificate:
// Global.Bounds) and each shard's scores (State.Scores), in the order of the shards.
type Result struct {
	Global Global
	Scores []Matrix
}

// Run executes the program of o.Passes passes over the shards in one process: the
// steps that a pipeline runs on workers, in the same order and with the same sums, so
// that its result equals a pipeline's bit for bit.
func Run(ctx context.Context, k kernel.Kernel, shards []Shard, o Options) (Result, error) {
	g, err := Begin(o)
	if err != nil {
		return Result{}, err
	}
	switch {
	case ctx == nil:
		return Result{}, fmt.Errorf("sharded: nil context")
	case k == nil:
		return Result{}, fmt.Errorf("sharded: nil kernel")
	case len(shards) == 0:
		return Result{}, fmt.Errorf("sharded: no shards")
	}
	states := make([]State, len(shards))
	parts := make([]Part, len(shards))
	steps := Program(o.Passes)
	if o.TestVectors > 0 {
		steps = append(steps, TailProgram()...)
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		switch step.Kind {
		case Start:
			for s, sh := range shards {
				if sh.Start.Data == nil {
					states[s], parts[s], err = NewState(s, k, sh.X, sh.IDs, o)
				} else {
					states[s], parts[s], err = NewStateFrom(s, k, sh.X, sh.IDs, sh.Start, o)
				}
				if err != nil {
					return Result{}, err
				}
			}
		case Tiles:
			if err := runTiles(k, shards, states, step, &g); err != nil {
				return Result{}, err
			}
			continue
		default:
			for s := range states {
				if parts[s], err = states[s].Step(step, &g); err != nil {
					return Result{}, err
				}
			}
		}
		if g, err = Reduce(step, g, parts); err != nil {
			return Result{}, err
		}
	}
	res := Result{Global: g, Scores: make([]Matrix, len(states))}
	for s := range states {
		if res.Scores[s], err = states[s].Scores(&g); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// runTiles computes a pass's tiles in their order and sets each shard's Y to the sum of
// its parts.
func runTiles(k kernel.Kernel, shards []Shard, states []State, step Step, g *Global) error {
	if g.Stopped && !step.Tail {
		return nil // Y stays that of the last pass
	}
	in := make([]Matrix, len(states))
	for s := range states {
		in[s] = states[s].TileInput(step, g)
	}
	got := make([][]TilePart, len(states))
	for t, ij := range TilePairs(len(states)) {
		i, j := ij[0], ij[1]
		yi, yj, err := Tile(k, shards[i].X, shards[j].X, in[i], in[j], i == j)
		if err != nil {
			return err
		}
		got[i] = append(got[i], TilePart{Tile: t, Y: yi})
		if i != j {
			got[j] = append(got[j], TilePart{Tile: t, Y: yj})
		}
	}
	for s := range states {
		Y, err := SumTiles(states[s].N, in[s].Cols, got[s])
		if err != nil {
			return err
		}
		states[s].Y = Y
	}
	return nil
}
