package sharded

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/ikpca/ikpca/internal/sign"
)

// Step runs a step on the shard, with the Global of the reduction before it, and returns
// its part of the step's reduction. Tiles is not a step of a State (Tile, SumTiles).
func (st *State) Step(step Step, g *Global) (Part, error) {
	for name, m := range map[string]Matrix{"Q": st.Q, "Z": st.Z, "Local": st.Local, "Y": st.Y, "U": st.U} {
		if err := checkShape(name, m); err != nil {
			return Part{}, err
		}
	}
	if len(st.IDs) != st.N {
		return Part{}, fmt.Errorf("sharded: a state of %d points with %d identities", st.N, len(st.IDs))
	}
	if g.Stopped && !step.always() {
		return Part{Shard: st.Shard}, nil
	}
	var data []float64
	var err error
	switch step.Kind {
	case OrthSums:
		data = st.orthSums(step, g)
	case OrthQR:
		if !step.Start && step.Round == 0 {
			// The block after a pass: W = K′·Q_last = Y less its column means.
			st.Z = st.Y
			if g.Options.Centred {
				st.Z = subtractMeans(st.Y, g.YMean)
			}
		}
		data, err = st.orthQR(g)
	case OrthApply:
		err = st.orthApply(g)
	case PassSums:
		data = st.passSums(step)
	case Ritz:
		data = st.ritz(g)
	case TailStart:
		data = st.tailStart(g)
	case TailProject:
		err = st.tailProject(g)
	case TailSums:
		data = st.tailSums()
	case TailNorms:
		data = columnSquares(st.Z)
	default:
		err = fmt.Errorf("sharded: step %v is not a step of a shard", step.Kind)
	}
	return Part{Shard: st.Shard, Data: data}, err
}

// orthSums, for the block Z in progress, returns its column sums, Qᵀ·Z and Q's column sums: the sums that
// give Z's column means and its coordinates in the basis (Reduce).
func (st *State) orthSums(step Step, g *Global) []float64 {
	out := append(columnSums(st.Z), mul(blas.Trans, blas.NoTrans, st.Q, st.Z).Data...)
	return append(out, columnSums(st.Q)...)
}

// orthQR removes from Z its column means (centred) and its part in the basis,
// Z ← Z − 1·z̄ᵀ − Q·P, factors the result, Z = Local·R (Householder, lapack64.Geqrf and
// Orgqr; a shard of fewer rows than columns keeps Z as its R and the identity as its
// Local), and returns R's rows, preceded by their number.
func (st *State) orthQR(g *Global) ([]float64, error) {
	if g.P.Rows != st.Q.Cols || g.P.Cols != st.Z.Cols || len(g.ZMean) != st.Z.Cols {
		return nil, fmt.Errorf("sharded: OrthQR: coordinates %d×%d and %d means for a basis of %d and a block of %d columns",
			g.P.Rows, g.P.Cols, len(g.ZMean), st.Q.Cols, st.Z.Cols)
	}
	Z := subtractMeans(st.Z, g.ZMean)
	gemm(blas.NoTrans, blas.NoTrans, -1, st.Q, g.P, 1, Z)
	n, c := Z.Rows, Z.Cols
	if n < c {
		st.Local = newMatrix(n, n)
		for i := range n {
			st.Local.Data[i*n+i] = 1
		}
		return append([]float64{float64(n)}, Z.Data...), nil
	}
	R := factorQR(Z) // Z becomes Local
	st.Local = Z
	return append([]float64{float64(c)}, R.Data...), nil
}

// factorQR factors the n×c matrix A (n ≥ c ≥ 1) as A = Q·R, overwrites A with Q (n×c,
// orthonormal columns) and returns R (c×c, upper triangular).
func factorQR(A Matrix) Matrix {
	n, c := A.Rows, A.Cols
	a := A.general()
	tau := make([]float64, c)
	work := []float64{0}
	lapack64.Geqrf(a, tau, work, -1)
	work = make([]float64, max(int(work[0]), n))
	lapack64.Geqrf(a, tau, work, len(work))
	R := newMatrix(c, c)
	for i := range c {
		copy(R.row(i)[i:], A.row(i)[i:])
	}
	lapack64.Orgqr(a, tau, work[:1], -1)
	if need := max(int(work[0]), c); need > len(work) {
		work = make([]float64, need)
	}
	lapack64.Orgqr(a, tau, work, len(work))
	return R
}

// orthApply sets Z to Local times the shard's rows of the reduction's left singular
// vectors: the shard's rows of the orthonormal basis of what Z spanned.
func (st *State) orthApply(g *Global) error {
	if st.Shard < 0 || st.Shard >= len(g.RowOf) {
		return fmt.Errorf("sharded: OrthApply: shard %d of %d", st.Shard, len(g.RowOf))
	}
	r0, r1 := g.RowOf[st.Shard], st.Local.Cols
	if r0 < 0 || r0+r1 > g.Left.Rows {
		return fmt.Errorf("sharded: OrthApply: rows %d to %d of %d", r0, r0+r1, g.Left.Rows)
	}
	rows := Matrix{Rows: r1, Cols: g.Left.Cols, Data: g.Left.Data[r0*g.Left.Cols : (r0+r1)*g.Left.Cols]}
	st.Z = mul(blas.NoTrans, blas.NoTrans, st.Local, rows)
	st.Local = Matrix{}
	return nil
}

// TileInput returns the block a pass multiplies by K: the block Z, and in the first pass
// the column of ones before it, which gives the row sums K·1.
func (st *State) TileInput(step Step, g *Global) Matrix {
	if g.Stopped && !step.Tail {
		return newMatrix(st.N, 0)
	}
	if step.Pass > 0 || step.Tail {
		return st.Z
	}
	ones := newMatrix(st.N, 1)
	for i := range ones.Data {
		ones.Data[i] = 1
	}
	return hcat(ones, st.Z)
}

// passSums appends the pass's block to the basis and returns the sums of the pass: the
// block's width, the first pass's Σ(K·1), the column sums of Y and of its squares, Qᵀ·Y and Q's column sums.
func (st *State) passSums(step Step) []float64 {
	st.Q = hcat(st.Q, st.Z)
	ones := 0.0
	if step.Pass == 0 && st.Y.Cols > 0 {
		for i := range st.N {
			ones += st.Y.Data[i*st.Y.Cols]
		}
		st.Y = st.Y.columns(1, st.Y.Cols)
	}
	out := []float64{float64(st.Y.Cols), ones}
	out = append(out, columnSums(st.Y)...)
	sq := make([]float64, st.Y.Cols)
	for i := range st.N {
		for j, v := range st.Y.row(i) {
			sq[j] += v * v
		}
	}
	out = append(out, sq...)
	out = append(out, mul(blas.Trans, blas.NoTrans, st.Q, st.Y).Data...)
	return append(out, columnSums(st.Q)...)
}

// ritz sets the shard's rows of the Ritz vectors, U = Q·S, and returns its part of the
// certificate and the signs: RᵀR for the residual R = (W − Q·T_last)·S_last of the kept
// pairs (W = K′ times the last block: kpca's restart certificate, docs/design.md,
// "Polishing"), then for each kept vector the shard's largest |u| and the first entry
// within sign.Tie of it.
func (st *State) ritz(g *Global) []float64 {
	keep := g.S.Cols
	st.U = mul(blas.NoTrans, blas.NoTrans, st.Q, g.S)
	W := st.Y
	if g.Options.Centred {
		W = subtractMeans(st.Y, g.YMean)
	}
	F := mul(blas.NoTrans, blas.NoTrans, st.Q, g.TLast)
	for i := range F.Data {
		F.Data[i] = W.Data[i] - F.Data[i]
	}
	sLast := Matrix{Rows: g.Block, Cols: keep, Data: g.S.Data[(g.Used-g.Block)*keep:]}
	R := mul(blas.NoTrans, blas.NoTrans, F, sLast)
	out := mul(blas.Trans, blas.NoTrans, R, R).Data
	for j := range keep {
		big, first := 0.0, 0.0
		for i := range st.N {
			big = math.Max(big, math.Abs(st.U.Data[i*keep+j]))
		}
		for i := range st.N {
			if v := st.U.Data[i*keep+j]; math.Abs(v) >= big*(1-sign.Tie) {
				first = v
				break
			}
		}
		out = append(out, big, first)
	}
	return out
}

// Scores returns the shard's rows of the scores of its points on the leading
// Components: √θⱼ·uᵢⱼ, the training points' projections (as Transform gives them for
// exact pairs), largest value first, each vector's sign fixed by the reduction.
func (st *State) Scores(g *Global) (Matrix, error) {
	keep := len(g.Values)
	if st.U.Rows != st.N || st.U.Cols != keep || len(g.Signs) != keep {
		return Matrix{}, fmt.Errorf("sharded: Scores: the Ritz step has not run")
	}
	k := min(g.Options.Components, keep)
	out := newMatrix(st.N, k)
	for j := range k {
		col := keep - 1 - j // ascending: the largest last
		f := math.Sqrt(math.Max(g.Values[j], 0)) * g.Signs[col]
		for i := range st.N {
			out.Data[i*k+j] = f * st.U.Data[i*keep+col]
		}
	}
	return out, nil
}

// columnSums returns the column sums of m.
func columnSums(m Matrix) []float64 {
	s := make([]float64, m.Cols)
	for i := range m.Rows {
		for j, v := range m.row(i) {
			s[j] += v
		}
	}
	return s
}

// subtractMeans returns m − 1·meanᵀ.
func subtractMeans(m Matrix, mean []float64) Matrix {
	out := newMatrix(m.Rows, m.Cols)
	for i := range m.Rows {
		row := out.row(i)
		for j, v := range m.row(i) {
			row[j] = v - mean[j]
		}
	}
	return out
}

// columnSquares returns the column sums of the squares of m.
func columnSquares(m Matrix) []float64 {
	s := make([]float64, m.Cols)
	for i := range m.Rows {
		for j, v := range m.row(i) {
			s[j] += v * v
		}
	}
	return s
}
