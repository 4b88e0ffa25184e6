package update

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// Sym is the eigendecomposition A = U·diag(λ)·Uᵀ of a real symmetric n×n matrix, with
// the eigenvalues λ in ascending order and the eigenvectors as the columns of U. The
// zero value is an empty (0×0) decomposition, ready to use: Border grows it, Factorize
// and SetEigen start it from a matrix or a known decomposition. NewSym and
// NewSymFromEigen (from a gonum *mat.EigenSym) return one started from eigenpairs.
//
// Every update is transactional: when it returns an error (bad input, non-convergence)
// the decomposition is exactly as it was before the call. Storage is double-buffered
// and grows geometrically, so that a sequence of updates allocates nothing once the
// capacity suffices (see Reserve).
//
// A Sym must not be used by several goroutines at once; distinct Syms are independent
// and may be updated concurrently.
type Sym struct {
	n      int
	values []float64 // len n
	u      []float64 // n×n, row-major, stride n: the current eigenvectors (columns)
	spare  []float64 // the other buffer: the next U is written here, then swapped
	capN   int       // order u, values and the scratch can hold without growing
	// updateCap is the order the update workspaces (spare, tr, solver) were sized for.
	updateCap int

	z      []float64 // Uᵀv or Uᵀa
	row    []float64 // scratch for SetEigen
	order  []int     // scratch for SetEigen
	tr     transform // the change of basis of the last update
	solver secular.Solver
	stats  Stats
}

// Stats describes the last operation on a Sym.
type Stats struct {
	// Op names the operation, after the method: "factorize", "set" (SetEigen and the
	// constructors), "rank-one", "border" or "remove" for a Sym; "set" (SetEigen, the
	// constructors and Reset), "rank-one", "border", "border-block", "remove",
	// "remove-keep-rank" or "grow" for a Thin.
	Op string
	// Stats are the secular solver's statistics (zero for factorize and set).
	secular.Stats
	// Removed is, for Remove, the largest entry of the row deleted from the new
	// eigenvectors: zero in exact arithmetic, of the order of n·ε computed.
	Removed float64
	// Dropped describes the eigenpairs a Thin's update discarded (its Truncation, and
	// in RemoveKeepRank the negligible ones); always zero for a Sym.
	Dropped Dropped
	// Neglected is, for a Thin's BorderBlock, a bound on the norm of the part of the
	// border left out with the directions below its rank threshold: the update
	// represents the bordered matrix to within it. Zero otherwise.
	Neglected float64
	// Project, Solve and Assemble are the wall-clock times of an update's three phases:
	// the projection Uᵀv (one gemv), the secular solve (O(n²), on several goroutines)
	// and the assembly of the new vectors (one dgemm, plus a pass over U when
	// components deflated). Zero for factorize and set.
	Project, Solve, Assemble time.Duration
}

// Options tune the secular solver of a Sym.
type Options struct {
	// Workers bounds the goroutines used for the O(n²) phases; zero means GOMAXPROCS.
	Workers int
	// Serial is the secular size below which the solver stays on one goroutine; zero
	// means the solver's default.
	Serial int
	// MaxIterations caps the root finder's iterations per root; zero means 30.
	MaxIterations int
}

// SetOptions sets the solver options for subsequent updates. Options that are negative
// are an error wrapping ErrArgument (see Options.Validate), and leave s unchanged.
func (s *Sym) SetOptions(o Options) error { return o.apply(&s.solver) }

// Len returns the order n of the matrix.
func (s *Sym) Len() int { return s.n }

// Stats returns statistics of the last successful operation.
func (s *Sym) Stats() Stats { return s.stats }

// Values returns the eigenvalues in ascending order. If dst is nil a new slice is
// allocated; otherwise dst must have length Len() and receives the values (like gonum's
// EigenSym.Values, Values panics on a length mismatch).
func (s *Sym) Values(dst []float64) []float64 { return valuesTo(dst, s.values[:s.n]) }

// VectorsTo stores the eigenvectors in the columns of dst, in the order of Values. If
// dst is empty it is resized to n×n (an empty decomposition leaves it empty);
// otherwise it must be n×n (like gonum's EigenSym.VectorsTo, it panics otherwise, and
// on a nil dst).
func (s *Sym) VectorsTo(dst *mat.Dense) { vectorsTo(dst, s.u, 0, s.n, s.n, s.n) }

// Vectors returns a read-only view of the eigenvectors (the columns of U, in the order
// of Values). It shares storage with s and is valid only until the next update; copy it
// (VectorsTo) to keep it.
func (s *Sym) Vectors() mat.Matrix {
	if s.n == 0 {
		return &mat.Dense{}
	}
	return mat.NewDense(s.n, s.n, s.u[:s.n*s.n])
}

// Reserve makes room for matrices up to order n — the eigenvectors, the second buffer
// the next ones are written to and the secular solver's n×n table — so that updates up
// to that size do not allocate. It never shrinks the storage. A negative n, or one
// beyond the arrays the package allocates (fits), reserves nothing.
func (s *Sym) Reserve(n int) {
	if n == math.MaxInt || !fits(n+1, n+1) {
		return
	}
	s.reserveState(n)
	s.reserveUpdate()
}

// reserveState makes room for a decomposition of order n (eigenvectors, eigenvalues and
// O(n) scratch) but not for the update workspaces (reserveUpdate), which only updates
// need: a Sym that holds a copy (a backup) is never given them.
func (s *Sym) reserveState(n int) {
	if n <= s.capN {
		return
	}
	u := make([]float64, n*n)
	copy(u, s.u[:s.n*s.n])
	s.u = u
	s.spare = nil // too small now; reserveBuffer allocates it when it is needed
	values := make([]float64, n)
	copy(values, s.values[:s.n])
	s.values = values
	s.z = make([]float64, n)
	s.row = make([]float64, 3*n)
	s.order = make([]int, n)
	s.capN = n
}

// reserveBuffer gives the second buffer the capacity of the first.
func (s *Sym) reserveBuffer() {
	if need := s.capN * s.capN; len(s.spare) < need {
		s.spare = make([]float64, need)
	}
}

// reserveUpdate sizes the workspaces of an update for the capacity of the state: the
// second buffer, the change of basis and the secular solver, whose K×K table of the
// secular eigenvectors is the third n×n array of an update.
func (s *Sym) reserveUpdate() {
	if s.updateCap < s.capN {
		s.reserveBuffer()
		s.tr.reserve(s.capN)
		s.solver.Reserve(s.capN)
		s.updateCap = s.capN
	}
}

// grow ensures room for an update to order n, growing by a factor of 1.25 at least:
// amortised O(n²) copying per step is negligible next to an O(n³) update, and a modest
// factor keeps the double buffer close to the 2·n² floats it needs.
func (s *Sym) grow(n int) {
	s.growState(n)
	s.reserveUpdate()
}

// growState is grow without the update workspaces.
func (s *Sym) growState(n int) {
	if n > s.capN {
		s.reserveState(max(n, s.capN+s.capN/4, 16))
	}
}

// CopyFrom makes s a copy of src (values, vectors and options). It allocates only if s
// lacks the capacity, and then only for the copy: the second buffer that updates write
// into is allocated by the first update of s, so that a Sym used only to save and
// restore a state (a backup) holds one n×n matrix, not two. A nil src is the zero
// value: s becomes the empty decomposition.
func (s *Sym) CopyFrom(src *Sym) {
	if s == src {
		return
	}
	if src == nil {
		src = &Sym{}
	}
	s.growState(src.n)
	s.n = src.n
	copy(s.values, src.values[:src.n])
	copy(s.u, src.u[:src.n*src.n])
	s.solver.Workers = src.solver.Workers
	s.solver.Serial = src.solver.Serial
	s.solver.MaxIterations = src.solver.MaxIterations
	s.stats = src.stats
}

// Factorize starts the decomposition from the symmetric matrix a, with a batch
// eigensolver (LAPACK dsyevd with -tags openblas, gonum's Dsyev otherwise; see
// native.EigenSymInPlace). A nil a, or one of a caller's own types that lies about its
// size or panics when read (readSymmetric), is an error wrapping ErrArgument. On error s
// is unchanged.
func (s *Sym) Factorize(a mat.Symmetric) error {
	if check.IsNil(a) {
		return fmt.Errorf("%w: Factorize: nil matrix", ErrArgument)
	}
	a, n, err := readSymmetric(a)
	if err != nil {
		return kinds.Wrap(err, "Factorize")
	}
	s.growState(n)
	s.reserveBuffer()
	buf := s.spare[:n*n]
	if sd, ok := a.(mat.RawSymmetricer); ok && sd.RawSymmetric().Uplo == blas.Upper {
		raw := sd.RawSymmetric()
		for i := range n {
			copy(buf[i*n+i:i*n+n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
		}
	} else {
		for i := range n {
			for j := i; j < n; j++ {
				buf[i*n+j] = a.At(i, j)
			}
		}
	}
	w := s.z[:n]
	if err := native.EigenSymInPlace(n, buf, n, w, true); err != nil {
		return kinds.Wrap(err, "Factorize")
	}
	s.u, s.spare = s.spare, s.u
	copy(s.values, w)
	s.n = n
	s.stats = Stats{Op: "factorize", Stats: secular.Stats{Size: n}}
	return nil
}

// NewSym returns the decomposition with the given eigenvalues and orthonormal
// eigenvectors (the columns of vectors, n×n), as SetEigen does on a new Sym. The pairs
// may come in any order: they are sorted.
func NewSym(values []float64, vectors mat.Matrix) (*Sym, error) {
	s := new(Sym)
	if err := s.SetEigen(values, vectors); err != nil {
		return nil, err
	}
	return s, nil
}

// NewSymFromEigen returns the decomposition held by e, a gonum eigendecomposition
// factorized with its vectors (e.Factorize(a, true)): its values and vectors are copied,
// and e is left as it was. An e that is nil, not factorized (or whose factorization
// failed) or factorized without vectors is an error wrapping ErrArgument.
func NewSymFromEigen(e *mat.EigenSym) (*Sym, error) {
	if e == nil {
		return nil, fmt.Errorf("%w: NewSymFromEigen: nil EigenSym", ErrArgument)
	}
	// RawValues and RawQ report a missing factorization or missing vectors as nil, where
	// Values and VectorsTo panic; neither copies.
	values := e.RawValues()
	if values == nil {
		return nil, fmt.Errorf("%w: NewSymFromEigen: the EigenSym holds no factorization", ErrArgument)
	}
	vectors := e.RawQ()
	if vectors == nil {
		return nil, fmt.Errorf("%w: NewSymFromEigen: the EigenSym was factorized without vectors", ErrArgument)
	}
	return NewSym(values, vectors)
}

// SetEigen starts the decomposition from known eigenvalues and orthonormal eigenvectors
// (the columns of vectors, n×n), in any order: they are sorted and copied. The
// orthonormality of the vectors, sorted as they will be stored, is checked with a random
// probe in O(n²) — so that the verdict does not depend on the order the pairs come in —
// and the call fails with ErrNotOrthogonal if it is off by more than 1e-8. A nil vectors
// is an error wrapping ErrArgument (an empty decomposition takes an empty matrix:
// &mat.Dense{}), vectors of another size one wrapping ErrDimension and a NaN or
// infinite value or entry one wrapping ErrNonFinite. On error s is unchanged.
func (s *Sym) SetEigen(values []float64, vectors mat.Matrix) error {
	n := len(values)
	vectors, _, err := eigenPairs(values, vectors, func(r, c int) bool { return r == n && c == n }, "n×n")
	if err != nil {
		return err
	}
	// The vectors are sorted into the second buffer and probed there, as they will be
	// stored (sortedOrthogonality); the buffer, the order and the scratch are not state.
	s.growState(n)
	s.reserveBuffer()
	perm := s.order[:n]
	ascending(perm, values)
	if n > 0 {
		scratch := s.growScratch(n)
		x, y, r := scratch[:n], scratch[n:2*n], scratch[2*n:]
		if dev := sortedOrthogonality(vectors, perm, s.spare, x, y, r); dev > 1e-8 {
			return fmt.Errorf("%w: ‖VᵀV·x − x‖/‖x‖ = %.3g for a probe x", ErrNotOrthogonal, dev)
		}
	}
	permuteValues(s.values, values, perm)
	s.u, s.spare = s.spare, s.u
	s.n = n
	s.stats = Stats{Op: "set", Stats: secular.Stats{Size: n}}
	return nil
}

// growScratch returns three scratch vectors of length n (SetEigen's probe) without
// touching the state.
func (s *Sym) growScratch(n int) []float64 {
	if len(s.row) >= 3*n {
		return s.row[:3*n]
	}
	return make([]float64, 3*n)
}

func finite(name string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] = %g", ErrNonFinite, name, i, v)
		}
	}
	return nil
}

// readSymmetric returns the symmetric matrix a as the package reads it, and its order:
// one of gonum's own types as it is, a caller's own type read once through Dims and At
// (check.Kinds.Matrix: a negative or absurd size, one that changes while it is read, or
// a panic is an ErrArgument error), its upper triangle kept, as the package reads
// a's. A type whose Dims are not square is an ErrDimension error. An order of zero
// gives a nil matrix, which nothing reads.
func readSymmetric(a mat.Symmetric) (mat.Symmetric, int, error) {
	m, r, c, err := kinds.Matrix(a)
	switch {
	case err != nil:
		return nil, 0, err
	case r != c:
		return nil, 0, fmt.Errorf("%w: a symmetric matrix of %d×%d", ErrDimension, r, c)
	case r == 0:
		return nil, 0, nil
	}
	if sym, ok := m.(mat.Symmetric); ok && sym.SymmetricDim() == r {
		return sym, r, nil // gonum's own
	}
	d, ok := m.(*mat.Dense) // the copy, r×r and contiguous: its upper triangle is a's
	if !ok {
		return nil, 0, fmt.Errorf("%w: a symmetric matrix (%T) whose order is not its size", ErrArgument, a)
	}
	return mat.NewSymDense(r, d.RawMatrix().Data), r, nil
}

// eigenPairs checks the pairs SetEigen is given: vectors not nil, read once (a caller's
// own type: check.Kinds.Matrix), of r rows and a shape fits accepts (want says which, in
// the error), their values and entries finite. It returns the vectors read and r.
func eigenPairs(values []float64, vectors mat.Matrix, fits func(r, c int) bool, want string) (mat.Matrix, int, error) {
	if check.IsNil(vectors) {
		return nil, 0, fmt.Errorf("%w: SetEigen: nil vectors", ErrArgument)
	}
	vectors, r, c, err := kinds.Matrix(vectors)
	if err != nil {
		return nil, 0, err
	}
	if !fits(r, c) {
		return nil, 0, fmt.Errorf("%w: %d values but %d×%d vectors (want %s)", ErrDimension, len(values), r, c, want)
	}
	if err := finitePairs(values, vectors); err != nil {
		return nil, 0, err
	}
	return vectors, r, nil
}

// finitePairs reports a non-finite value or entry of vectors (n×len(values), checked by
// the caller), naming the row and column of a bad entry.
func finitePairs(values []float64, vectors mat.Matrix) error {
	if err := finite("values", values); err != nil {
		return err
	}
	return finiteMatrix("vectors", vectors)
}

// finiteMatrix reports a NaN or infinite entry of m, naming it name: from the raw rows
// of a mat.RawMatrixer, through At otherwise.
func finiteMatrix(name string, m mat.Matrix) error {
	r, c := m.Dims()
	if raw, ok := m.(mat.RawMatrixer); ok {
		d := raw.RawMatrix()
		for i := range r {
			for j, v := range d.Data[i*d.Stride : i*d.Stride+c] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: %s[%d, %d] = %g", ErrNonFinite, name, i, j, v)
				}
			}
		}
		return nil
	}
	for i := range r {
		for j := range c {
			if v := m.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: %s[%d, %d] = %g", ErrNonFinite, name, i, j, v)
			}
		}
	}
	return nil
}
