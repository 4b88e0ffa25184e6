package secular

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/vec"
)

// problem is a rank-one (diag(d) + ρzzᵀ) or arrowhead ([[diag(d), z], [zᵀ, c]]) test
// problem.
type problem struct {
	name  string
	arrow bool
	d, z  []float64
	rho   float64
	c     float64
}

func (p problem) String() string {
	if p.arrow {
		return fmt.Sprintf("%s/arrow/n=%d", p.name, len(p.d))
	}
	return fmt.Sprintf("%s/rank-one/n=%d/rho=%.3g", p.name, len(p.d), p.rho)
}

func (p problem) solve(s *Solver) (*Result, error) {
	if p.arrow {
		return s.Arrow(p.d, p.z, p.c)
	}
	return s.RankOne(p.d, p.z, p.rho)
}

// solvable is a test problem of either kind: a rank-one or arrowhead problem, or a
// restriction.
type solvable interface {
	fmt.Stringer
	solve(s *Solver) (*Result, error)
}

// solveLarge solves on s the problems of sizes 300 and 700 that problems returns —
// sizes where several goroutines solve the roots — reporting each failure, and checks
// each result (check). Not in -short mode.
func solveLarge[P solvable](t *testing.T, s *Solver, problems func(n int) []P, check func(P, *Result)) {
	t.Helper()
	if testing.Short() {
		t.Skip("large problems")
	}
	sizes, most := []int{300, 700}, math.MaxInt
	if raceEnabled {
		// The race detector watches the workers' hand-over, which every problem of
		// order 300 exercises (TestParallelDeterminism compares the serial and the
		// parallel solves bit for bit); the checks' O(n³) products, instrumented,
		// took half a minute.
		sizes, most = []int{300}, 4
	}
	for _, n := range sizes {
		ps := problems(n)
		for _, p := range ps[:min(most, len(ps))] {
			res, err := p.solve(s)
			if err != nil {
				t.Errorf("%v: %v", p, err)
				continue
			}
			check(p, res)
		}
	}
}

// checkScaled reports where res2, the result of the problem p scaled by the power of two
// f (scale names the powers: e in f = 2^e), is not res1, p's, scaled exactly: other
// deflation decisions, eigenvalues other than f times res1's, vectors that differ in a
// bit.
func checkScaled(t *testing.T, p solvable, scale any, res1, res2 *Result, f float64) {
	t.Helper()
	what := fmt.Sprintf("%v ×2^%v", p, scale)
	if res1.Stats.Deflated != res2.Stats.Deflated || !slices.Equal(res1.Keep, res2.Keep) {
		t.Errorf("%s: deflation differs", what)
	}
	for i := range res1.Values {
		if res1.Values[i]*f != res2.Values[i] {
			t.Errorf("%s: eigenvalue %d = %g, want %g", what, i, res2.Values[i], res1.Values[i]*f)
			break
		}
	}
	if !slices.Equal(res1.Vectors[:res1.K*res1.Stride], res2.Vectors[:res2.K*res2.Stride]) {
		t.Errorf("%s: vectors differ", what)
	}
}

// checkSplit solves p on serial (one worker) and on parallel (several) and reports a
// result that differs in a bit, or a parallel solve of 32 roots or more on fewer than
// two workers.
func checkSplit(t *testing.T, p solvable, serial, parallel *Solver) {
	t.Helper()
	a, err := p.solve(serial)
	if err != nil {
		t.Fatal(err)
	}
	av, avec := slices.Clone(a.Values), slices.Clone(a.Vectors[:a.K*a.Stride])
	b, err := p.solve(parallel)
	if err != nil {
		t.Fatal(err)
	}
	if b.Stats.Workers < 2 && b.K >= 32 {
		t.Errorf("%v: parallel solver used %d workers", p, b.Stats.Workers)
	}
	if !slices.Equal(av, b.Values) || !slices.Equal(avec, b.Vectors[:b.K*b.Stride]) {
		t.Errorf("%v: parallel and serial results differ", p)
	}
}

// order is the size of the matrix.
func (p problem) order() int {
	if p.arrow {
		return len(p.d) + 1
	}
	return len(p.d)
}

// matrix forms the problem's matrix explicitly, each entry computed exactly and rounded
// once: forming ρ·zᵢ·zⱼ in floating point could underflow through a subnormal partial
// product and lose most of an entry's digits.
func (p problem) matrix() *mat.SymDense {
	n := len(p.d)
	m := mat.NewSymDense(p.order(), nil)
	for i := range n {
		if p.arrow {
			m.SetSym(i, i, p.d[i])
			m.SetSym(i, n, p.z[i])
			continue
		}
		for j := i; j < n; j++ {
			e := new(big.Float).SetPrec(256).SetFloat64(p.rho)
			e.Mul(e, big.NewFloat(p.z[i]))
			e.Mul(e, big.NewFloat(p.z[j]))
			if i == j {
				e.Add(e, big.NewFloat(p.d[i]))
			}
			v, _ := e.Float64()
			m.SetSym(i, j, v)
		}
	}
	if p.arrow {
		m.SetSym(n, n, p.c)
	}
	return m
}

// scale is max(|d|, |ρ|‖z‖²) or max(|d|, |c|, ‖z‖): the σ of the package docs.
func (p problem) scale() float64 {
	zn := vec.Norm(p.z)
	if p.arrow {
		return math.Max(vec.MaxAbs(p.d), math.Max(math.Abs(p.c), zn))
	}
	return math.Max(vec.MaxAbs(p.d), math.Abs(p.rho)*zn*zn)
}

// trace is the trace of the matrix, computed exactly and rounded once.
func (p problem) trace() float64 {
	sum := new(big.Float).SetPrec(4096)
	for _, v := range p.d {
		sum.Add(sum, big.NewFloat(v))
	}
	if p.arrow {
		sum.Add(sum, big.NewFloat(p.c))
	} else {
		for _, v := range p.z {
			e := new(big.Float).SetPrec(256).SetFloat64(p.rho)
			e.Mul(e, big.NewFloat(v))
			e.Mul(e, big.NewFloat(v))
			sum.Add(sum, e)
		}
	}
	t, _ := sum.Float64()
	return t
}

// assemble forms the full eigenvector matrix described by res, columns in the order
// of res.Values: the basis after the rotations, its kept columns (and the tip) times the
// secular vectors, and the deflated columns.
func assemble(res *Result, arrow bool) *mat.Dense {
	N := len(res.Values)
	return assembleCols(res, N, N, arrow)
}

// assembleCols is assemble for a problem of order N whose res describes cols
// eigenvectors: N for RankOne and Arrow, N − 1 for Restrict (restrictedSpace).
func assembleCols(res *Result, N, cols int, arrow bool) *mat.Dense {
	b := mat.NewDense(N, N, nil)
	for i := range N {
		b.Set(i, i, 1)
	}
	raw := b.RawMatrix()
	for i := range N {
		row := raw.Data[i*raw.Stride : i*raw.Stride+N]
		for _, g := range res.Rotations {
			g.Apply(row)
		}
	}
	q := mat.NewDense(N, cols, nil)
	if res.K > 0 {
		basis := mat.NewDense(N, res.Stride, nil) // kept columns, then the tip
		for j, c := range res.Keep {
			basis.SetCol(j, mat.Col(nil, c, b))
		}
		if arrow {
			basis.SetCol(len(res.Keep), mat.Col(nil, N-1, b))
		}
		var sec mat.Dense // column r: the eigenvector of secular root r
		sec.Mul(basis, mat.NewDense(res.K, res.Stride, res.Vectors[:res.K*res.Stride]).T())
		for p, src := range res.Source {
			if src >= 0 {
				q.SetCol(p, mat.Col(nil, src, &sec))
			}
		}
	}
	for p, src := range res.Source {
		if src < 0 {
			q.SetCol(p, mat.Col(nil, -1-src, b))
		}
	}
	return q
}

// measures returns the relative residual ‖MQ − QΛ‖_F/max(‖M‖_F, σ) and the
// orthogonality max|QᵀQ − I| of a solve. The residual is relative to the size σ of the
// data, not only of M: when D and ρzzᵀ cancel (a downdate) M can be far smaller than
// its parts, and a backward-stable update is accurate to ε times its parts.
func measures(p problem, res *Result) (residual, orth float64) {
	m := p.matrix()
	q := assemble(res, p.arrow)
	N := p.order()
	var mq, ql, r mat.Dense
	mq.Mul(m, q)
	ql.CloneFrom(q)
	for p, v := range res.Values {
		col := ql.ColView(p).(*mat.VecDense)
		col.ScaleVec(v, col)
	}
	r.Sub(&mq, &ql)
	residual = frobenius(&r) / math.Max(math.Max(frobenius(m), p.scale()), math.SmallestNonzeroFloat64)
	var qtq mat.Dense
	qtq.Mul(q.T(), q)
	for i := range N {
		for j := range N {
			v := qtq.At(i, j)
			if i == j {
				v--
			}
			orth = math.Max(orth, math.Abs(v))
		}
	}
	return residual, orth
}

func frobenius(m mat.Matrix) float64 {
	r, c := m.Dims()
	var big float64
	for i := range r {
		for j := range c {
			big = math.Max(big, math.Abs(m.At(i, j)))
		}
	}
	if big == 0 {
		return 0
	}
	var ss float64
	for i := range r {
		for j := range c {
			v := m.At(i, j) / big
			ss += v * v
		}
	}
	return big * math.Sqrt(ss)
}

// checkResult asserts the invariants of a successful solve: ascending values of the
// right count, residual and orthogonality of order N·ε, the trace, and interlacing.
func checkResult(t *testing.T, p problem, res *Result) (residual, orth float64) {
	t.Helper()
	N := p.order()
	if len(res.Values) != N || len(res.Source) != N {
		t.Fatalf("%v: %d values, %d sources, want %d", p, len(res.Values), len(res.Source), N)
	}
	if !slices.IsSorted(res.Values) {
		t.Errorf("%v: values not ascending: %v", p, res.Values)
	}
	seen := make(map[int]bool)
	for _, src := range res.Source {
		if seen[src] {
			t.Fatalf("%v: source %d used twice", p, src)
		}
		seen[src] = true
	}
	residual, orth = measures(p, res)
	// Deflation neglects up to 64ε·σ per component; roots and vectors add O(Nε).
	// Values in the subnormal range carry an absolute error of up to 2⁻¹⁰⁷⁵ each.
	const tiny = 0x1p-1074
	floor := 8 * float64(N) * tiny / math.Max(math.Max(frobenius(p.matrix()), p.scale()), tiny)
	tol := float64(N+64)*4*vec.Roundoff + floor
	if residual > tol || math.IsNaN(residual) {
		t.Errorf("%v: residual %.3g > %.3g", p, residual, tol)
	}
	if orth > float64(N+8)*4*vec.Roundoff || math.IsNaN(orth) {
		t.Errorf("%v: orthogonality %.3g > %.3g", p, orth, float64(N+8)*4*vec.Roundoff)
	}
	var sum float64
	for _, v := range res.Values {
		sum += v
	}
	if diff := math.Abs(sum - p.trace()); diff > float64(N+64)*4*vec.Roundoff*p.scale()*math.Sqrt(float64(N))+8*float64(N)*tiny {
		t.Errorf("%v: trace of values %.17g, of matrix %.17g", p, sum, p.trace())
	}
	checkInterlacing(t, p, res.Values)
	return residual, orth
}

// checkInterlacing checks the (non-strict) interlacing of the new values with the poles,
// allowing a deflation-sized slack.
func checkInterlacing(t *testing.T, p problem, values []float64) {
	t.Helper()
	n := len(p.d)
	slack := 128*vec.Roundoff*p.scale() + 0x1p-1070
	for i := range n {
		switch {
		case p.arrow:
			// λᵢ ≤ dᵢ ≤ λᵢ₊₁
			if values[i] > p.d[i]+slack || p.d[i] > values[i+1]+slack {
				t.Errorf("%v: interlacing fails at %d: %g ≤ %g ≤ %g", p, i, values[i], p.d[i], values[i+1])
			}
		case p.rho > 0:
			// dᵢ ≤ λᵢ ≤ dᵢ₊₁
			if p.d[i] > values[i]+slack || (i+1 < n && values[i] > p.d[i+1]+slack) {
				t.Errorf("%v: interlacing fails at %d", p, i)
			}
		case p.rho < 0:
			// dᵢ₋₁ ≤ λᵢ ≤ dᵢ
			if values[i] > p.d[i]+slack || (i > 0 && p.d[i-1] > values[i]+slack) {
				t.Errorf("%v: interlacing fails at %d", p, i)
			}
		}
	}
}

// Generators of poles and weights.

func uniformPoles(rng *rand.Rand, n int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = rng.Float64()*2 - 1
	}
	slices.Sort(d)
	return d
}

func normalWeights(rng *rand.Rand, n int) []float64 {
	z := make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	return z
}

// clusteredPoles returns n poles in groups of size g, spaced gap apart within a group
// (relative to the group's centre in [−1, 1]).
func clusteredPoles(rng *rand.Rand, n, g int, gap float64) []float64 {
	d := make([]float64, 0, n)
	for len(d) < n {
		c := rng.Float64()*2 - 1
		for j := 0; j < g && len(d) < n; j++ {
			d = append(d, c+float64(j)*gap*math.Max(math.Abs(c), 0.1))
		}
	}
	slices.Sort(d)
	return d
}

// kernelPoles mimics the spectrum of a kernel matrix: exponential decay from 1 down to
// about 1e-17, many poles near zero.
func kernelPoles(n int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[n-1-i] = math.Exp(-float64(i) * 40 / float64(n))
	}
	return d
}

// reference returns the oracle's roots and differences for p (distinct poles, non-zero
// weights).
func reference(t *testing.T, p problem) oracle.Roots {
	t.Helper()
	var ref oracle.Roots
	var err error
	if p.arrow {
		ref, err = oracle.Arrow(p.d, p.z, p.c)
	} else {
		ref, err = oracle.RankOne(p.d, p.z, p.rho)
	}
	if err != nil {
		t.Fatalf("%v: oracle: %v", p, err)
	}
	return ref
}

// distinct reports whether d is strictly increasing and z has no zero: the oracle's
// and the single-root functions' domain.
func distinct(d, z []float64) bool {
	for i := 1; i < len(d); i++ {
		if d[i] <= d[i-1] {
			return false
		}
	}
	for _, v := range z {
		if v == 0 {
			return false
		}
	}
	return true
}

// fewestFirstMallocs counts the allocations of the first call of a freshly made solver:
// fresh makes one and returns its first call. Counted on one processor, as
// testing.AllocsPerRun counts; Mallocs is the process's, and another goroutine's
// allocation (the race detector's, a timer's, the runtime's) was counted once in a CI
// run under load even so. So the fewest of three fresh solvers' first calls: an
// allocation of the solver's own is in every one.
func fewestFirstMallocs(t *testing.T, fresh func() func() error) uint64 {
	t.Helper()
	fewest := uint64(math.MaxUint64)
	for range 3 {
		call := fresh()
		procs := runtime.GOMAXPROCS(1)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := call()
		runtime.ReadMemStats(&after)
		runtime.GOMAXPROCS(procs)
		if err != nil {
			t.Fatal(err)
		}
		fewest = min(fewest, after.Mallocs-before.Mallocs)
	}
	return fewest
}
