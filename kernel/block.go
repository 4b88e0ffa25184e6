package kernel

import (
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/parallel"
	"github.com/ikpca/ikpca/internal/rbfrow"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// blockTolerance is τ, the accuracy of an RBF value computed from the distance identity
// (docs/design.md, "Kernel blocks"): its relative error is at most (τ + 10ε)·max(1, v),
// where v = ‖x−y‖²/(2σ²) = γ·‖x−y‖² is its exponent — v is the condition number of
// exp(−v), even a correctly rounded v carries an error ε·v, and rbfrow.ExpNeg adds up
// to 4 ulp, 8ε — and an entry for which the identity cannot guarantee it is evaluated
// directly. Evaluated directly, as by Eval, the value has a relative error up to about
// (d+3)·ε·max(1, v).
const blockTolerance = 1e-13

// rbfScale is the exponent of an RBF kernel as its blocks compute it (rbfRow): the
// squared distance D̂ times inv, with the identity's error measured against the unit g2
// (docs/design.md, "Kernel blocks"), and the direct evaluation of an entry, bit for bit
// as Eval.
type rbfScale struct {
	g2    float64 // the exponent's unit: 2σ², or 1/γ
	inv   float64 // its scale: 1/(2σ²), or γ
	gamma float64 // γ when the kernel is given by γ (Eval multiplies by it), 0 when by σ (Eval divides by g2)
}

// scaleOf returns the exponent's scale of an RBF kernel. Given σ, v = D̂·(1/(2σ²)): the
// rounded reciprocal adds ε·v to the product's ε·v, within the (τ + 10ε)·max(1, v) of
// blockTolerance. Given γ, v = D̂·γ, the product Eval takes; the unit 1/γ is rounded,
// which moves the threshold between the identity and the direct evaluation by a
// relative ε, nothing the accuracy notices.
func scaleOf(k RBF) rbfScale {
	if k.Gamma != 0 {
		return rbfScale{g2: 1 / k.Gamma, inv: k.Gamma, gamma: k.Gamma}
	}
	g2 := 2 * k.Sigma * k.Sigma
	return rbfScale{g2: g2, inv: 1 / g2}
}

// eval returns k(x, y) as Eval computes it.
func (s rbfScale) eval(x, y []float64) float64 {
	if s.gamma != 0 {
		return rbfGamma(x, y, s.gamma)
	}
	return rbf(x, y, s.g2)
}

// blockKind is the evaluation strategy of a kernel in blocks.
type blockKind int

const (
	blockElements   blockKind = iota // Eval (or fill) entry by entry: Func and other kernels, Laplacian
	blockRBF                         // distance identity through a dgemm
	blockPolynomial                  // (γ·xᵀy + c)^d with xᵀy from a dgemm
	blockLinear                      // xᵀy from a dgemm
	blockSigmoid                     // tanh(γ·xᵀy + c) with xᵀy from a dgemm
	blockCosine                      // xᵀy/(‖x‖·‖y‖) with xᵀy from a dgemm
)

// Cross holds points Y — landmarks, a model's stored points — prepared for the kernel
// blocks K(X, Y) of any number of points X against them, K(X, Y)ᵢⱼ = k(Xᵢ, Yⱼ), computed a
// block of rows at a time by BlockTo at the speed of a matrix product (docs/design.md,
// "Kernel blocks"):
//
//   - RBF from the identity ‖x − y‖² = ‖x̃‖² + ‖ỹ‖² − 2x̃ᵀỹ on points shifted by the mean μ
//     of Y (x̃ = x − μ), the products x̃ᵀỹ by one dgemm (native.Gemm); an entry where the
//     identity's rounding error could exceed blockTolerance — close points far from μ —
//     is evaluated directly;
//   - Polynomial, Linear, Sigmoid and Cosine from X·Yᵀ by one dgemm, each product then
//     finished as Eval finishes vec.Dot's (a Cosine's divided by the norms of its points,
//     Y's computed once by Reset and X's once per block, as Eval computes them);
//   - Laplacian, whose L1 distance has no such identity, and any other kernel (Func
//     included) entry by entry, exactly as Eval, in parallel for large blocks.
//
// Entries involving a point with a NaN or infinite coordinate are evaluated by Eval, so
// they are what Eval returns, as with Column.
//
// A Cross keeps a reference to Y's storage: Y must not change while the Cross is used;
// call Reset after changing it. Its methods do not modify it, so BlockTo may run
// concurrently on one Cross with different scratch (BlockWork).
//
// NewCross keeps an RBF's shifted copy of Y, m·d numbers as large as the points,
// computed once; NewCrossNoCopy keeps only the shift and the norms, and shifts the
// points of each block in its BlockWork, for callers that hold the points already and
// take their blocks a panel of columns at a time (kpca's passes). The values are the
// same (see NewCrossNoCopy).
type Cross struct {
	kern  Kernel
	kind  blockKind
	y     blas64.General // the points, as given
	scale rbfScale       // RBF: the exponent's scale
	poly  Polynomial
	sig   Sigmoid
	mu    []float64 // RBF: the shift, the mean of the finite rows of Y
	ys    []float64 // RBF: the shifted rows ỹⱼ, m×d
	yn    []float64 // RBF: ‖ỹⱼ‖²; Cosine: ‖yⱼ‖ (vec.Norm)
	ybad  []int     // rows of Y with a NaN or infinite coordinate
	coef  float64   // RBF: (d + ⌈d/8⌉ + 12)·ε/τ (identityCoef), see rbfRow
	ready bool

	// noCopy: an RBF's shifted rows are not kept (NewCrossNoCopy): ys is nil, and a
	// block shifts the rows of Y it needs into its BlockWork (columns). row is Reset's
	// scratch for one shifted row, whose squared norm yn keeps. gen identifies the
	// points of the last Reset, for a BlockWork's shifted panel (crossGen).
	noCopy bool
	row    []float64
	gen    uint64
}

// crossGen numbers the Resets of all Crosses, so that the shifted panel a BlockWork
// keeps (BlockWork.ys) is known to be of the points of the Cross it serves: from 1, a
// zero BlockWork's gen matching none.
var crossGen atomic.Uint64

// BlockWork is scratch space for Cross.BlockTo. Its zero value is ready to use; it grows
// to the largest block it has served and is then reused without allocating. A BlockWork
// must not be used by two calls at once. For a Cross made by NewCrossNoCopy it keeps the
// last panel of points it shifted, and a block of columns within that panel takes its
// shifted points from it, until the Cross is Reset: a caller that takes the blocks of
// several X against one panel in turn shifts the panel once.
type BlockWork struct {
	// Workers bounds the goroutines a block is computed on; zero means GOMAXPROCS. A
	// caller that computes blocks on several goroutines of its own, each with its own
	// BlockWork, sets 1 (kpca's passes: the tiles are the parallelism).
	Workers int

	xs   []float64 // RBF: the shifted rows x̃ᵢ
	xn   []float64 // RBF: ‖x̃ᵢ‖²; Cosine: ‖xᵢ‖
	xbad []int     // rows of X with a NaN or infinite coordinate
	kb   []float64 // ProjectTo: the kernel block
	job  rowsJob   // a large block's rows on several goroutines
	cols Cross     // BlockColumnsTo: the Cross of the columns, sharing the Cross's arrays
	ybad []int     // BlockColumnsTo: its rows of Y that are not finite
	ys   []float64 // a Cross without the copy (NewCrossNoCopy): the shifted rows ysLo…ysHi−1 of Y,
	// of the Cross's Reset numbered ysGen (crossGen)
	ysLo, ysHi int
	ysGen      uint64
	chunks     chunkJob // an RBF block's chunks of rows on several goroutines
}

// workers returns how many goroutines should share a block of elements kernel values
// of dimension cols in at most parts parts, within w.Workers.
func (w *BlockWork) workers(elements, cols, parts int) int {
	n := workers(elements, cols, parts)
	if w.Workers > 0 {
		n = min(n, w.Workers)
	}
	return n
}

// rowsJob runs one of a block's row loops on several goroutines (internal/parallel's
// shared workers), its loop a method value bound once, so that a parallel block
// allocates nothing.
type rowsJob struct {
	team    parallel.Team
	loop    int // loopFinish, loopElements, loopRBF or loopRBFProject
	c       *Cross
	out, x  blas64.General
	xn      []float64
	p, proj blas64.General   // loopRBFProject: the vectors and the products
	bad     atomic.Int64     // loopRBFProject: the first row with a non-finite value
	first   int              // ProjectTo's result: bad, or −1
	fn      func(lo, hi int) // run, bound once
}

const (
	loopFinish = iota
	loopElements
	loopRBF
	loopRBFProject
)

// run runs the job's loop over rows lo…hi−1.
func (j *rowsJob) run(lo, hi int) {
	switch j.loop {
	case loopFinish:
		j.c.finish(j.out, j.xn, lo, hi)
	case loopElements:
		j.c.elements(j.out, j.x, lo, hi)
	case loopRBFProject:
		if i := j.c.rbfProjectRows(j.out, j.x, j.xn, j.p, j.proj, lo, hi); i >= 0 {
			for {
				old := j.bad.Load()
				if int64(i) >= old || j.bad.CompareAndSwap(old, int64(i)) {
					break
				}
			}
		}
	default:
		j.c.rbfRows(j.out, j.x, j.xn, lo, hi)
	}
}

// inParallel runs the loop on the rows of out in nw contiguous ranges, one per
// goroutine, and drops its references to the block afterwards.
func (j *rowsJob) inParallel(nw, loop int, c *Cross, out, x blas64.General, xn []float64) {
	if j.fn == nil {
		j.fn = j.run
	}
	j.loop, j.c, j.out, j.x, j.xn = loop, c, out, x, xn
	rows := out.Rows
	j.team.Run(nw, rows, (rows+nw-1)/nw, j.fn)
	j.c, j.out, j.x, j.xn = nil, blas64.General{}, blas64.General{}, nil
}

// NewCross returns the points Y prepared for kernel blocks with the kernel k (see Reset).
func NewCross(k Kernel, Y *mat.Dense) *Cross {
	c := &Cross{}
	c.Reset(k, Y)
	return c
}

// NewCrossNoCopy returns the points Y prepared for kernel blocks with the kernel k, as
// NewCross does, except that for an RBF kernel the Cross keeps the shift μ and the m
// squared norms ‖ỹⱼ‖² but not the shifted copy of Y (m·d numbers): each block shifts
// the points it needs into its BlockWork instead. BlockColumnsTo shifts its j1−j0
// points, (j1−j0)·d numbers of scratch, unless they lie within the panel the BlockWork
// shifted last (see BlockWork); BlockTo takes Y in panels of as many points
// as fit in 4 MiB (668 at d = 784), each shifted, then its columns computed as
// BlockColumnsTo computes them. Every value is computed as NewCross's Cross computes
// it: the same shift, each coordinate of a shifted point the same rounded difference
// yⱼₗ − μₗ, the same norms, the same choice of the entries evaluated directly
// (docs/design.md, "Kernel blocks") — so BlockColumnsTo's values are the copy's bit
// for bit, and BlockTo's are BlockColumnsTo's over its panels, within the bounds of
// "Kernel blocks" of the copy's BlockTo (the same dot products, which a BLAS may sum
// in another order for another shape). ProjectTo takes the general route, BlockTo
// then one dgemm, rather than projecting each row of the whole block against the
// copy; MatrixTo computes K(Y, Y) as Matrix does, with a shifted copy of its own for
// the duration of the call. For the other kernels there is no copy, and a
// NewCrossNoCopy's Cross is NewCross's.
//
// It is for a caller that holds the points already and takes its blocks a panel of
// columns at a time, where the copy would double the memory of the points: kpca's
// passes over a model's points (docs/design.md, "Passes over the points"). A panel's
// shift is (j1−j0)·d subtractions against its dgemm's 2·rows(X)·(j1−j0)·d flops, but
// its points are read, written and read again, 16 more bytes a coordinate than the
// copy's: a caller with several X against a panel takes them in turn, so that the
// BlockWork shifts the panel once. Reset keeps the choice.
func NewCrossNoCopy(k Kernel, Y *mat.Dense) *Cross {
	c := &Cross{noCopy: true}
	c.Reset(k, Y)
	return c
}

// ByProducts reports whether the Cross computes its blocks from a matrix product of the
// points — RBF, polynomial, linear, sigmoid and cosine kernels: a dgemm whose cost per
// kernel value is 2·d flops, d the points' dimension, and a few operations more —
// rather than entry by entry (Laplacian, Func and registered kernels), at the cost of
// an evaluation each. kpca's passes keep the values of the first only when d makes them
// dear (docs/design.md, "Passes over the points").
func (c *Cross) ByProducts() bool { return c.kind != blockElements }

// Reset prepares the points Y for kernel blocks with the kernel k, reusing the Cross's
// memory: O(m·d) for m points of dimension d (the shifted copy and norms an RBF needs;
// the m norms a Cosine needs; nothing for the other kernels), O(m + d) for an RBF if the
// Cross was made by NewCrossNoCopy, and no allocation once the Cross has held as many
// points. It panics if k is nil or Y is empty, like Column.
func (c *Cross) Reset(k Kernel, Y *mat.Dense) {
	if check.IsNil(k) {
		panic("kernel: Cross: nil kernel")
	}
	if Y.IsEmpty() {
		panic("kernel: Cross: empty Y")
	}
	c.kern = k
	c.gen = crossGen.Add(1)
	c.y = Y.RawMatrix()
	c.ybad = badRows(c.ybad[:0], c.y)
	c.kind = blockElements
	switch k := deref(k).(type) {
	case RBF:
		c.kind = blockRBF
		c.scale = scaleOf(k)
		c.prepareRBF()
	case Polynomial:
		c.kind = blockPolynomial
		c.poly = k
	case Linear:
		c.kind = blockLinear
	case Sigmoid:
		c.kind = blockSigmoid
		c.sig = k
	case Cosine:
		c.kind = blockCosine
		c.yn = resize(c.yn, c.y.Rows)
		rowNorms(c.yn, c.y)
	}
	c.ready = true
}

// Len returns the number of points Y.
func (c *Cross) Len() int { return c.y.Rows }

// Dim returns the dimension of the points.
func (c *Cross) Dim() int { return c.y.Cols }

// prepareRBF computes the shift μ (the mean of the finite rows of Y), the shifted rows
// and their squared norms. Rows that are not finite are shifted to zero: their entries
// are evaluated by Eval. Without the copy (NewCrossNoCopy) it computes the norms alone,
// each row shifted into one row of scratch by shiftNorm, the function by which
// shiftRows shifts the copy: the same norms, bit for bit.
func (c *Cross) prepareRBF() {
	m, d := c.y.Rows, c.y.Cols
	c.mu = resize(c.mu, d)
	clear(c.mu)
	good := 0
	for i := range m {
		if isBad(c.ybad, i) {
			continue
		}
		for l, v := range c.y.Data[i*c.y.Stride : i*c.y.Stride+d] {
			c.mu[l] += v
		}
		good++
	}
	if good > 0 {
		for l := range c.mu {
			c.mu[l] /= float64(good)
		}
	}
	c.yn = resize(c.yn, m)
	c.coef = identityCoef(d)
	if !c.noCopy {
		c.ys = resize(c.ys, m*d)
		shiftRows(c.ys, c.yn, c.y, c.mu, c.ybad)
		return
	}
	c.row = resize(c.row, d)
	for i := range m {
		if isBad(c.ybad, i) {
			c.yn[i] = 0
			continue
		}
		c.yn[i] = shiftNorm(c.row, c.y.Data[i*c.y.Stride:i*c.y.Stride+d], c.mu)
	}
}

// identityCoef returns coef = (d + ⌈d/8⌉ + 12)·ε/τ for points of dimension d: the
// distance identity's error bound per unit of S = ‖x̃‖² + ‖ỹ‖², over τ (docs/design.md,
// "Kernel blocks"):
//
//	|D̂ − ‖x−y‖²| ≤ (d + ⌈d/8⌉ + 12)·ε·S,
//
// of which d·ε·S is the product x̃ᵀỹ's (any order of summation: 2·γ_d·‖x̃‖‖ỹ‖ ≤ γ_d·S),
// (⌈d/8⌉ + 3)·ε·S the squared norms' (sqNorm), 4ε·S the shift's and 3ε·S the sum
// and the difference; the remaining 2ε·S cover the second-order terms (γ_n = nε/(1 − nε)
// exceeds n·ε by a relative n·ε, below 1e-9 for any dimension a float64 slice holds).
func identityCoef(d int) float64 {
	return float64(d+(d+7)/8+12) * vec.Roundoff / blockTolerance
}

// shiftRows writes the rows of a minus mu to dst (row-major, len(mu) columns) and their
// squared norms to norms; rows listed in bad are zero.
func shiftRows(dst, norms []float64, a blas64.General, mu []float64, bad []int) {
	d := len(mu)
	for i := range a.Rows {
		row := dst[i*d : i*d+d]
		if isBad(bad, i) {
			clear(row)
			norms[i] = 0
			continue
		}
		norms[i] = shiftNorm(row, a.Data[i*a.Stride:i*a.Stride+d], mu)
	}
}

// shiftNorm sets dst = x − mu and returns sqNorm(dst), bit for bit — the same squares in
// the same partial sums — in one pass: the shift of a model's stored points at every
// block step is bound by memory, and a second pass over the shifted row for its norm
// took a third of its time. len(x) and len(mu) must be at least len(dst).
func shiftNorm(dst, x, mu []float64) float64 {
	x, mu = x[:len(dst)], mu[:len(dst)]
	var s [8]float64
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d, xx, m := dst[i:i+8:i+8], x[i:i+8:i+8], mu[i:i+8:i+8]
		d0, d1, d2, d3 := xx[0]-m[0], xx[1]-m[1], xx[2]-m[2], xx[3]-m[3]
		d4, d5, d6, d7 := xx[4]-m[4], xx[5]-m[5], xx[6]-m[6], xx[7]-m[7]
		d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = d0, d1, d2, d3, d4, d5, d6, d7
		s[0] += d0 * d0
		s[1] += d1 * d1
		s[2] += d2 * d2
		s[3] += d3 * d3
		s[4] += d4 * d4
		s[5] += d5 * d5
		s[6] += d6 * d6
		s[7] += d7 * d7
	}
	for q := 0; i < len(dst); i, q = i+1, q+1 {
		v := x[i] - mu[i]
		dst[i] = v
		s[q] += v * v
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// shiftOnly writes the rows of a minus mu to dst (row-major, len(mu) columns), rows
// listed in bad zero: shiftRows' shifted rows without their norms, bit for bit — each
// coordinate the one correctly rounded difference x − μ that shiftNorm computes (IEEE
// subtraction; nothing is fused into it). A Cross without the copy (NewCrossNoCopy)
// shifts a panel of Y with it, its norms kept from Reset.
func shiftOnly(dst []float64, a blas64.General, mu []float64, bad []int) {
	d := len(mu)
	for i := range a.Rows {
		row := dst[i*d : i*d+d]
		if isBad(bad, i) {
			clear(row)
			continue
		}
		x, mu := a.Data[i*a.Stride:i*a.Stride+d], mu[:d] // of row's length: no bounds checks
		for l := range row {
			row[l] = x[l] - mu[l]
		}
	}
}

// sqNorm returns ‖a‖², summed in eight interleaved partial sums of at most ⌈d/8⌉ terms
// each, d = len(a), then added pairwise. Every term a_l² is rounded once, then by the
// at most ⌈d/8⌉ − 1 additions of its partial sum and the three levels of the pairwise
// sum, so that the computed value is within γ_{⌈d/8⌉+3}·‖a‖² of the exact one (the
// terms are not negative; Higham, "Accuracy and Stability of Numerical Algorithms",
// §3.1): at d = 784, 101·ε where one running sum carries 784·ε. The distance
// identity's bound counts it twice, once for each point (identityCoef), and it is
// what lets the identity serve every entry of typical data of many coordinates.
func sqNorm(a []float64) float64 {
	var s [8]float64
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s[0] += a[i] * a[i]
		s[1] += a[i+1] * a[i+1]
		s[2] += a[i+2] * a[i+2]
		s[3] += a[i+3] * a[i+3]
		s[4] += a[i+4] * a[i+4]
		s[5] += a[i+5] * a[i+5]
		s[6] += a[i+6] * a[i+6]
		s[7] += a[i+7] * a[i+7]
	}
	for q := 0; i < len(a); i, q = i+1, q+1 {
		s[q] += a[i] * a[i]
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// BlockTo sets dst to the kernel block K(X, Y), dst[i][j] = k(Xᵢ, Yⱼ), for the rows Xᵢ of X
// and the prepared points Y. dst is resized to rows(X)×Len() if empty and must otherwise
// have that shape; X must have Dim() columns; BlockTo panics otherwise, and if the Cross
// was never Reset. dst must not share storage with X or Y.
//
// With a BlockWork that has served a block as large, BlockTo does not allocate (a large
// block is evaluated on workers shared by the process, started once); a nil work
// allocates its own.
func (c *Cross) BlockTo(dst *mat.Dense, X *mat.Dense, work *BlockWork) {
	if work == nil {
		work = new(BlockWork)
	}
	x := c.points(X, "BlockTo")
	if dst.IsEmpty() {
		dst.ReuseAs(x.Rows, c.y.Rows)
	}
	if r, cc := dst.Dims(); r != x.Rows || cc != c.y.Rows {
		panic(mat.ErrShape)
	}
	c.block(dst.RawMatrix(), x, work)
}

// BlockColumnsTo sets dst to columns j0…j1−1 of the kernel block K(X, Y): dst[i][j] =
// k(Xᵢ, Y_{j0+j}), the block of X against the prepared points j0…j1−1 alone, at the
// cost of j1−j0 columns. Each value is computed as BlockTo computes it — an RBF's from
// the same shift, shifted rows and squared norms, with the same choice of direct
// evaluation — so that the columns agree with BlockTo's to the rounding of the
// products' dgemm, whose order of summation a BLAS may vary with the shape. It is what
// a symmetric product needs, the blocks of rows against the points at and after them
// (kpca's passes, docs/design.md, "Passes over the points"). dst is resized to
// rows(X)×(j1−j0) if empty and must otherwise have that shape; BlockColumnsTo panics
// otherwise, if not 0 ≤ j0 < j1 ≤ Len(), and as BlockTo does. dst must not share storage
// with X or Y.
//
// With a BlockWork that has served a block as large, BlockColumnsTo does not allocate; a
// nil work allocates its own.
func (c *Cross) BlockColumnsTo(dst, X *mat.Dense, j0, j1 int, work *BlockWork) {
	if work == nil {
		work = new(BlockWork)
	}
	x := c.points(X, "BlockColumnsTo")
	if j0 < 0 || j1 > c.y.Rows || j0 >= j1 {
		panic("kernel: Cross.BlockColumnsTo: columns out of range")
	}
	if dst.IsEmpty() {
		dst.ReuseAs(x.Rows, j1-j0)
	}
	if r, cc := dst.Dims(); r != x.Rows || cc != j1-j0 {
		panic(mat.ErrShape)
	}
	c.columns(j0, j1, work).block(dst.RawMatrix(), x, work)
}

// BlockPointsTo sets dst to the kernel block of the prepared points i0…i1−1 against
// j0…j1−1, dst[i][j] = k(Y_{i0+i}, Y_{j0+j}): what BlockColumnsTo gives for X the rows
// i0…i1−1 of Y with the backend single-threaded (native.OwnCores: its dgemms are), bit
// for bit, without shifting those rows again. An RBF's rows come
// shifted from the Cross — its copy, or without one (NewCrossNoCopy) shifted into work
// as the columns are — with the squared norms Reset computed, which are the values
// BlockColumnsTo computes for them: a block of a symmetric product, both of whose
// sides are the prepared points (kpca's passes, docs/design.md, "Passes over the
// points"), shifts each side once instead of recomputing the norms of one. Other
// kernels are BlockColumnsTo's. The block is computed on the calling goroutine. dst is
// resized to (i1−i0)×(j1−j0) if empty and must otherwise have that shape;
// BlockPointsTo panics otherwise, if the ranges are not within 0…Len(), and if the
// Cross was never Reset.
func (c *Cross) BlockPointsTo(dst *mat.Dense, i0, i1, j0, j1 int, work *BlockWork) {
	if !c.ready {
		panic("kernel: Cross: not prepared (Reset)")
	}
	if i0 < 0 || i1 > c.y.Rows || i0 >= i1 || j0 < 0 || j1 > c.y.Rows || j0 >= j1 {
		panic("kernel: Cross.BlockPointsTo: points out of range")
	}
	if work == nil {
		work = new(BlockWork)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(i1-i0, j1-j0)
	}
	if r, cc := dst.Dims(); r != i1-i0 || cc != j1-j0 {
		panic(mat.ErrShape)
	}
	x := blas64.General{Rows: i1 - i0, Cols: c.y.Cols, Stride: c.y.Stride, Data: c.y.Data[i0*c.y.Stride:]}
	release := native.OwnCores(1)
	defer release()
	if c.kind != blockRBF {
		saved := work.Workers
		work.Workers = 1
		c.columns(j0, j1, work).block(dst.RawMatrix(), x, work)
		work.Workers = saved
		return
	}
	d := c.y.Cols
	b := i1 - i0
	// The rows' shifted points and norms, before the columns' Cross takes work.ys.
	var xs []float64
	if c.noCopy {
		work.xs = resize(work.xs, b*d)
		xs = work.xs
		bad := work.ybad[:0]
		for _, i := range c.ybad {
			if i0 <= i && i < i1 {
				bad = append(bad, i-i0)
			}
		}
		work.ybad = bad
		shiftOnly(xs, x, c.mu, bad)
	} else {
		xs = c.ys[i0*d : i1*d]
	}
	work.xn = resize(work.xn, b)
	xn := work.xn
	copy(xn, c.yn[i0:i1])
	for _, i := range c.ybad { // a point that is not finite: evaluated by Eval (rbfRows)
		if i0 <= i && i < i1 {
			xn[i-i0] = math.NaN()
		}
	}
	cols := c.columns(j0, j1, work)
	out := dst.RawMatrix()
	ys := blas64.General{Rows: j1 - j0, Cols: d, Stride: d, Data: cols.ys}
	// In blockRBF's chunks of rows, so that each dgemm is BlockColumnsTo's.
	chunk := rbfChunk(b, d)
	for lo := 0; lo < b; lo += chunk {
		hi := min(lo+chunk, b)
		oc := blas64.General{Rows: hi - lo, Cols: out.Cols, Stride: out.Stride, Data: out.Data[lo*out.Stride:]}
		native.Gemm(blas.NoTrans, blas.Trans, -2, blas64.General{Rows: hi - lo, Cols: d, Stride: d, Data: xs[lo*d:]}, ys, 0, oc)
	}
	cols.rbfRows(out, x, xn, 0, b)
	cols.fixBad(out, x, nil)
}

// columns returns the Cross of the points j0…j1−1 of c, kept in work (a Cross on the
// stack would escape to the heap with the parallel loops that reference it): c's
// arrays sliced, not copied — the same shift μ, the rows of the shifted copy and the
// norms of those points — and the list of those points that are not finite renumbered
// from j0. Without the copy (NewCrossNoCopy), an RBF's rows are shifted into
// work.ys (shiftOnly: the copy's rows, bit for bit) unless work holds them already,
// shifted for an earlier block within a wider panel of the same Reset, and the Cross
// returned holds them as its copy.
func (c *Cross) columns(j0, j1 int, work *BlockWork) *Cross {
	s := &work.cols
	*s = *c
	s.y = blas64.General{Rows: j1 - j0, Cols: c.y.Cols, Stride: c.y.Stride, Data: c.y.Data[j0*c.y.Stride:]}
	work.ybad = work.ybad[:0]
	for _, j := range c.ybad {
		if j0 <= j && j < j1 {
			work.ybad = append(work.ybad, j-j0)
		}
	}
	s.ybad = work.ybad
	switch c.kind {
	case blockRBF:
		d := c.y.Cols
		s.yn = c.yn[j0:j1]
		if c.noCopy {
			if work.ysGen != c.gen || j0 < work.ysLo || j1 > work.ysHi {
				work.ys = resize(work.ys, (j1-j0)*d)
				shiftOnly(work.ys, s.y, c.mu, s.ybad)
				work.ysGen, work.ysLo, work.ysHi = c.gen, j0, j1
			}
			s.ys, s.noCopy = work.ys[(j0-work.ysLo)*d:(j1-work.ysLo)*d], false
		} else {
			s.ys = c.ys[j0*d : j1*d]
		}
	case blockCosine:
		s.yn = c.yn[j0:j1]
	}
	return s
}

// points returns the raw matrix of the points X of a block, after the checks BlockTo
// and ProjectTo (method) share: it panics if the Cross was never Reset, or X is empty or
// of another dimension than Y.
func (c *Cross) points(X *mat.Dense, method string) blas64.General {
	if !c.ready {
		panic("kernel: Cross: not prepared (Reset)")
	}
	if X.IsEmpty() {
		panic("kernel: Cross." + method + ": empty X")
	}
	x := X.RawMatrix()
	if x.Cols != c.y.Cols {
		panic("kernel: Cross." + method + ": X and Y have different dimensions")
	}
	return x
}

// block is BlockTo on checked arguments: out (rows(x)×Len()) = K(x, Y).
func (c *Cross) block(out, x blas64.General, work *BlockWork) {
	switch c.kind {
	case blockRBF:
		if c.noCopy {
			c.blockPanels(out, x, work)
			return
		}
		c.blockRBF(out, x, work)
	case blockPolynomial, blockLinear, blockSigmoid, blockCosine:
		native.Gemm(blas.NoTrans, blas.Trans, 1, x, c.y, 0, out)
		var xn []float64
		if c.kind == blockCosine {
			work.xn = resize(work.xn, x.Rows)
			rowNorms(work.xn, x)
			xn = work.xn
		}
		if c.kind != blockLinear {
			if nw := work.workers(x.Rows*c.y.Rows, 0, x.Rows); nw <= 1 {
				c.finish(out, xn, 0, x.Rows)
			} else {
				work.job.inParallel(nw, loopFinish, c, out, x, xn)
			}
		}
		work.xbad = badRows(work.xbad[:0], x)
		c.fixBad(out, x, work.xbad)
	default:
		if nw := work.workers(x.Rows*c.y.Rows, c.y.Cols, x.Rows); nw <= 1 {
			c.elements(out, x, 0, x.Rows)
		} else {
			work.job.inParallel(nw, loopElements, c, out, x, nil)
		}
	}
}

// finish replaces the products g = xᵢᵀyⱼ in rows lo…hi−1 of out by the kernel's values,
// with the operations by which Eval finishes vec.Dot's product: the polynomial's
// (γ·g + c)^d, the sigmoid's tanh(γ·g + c), the cosine's g/(‖xᵢ‖·‖yⱼ‖) (cosineOf) from the
// norms xn of the block's rows and c.yn of Y's. Only g differs from Eval's, by the
// rounding of a sum of d products in another order (docs/design.md, "Kernel blocks").
func (c *Cross) finish(out blas64.General, xn []float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		row := out.Data[i*out.Stride : i*out.Stride+out.Cols]
		switch c.kind {
		case blockPolynomial:
			p := c.poly
			for j, g := range row {
				row[j] = powInt(p.Gamma*g+p.Coef0, p.Degree)
			}
		case blockSigmoid:
			s := c.sig
			for j, g := range row {
				row[j] = math.Tanh(s.Gamma*g + s.Coef0)
			}
		case blockCosine:
			nx := xn[i]
			for j, g := range row {
				row[j] = cosineOf(g, nx, c.yn[j])
			}
		}
	}
}

// rowNorms sets norms[i] = ‖aᵢ‖ for the rows of a, by vec.Norm as Cosine's Eval.
func rowNorms(norms []float64, a blas64.General) {
	for i := range a.Rows {
		norms[i] = vec.Norm(a.Data[i*a.Stride : i*a.Stride+a.Cols])
	}
}

// elements sets rows lo…hi−1 of out to the kernel values of those rows of x against Y,
// by the specialised loops of Column (bit for bit Eval), a tile of Y at a time so that
// the tile stays in cache while the rows of x pass over it.
func (c *Cross) elements(out, x blas64.General, lo, hi int) {
	d := c.y.Cols
	tile := max(16, (32<<10)/(8*max(d, 1))) // about 32 KiB of Y
	for j0 := 0; j0 < c.y.Rows; j0 += tile {
		j1 := min(j0+tile, c.y.Rows)
		for i := lo; i < hi; i++ {
			fill(out.Data[i*out.Stride+j0:i*out.Stride+j1], c.kern, c.y.Data[j0*c.y.Stride:], c.y.Stride, d,
				x.Data[i*x.Stride:i*x.Stride+d])
		}
	}
}

// blockRBF computes an RBF block from the distance identity, a chunk of rows of X at a
// time (rbfChunk): their shifted rows and squared norms, −2·X̃·Ỹᵀ by one dgemm, then each
// entry's squared distance D̂ = (‖x̃‖² + ‖ỹ‖²) − 2x̃ᵀỹ and exp(−D̂/(2σ²)) (or exp(−γ·D̂)),
// or the direct value where the identity's error bound is too large (rbfRow). The
// shifted copy is a chunk's, not X's: a model's block of its m stored points against a
// few new ones would otherwise copy every stored point once more. A block of many rows
// runs its chunks on several goroutines, each chunk — shift, dgemm, exponentials — on
// one core (docs/design.md, "Who owns the cores"); a block of a few rows against many
// points shares out the exponentials of each chunk. The chunks are the same either way,
// and so are the values.
func (c *Cross) blockRBF(out, x blas64.General, work *BlockWork) {
	b, d, m := x.Rows, x.Cols, c.y.Rows
	chunk := rbfChunk(b, d)
	ys := blas64.General{Rows: m, Cols: d, Stride: d, Data: c.ys}
	if chunks := (b + chunk - 1) / chunk; chunks >= 2 {
		work.chunks.run(min(work.workers(b*m, 0, b), chunks), c, out, x, ys, chunk)
		c.fixBad(out, x, nil)
		return
	}
	work.xs = resize(work.xs, chunk*d)
	work.xn = resize(work.xn, chunk) // a chunk's norms at a time: not b, which grows with a model
	for lo := 0; lo < b; lo += chunk {
		hi := min(lo+chunk, b)
		xc := blas64.General{Rows: hi - lo, Cols: d, Stride: x.Stride, Data: x.Data[lo*x.Stride:]}
		oc := blas64.General{Rows: hi - lo, Cols: m, Stride: out.Stride, Data: out.Data[lo*out.Stride:]}
		xn := work.xn[:hi-lo]
		c.rbfProducts(oc, xc, ys, work.xs, xn)
		if nw := work.workers((hi-lo)*m, 0, hi-lo); nw <= 1 {
			c.rbfRows(oc, xc, xn, 0, hi-lo)
		} else {
			work.job.inParallel(nw, loopRBF, c, oc, xc, xn)
		}
	}
	c.fixBad(out, x, nil)
}

// rbfProducts sets out to −2·X̃·Ỹᵀ for the rows of x, shifted into xs with their squared
// norms in xn.
func (c *Cross) rbfProducts(out, x, ys blas64.General, xs, xn []float64) {
	d := x.Cols
	shiftRows(xs, xn, x, c.mu, nil)
	native.Gemm(blas.NoTrans, blas.Trans, -2, blas64.General{Rows: x.Rows, Cols: d, Stride: d, Data: xs}, ys, 0, out)
}

// chunkJob runs the chunks of rows of an RBF block on several goroutines (blockRBF),
// each with scratch of its own for the chunk's shifted rows and norms, its loop a method
// value bound once, so that a parallel block allocates nothing once the scratch exists.
type chunkJob struct {
	team       parallel.Team
	c          *Cross
	out, x, ys blas64.General
	rows       int
	scratch    []chunkScratch
	free       chan *chunkScratch
	fn         func(lo, hi int) // chunks, bound once
}

// chunkScratch is a worker's scratch for a chunk of rows.
type chunkScratch struct{ xs, xn []float64 }

// run computes the block in chunks of rows on nw goroutines, the backend
// single-threaded while they run (native.OwnCores).
func (j *chunkJob) run(nw int, c *Cross, out, x, ys blas64.General, rows int) {
	if j.fn == nil {
		j.fn = j.chunks
	}
	if len(j.scratch) < nw {
		j.scratch = append(j.scratch, make([]chunkScratch, nw-len(j.scratch))...)
		j.free = make(chan *chunkScratch, len(j.scratch))
		for i := range j.scratch {
			j.free <- &j.scratch[i]
		}
	}
	j.c, j.out, j.x, j.ys, j.rows = c, out, x, ys, rows
	release := native.OwnCores(nw)
	j.team.Run(nw, (x.Rows+rows-1)/rows, 1, j.fn)
	release()
	j.c, j.out, j.x, j.ys = nil, blas64.General{}, blas64.General{}, blas64.General{}
}

// chunks computes the chunks lo…hi−1 of the block.
func (j *chunkJob) chunks(lo, hi int) {
	s := <-j.free
	d, m := j.x.Cols, j.ys.Rows
	s.xs = resize(s.xs, j.rows*d)
	s.xn = resize(s.xn, j.rows)
	for ch := lo; ch < hi; ch++ {
		r0 := ch * j.rows
		r1 := min(r0+j.rows, j.x.Rows)
		xc := blas64.General{Rows: r1 - r0, Cols: d, Stride: j.x.Stride, Data: j.x.Data[r0*j.x.Stride:]}
		oc := blas64.General{Rows: r1 - r0, Cols: m, Stride: j.out.Stride, Data: j.out.Data[r0*j.out.Stride:]}
		xn := s.xn[:r1-r0]
		j.c.rbfProducts(oc, xc, j.ys, s.xs, xn)
		j.c.rbfRows(oc, xc, xn, 0, r1-r0)
	}
	j.free <- s
}

// blockPanels is BlockTo for an RBF Cross without the copy (NewCrossNoCopy): Y taken
// a panel of rbfPanel(m, d) points at a time — as many as fit in rbfChunkBytes, the
// scratch of X's chunks — each panel shifted into work (columns), then its columns
// of out computed by blockRBF as BlockColumnsTo computes them. Shifting X's chunks
// again for each panel costs rows(X)·d subtractions a panel, against the panel's
// dgemm of 2·rows(X)·d flops per point, at least 64 of them.
func (c *Cross) blockPanels(out, x blas64.General, work *BlockWork) {
	m := c.y.Rows
	panel := rbfPanel(m, c.y.Cols)
	for j0 := 0; j0 < m; j0 += panel {
		j1 := min(j0+panel, m)
		oc := blas64.General{Rows: out.Rows, Cols: j1 - j0, Stride: out.Stride, Data: out.Data[j0:]}
		c.columns(j0, j1, work).blockRBF(oc, x, work)
	}
}

// rbfChunkBytes bounds the shifted copy of a chunk of X (blockRBF): 4 MiB, 668 rows at
// d = 784, enough for the dgemm of a chunk against Y to run at full speed.
const rbfChunkBytes = 4 << 20

// rbfPanel returns the points of Y that blockPanels shifts at a time, of m points of
// dimension d: all of them if they fit in rbfChunkBytes, otherwise as many as fit, at
// least 64.
func rbfPanel(m, d int) int {
	return min(m, max(64, rbfChunkBytes/(8*d)))
}

// rbfChunkRows is the most rows of a chunk: enough chunks for every core in a model's
// block of its m stored points against a block of new ones — 75 at m = 19,020 — each
// a dgemm (256×d)·(d×b) that runs at speed on one core and rows whose exponentials
// stay in its cache.
const rbfChunkRows = 256

// rbfChunk returns the rows of X that blockRBF shifts at a time, of b rows of dimension
// d: all of them if they are few, otherwise as many as fit in rbfChunkBytes, at least 64
// and at most rbfChunkRows. It depends on b and d alone, not on the number of
// goroutines, and so do a block's values.
func rbfChunk(b, d int) int {
	return min(b, rbfChunkRows, max(64, rbfChunkBytes/(8*d)))
}

// rbfRows finishes rows lo…hi−1 of an RBF block (rbfRow). A row whose squared norm
// ‖x̃‖² is not finite — its point has a NaN or infinite coordinate, or one so large that
// its square overflows — is evaluated by Eval instead, as Column would: the test on the
// norm replaces a scan of X for NaN and Inf, for a coordinate that is not finite makes
// the sum of squares NaN or +Inf.
func (c *Cross) rbfRows(out, x blas64.General, xn []float64, lo, hi int) {
	d, m := x.Cols, c.y.Rows
	for i := lo; i < hi; i++ {
		xi := x.Data[i*x.Stride : i*x.Stride+d]
		row := out.Data[i*out.Stride : i*out.Stride+m]
		if xn[i]-xn[i] != 0 {
			fill(row, c.kern, c.y.Data, c.y.Stride, d, xi)
			continue
		}
		rbfRow(row, xn[i], c.yn, xi, c.y.Data, c.y.Stride, c.scale, c.coef, blas64.General{}, nil)
	}
}

// rbfRow finishes a row of an RBF block for the point x: on entry row[j] holds −2x̃ᵀỹⱼ,
// on return k(x, yⱼ) = exp(−D̂ⱼ·s.inv) — exp(−D̂ⱼ/(2σ²)) or exp(−γ·D̂ⱼ) — with
// D̂ⱼ = (‖x̃‖² + ‖ỹⱼ‖²) − 2x̃ᵀỹⱼ from the squared norms xn and yn[j]. Where the identity's
// error bound (d + ⌈d/8⌉ + 12)·ε·(‖x̃‖² + ‖ỹⱼ‖²) (plus underflow's) exceeds τ·max(s.g2, D̂ⱼ) —
// coef = identityCoef(d), s.g2 = 2σ² or 1/γ — the value is evaluated directly from x and yⱼ
// (row j of y, stride ys), bit for bit as Eval: the cancellation of close points far
// from the shift. docs/design.md, "Kernel blocks".
//
// The exponents and exponentials are rbfrow.Finish's (one vectorised pass with OpenBLAS
// on AVX2, two in Go: the exponentials independent of one another, so that they
// overlap in the pipeline), which marks the entries to evaluate directly by a value
// above 1; then the marked entries. If p has rows, dots receives the finished row's
// products with them (ProjectTo): from the same pass where nothing was marked,
// otherwise from one dgemv after the marked entries are evaluated.
func rbfRow(row []float64, xn float64, yn, x, y []float64, ys int, s rbfScale, coef float64, p blas64.General, dots []float64) {
	d := len(x)
	// Products and squares below 2⁻¹⁰²² lose digits: each adds up to 2⁻¹⁰⁷⁴ to D̂'s error,
	// 4d of them at most, which matters only for D̂ and 2σ² near 1e-300.
	under := float64(4*d+4) * 0x1p-1074 / blockTolerance
	if !rbfrow.Finish(row, yn, xn, s.inv, s.g2, coef, under, p, dots) {
		return
	}
	for j, v := range row {
		if v > 1 {
			row[j] = s.eval(x, y[j*ys:j*ys+d])
		}
	}
	if p.Rows > 0 {
		native.Gemv(blas.NoTrans, 1, p, blas64.Vector{N: len(row), Inc: 1, Data: row}, 0, blas64.Vector{N: p.Rows, Inc: 1, Data: dots})
	}
}

// fixBad evaluates by Eval the entries of rows of x in xbad and of the columns of Y in
// c.ybad, points with a NaN or infinite coordinate, so that they are what Column gives.
func (c *Cross) fixBad(out, x blas64.General, xbad []int) {
	d := c.y.Cols
	for _, i := range xbad {
		fill(out.Data[i*out.Stride:i*out.Stride+out.Cols], c.kern, c.y.Data, c.y.Stride, d, x.Data[i*x.Stride:i*x.Stride+d])
	}
	for _, j := range c.ybad {
		yj := c.y.Data[j*c.y.Stride : j*c.y.Stride+d]
		for i := range x.Rows {
			out.Data[i*out.Stride+j] = c.kern.Eval(x.Data[i*x.Stride:i*x.Stride+d], yj)
		}
	}
}

// Block sets dst to the kernel block K(X, Y), dst[i][j] = k(Xᵢ, Yⱼ), as a Cross of Y would
// (see Cross), allocating the Cross and its scratch: for repeated blocks against the same
// Y, keep a Cross and a BlockWork instead. dst is resized if empty and must otherwise be
// rows(X)×rows(Y); Block panics on mismatched dimensions, an empty X or Y or a nil
// kernel.
func Block(dst *mat.Dense, k Kernel, X, Y *mat.Dense) {
	var work BlockWork
	NewCross(k, Y).BlockTo(dst, X, &work)
}

// badRows appends to dst the indices of the rows of a with a NaN or infinite entry.
func badRows(dst []int, a blas64.General) []int {
	for i := range a.Rows {
		for _, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				dst = append(dst, i)
				break
			}
		}
	}
	return dst
}

// isBad reports whether i is in the sorted list bad (short: usually empty).
func isBad(bad []int, i int) bool {
	for _, b := range bad {
		if b == i {
			return true
		}
		if b > i {
			return false
		}
	}
	return false
}

// resize returns x with length n, reusing its memory when it has the capacity.
func resize(x []float64, n int) []float64 {
	if cap(x) >= n {
		return x[:n]
	}
	return make([]float64, n, n+n/4) // room to grow: blocks against a growing set of points
}
