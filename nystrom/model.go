package nystrom

import (
	"crypto/sha256"
	"fmt"
	"math"
	"reflect"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// Options configure a Model and the choice of its landmarks.
type Options struct {
	// Landmarks is the number r of landmarks Choose and Fit pick. New takes the rows of
	// its landmark matrix instead, and Landmarks must then be zero or that number of
	// rows; the model's Options report it.
	Landmarks int
	// Strategy is how Choose and Fit pick the landmarks (the zero value is Uniform).
	Strategy Strategy
	// Seed seeds Uniform's draw.
	Seed uint64
	// Tolerance is the relative cutoff of the landmarks' kernel matrix: the feature map
	// keeps the eigenpairs (σⱼ, wⱼ) of K_LL with σⱼ > Tolerance·σ₁. Zero means r·2⁻⁵²
	// (2r·ε): a backward-stable eigensolver computes every σⱼ to within about r·ε·σ₁,
	// so smaller ones are indistinguishable from zero, and keeping them would divide
	// rounding errors by √σⱼ (the rank rule of LAPACK's dgelss and numpy's matrix_rank).
	// A larger value gives a better-conditioned map of lower rank. It must be in [0, 1).
	Tolerance float64
	// Uncentred makes the model the kernel PCA of the uncentred features: the
	// eigendecomposition of Σφφᵀ, whose eigenvalues are those of K̃ itself, and scores
	// φ(x)ᵀvⱼ without the mean. By default the model centres, as kernel PCA proper does
	// (docs/design.md, "Nyström kernel PCA").
	Uncentred bool
}

// validate checks the options.
func (o Options) validate() error {
	if o.Landmarks < 0 {
		return fmt.Errorf("%w: %d landmarks", ErrArgument, o.Landmarks)
	}
	if o.Strategy < Uniform || o.Strategy > Greedy {
		return fmt.Errorf("%w: landmark strategy %d", ErrArgument, int(o.Strategy))
	}
	if !(o.Tolerance >= 0 && o.Tolerance < 1) {
		return fmt.Errorf("%w: tolerance %g, want it in [0, 1)", ErrArgument, o.Tolerance)
	}
	return nil
}

// cutoff returns the relative eigenvalue cutoff for r landmarks.
func (o Options) cutoff(r int) float64 {
	if o.Tolerance > 0 {
		return o.Tolerance
	}
	return float64(r) * 0x1p-52
}

const (
	// blockRows is the number of points AddBatch maps at a time: the rows of one kernel
	// block, one dgemm for their features and one dsyrk for their outer products.
	// Within a block dsyrk sums plainly, erring by up to blockRows·ε·Σ|terms|; across
	// blocks the sums are compensated. 64 rows keep that below 1.5e-14·Σ|terms| and the
	// scratch below 64·(d + r + r') numbers, while dsyrk still runs at matrix speed.
	// (Transform, which sums nothing, takes blocks.Size rows at a time.)
	blockRows = 64

	// sumLimit bounds every diagonal sum Σ(φᵢ − cᵢ)²: a point or batch that would take
	// one beyond it is refused (ErrNonFinite). Then every sum stays far from overflow
	// (|Sᵢⱼ| ≤ √(SᵢᵢSⱼⱼ) and |sᵢ| ≤ √(n·Sᵢᵢ) by Cauchy–Schwarz), and so does TwoSum.
	sumLimit = 0x1p1000

	// maxPoints bounds the number of points, so that n converts to float64 exactly.
	maxPoints = 1 << 53
)

// Model is Nyström kernel PCA: the feature map of r landmarks and the sums over the
// points added, from which its kernel PCA is computed when it is read. Create one with
// New or Fit (or Empty, for another shard); save and restore it with MarshalBinary and
// UnmarshalBinary, or MarshalBinaryTo and UnmarshalBinaryFrom on a stream.
//
// Changes (Add, AddBatch, Merge, UnmarshalBinary, UnmarshalBinaryFrom) need exclusive use of the model, and
// so does the first read after a change, which computes the decomposition (Values,
// ExplainedVariance, VectorsTo, Transform). Once it is computed, reads — Transform and
// Map included, which keep their scratch to themselves — may run on several goroutines
// at once: a fitted model can project a stream from many. Distinct Models may be used
// concurrently, Models made by Empty included.
type Model struct {
	kern kernel.Kernel
	opts Options
	d    int // dimension of the points
	r    int // landmarks
	p    int // features r': the eigenpairs of K_LL kept

	// The feature map, fixed at New and shared (never written) by the models Empty
	// makes: φ(x) − c = Fᵀ·k(L, x) − c.
	land  *mat.Dense // r×d landmarks
	sigma []float64  // p eigenvalues of K_LL kept, descending
	f     []float64  // r×p, F = W·Σ^−½, row-major
	shift []float64  // p, c: the mean feature vector of the landmarks; zero if uncentred

	// The sums over the points, of the shifted features φ − c (docs/design.md, "Nyström
	// kernel PCA": shifting by an estimate of the mean before summing squares removes
	// most of the cancellation of C = Σφφᵀ − n·φ̄φ̄ᵀ).
	n   int
	sum vecSum // Σ(φ − c)
	sq  triSum // Σ(φ − c)(φ − c)ᵀ, upper triangle

	// The landmarks prepared for kernel blocks (docs/design.md, "Kernel blocks"): made
	// with the map and, like it, never changed afterwards, so that concurrent reads and
	// the models Empty makes share it (BlockTo does not write it). It refers to land,
	// which is never written either.
	cross *kernel.Cross
	// digest names the map (mapDigest), made with it and shared like it: the Sums of
	// the model's points carry it in the map's stead.
	digest [sha256.Size]byte

	// Scratch, allocated with the model so that Add and AddBatch allocate nothing of
	// their own and Bytes does not change as points come.
	col   []float64 // r: a kernel column
	phi   []float64 // p: a feature vector
	kblk  []float64 // blockRows×r: a kernel block
	fblk  []float64 // blockRows×p: its features
	xblk  []float64 // blockRows×d: rows of a matrix that is not a *mat.Dense
	outer []float64 // p×p: dsyrk's result
	csum  []float64 // p: a block's column sums
	kview mat.Dense // header over kblk, for BlockTo
	xview mat.Dense // header over a block of rows of X, or over xblk
	// AddBatch's scratch for kernel blocks, by pointer: a BlockWork must not be copied,
	// and decoding copies a Model.
	work  *kernel.BlockWork
	batch struct { // AddBatch's sums, merged once the whole batch is in
		sum vecSum
		sq  triSum
	}

	// The decomposition as read, valid while fresh: C's eigenvalues (descending), its
	// unit eigenvectors (p×p row-major, columns in the order of the values, signed),
	// the mean of the shifted features, s/n, and the map folded into the eigenvectors
	// for Transform: G = F·V and b = (c + s/n)ᵀV, so that the scores of x are
	// k(L, x)ᵀG − b (docs/design.md, "Nyström kernel PCA").
	fresh bool
	vals  []float64
	vecs  []float64
	cmat  []float64 // p×p: C, overwritten by its eigenvectors
	mean  []float64
	fold  []float64 // r×p: G
	base  []float64 // p: b
}

// Model is an ikpca.Incremental and an ikpca.Persistent.
var _ ikpca.Incremental = (*Model)(nil)
var _ ikpca.Persistent = (*Model)(nil)

// Centred reports whether the model centres the features (the default): its
// eigenvalues are then those of the centred Nyström-approximated kernel matrix CK̃C, and
// with Options.Uncentred those of K̃.
func (md *Model) Centred() bool { return !md.opts.Uncentred }

// New returns a model without points whose feature map comes from the rows of L (r ≥ 1
// landmarks of dimension d ≥ 1) and the kernel k: K_LL = W·Σ·Wᵀ by native.EigenSym,
// keeping the pairs with σⱼ > Tolerance·σ₁ (Options.Tolerance), each eigenvector's
// largest-magnitude entry made positive (package sign) so that the feature coordinates
// do not depend on the backend's choice of signs. It costs r² kernel values and one r×r
// symmetric eigendecomposition, O(r²·d + r³). Its points come by Add, AddBatch and
// Merge; the model's dimension is L's. opts.Landmarks must be zero or r, and the
// model's Options report r; opts.Strategy and opts.Seed are kept but not used (they
// are Choose's).
//
// A nil k, a kernel that fails kernel.Validate, impossible options, a nil L, an r×r
// kernel matrix of more than 2³⁰ numbers and landmarks whose kernel matrix is zero (no
// pair to keep) are errors wrapping ErrArgument; L without rows wraps ErrEmpty, and a
// non-finite coordinate or kernel value ErrNonFinite. L is copied.
func New(k kernel.Kernel, L mat.Matrix, opts Options) (*Model, error) {
	L, r, d, err := checkArgs(k, L, opts)
	if err != nil {
		return nil, err
	}
	// K_LL is r×r (docs/design.md, "Sizes").
	if _, err := kinds.Floats("the landmarks' kernel matrix", r, r); err != nil {
		return nil, err
	}
	if opts.Landmarks != 0 && opts.Landmarks != r {
		return nil, fmt.Errorf("%w: Options.Landmarks %d with %d landmarks given", ErrArgument, opts.Landmarks, r)
	}
	opts.Landmarks = r
	land := mat.DenseCopyOf(L)
	K := kernel.Matrix(k, land)
	raw := K.RawSymmetric()
	for i := range r {
		for j, v := range raw.Data[i*raw.Stride+i : i*raw.Stride+r] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: kernel value of landmarks %d and %d is %g", ErrNonFinite, i, i+j, v)
			}
		}
	}
	var W mat.Dense
	values, err := native.EigenSym(nil, &W, K)
	if err != nil {
		// Finite input: only a LAPACK failure, which dsyevd does not report on a finite
		// symmetric matrix in practice.
		return nil, kinds.Wrap(err, "the eigendecomposition of the landmarks' kernel matrix")
	}
	sigma, f := featureMap(values, &W, opts.cutoff(r))
	if len(sigma) == 0 {
		return nil, fmt.Errorf("%w: the landmarks' kernel matrix is zero (largest eigenvalue %g)", ErrArgument, values[r-1])
	}
	p := len(sigma)
	shift := make([]float64, p)
	if !opts.Uncentred {
		// c = the mean of φ(lᵢ) = Fᵀ·K_LL·eᵢ over the landmarks: K_LL·F (r×p), averaged.
		// An uncentred model sums φ itself (c = 0): Σφφᵀ is what it decomposes, and
		// without the subtraction of n·φ̄φ̄ᵀ there is no cancellation for a shift to
		// spare (docs/design.md, "Nyström kernel PCA").
		kf := make([]float64, r*p)
		full := mat.NewDense(r, r, nil)
		for i := range r {
			for j := i; j < r; j++ {
				v := raw.Data[i*raw.Stride+j]
				full.Set(i, j, v)
				full.Set(j, i, v)
			}
		}
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, full.RawMatrix(), general(r, p, f), 0, general(r, p, kf))
		for i := range r {
			for j, v := range kf[i*p : (i+1)*p] {
				shift[j] += v
			}
		}
		for j := range shift {
			shift[j] /= float64(r)
		}
	}
	md := &Model{kern: k, opts: opts, d: d, r: r, p: p, land: land, sigma: sigma, f: f, shift: shift}
	md.allocate()
	return md, nil
}

// featureMap keeps the eigenpairs of K_LL (values ascending, vectors in the columns of
// W) above cut·σ₁, in descending order, and returns their eigenvalues and F = W·Σ^−½
// (r×p, row-major), each column of W signed (package sign) first.
func featureMap(values []float64, W *mat.Dense, cut float64) (sigma, f []float64) {
	r := len(values)
	top := values[r-1]
	if !(top > 0) {
		return nil, nil
	}
	for j := r - 1; j >= 0 && values[j] > cut*top; j-- {
		sigma = append(sigma, values[j])
	}
	p := len(sigma)
	f = make([]float64, r*p)
	col := make([]float64, r)
	for q := range p {
		j := r - 1 - q
		for i := range r {
			col[i] = W.At(i, j)
		}
		s := sign.Of(col) / math.Sqrt(sigma[q])
		for i := range r {
			f[i*p+q] = s * col[i]
		}
	}
	return sigma, f
}

// allocate makes the sums and the scratch of a model whose map is set, and prepares the
// landmarks for kernel blocks unless md shares another model's preparation (Empty).
func (md *Model) allocate() {
	r, p, d := md.r, md.p, md.d
	if md.cross == nil {
		md.cross = kernel.NewCross(md.kern, md.land)
		md.digest = md.mapDigest()
	}
	md.work = new(kernel.BlockWork)
	md.sum, md.sq = newVecSum(p), newTriSum(p)
	md.batch.sum, md.batch.sq = newVecSum(p), newTriSum(p)
	md.col, md.phi, md.xblk = make([]float64, r), make([]float64, p), make([]float64, blockRows*d)
	md.kblk, md.fblk = make([]float64, blockRows*r), make([]float64, blockRows*p)
	md.outer, md.csum = make([]float64, p*p), make([]float64, p)
	md.vals, md.vecs, md.cmat, md.mean = make([]float64, p), make([]float64, p*p), make([]float64, p*p), make([]float64, p)
	md.fold, md.base = make([]float64, r*p), make([]float64, p)
	md.fresh = false
}

// Empty returns a model with md's kernel, options, landmarks and feature map, and no
// points: an accumulator for another shard of the data that Merge accepts. The
// landmarks, the map and the landmarks' preparation for kernel blocks are shared, not
// copied (none is ever written). Of a zero Model it returns a zero Model.
func (md *Model) Empty() *Model {
	if md.r == 0 {
		return &Model{} // a zero Model's accumulator is a zero Model
	}
	e := &Model{kern: md.kern, opts: md.opts, d: md.d, r: md.r, p: md.p, land: md.land, sigma: md.sigma, f: md.f, shift: md.shift, cross: md.cross, digest: md.digest}
	e.allocate()
	return e
}

// Reset forgets the points: md becomes the model Empty would return, with the same
// kernel, options, landmarks and feature map and no points, but in md's own storage,
// so that it allocates nothing. A model reused for one shard of data after another
// (a worker's partial model per bundle) resets rather than decode or copy its map
// again. Of a zero Model it does nothing.
func (md *Model) Reset() {
	if md.r == 0 {
		return
	}
	md.n = 0
	md.sum.zero()
	md.sq.zero()
	md.fresh = false
}

// errZero is the error of a method that needs the feature map, called on a zero Model:
// one made neither by New, Fit or Empty nor restored by UnmarshalBinary.
var errZero = fmt.Errorf("%w: a zero Model: make one with New or Fit, or restore one with UnmarshalBinary", ErrArgument)

// checkKernel reports a nil or invalid kernel (ErrArgument).
func checkKernel(k kernel.Kernel) error {
	return kinds.Kernel(kernel.Validate(k))
}

// checkArgs checks the arguments of Choose and New — the kernel (checkKernel), the
// options and the rows of X (kinds.Data) — and returns the matrix to read X from and its
// dimensions.
func checkArgs(k kernel.Kernel, X mat.Matrix, opts Options) (Y mat.Matrix, rows, d int, err error) {
	if err := checkKernel(k); err != nil {
		return nil, 0, 0, err
	}
	if err := opts.validate(); err != nil {
		return nil, 0, 0, err
	}
	return kinds.Data(X)
}

// general returns the r×c row-major matrix held in data.
func general(r, c int, data []float64) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: max(c, 1), Data: data[:r*c]}
}

// Len returns the number of points added (merged models' included).
func (md *Model) Len() int { return md.n }

// Dim returns the dimension of the points.
func (md *Model) Dim() int { return md.d }

// Features returns the dimension r' ≤ r of the feature map: the number of eigenpairs of
// the landmarks' kernel matrix above the tolerance.
func (md *Model) Features() int { return md.p }

// Kernel returns the model's kernel.
func (md *Model) Kernel() kernel.Kernel { return md.kern }

// Options returns the model's options (Landmarks is the number r of landmarks).
func (md *Model) Options() Options { return md.opts }

// Landmarks copies the landmarks into the rows of dst: an r×d dst is written in place,
// an empty one resized, and one of another shape replaced by a new matrix (the rule of
// VectorsTo). A zero Model has none, and leaves dst as it is, as does a nil dst.
func (md *Model) Landmarks(dst *mat.Dense) {
	if md.r == 0 || !check.Vectors(dst, md.r, md.d) {
		return
	}
	dst.Copy(md.land)
}

// Bytes returns the memory the model holds in its arrays, in bytes: the landmarks and
// the feature map (r·d + r·r' numbers), the compensated sums and AddBatch's (4·r'²),
// the decomposition as read (2·r'² and, folded into the map for Transform, r·r'), the
// scratch (a block of 64 points' coordinates,
// kernel values and features, and r'² for dsyrk) and, for an RBF kernel, what its
// kernel blocks keep (blockBytes): O(r² + r·d), independent of the number of points,
// and fixed at New.
func (md *Model) Bytes() int {
	n := md.r*md.d + len(md.sigma) + len(md.f) + len(md.shift) +
		2*(len(md.sum.hi)+len(md.sq.hi)+len(md.batch.sum.hi)+len(md.batch.sq.hi)) +
		len(md.col) + len(md.phi) + len(md.kblk) + len(md.fblk) + len(md.xblk) + len(md.outer) + len(md.csum) +
		len(md.vals) + len(md.vecs) + len(md.cmat) + len(md.mean) + len(md.fold) + len(md.base) + md.blockNumbers()
	return 8 * n
}

// blockNumbers returns how many numbers kernel blocks keep for the model: for an RBF
// kernel the Cross's shifted landmarks, their norms and the shift (r·d + r + d) and
// AddBatch's BlockWork, the shifted rows of a block and their norms (64·(d + 1))
// (docs/design.md, "Kernel blocks": the distance identity works on shifted points);
// none for the other kernels, whose blocks use the points as they are.
func (md *Model) blockNumbers() int {
	switch md.kern.(type) {
	case kernel.RBF, *kernel.RBF:
		return md.r*md.d + md.r + md.d + blockRows*(md.d+1)
	}
	return 0
}

// Add adds the point x (of dimension Dim()): its kernel column against the landmarks
// (r kernel values, O(r·d)), its features φ(x) − c = Fᵀk − c (one dgemv, 2·r·r'
// flops) and their compensated sums (r' entries of Σφ and r'(r'+1)/2 of Σφφᵀ, one
// product and one TwoSum each, about 3.5·r'² flops). It allocates nothing, below the
// size from which kernel.Column evaluates in parallel (r·(d + 32) ≥ 2¹⁷: about 3100
// landmarks at d = 10, 850 at d = 123), where its goroutines do. A point of
// the wrong dimension is an ErrDimension; a non-finite coordinate, a non-finite kernel
// value or features that would take a sum beyond 2¹⁰⁰⁰ an ErrNonFinite; the model is
// then unchanged.
//
// The kernel column is kernel.Column's, entry by entry, not a one-row kernel block:
// for one point a block saves nothing (its product is a dgemv's worth of work, less
// than the features' dgemv), and gonum's pure-Go dgemm would run a 1×r block on
// goroutines from r = 193, allocating (docs/design.md, "Kernel blocks").
func (md *Model) Add(x []float64) error {
	if md.r == 0 {
		return errZero
	}
	if err := kinds.Point(x, md.d); err != nil {
		return err
	}
	if md.n >= maxPoints {
		return fmt.Errorf("%w: the model holds %d points, the most it counts", ErrArgument, md.n)
	}
	kernel.Column(md.col, md.kern, md.land, x)
	if err := finiteKernel(md.col, 0); err != nil {
		return err
	}
	p := md.p
	native.Gemv(blas.Trans, 1, general(md.r, p, md.f), blas64.Vector{N: md.r, Inc: 1, Data: md.col},
		0, blas64.Vector{N: p, Inc: 1, Data: md.phi})
	for j, c := range md.shift {
		md.phi[j] -= c
	}
	for j, v := range md.phi {
		if !(md.sq.hi[j*p+j]+v*v <= sumLimit) {
			return fmt.Errorf("%w: feature %d of the point is %g: the sums would overflow", ErrNonFinite, j, v)
		}
	}
	md.sum.add(md.phi)
	md.sq.addOuter(md.phi)
	md.n++
	md.fresh = false
	return nil
}

// finiteKernel reports the first non-finite kernel value of a block of kernel columns
// (ErrNonFinite); first is the index of the block's first point, for the message.
func finiteKernel(k []float64, first int) error {
	for i, v := range k {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: kernel value %d of point %d is %g", ErrNonFinite, i, first, v)
		}
	}
	return nil
}

// AddBatch adds the rows of X, in blocks of 64: the kernel block of a block against the
// landmarks (kernel.Cross: for RBF, polynomial and linear kernels a dgemm, every value
// within the accuracy docs/design.md, "Kernel blocks", states), its features by one
// dgemm and their outer products by one dsyrk, summed plainly within the block and
// with compensation across blocks. Its scratch is the model's, so that it allocates
// nothing of its own once a block has passed (the BLAS and the parallel evaluation of
// large blocks may start goroutines, which allocate). It is all or nothing:
// the batch is summed apart and merged into the model only once every row is in, so
// that a bad row anywhere (the errors of Add, and a nil X, which wraps ErrArgument, or
// one without rows, which wraps ErrEmpty) leaves the model unchanged.
func (md *Model) AddBatch(X mat.Matrix) error {
	if md.r == 0 {
		return errZero
	}
	X, rows, err := kinds.Points(X, md.d)
	if err != nil {
		return err
	}
	if rows > maxPoints-md.n {
		return fmt.Errorf("%w: %d points on top of %d", ErrArgument, rows, md.n)
	}
	b := &md.batch
	b.sum.zero()
	b.sq.zero()
	p := md.p
	for from := 0; from < rows; from += blockRows {
		nb := min(blockRows, rows-from)
		if err := md.block(X, from, nb); err != nil {
			return err
		}
		native.Syrk(blas.Trans, 1, general(nb, p, md.fblk), 0, blas64.Symmetric{Uplo: blas.Upper, N: p, Stride: p, Data: md.outer})
		clear(md.csum)
		for i := range nb {
			for j, v := range md.fblk[i*p : (i+1)*p] {
				md.csum[j] += v
			}
		}
		b.sum.add(md.csum)
		b.sq.addUpper(md.outer)
	}
	for j := range p {
		if v := b.sq.hi[j*p+j]; !(md.sq.hi[j*p+j]+v <= sumLimit) {
			return fmt.Errorf("%w: the batch's squared feature %d sums to %g: the sums would overflow", ErrNonFinite, j, v)
		}
	}
	md.sum.merge(b.sum)
	md.sq.merge(b.sq)
	md.n += rows
	md.fresh = false
	return nil
}

// block sets the first nb rows of md.fblk to the shifted features φ − c of rows from to
// from+nb of X (a checked matrix of points) — their kernel block against the landmarks
// by the model's Cross into md.kblk (docs/design.md, "Kernel blocks"), then one dgemm —
// and reports a non-finite kernel value (ErrNonFinite; from numbers the points in the
// message). It works on the model's scratch: AddBatch's.
func (md *Model) block(X mat.Matrix, from, nb int) error {
	xb := rowBlock(&md.xview, md.xblk, X, from, nb, md.d)
	md.kview.SetRawMatrix(general(nb, md.r, md.kblk))
	md.cross.BlockTo(&md.kview, xb, md.work)
	kb := md.kblk[:nb*md.r]
	if err := finiteKernel(kb, from); err != nil {
		return err
	}
	md.features(md.fblk, kb, nb)
	return nil
}

// features sets the first nb rows of fblk (p columns, row-major) to the shifted
// features φ − c = Fᵀk − c of the nb kernel columns in the rows of kb (r columns), by
// one dgemm.
func (md *Model) features(fblk, kb []float64, nb int) {
	r, p := md.r, md.p
	native.Gemm(blas.NoTrans, blas.NoTrans, 1, general(nb, r, kb), general(r, p, md.f), 0, general(nb, p, fblk))
	for i := range nb {
		row := fblk[i*p : (i+1)*p]
		for j, c := range md.shift {
			row[j] -= c
		}
	}
}

// rowBlock returns rows from to from+nb of X (d columns) as a *mat.Dense in the header
// view: a view of X's storage when X is a *mat.Dense, otherwise a copy in buf (at least
// nb·d numbers). It allocates nothing.
func rowBlock(view *mat.Dense, buf []float64, X mat.Matrix, from, nb, d int) *mat.Dense {
	if x, ok := X.(*mat.Dense); ok {
		raw := x.RawMatrix()
		view.SetRawMatrix(blas64.General{Rows: nb, Cols: d, Stride: raw.Stride,
			Data: raw.Data[from*raw.Stride : (from+nb-1)*raw.Stride+d]})
		return view
	}
	for i := range nb {
		mat.Row(buf[i*d:(i+1)*d], from+i, X)
	}
	view.SetRawMatrix(general(nb, d, buf))
	return view
}

// Merge adds the sums of o, a model made with the same landmarks, kernel, tolerance,
// centring and feature map — one made by md.Empty(), by New with the same landmarks and
// options in the same process, or decoded from either — so that md then summarises the
// points of both. o is unchanged. Merging is associative and commutative up to rounding
// (docs/design.md, "Nyström kernel PCA": two merge orders differ by at most
// 4ε|S| + 2(64ε + 2Nε²)·Σ|terms| per entry of a sum of N terms). A nil o, o == md, or a
// model with other landmarks (compared bit for bit), another kernel (its Spec), another
// tolerance or centring, or another feature map (bit for bit: the eigendecomposition of another machine's BLAS may
// differ in the last bits) is an ErrArgument; sums that would overflow an
// ErrNonFinite; either leaves md unchanged.
func (md *Model) Merge(o *Model) error {
	if o == nil {
		return fmt.Errorf("%w: nil model", ErrArgument)
	}
	if o == md {
		return fmt.Errorf("%w: merging a model with itself", ErrArgument)
	}
	if md.r == 0 || o.r == 0 {
		return errZero
	}
	if err := md.compatible(o); err != nil {
		return err
	}
	return md.addSums(o.n, o.sum, o.sq)
}

// addSums adds the sums of n points (Merge, AddSums), unless the count or a diagonal
// sum would go beyond its bound (mergeable).
func (md *Model) addSums(n int, sum vecSum, sq triSum) error {
	if err := mergeable(md.n, md.sq, n, sq); err != nil {
		return err
	}
	md.sum.merge(sum)
	md.sq.merge(sq)
	md.n += n
	md.fresh = false
	return nil
}

// compatible reports why o's sums cannot be added to md's (ErrArgument), or nil.
func (md *Model) compatible(o *Model) error {
	switch {
	case o.d != md.d || o.r != md.r || o.p != md.p:
		return fmt.Errorf("%w: merging models of %d landmarks of dimension %d with %d features and %d of dimension %d with %d",
			ErrArgument, md.r, md.d, md.p, o.r, o.d, o.p)
	case !sameKernel(md.kern, o.kern):
		return fmt.Errorf("%w: merging models of different kernels", ErrArgument)
	case md.opts.Tolerance != o.opts.Tolerance:
		return fmt.Errorf("%w: merging models of tolerances %g and %g", ErrArgument, md.opts.Tolerance, o.opts.Tolerance)
	case md.opts.Uncentred != o.opts.Uncentred:
		return fmt.Errorf("%w: merging a centred model with an uncentred one", ErrArgument)
	case !vec.SameBits(md.land.RawMatrix().Data, o.land.RawMatrix().Data):
		return fmt.Errorf("%w: merging models of different landmarks", ErrArgument)
	case !vec.SameBits(md.f, o.f) || !vec.SameBits(md.shift, o.shift) || !vec.SameBits(md.sigma, o.sigma):
		return fmt.Errorf("%w: merging models of different feature maps (the same landmarks decomposed by another BLAS?): make one from the other with Empty or an encoding", ErrArgument)
	}
	return nil
}

// sameKernel reports whether a and b are the same kernel: the same Spec if both
// describe themselves, equal values of one comparable type otherwise.
func sameKernel(a, b kernel.Kernel) bool {
	sa, okA := a.(kernel.Specified)
	sb, okB := b.(kernel.Specified)
	if okA && okB {
		return sa.Spec() == sb.Spec()
	}
	if okA || okB {
		return false
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}
