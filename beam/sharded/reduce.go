package sharded

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/internal/truncation"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// MaxPasses bounds Options.Passes, as kpca.MaxPolishPasses bounds a Polish.
const MaxPasses = 16

// Begin returns the Global a run starts from, or an error for options it cannot run.
func Begin(o Options) (Global, error) {
	switch {
	case o.Components < 1 || o.Rank < o.Components:
		return Global{}, fmt.Errorf("sharded: %d components at rank %d (want 1 ≤ Components ≤ Rank)", o.Components, o.Rank)
	case o.Passes < 1 || o.Passes > MaxPasses:
		return Global{}, fmt.Errorf("sharded: %d passes (1 to %d)", o.Passes, MaxPasses)
	}
	return Global{Options: o}, nil
}

// Reduce returns the Global after a step from the one before it and the parts of every
// shard, which it takes in shard order whatever order they come in, so that a run's
// numbers do not depend on a runner's. It does not change g's slices in place but T,
// which only grows.
func Reduce(step Step, g Global, parts []Part) (Global, error) {
	parts = slices.Clone(parts)
	slices.SortFunc(parts, func(a, b Part) int { return a.Shard - b.Shard })
	for i, p := range parts {
		if p.Shard != i {
			return g, fmt.Errorf("sharded: reduction of step %v: parts of shards %v, want 0 to %d once each", step.Kind, shards(parts), len(parts)-1)
		}
	}
	if step.Kind == Start {
		return g.start(parts)
	}
	if len(parts) != len(g.RowOf) {
		return g, fmt.Errorf("sharded: reduction of step %v: %d parts for %d shards", step.Kind, len(parts), len(g.RowOf))
	}
	if g.Stopped && !step.always() {
		if step.Kind == PassSums && step.Pass == g.Options.Passes-1 {
			return g.solve()
		}
		return g, nil
	}
	switch step.Kind {
	case OrthSums:
		return g.orthSums(parts)
	case OrthQR:
		return g.orthQR(step, parts)
	case OrthApply:
		return g, nil
	case PassSums:
		g, err := g.passSums(step, parts)
		if err != nil || step.Pass < g.Options.Passes-1 {
			return g, err
		}
		return g.solve()
	case Ritz:
		return g.certify(parts)
	case TailStart, TailSums:
		return g.tailSums(step, parts)
	case TailProject:
		return g, nil
	case TailNorms:
		return g.tailBound(parts)
	}
	return g, fmt.Errorf("sharded: step %v has no reduction", step.Kind)
}

// shards lists the parts' shards, for an error.
func shards(parts []Part) []int {
	s := make([]int, len(parts))
	for i, p := range parts {
		s[i] = p.Shard
	}
	return s
}

// reader takes a part's numbers in order, recording a short part as an error.
type reader struct {
	data []float64
	err  error
}

// take returns the next n numbers.
func (r *reader) take(n int) []float64 {
	if r.err != nil || n < 0 || n > len(r.data) {
		if r.err == nil {
			r.err = fmt.Errorf("sharded: a part of %d numbers where %d more were expected", len(r.data), n)
		}
		return make([]float64, max(n, 0))
	}
	out := r.data[:n]
	r.data = r.data[n:]
	return out
}

// done reports the first error, or numbers left over.
func (r *reader) done() error {
	if r.err == nil && len(r.data) > 0 {
		r.err = fmt.Errorf("sharded: a part has %d numbers too many", len(r.data))
	}
	return r.err
}

// add adds b to a, entry by entry.
func add(a, b []float64) {
	for i, v := range b {
		a[i] += v
	}
}

// start sums the points, Σk(x, x) and max k(x, x), and numbers the shards.
func (g Global) start(parts []Part) (Global, error) {
	g.RowOf = make([]int, len(parts))
	for _, p := range parts {
		r := reader{data: p.Data}
		v := r.take(3)
		if err := r.done(); err != nil {
			return g, err
		}
		g.M += int(v[0])
		g.Self += v[1]
		g.Kmax = math.Max(g.Kmax, v[2])
	}
	if g.M <= g.Options.Rank {
		return g, fmt.Errorf("sharded: %d points for rank %d: a run needs more points than its rank", g.M, g.Options.Rank)
	}
	return g, nil
}

// orthSums sums the shards' column sums and coordinates: Z's column means z̄ (centred;
// zero otherwise) and P = QᵀZ − (Qᵀ1)·z̄ᵀ, Z's coordinates once its means are removed.
func (g Global) orthSums(parts []Part) (Global, error) {
	used := g.Used
	c := (len(parts[0].Data) - used) / (used + 1)
	mean, P, _, err := g.coordinateSums(parts, used, c, 0)
	if err != nil {
		return g, err
	}
	g.ZMean, g.P = mean, P
	return g, nil
}

// coordinateSums sums the shards' parts of the sums that take a block X of c columns out
// of 1 and of a basis B of n orthonormal columns — each part X's column sums, BᵀX and
// B's column sums, then extra numbers — in shard order, and returns X's column means x̄
// (centred; zero otherwise), its coordinates BᵀX − (Bᵀ1)·x̄ᵀ in the basis once its means
// are removed (n×c), and the sum of the extra numbers. OrthSums takes the block in
// progress out of the Krylov basis, TailStart and TailSums the test vectors out of the
// Ritz vectors.
func (g Global) coordinateSums(parts []Part, n, c, extra int) (mean []float64, P Matrix, rest []float64, err error) {
	sum := make([]float64, c)
	bx := make([]float64, n*c)
	bsum := make([]float64, n)
	rest = make([]float64, extra)
	for _, p := range parts {
		r := reader{data: p.Data}
		add(sum, r.take(c))
		add(bx, r.take(n*c))
		add(bsum, r.take(n))
		add(rest, r.take(extra))
		if err := r.done(); err != nil {
			return nil, Matrix{}, nil, err
		}
	}
	mean = make([]float64, c)
	if g.Options.Centred {
		for j := range c {
			mean[j] = sum[j] / float64(g.M)
		}
	}
	for i := range n {
		for j := range c {
			bx[i*c+j] -= bsum[i] * mean[j]
		}
	}
	return mean, Matrix{Rows: n, Cols: c, Data: bx}, rest, nil
}

// orthQR stacks the shards' factors R_s, factors the stack, Q̂·R, and takes the SVD of
// R: the left singular vectors of the block are the shards' Local times their rows of
// Q̂·U_R, and its singular values R's. Directions of singular value at or below the cut
// are dropped: 0 for the start's first round, the pass's tolerance for a new block's
// (which counts it in Dropped, as kpca's Polish does), and ½ in the second round, whose
// input has orthonormal columns. A new block with nothing left stops the iteration: the
// space is invariant.
func (g Global) orthQR(step Step, parts []Part) (Global, error) {
	c := len(g.ZMean)
	var rows int
	blocks := make([][]float64, len(parts))
	for i, p := range parts {
		r := reader{data: p.Data}
		n := int(r.take(1)[0])
		blocks[i] = r.take(n * c)
		if err := r.done(); err != nil {
			return g, err
		}
		g.RowOf[i] = rows
		rows += n
	}
	if rows < c || c == 0 {
		return g, fmt.Errorf("sharded: OrthQR: a stack of %d rows for a block of %d columns", rows, c)
	}
	stack := newMatrix(rows, c)
	for i, b := range blocks {
		copy(stack.Data[g.RowOf[i]*c:], b)
	}
	for _, v := range stack.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return g, fmt.Errorf("sharded: OrthQR: the block is not finite")
		}
	}
	R := factorQR(stack)
	s := make([]float64, c)
	u := newMatrix(c, c)
	if err := native.SVDLeft(c, c, R.Data, c, s, u.Data, c); err != nil {
		return g, fmt.Errorf("sharded: OrthQR: %w", err)
	}
	cut := 0.5
	if step.Round == 0 {
		cut = 0
		if !step.Start {
			cut = g.Tol
			g.Dropped += g.Tol
		}
	}
	keep := 0
	for keep < c && s[keep] > cut {
		keep++
	}
	if keep == 0 {
		if step.Start {
			return g, fmt.Errorf("sharded: the start vectors span nothing (centred: nothing outside 1)")
		}
		g.Stopped = true
		return g, nil
	}
	g.Left = mul(blas.NoTrans, blas.NoTrans, stack, u.columns(0, keep))
	return g, nil
}

// passSums sums a pass's parts (each begins with the block's width): K·1's total (the first pass), Y's column means ȳ
// (centred), T's block column [Q₀ … Qᵢ]ᵀ·W = QᵀY − (Qᵀ1)·ȳᵀ for W = K′Qᵢ = Y − 1·ȳᵀ, and
// the tolerance below which the next block's directions are rounding, 64ε·m·max‖Wⱼ‖
// (kpca's), with ‖Wⱼ‖² = Σᵢ yᵢⱼ² − m·ȳⱼ².
func (g Global) passSums(step Step, parts []Part) (Global, error) {
	o := g.Options
	c := 0
	if len(parts[0].Data) > 0 {
		c = int(parts[0].Data[0])
	}
	used := g.Used + c
	if g.T == nil {
		g.Size = o.Passes * o.Rank
		g.T = make([]float64, g.Size*g.Size)
	}
	if used > g.Size {
		return g, fmt.Errorf("sharded: PassSums: a basis of %d columns in a matrix of %d", used, g.Size)
	}
	var ones float64
	sum := make([]float64, c)
	sq := make([]float64, c)
	qy := make([]float64, used*c)
	qsum := make([]float64, used)
	for _, p := range parts {
		r := reader{data: p.Data}
		if w := r.take(1)[0]; int(w) != c {
			return g, fmt.Errorf("sharded: PassSums: blocks of %d and %g columns", c, w)
		}
		ones += r.take(1)[0]
		add(sum, r.take(c))
		add(sq, r.take(c))
		add(qy, r.take(used*c))
		add(qsum, r.take(used))
		if err := r.done(); err != nil {
			return g, err
		}
	}
	if step.Pass == 0 {
		g.Total = ones
	}
	m := float64(g.M)
	g.YMean = make([]float64, c)
	var norm float64
	for j := range c {
		if o.Centred {
			g.YMean[j] = sum[j] / m
		}
		norm = math.Max(norm, sq[j]-m*g.YMean[j]*g.YMean[j])
	}
	g.Tol = 64 * vec.Roundoff * m * math.Sqrt(math.Max(norm, 0))
	for i := range used {
		for j := range c {
			g.T[i*g.Size+g.Used+j] = qy[i*c+j] - qsum[i]*g.YMean[j]
		}
	}
	for range c {
		g.BlockOf = append(g.BlockOf, step.Pass)
	}
	g.Used, g.Block = used, c
	// The next block's first round of orthonormalisation takes W = Y − 1·ȳᵀ, whose
	// column means are zero and whose coordinates in the basis are T's new block column.
	g.ZMean = make([]float64, c)
	g.P = newMatrix(used, c)
	for i := range used {
		copy(g.P.row(i), g.T[i*g.Size+g.Used-c:i*g.Size+g.Used])
	}
	return g, nil
}

// solve is the Rayleigh–Ritz step (kpca's ritzPairs): T symmetric — within a block both
// triangles were computed and are averaged, across blocks the upper one is the only one
// — and T = S·Θ·Sᵀ; the top min(Rank, used) pairs are kept.
func (g Global) solve() (Global, error) {
	used := g.Used
	if used == 0 {
		return g, fmt.Errorf("sharded: the Ritz step has no basis")
	}
	T := mat.NewSymDense(used, nil)
	for i := range used {
		for j := i; j < used; j++ {
			v := g.T[i*g.Size+j]
			if g.BlockOf[i] == g.BlockOf[j] {
				v = (v + g.T[j*g.Size+i]) / 2
			}
			T.SetSym(i, j, v)
		}
	}
	var S mat.Dense
	theta, err := native.EigenSym(nil, &S, T)
	if err != nil {
		return g, fmt.Errorf("sharded: the Ritz step: %w", err)
	}
	keep := min(g.Options.Rank, used)
	g.S = newMatrix(used, keep)
	for i := range used {
		copy(g.S.row(i), S.RawRowView(i)[used-keep:])
	}
	g.Values = make([]float64, keep)
	var scale float64
	for j := range keep {
		g.Values[j] = theta[used-1-j]
		scale = math.Max(scale, math.Abs(g.Values[j]))
	}
	g.Rest = slices.Clone(theta[:used-keep])
	g.TLast = newMatrix(used, g.Block)
	for i := range used {
		copy(g.TLast.row(i), g.T[i*g.Size+used-g.Block:i*g.Size+used])
	}
	g.Slack = 64*vec.Roundoff*float64(used+2)*scale + g.Dropped
	return g, nil
}

// certify sums the shards' RᵀR and sign candidates: the certificate of the kept pairs
// (truncation.Restart, as kpca's restart certificate, with the kernel values' rounding
// η = truncation.KernelRounding), the intervals and sines of each pair from its residual
// and gap (truncation.RitzBounds, as kpca's Certify, with the restart's bound on the
// rest of the spectrum for its tail: deterministic, where Certify's is random), and
// each vector's sign — that of the first entry, in
// shard order, within sign.Tie of the largest magnitude.
func (g Global) certify(parts []Part) (Global, error) {
	keep := len(g.Values)
	rr := make([]float64, keep*keep)
	big := make([]float64, keep)
	cand := make([][]float64, len(parts))
	for i, p := range parts {
		r := reader{data: p.Data}
		add(rr, r.take(keep*keep))
		cand[i] = r.take(2 * keep)
		if err := r.done(); err != nil {
			return g, err
		}
		for j := range keep {
			big[j] = math.Max(big[j], cand[i][2*j])
		}
	}
	g.Signs = make([]float64, keep)
	for j := range keep {
		g.Signs[j] = 1
		for _, c := range cand {
			if c[2*j] >= big[j]*(1-sign.Tie) && c[2*j] > 0 {
				if c[2*j+1] < 0 {
					g.Signs[j] = -1
				}
				break
			}
		}
	}
	G := mat.NewSymDense(keep, nil)
	for i := range keep {
		for j := i; j < keep; j++ {
			G.SetSym(i, j, (rr[i*keep+j]+rr[j*keep+i])/2)
		}
	}
	gram, err := native.EigenSym(nil, nil, G)
	if err != nil {
		return g, fmt.Errorf("sharded: the residual of the Ritz pairs is not finite: %w", err)
	}
	_, abs := vec.Sums(g.Values)
	rnd := g.Slack + truncation.KernelRounding(g.M, g.Kmax)
	trTol := truncation.TraceRounding(g.M, keep, g.Self, g.Total, abs)
	var tail float64
	g.Ledger, tail = truncation.Restart(truncation.Ledger{}, gram, g.Values, g.Rest, g.TraceK(), trTol, rnd)
	// The residuals' Gram matrix in the order of the values (descending; S's columns
	// ascend), for the bounds of each value from its residual and its gap.
	D := mat.NewSymDense(keep, nil)
	for i := range keep {
		for j := i; j < keep; j++ {
			D.SetSym(i, j, G.At(keep-1-i, keep-1-j))
		}
	}
	g.Lower, g.Upper, g.Sine = truncation.RitzBounds(g.Values, D, tail, rnd)
	g.Tail = tail + rnd
	g.Gram = newMatrix(keep, keep)
	for i := range keep {
		for j := range keep {
			g.Gram.Data[i*keep+j] = D.At(i, j)
		}
	}
	g.Rnd, g.Bound = rnd, tail
	return g, nil
}

// TraceK is the trace of K′ (centred: Σk(xᵢ, xᵢ) − 1ᵀK1/m) or K.
func (g Global) TraceK() float64 {
	if g.Options.Centred {
		return g.Self - g.Total/float64(g.M)
	}
	return g.Self
}

// Bounds returns the certificate of the run's leading Components values (descending):
// intervals [lo, hi] that hold the true eigenvalues of K′ (or K) — the tighter, for
// each, of Weyl's intervals from the restart certificate (truncation.Intervals, as
// kpca's ValueBounds) and the residual bounds (truncation.RitzBounds, as kpca's
// Certify) —, the sines of the top j Ritz vectors' span (RitzBounds; +Inf without a
// gap), and the bounds below ≥ −λmin(E) and above ≥ λmax(E) for E = K′ − U·Θ·Uᵀ over
// the Rank kept pairs.
func (g Global) Bounds() (values, lo, hi, sine []float64, below, above float64) {
	sum, abs := vec.Sums(g.Values)
	keep := len(g.Values)
	tol := truncation.TraceRounding(g.M, keep, g.Self, g.Total, abs)
	below, above = g.Ledger.Range(g.TraceK()-sum, tol)
	k := min(g.Options.Components, keep)
	values = slices.Clone(g.Values[:k])
	lo = slices.Clone(values)
	hi = make([]float64, k)
	truncation.Intervals(lo, hi, below, above, math.Inf(-1))
	for j := range k {
		lo[j] = math.Max(lo[j], g.Lower[j])
		hi[j] = math.Min(hi[j], g.Upper[j])
	}
	return values, lo, hi, slices.Clone(g.Sine[:k]), below, above
}
