package sharded

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// TilePairs returns the tiles of a kernel matrix over the given number of shards: the
// pairs (I, J), I ≤ J, numbered row by row — the tile's number is its index.
func TilePairs(shards int) [][2]int {
	t := make([][2]int, 0, shards*(shards+1)/2)
	for i := range shards {
		for j := i; j < shards; j++ {
			t = append(t, [2]int{i, j})
		}
	}
	return t
}

// TilePart is a tile's product for one of its shards.
type TilePart struct {
	Tile int
	Y    Matrix
}

// tilePanel is the number of rows of a tile's kernel block computed at once: the block
// is panel×N_J numbers, never the tile.
const tilePanel = 512

// Tile returns the products of the tile (I, J) of the kernel matrix, the points XI and
// XJ (N_I×d and N_J×d) and the blocks BI and BJ (N_I×c and N_J×c): K_IJ·B_J, shard I's
// part of K·B, and unless diag (I = J), K_IJᵀ·B_I, shard J's. K_IJ is computed a panel
// of rows at a time by kernel.Cross, at the speed of a matrix product (docs/design.md,
// "Kernel blocks"), in O(tilePanel·N_J) memory.
func Tile(k kernel.Kernel, XI, XJ, BI, BJ Matrix, diag bool) (YI, YJ Matrix, err error) {
	switch {
	case checkShape("XI", XI) != nil || checkShape("XJ", XJ) != nil || checkShape("BI", BI) != nil || checkShape("BJ", BJ) != nil:
		return Matrix{}, Matrix{}, fmt.Errorf("sharded: Tile: a matrix whose shape its data do not fill")
	case XI.Cols != XJ.Cols || BI.Rows != XI.Rows || BJ.Rows != XJ.Rows || BI.Cols != BJ.Cols:
		return Matrix{}, Matrix{}, fmt.Errorf("sharded: Tile: points %d×%d and %d×%d with blocks %d×%d and %d×%d",
			XI.Rows, XI.Cols, XJ.Rows, XJ.Cols, BI.Rows, BI.Cols, BJ.Rows, BJ.Cols)
	}
	c := BI.Cols
	YI = newMatrix(XI.Rows, c)
	YJ = newMatrix(XJ.Rows, c)
	if XI.Rows == 0 || XJ.Rows == 0 || c == 0 || XI.Cols == 0 {
		return YI, YJ, nil
	}
	cross := kernel.NewCross(k, mat.NewDense(XJ.Rows, XJ.Cols, XJ.Data))
	var work kernel.BlockWork
	var block mat.Dense
	for i0 := 0; i0 < XI.Rows; i0 += tilePanel {
		i1 := min(i0+tilePanel, XI.Rows)
		panel := Matrix{Rows: i1 - i0, Cols: XI.Cols, Data: XI.Data[i0*XI.Cols : i1*XI.Cols]}
		block.Reset()
		cross.BlockTo(&block, mat.NewDense(panel.Rows, panel.Cols, panel.Data), &work)
		K := Matrix{Rows: panel.Rows, Cols: XJ.Rows, Data: block.RawMatrix().Data}
		yi := Matrix{Rows: panel.Rows, Cols: c, Data: YI.Data[i0*c : i1*c]}
		gemm(blas.NoTrans, blas.NoTrans, 1, K, BJ, 0, yi)
		if !diag {
			bi := Matrix{Rows: panel.Rows, Cols: c, Data: BI.Data[i0*c : i1*c]}
			gemm(blas.Trans, blas.NoTrans, 1, K, bi, 1, YJ)
		}
	}
	return YI, YJ, nil
}

// SumTiles returns a shard's K·B, n×c, from its parts of every tile it is in, added in
// the order of the tiles' numbers whatever order they come in, so that the sum does not
// depend on a runner's order.
func SumTiles(n, c int, parts []TilePart) (Matrix, error) {
	parts = slices.Clone(parts)
	slices.SortFunc(parts, func(a, b TilePart) int { return a.Tile - b.Tile })
	Y := newMatrix(n, c)
	for i, p := range parts {
		if i > 0 && p.Tile == parts[i-1].Tile {
			return Matrix{}, fmt.Errorf("sharded: tile %d's part twice", p.Tile)
		}
		if p.Y.Rows != n || p.Y.Cols != c || len(p.Y.Data) != n*c {
			return Matrix{}, fmt.Errorf("sharded: tile %d's part is %d×%d, want %d×%d", p.Tile, p.Y.Rows, p.Y.Cols, n, c)
		}
		add(Y.Data, p.Y.Data)
	}
	return Y, nil
}
