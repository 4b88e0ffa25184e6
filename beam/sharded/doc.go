// Package sharded is Polish and Certify of kernel PCA over points held in shards: the
// block Krylov–Ritz iteration of kpca.FitFrom written as steps on one shard at a time
// and reductions of small per-shard parts, so that a pipeline can run the steps on
// workers and the reductions on one (docs/design.md, "Polish and Certify over sharded
// points").
//
// A run is a fixed Program of Steps. Each Step is a function of one shard's State and
// the latest Global (State.Step), which may change the State and returns a small Part;
// and a reduction of the Parts of all shards, in shard order, into the next Global
// (Reduce). A Tiles step is the exception: its work is the products of the tiles
// (I, J), I ≤ J, of the kernel matrix (Tile), which the caller computes where the two
// shards' points meet and sums per shard in tile order (AddTile). Run executes a
// program in one process; ikpcabeam executes the same steps on Beam. Because every sum
// over shards is taken in shard order and every sum over tiles in tile order, the two
// give the same numbers bit for bit, whatever the runner's order.
//
// The orthonormalisation of each block is kpca's (Gram–Schmidt twice, each round
// followed by the left singular vectors of what remains) with the SVD of the tall block
// taken as a tall-skinny QR: each shard factors its rows, Z_s = Q_s·R_s, one reduction
// factors the stacked R_s and takes the SVD of the c×c factor, and each shard then
// multiplies its Q_s by its rows of the result. That is as stable as the SVD of the
// whole block, and only c×c numbers a shard travel.
package sharded
