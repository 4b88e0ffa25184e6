package sharded

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/ikpca/ikpca/internal/truncation"
	"github.com/ikpca/ikpca/internal/vec"
)

// The random tail bound (TailProgram): the deterministic tail b of the Ritz step bounds
// λmax(B), B = P·K′·P the compression of K′ to the complement of span(U), by the trace
// of what the Krylov space did not capture, which for a slowly decaying spectrum
// (Fashion-MNIST's) is far above the gaps of the top values. kpca's Certify bounds it
// instead with p Gaussian test vectors ωᵢ (Halko, Martinsson and Tropp 2011, Lemma 4.1,
// applied to B², whose norm is ‖B‖²):
//
//	λmax(B)² ≤ α·√(2/π)·maxᵢ‖B²ωᵢ‖   except with probability α⁻ᵖ,
//
// with α = 2 and p = 30 by default: two passes of p columns, and the certificate holds
// with probability 1 − 2⁻³⁰ over the draw of the test vectors, which are fixed by the
// seed and the points' identities, chosen without looking at the data. Each computed
// product B̂ = B + E, ‖E‖ ≤ rnd, so ‖B̂²ω − B²ω‖ ≤ (2·rnd·b + rnd²)·‖ω‖, which the bound
// adds. The certificate takes the smaller of b and the random bound.

// tailAlpha is α of the random tail bound: its factor of overestimation is α·√(2/π)
// before the square root, its failure probability α⁻ᵖ.
const tailAlpha = 2

// TailRow sets row to the row of the test vectors of the point with identity id:
// standard normal entries (Box–Muller) from an xorshift64 sequence seeded by the seed and
// the identity, another sequence than StartRow's.
func TailRow(row []float64, seed, id uint64) {
	state := splitmix(seed ^ splitmix(id^0x7461696c)) // "tail"
	if state == 0 {
		state = 1
	}
	next := func() float64 {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		return (float64(state>>11) + 0.5) / (1 << 53) // in (0, 1)
	}
	for j := 0; j < len(row); j += 2 {
		r := math.Sqrt(-2 * math.Log(next()))
		s, c := math.Sincos(2 * math.Pi * next())
		row[j] = r * c
		if j+1 < len(row) {
			row[j+1] = r * s
		}
	}
}

// tailStart sets Z to the shard's rows of the test vectors Ω and returns the sums that
// project them: Z's column sums, Uᵀ·Z, U's column sums and Z's column sums of squares
// (the test vectors' norms, before projection: the ωᵢ of the lemma).
func (st *State) tailStart(g *Global) []float64 {
	p := g.Options.TestVectors
	st.Z = newMatrix(st.N, p)
	for i := range st.N {
		TailRow(st.Z.row(i), g.Options.Seed, st.IDs[i])
	}
	return append(st.tailParts(st.Z), columnSquares(st.Z)...)
}

// tailSums takes the pass's product as the block and returns its sums (tailParts).
func (st *State) tailSums() []float64 {
	st.Z = st.Y
	return st.tailParts(st.Z)
}

// tailParts returns X's column sums, Uᵀ·X and U's column sums.
func (st *State) tailParts(X Matrix) []float64 {
	out := append(columnSums(X), mul(blas.Trans, blas.NoTrans, st.U, X).Data...)
	return append(out, columnSums(st.U)...)
}

// tailProject sets Z to P·Z = Z − 1·z̄ᵀ − U·(Uᵀ(Z − 1·z̄ᵀ)), from the reduction's means
// and coordinates.
func (st *State) tailProject(g *Global) error {
	if len(g.TailMean) != st.Z.Cols || g.TailP.Rows != st.U.Cols || g.TailP.Cols != st.Z.Cols {
		return fmt.Errorf("sharded: TailProject: %d means and %d×%d coordinates for a %d×%d block and %d vectors",
			len(g.TailMean), g.TailP.Rows, g.TailP.Cols, st.Z.Rows, st.Z.Cols, st.U.Cols)
	}
	Z := subtractMeans(st.Z, g.TailMean)
	gemm(blas.NoTrans, blas.NoTrans, -1, st.U, g.TailP, 1, Z)
	st.Z = Z
	return nil
}

// tailSums reduces TailStart's or TailSums' parts: the block's column means (centred)
// and its coordinates P = Uᵀ(X − 1·x̄ᵀ) = UᵀX − (Uᵀ1)·x̄ᵀ; for TailStart also the test
// vectors' norms.
func (g Global) tailSums(step Step, parts []Part) (Global, error) {
	p, keep := g.Options.TestVectors, len(g.Values)
	extra := 0
	if step.Kind == TailStart {
		extra = p
	}
	mean, P, sq, err := g.coordinateSums(parts, keep, p, extra)
	if err != nil {
		return g, err
	}
	g.TailMean, g.TailP = mean, P
	if step.Kind == TailStart {
		g.OmegaNorm = make([]float64, p)
		for j, v := range sq {
			g.OmegaNorm[j] = math.Sqrt(v)
		}
	}
	return g, nil
}

// tailBound sums the norms of B²ωᵢ and takes the random tail bound, and the intervals
// and sines with the smaller of it and the deterministic b (truncation.RitzBounds).
func (g Global) tailBound(parts []Part) (Global, error) {
	p := g.Options.TestVectors
	sq := make([]float64, p)
	for _, part := range parts {
		r := reader{data: part.Data}
		add(sq, r.take(p))
		if err := r.done(); err != nil {
			return g, err
		}
	}
	if len(g.OmegaNorm) != p {
		return g, fmt.Errorf("sharded: TailNorms without TailStart")
	}
	b, rnd := g.Bound, g.Rnd
	// The products' rounding (rnd) and the projections' (64ε a column of U and of Ω).
	e := 2*rnd*b + rnd*rnd + 64*vec.Roundoff*float64(len(g.Values)+p+2)*b
	var most float64
	for j := range p {
		most = math.Max(most, math.Sqrt(sq[j])+e*g.OmegaNorm[j])
	}
	mu := math.Sqrt(tailAlpha * math.Sqrt(2/math.Pi) * most)
	if math.IsNaN(mu) || math.IsInf(mu, 0) {
		return g, fmt.Errorf("sharded: the test vectors' products are not finite")
	}
	g.Random = mu
	if mu < b {
		g.Failure = math.Pow(tailAlpha, -float64(p))
		g.Lower, g.Upper, g.Sine = truncation.RitzBounds(g.Values, g.Gram.sym(), mu, rnd)
		g.Tail = mu + rnd
	}
	return g, nil
}
