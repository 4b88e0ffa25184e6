package secular

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/hugepage"
	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/vec"
)

// defaultSerial is the problem size below which a solve stays on the calling goroutine:
// measured on 2 cores, two goroutines are 13 % slower than one at k = 64 and 11 % faster
// at k = 128 (goroutine start-up and chunk hand-out cost a few microseconds).
const defaultSerial = 128

// Solver solves rank-one, arrowhead and restriction problems. It keeps its workspace between calls,
// so that a sequence of solves of similar size allocates nothing once the workspace has
// grown. A Solver must not be used by several goroutines at once; independent Solvers
// may run concurrently.
type Solver struct {
	// Workers bounds the goroutines used for the O(k²) phases. Zero means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Serial is the secular size below which all work stays on the calling goroutine.
	// Zero means a default chosen by measurement (128).
	Serial int
	// MaxIterations caps the iterations spent on one root; a root that needs more is
	// reported as ErrNotConverged. Zero means 30, LAPACK's cap in dlaed4.
	MaxIterations int

	res Result

	dd, zz     []float64 // scaled working copies of the poles and weights
	kd, kz     []float64 // poles and weights of the secular problem
	md, mz     []float64 // mirrored copies (ρ < 0, or the arrowhead's lowest root)
	what       []float64 // Löwner weights
	roots      []float64 // roots of the secular problem, scaled, in solving order
	iters      []int32   // iterations per root; < 0 marks non-convergence
	keep       []int
	defl       []deflated
	rots       []Rotation
	eq, mirror equation

	team parallel.Team // the O(k²) phases on several goroutines (internal/parallel)
	job  job
}

// Result describes the eigendecomposition of the modified matrix relative to the basis
// the problem was posed in: the identity of size n for a rank-one problem and for a
// restriction, and of size n+1 for an arrowhead, whose last basis vector is the "tip" eₙ.
//
// Eigenvector p (for Values[p]) is built as follows. First apply Rotations, in order, to
// the basis vectors (columns). Then, if Source[p] = r ≥ 0, the eigenvector is
//
//	Σⱼ Vectors[r·Stride + j] · (basis column Keep[j])   (+ Vectors[r·Stride + len(Keep)] · tip for Arrow),
//
// and if Source[p] = −1−c < 0, it is the rotated basis column c itself (a deflated
// component; never the tip).
//
// A Result is owned by its Solver and is overwritten by the next solve.
type Result struct {
	// Values are the eigenvalues of the modified matrix, in ascending order.
	Values []float64
	// Source tells, for each value, where its eigenvector comes from (see Result).
	Source []int
	// Rotations are the Givens rotations of deflation, to be applied first, in order.
	Rotations []Rotation
	// Keep lists the basis columns of the secular problem, in the order of its poles.
	Keep []int
	// Vectors holds K unit rows of length Stride: the eigenvectors of the secular
	// problem, root r in row r, roots ascending.
	Vectors []float64
	// K is the number of secular roots and Stride the length of a row of Vectors:
	// K = Stride = len(Keep) for RankOne, K = Stride = len(Keep)+1 for Arrow, and
	// K = len(Keep)−1, Stride = len(Keep) for Restrict.
	K, Stride int
	// Stats describes the solve.
	Stats Stats
}

// Stats describes one solve.
type Stats struct {
	// Size is the order of the modified matrix.
	Size int
	// Deflated counts the eigenpairs taken out by deflation, Rotated those of them that
	// needed a Givens rotation (close poles).
	Deflated, Rotated int
	// Secular is the size K of the secular problem solved.
	Secular int
	// Iterations is the total number of root-finder iterations; MaxIterations the
	// largest number spent on a single root.
	Iterations, MaxIterations int
	// Workers is the number of goroutines used.
	Workers int
}

// RankOne computes the eigendecomposition of diag(d) + ρ·z·zᵀ, for d sorted in
// ascending order (ties allowed) and any real ρ. On error the returned Result is nil
// and the Solver's Result is invalid until the next successful solve.
func (s *Solver) RankOne(d, z []float64, rho float64) (*Result, error) {
	n := len(d)
	if err := checkProblem(d, z, "z"); err != nil {
		return nil, err
	}
	if math.IsNaN(rho) || math.IsInf(rho, 0) {
		return nil, fmt.Errorf("%w: rho = %g", ErrNonFinite, rho)
	}

	znorm := vec.Norm(z)
	r := rhoNormSq(rho, znorm)
	if math.IsInf(r, 0) {
		return nil, fmt.Errorf("%w: ρ‖z‖² overflows", ErrNonFinite)
	}
	scale := pow2Above(math.Max(vec.MaxAbs(d), math.Abs(r)))
	s.grow(n, n)
	dd, zz := s.dd[:n], s.zz[:n]
	for j := range n {
		dd[j] = d[j] / scale
		if znorm > 0 {
			zz[j] = z[j] / znorm
		} else {
			zz[j] = 0
		}
	}
	rs := r / scale
	tol := 64 * vec.Roundoff * math.Max(vec.MaxAbs(dd), math.Abs(rs))

	if rs == 0 || math.Abs(rs)*vec.MaxAbs(zz) <= tol {
		// The whole update is negligible (dlaed2): every component deflates unrotated.
		s.keep, s.rots = s.keep[:0], s.rots[:0]
		s.defl = s.defl[:0]
		for j := range n {
			s.defl = append(s.defl, deflated{dd[j], j})
		}
	} else {
		s.deflate(dd, zz, rs, tol)
	}

	k := len(s.keep)
	kd, kz := s.gather(dd, zz)
	s.res.Stats = Stats{Size: n, Deflated: n - k, Rotated: len(s.rots), Secular: k, Workers: 1}
	t := s.table(k, k)
	switch {
	case k == 0:
	case k == 1:
		s.roots[0] = kd[0] + rs*kz[0]*kz[0]
		t[0] = 1
	default:
		// Solve with ρ > 0: for ρ < 0 use D + ρzzᵀ = −((−D) + |ρ|zzᵀ), the mirrored
		// poles in ascending order, and map roots and vectors back afterwards.
		eq := &s.eq
		var sumsq float64
		for _, v := range kz {
			sumsq += v * v
		}
		*eq = equation{d: kd, z: kz, a: 1 / rs, top: rs * sumsq, limit: s.MaxIterations}
		if rs < 0 {
			eq.mirror(&s.mirror, s.md[:k], s.mz[:k], -rs*sumsq)
			*eq = s.mirror // a = −1/ρ = 1/|ρ|
		}
		if err := s.solveRoots(eq, t, k, rankOneShape); err != nil {
			return nil, err
		}
		if err := s.vectors(eq, t, k, rankOneShape); err != nil {
			return nil, err
		}
		if rs < 0 {
			// Reversing the flat k×k table reverses both the root order and the
			// component order.
			slices.Reverse(t)
			roots := s.roots[:k]
			slices.Reverse(roots)
			for i := range roots {
				roots[i] = -roots[i]
			}
		}
	}
	if err := s.finish(n, k, k, scale); err != nil {
		return nil, err
	}
	return &s.res, nil
}

// Arrow computes the eigendecomposition of the (n+1)×(n+1) arrowhead matrix
// [[diag(d), w], [wᵀ, c]] for d sorted in ascending order (ties allowed). On error the
// returned Result is nil and the Solver's Result is invalid until the next successful
// solve.
func (s *Solver) Arrow(d, w []float64, c float64) (*Result, error) {
	n := len(d)
	if err := checkProblem(d, w, "w"); err != nil {
		return nil, err
	}
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("%w: c = %g", ErrNonFinite, c)
	}

	wnorm := vec.Norm(w)
	if math.IsInf(wnorm, 0) {
		return nil, fmt.Errorf("%w: ‖w‖ overflows", ErrNonFinite)
	}
	scale := pow2Above(math.Max(vec.MaxAbs(d), math.Max(math.Abs(c), wnorm)))
	s.grow(n, n+1)
	dd, zz := s.dd[:n], s.zz[:n]
	for j := range n {
		dd[j] = d[j] / scale
		zz[j] = w[j] / scale
	}
	cs := c / scale
	tol := 64 * vec.Roundoff * math.Max(vec.MaxAbs(dd), math.Max(math.Abs(cs), wnorm/scale))
	s.deflate(dd, zz, 1, tol)

	k := len(s.keep)
	kd, kz := s.gather(dd, zz)
	s.res.Stats = Stats{Size: n + 1, Deflated: n - k, Rotated: len(s.rots), Secular: k + 1, Workers: 1}
	t := s.table(k+1, k+1)
	switch k {
	case 0:
		s.roots[0] = cs
		t[0] = 1
	case 1:
		arrow2(kd[0], kz[0], cs, s.roots[:2], t)
	default:
		var sumsq float64
		for _, v := range kz {
			sumsq += v * v
		}
		wn := math.Sqrt(sumsq)
		eq := &s.eq
		*eq = equation{d: kd, z: kz, a: -cs, b: 1, top: arrowTop(kd[k-1], cs, wn), limit: s.MaxIterations}
		eq.mirror(&s.mirror, s.md[:k], s.mz[:k], arrowTop(-kd[0], -cs, wn))
		if err := s.solveRoots(eq, t, k, arrowShape); err != nil {
			return nil, err
		}
		if err := s.vectors(eq, t, k, arrowShape); err != nil {
			return nil, err
		}
	}
	if err := s.finish(n, k, k+1, scale); err != nil {
		return nil, err
	}
	return &s.res, nil
}

// arrowTop bounds the largest eigenvalue of an arrowhead above its last pole dl: the
// root lies in (dl, dl+t] where t > 0 solves t² + (dl − c)·t − ‖w‖² = 0, the largest
// eigenvalue of [[dl, ‖w‖], [‖w‖, c]] minus dl. Proof: every pole term is at least
// −wⱼ²/t at λ = dl + t, so F(dl+t) ≥ dl + t − c − ‖w‖²/t = 0.
func arrowTop(dl, c, wn float64) float64 {
	e := dl - c
	h := math.Hypot(e, 2*wn)
	if e >= 0 {
		return 2 * wn * wn / (e + h)
	}
	return (h - e) / 2
}

// arrow2 solves the 2×2 arrowhead [[d, w], [w, c]] in closed form. With δ = d − λ the
// eigenvalues satisfy δ² + (c−d)δ − w² = 0; the root of larger magnitude is taken from
// the quadratic formula without cancellation and the other from the product −w².
// The vectors are [w, −δ₁] and its perpendicular [δ₁, w], normalised.
func arrow2(d, w, c float64, roots, t []float64) {
	e := c - d
	h := math.Hypot(e, 2*w)
	var d1 float64 // δ of the smaller eigenvalue, > 0
	if e >= 0 {
		d1 = 2 * w * w / (e + h)
	} else {
		d1 = (h - e) / 2
	}
	d2 := -w * w / d1
	if e >= 0 {
		d2 = -(e + h) / 2
	}
	roots[0], roots[1] = d-d1, d-d2
	nrm := math.Hypot(w, d1)
	t[0], t[1] = w/nrm, -d1/nrm
	perpendicular(t)
}

// shape is the form of a secular problem with k poles: it fixes the number of roots and
// the length of a row of the table (the differences, then the vectors, of one root).
type shape uint8

const (
	rankOneShape  shape = iota // k roots; rows of k pole components
	arrowShape                 // k+1 roots; rows of k pole components and the tip
	restrictShape              // k−1 roots, all interior; rows of k pole components
)

// roots returns the number of roots of a problem with k poles.
func (sh shape) roots(k int) int {
	switch sh {
	case arrowShape:
		return k + 1
	case restrictShape:
		return k - 1
	}
	return k
}

// stride returns the length of a row of the table for k poles.
func (sh shape) stride(k int) int {
	if sh == arrowShape {
		return k + 1
	}
	return k
}

// job holds the parameters of the phase being run by the team. The phase functions
// are method values bound once (see bind), so running a phase allocates nothing.
type job struct {
	eq       *equation
	t        []float64
	k, K     int
	stride   int
	shape    shape
	mu       sync.Mutex
	failed   error
	bound    bool
	rootsFn  func(lo, hi int)
	weightFn func(lo, hi int)
	vecFn    func(lo, hi int)
}

func (s *Solver) bind() {
	if !s.job.bound {
		s.job.rootsFn = s.rootChunk
		s.job.weightFn = s.weightChunk
		s.job.vecFn = s.vectorChunk
		s.job.bound = true
	}
}

// solveRoots finds all roots of eq (k ≥ 2 poles; k ≥ 3 for a restriction), writing the
// reciprocal differences of root r to row r of t (row length sh.stride(k)) and the
// roots to s.roots.
func (s *Solver) solveRoots(eq *equation, t []float64, k int, sh shape) error {
	K := sh.roots(k)
	s.bind()
	s.job.eq, s.job.t, s.job.k, s.job.K, s.job.stride, s.job.shape = eq, t, k, K, sh.stride(k), sh
	workers := s.workers(K)
	s.team.Run(workers, K, 16, s.job.rootsFn)
	s.res.Stats.Workers = max(1, min(workers, (K+15)/16))
	for r, it := range s.iters[:K] {
		if it < 0 {
			return fmt.Errorf("%w: root %d of %d after %d iterations", ErrNotConverged, r, K, -it)
		}
		s.res.Stats.Iterations += int(it)
		s.res.Stats.MaxIterations = max(s.res.Stats.MaxIterations, int(it))
	}
	return nil
}

// rootChunk solves roots lo..hi−1 of the current job, leaving the reciprocal
// differences of root r in row r of the table.
func (s *Solver) rootChunk(lo, hi int) {
	j := &s.job
	for r := lo; r < hi; r++ {
		recip := j.t[r*j.stride : r*j.stride+j.k]
		lambda, _, _, it, ok := solveOne(j.eq, &s.mirror, j.shape == arrowShape, r, recip)
		s.roots[r] = lambda
		if !ok {
			it = -it
		}
		s.iters[r] = int32(it)
	}
}

// solveOne finds root r (ascending) of eq, which has k = len(recip) ≥ 2 poles, writing
// the reciprocal differences 1/(dⱼ − λ) to recip. The root is λ = d_o + τ. For an
// arrowhead (k+1 roots) the lowest root is found on the mirrored equation m. A
// restriction's roots (k−1, r ≤ k−2) are all interior, like the rank-one roots below the
// last pole.
func solveOne(eq, m *equation, arrow bool, r int, recip []float64) (lambda float64, o int, tau float64, iter int, ok bool) {
	k := len(recip)
	switch {
	case arrow && r == 0:
		// The highest root μ = −d₀ + τ̃ of the mirrored equation: λ = d₀ − τ̃.
		tau, iter, ok = m.outer(recip)
		unmirror(recip)
		o, tau = 0, -tau
	case (arrow && r == k) || (!arrow && r == k-1):
		o = k - 1
		tau, iter, ok = eq.outer(recip)
	case arrow:
		tau, o, iter, ok = eq.interior(r-1, recip)
	default:
		tau, o, iter, ok = eq.interior(r, recip)
	}
	return eq.d[o] + tau, o, tau, iter, ok
}

// vectors computes the Löwner weights and the eigenvector rows, in parallel for large k.
func (s *Solver) vectors(eq *equation, t []float64, k int, sh shape) error {
	K := sh.roots(k)
	s.bind()
	s.job.eq, s.job.t, s.job.k, s.job.K, s.job.stride, s.job.shape = eq, t, k, K, sh.stride(k), sh
	s.job.failed = nil
	workers := s.workers(K)
	s.team.Run(workers, k, 64, s.job.weightFn)
	if s.job.failed != nil {
		return s.job.failed
	}
	if sh == rankOneShape && k == 2 {
		vectorRows(t, s.what, 2, 2, false, 0, 1)
		perpendicular(t)
		return nil
	}
	s.team.Run(workers, K, 16, s.job.vecFn)
	return nil
}

// weightChunk computes the Löwner weights of columns lo..hi−1.
func (s *Solver) weightChunk(lo, hi int) {
	j := &s.job
	var err error
	switch j.shape {
	case arrowShape:
		err = loewnerArrow(j.eq.d, j.eq.z, j.t, s.what, j.k, lo, hi)
	case restrictShape:
		err = loewnerRestrict(j.eq.d, j.eq.z, j.t, s.what, j.k, lo, hi)
	default:
		err = loewnerRankOne(j.eq.d, j.eq.z, j.t, s.what, j.k, lo, hi)
	}
	if err != nil {
		j.mu.Lock()
		j.failed = err
		j.mu.Unlock()
	}
}

// vectorChunk turns rows lo..hi−1 of the table into eigenvectors.
func (s *Solver) vectorChunk(lo, hi int) {
	j := &s.job
	vectorRows(j.t, s.what, j.stride, j.k, j.shape == arrowShape, lo, hi)
}

// Reserve sizes the workspace for problems of order up to n (n+1 for arrowheads), so
// that solves up to that size allocate nothing. A negative n, or one whose (n+1)×(n+1)
// table is more than check.MaxFloats numbers (docs/design.md, "Sizes"), reserves
// nothing: a hint no array can honour is not taken.
func (s *Solver) Reserve(n int) {
	if n < 0 || n >= check.MaxFloats || (n+1)*(n+1) > check.MaxFloats {
		return
	}
	s.bind()
	s.grow(n, n+1)
	if need := (n + 1) * (n + 1); cap(s.res.Vectors) < need {
		s.res.Vectors = make([]float64, 0, need) // the K×K table of differences and vectors
	}
}

// grow sizes the workspace for n poles and a secular problem of at most K roots.
// Buffers grow geometrically, so that problems growing one by one (bordering) reallocate
// only now and then.
func (s *Solver) grow(n, K int) {
	s.dd = hugepage.Grow(s.dd, n)
	s.zz = hugepage.Grow(s.zz, n)
	s.kd = hugepage.Grow(s.kd, n)
	s.kz = hugepage.Grow(s.kz, n)
	s.md = hugepage.Grow(s.md, n)
	s.mz = hugepage.Grow(s.mz, n)
	s.what = hugepage.Grow(s.what, n)
	s.roots = hugepage.Grow(s.roots, K)
	if cap(s.iters) < K {
		s.iters = make([]int32, K, headroom(K))
	}
	s.iters = s.iters[:K]
	s.res.Values = hugepage.Grow(s.res.Values, K)
	if cap(s.res.Source) < K {
		s.res.Source = make([]int, K, headroom(K))
	}
	s.res.Source = s.res.Source[:K]
	if cap(s.keep) < n {
		s.keep = make([]int, 0, headroom(n))
		s.defl = make([]deflated, 0, headroom(n))
		s.rots = make([]Rotation, 0, headroom(n))
	}
}

// table returns the K×stride table for differences and vectors.
func (s *Solver) table(K, stride int) []float64 {
	if cap(s.res.Vectors) < K*stride {
		h := headroom(K)
		s.res.Vectors = make([]float64, K*stride, h*h)
	}
	s.res.Vectors = s.res.Vectors[:K*stride]
	s.res.K, s.res.Stride = K, stride
	return s.res.Vectors
}

// gather collects the poles and weights of the secular problem.
func (s *Solver) gather(dd, zz []float64) (kd, kz []float64) {
	k := len(s.keep)
	kd, kz = s.kd[:k], s.kz[:k]
	for i, j := range s.keep {
		kd[i], kz[i] = dd[j], zz[j]
	}
	return kd, kz
}

// finish scales the roots back and merges them with the deflated eigenvalues into
// ascending order. It fails if an eigenvalue overflows: the scaled problem is O(1), so
// only this last multiplication can.
func (s *Solver) finish(n, k, K int, scale float64) error {
	res := &s.res
	res.Keep = s.keep
	res.Rotations = s.rots
	total := n - k + K
	res.Values = res.Values[:total]
	res.Source = res.Source[:total]
	slices.SortFunc(s.defl, func(a, b deflated) int {
		return cmp.Or(cmp.Compare(a.value, b.value), a.column-b.column)
	})
	roots := s.roots[:K]
	p, q := 0, 0
	for i := range total {
		if q < len(s.defl) && (p == K || s.defl[q].value <= roots[p]) {
			res.Values[i] = s.defl[q].value * scale
			res.Source[i] = -1 - s.defl[q].column
			q++
		} else {
			res.Values[i] = roots[p] * scale
			res.Source[i] = p
			p++
		}
		if math.IsInf(res.Values[i], 0) {
			return fmt.Errorf("%w: eigenvalue %d overflows", ErrNonFinite, i)
		}
	}
	return nil
}

// headroom is the capacity allocated for n elements: 25% more, so that a size growing
// by one reallocates O(log n) times.
func headroom(n int) int {
	return n + n/4 + 16
}

// checkProblem validates the poles d and the vector x (called name in messages) of a
// secular problem: as many entries as poles, the poles finite and sorted (checkPoles),
// x finite.
func checkProblem(d, x []float64, name string) error {
	if len(x) != len(d) {
		return fmt.Errorf("%w: len(d) = %d, len(%s) = %d", ErrDimension, len(d), name, len(x))
	}
	if err := checkPoles(d); err != nil {
		return err
	}
	return checkFinite(name, x)
}

// checkPoles reports non-finite or unsorted poles.
func checkPoles(d []float64) error {
	if err := checkFinite("d", d); err != nil {
		return err
	}
	for j := 1; j < len(d); j++ {
		if d[j] < d[j-1] {
			return fmt.Errorf("%w: d[%d] = %g < d[%d] = %g", ErrNotSorted, j, d[j], j-1, d[j-1])
		}
	}
	return nil
}

func checkFinite(name string, x []float64) error {
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] = %g", ErrNonFinite, name, j, v)
		}
	}
	return nil
}

// rhoNormSq returns ρ·‖z‖² rounded once: on mantissas and exponents separately, so that
// no partial product underflows into the subnormal range and loses digits (with ρ
// subnormal, (ρ·‖z‖)·‖z‖ can be wrong in its twelfth digit). It overflows to ±Inf only
// when the result does.
func rhoNormSq(rho, znorm float64) float64 {
	fr, er := math.Frexp(rho)
	fz, ez := math.Frexp(znorm)
	return math.Ldexp(fr*fz*fz, er+2*ez)
}

// pow2Above returns the power of two 2^e with x/2^e in [½, 1) (1 for x = 0), or 2¹⁰²³
// when 2^e would overflow (x ≥ 2¹⁰²³, x/2¹⁰²³ in [1, 2)): scaling by it is exact.
func pow2Above(x float64) float64 {
	if x == 0 {
		return 1
	}
	_, e := math.Frexp(x)
	return math.Ldexp(1, min(e, 1023))
}
