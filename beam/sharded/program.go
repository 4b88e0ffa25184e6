package sharded

// Kind is what a Step does.
type Kind int

// The kinds of step, in the order a program runs them (Program).
const (
	// Start reads the shard's points: their count, Σk(x, x), max k(x, x), and the
	// rows of the random start (StartRow).
	Start Kind = iota
	// OrthSums: the sums that remove, from the block in progress Z, its column means
	// (centred) and its part in the span of the basis so far.
	OrthSums
	// OrthQR: Z less those parts, factored Z_s = Q_s·R_s; the part is R_s, and the
	// reduction the SVD of the stacked factors.
	OrthQR
	// OrthApply: Z ← Q_s times the shard's rows of the reduction's left singular
	// vectors, the directions above the cut.
	OrthApply
	// Tiles: Y = K·B for the block B of the pass (Pass 0: [1, Q₀], which gives the
	// row sums K·1 too), tile by tile (Tile, AddTile).
	Tiles
	// PassSums: the block appended to the basis; the column means of Y, the block
	// column of the Rayleigh–Ritz matrix QᵀK′Q, the tolerance of the next block.
	PassSums
	// Ritz: the Ritz vectors U_s = Q_s·S and the residual R_s of the kept pairs; the
	// reduction is the certificate and the signs.
	Ritz
	// TailStart: the test vectors Ω of the random tail bound (TailRow), and the sums
	// that project them out of span(U) and 1.
	TailStart
	// TailProject: Z ← P·Z, P the projector on the complement of span(U) and 1, from
	// the coordinates of the reduction before (no reduction of its own).
	TailProject
	// TailSums: after a tail pass, Y's column means and Uᵀ·Y: the coordinates that
	// TailProject removes.
	TailSums
	// TailNorms: the column norms of B²·Ω, B = P·K′·P; the reduction is the random
	// tail bound and the certificate's intervals with it.
	TailNorms
)

// Step is one step of a program.
type Step struct {
	Kind  Kind
	Pass  int  // the pass it belongs to (Tiles, PassSums, and the orthonormalisation after a pass)
	Round int  // the round of Gram–Schmidt (OrthSums, OrthQR, OrthApply): 0 or 1
	Start bool // an orthonormalisation of the start, before any pass
	Tail  bool // a pass of the random tail bound (Tiles)
}

// always reports a step that runs even after the Krylov space became invariant: the
// Ritz step and the tail bound's.
func (s Step) always() bool { return s.Kind >= Ritz || s.Tail }

// Program returns the steps of a run of the given number of passes: the start and its
// orthonormalisation; per pass its tiles and sums and, but after the last, the next
// block orthonormalised in two rounds; then the Ritz step. An OrthApply step has no
// reduction (Reduce returns the Global as it is), so that a pipeline can run it as a
// plain ParDo.
func Program(passes int) []Step {
	steps := []Step{{Kind: Start}}
	orth := func(pass int, start bool) {
		for round := range 2 {
			for _, k := range []Kind{OrthSums, OrthQR, OrthApply} {
				// After a pass, the first round's sums are the pass's own: its block
				// column of T is the new block's coordinates in the basis, and the block
				// W = Y − 1·ȳᵀ has column means zero.
				if k == OrthSums && round == 0 && !start {
					continue
				}
				steps = append(steps, Step{Kind: k, Pass: pass, Round: round, Start: start})
			}
		}
	}
	orth(0, true)
	for p := range passes {
		steps = append(steps, Step{Kind: Tiles, Pass: p}, Step{Kind: PassSums, Pass: p})
		if p < passes-1 {
			orth(p, false)
		}
	}
	return append(steps, Step{Kind: Ritz})
}

// TailProgram returns the steps of the random tail bound that follow a Program
// (docs/design.md, "Polish and Certify over sharded points"): the test vectors
// projected, two passes, each projected again, and the norms.
func TailProgram() []Step {
	steps := []Step{{Kind: TailStart}, {Kind: TailProject}}
	for p := range 2 {
		steps = append(steps, Step{Kind: Tiles, Pass: p, Tail: true}, Step{Kind: TailSums, Pass: p}, Step{Kind: TailProject, Pass: p + 1})
	}
	return append(steps, Step{Kind: TailNorms})
}
