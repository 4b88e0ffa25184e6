package sketch

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/native"
)

// Options configure a Frequent Directions sketch.
type Options struct {
	// Buffer is the number of rows the sketch holds between two compressions, ℓ+1 ≤
	// Buffer. Zero means 2ℓ, the fast variant of Ghashami et al. (Algorithm 3.1): one
	// SVD per ℓ rows, O(dℓ) amortised time per row. ℓ+1 is Liberty's original, one SVD
	// per row. Larger buffers trade memory for fewer SVDs; the guarantee is the same.
	Buffer int
}

// FD is a Frequent Directions sketch of a stream of d-dimensional rows. The zero value
// is not usable; call New. An FD is not safe for concurrent use.
//
// Rows fill a buffer; when it is full, the buffer B is replaced by its compression:
// with B = UΣVᵀ and δ = σ²_{ℓ+1} (the (ℓ+1)-th largest squared singular value), B ←
// diag(√max(σᵢ² − δ, 0))·Vᵀ, which has at most ℓ non-zero rows. Each compression
// lowers BᵀB by at most δ in every direction (so ‖AᵀA − BᵀB‖₂ ≤ Δ = Σδ) and removes
// at least (ℓ+1)·δ of ‖B‖_F² (so Δ ≤ (‖A‖_F² − ‖B‖_F²)/(ℓ+1)).
type FD struct {
	ell, d, buf int
	b           []float64 // buf×d row-major; rows [0, rows) in use
	rows        int       // rows in use
	settled     bool      // b holds ΣVᵀ with sigma2 its squared singular values
	sigma2      []float64 // squared singular values of the settled rows, descending
	shrink      float64   // Δ = Σδ
	frob2       float64   // ‖A‖_F²
	n           int       // rows seen
	a           []float64 // buf×d: the SVD's copy of the buffer (LAPACK overwrites it)
	vt          []float64 // min(buf, d)×d: the right singular vectors
	s, work     []float64 // SVD workspace
}

// New returns an empty sketch of ℓ ≥ 1 rows for d-dimensional rows. Sizes out of range,
// or a buffer (buffer×d) of more than 2³⁰ numbers (8 GiB), are an ErrArgument.
func New(ell, d int, opts Options) (*FD, error) {
	if ell < 1 || d < 1 {
		return nil, fmt.Errorf("%w: ℓ = %d and d = %d, want both ≥ 1", kinds.Argument, ell, d)
	}
	if ell >= check.MaxFloats {
		return nil, fmt.Errorf("%w: ℓ = %d rows: the buffer would hold more than %d numbers", kinds.Argument, ell, check.MaxFloats)
	}
	buf := opts.Buffer
	if buf == 0 {
		buf = 2 * ell // no overflow: ℓ < 2³⁰
	}
	if buf < ell+1 {
		return nil, fmt.Errorf("%w: buffer %d rows, want at least ℓ+1 = %d", kinds.Argument, buf, ell+1)
	}
	if _, err := kinds.Floats("the buffer", buf, d); err != nil {
		return nil, err
	}
	f := &FD{ell: ell, d: d, buf: buf, b: make([]float64, buf*d), a: make([]float64, buf*d),
		vt: make([]float64, min(buf, d)*d), settled: true,
		sigma2: make([]float64, 0, min(buf, d)), s: make([]float64, min(buf, d))}
	// Workspace query for the largest shape; smaller ones need no more. At least
	// LAPACK's documented minimum, max(3·min(m, n) + max(m, n), 5·min(m, n)), so that the
	// workspace also suits gonum's Dgesvd when a test runs it in an openblas build.
	var q [1]float64
	native.Gesvd(lapack.SVDNone, lapack.SVDStore, f.general(buf), blas64.General{Stride: 1},
		f.vtGeneral(min(buf, d)), f.s, q[:], -1)
	f.work = make([]float64, max(int(q[0]), 3*min(buf, d)+max(buf, d), 5*min(buf, d)))
	return f, nil
}

// general returns the first r rows of the SVD's copy of the buffer as a matrix.
func (f *FD) general(r int) blas64.General {
	return blas64.General{Rows: r, Cols: f.d, Stride: f.d, Data: f.a[:r*f.d]}
}

// vtGeneral returns the first k rows of the right singular vectors' storage.
func (f *FD) vtGeneral(k int) blas64.General {
	return blas64.General{Rows: k, Cols: f.d, Stride: f.d, Data: f.vt[:k*f.d]}
}

// Ell returns ℓ, the largest number of rows of the sketch.
func (f *FD) Ell() int { return f.ell }

// Dim returns the dimension d of the rows.
func (f *FD) Dim() int { return f.d }

// Count returns the number of rows seen (merged sketches included).
func (f *FD) Count() int { return f.n }

// Frobenius2 returns ‖A‖_F², the squared Frobenius norm of the rows seen.
func (f *FD) Frobenius2() float64 { return f.frob2 }

// ErrorBound returns Δ, the total shrinkage so far: ‖AᵀA − BᵀB‖₂ ≤ Δ for the sketch B
// that Sketch returns, and Δ ≤ ‖A‖_F²/(ℓ+1). Reading the sketch may compress it and
// raise Δ; read ErrorBound after Sketch, Values or VectorsTo.
func (f *FD) ErrorBound() float64 { return f.shrink }

// Bytes returns the memory the sketch holds, in bytes: about 3·buffer·d float64s (the
// buffer, the SVD's copy of it and its right singular vectors, kept apart so that a
// failed SVD leaves the sketch intact) plus the SVD's workspace — independent of the
// number of rows seen.
func (f *FD) Bytes() int {
	return 8 * (len(f.b) + len(f.a) + len(f.vt) + cap(f.sigma2) + len(f.s) + len(f.work))
}

// Reset empties the sketch, keeping its storage.
func (f *FD) Reset() {
	clear(f.b)
	f.rows, f.settled, f.sigma2 = 0, true, f.sigma2[:0]
	f.shrink, f.frob2, f.n = 0, 0, 0
}

// Update adds one row. A row of the wrong length or with a non-finite entry is an error
// and leaves the sketch unchanged. Update does not allocate itself; the SVD of a
// compression (every buffer−ℓ rows) allocates only what the compiled-in BLAS does
// inside it (gonum's parallel dgemm a few objects per call at large sizes, OpenBLAS
// nothing).
func (f *FD) Update(row []float64) error {
	if err := f.ready(); err != nil {
		return err
	}
	if len(row) != f.d {
		return fmt.Errorf("%w: row has length %d, want %d", kinds.Dimension, len(row), f.d)
	}
	var s2 float64
	for j, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: entry %d of the row is %v", kinds.NonFinite, j, v)
		}
		s2 += v * v
	}
	if math.IsInf(s2, 0) {
		return fmt.Errorf("%w: the row's squared norm overflows", kinds.NonFinite)
	}
	if f.rows == f.buf {
		if err := f.compress(); err != nil {
			return err
		}
	}
	copy(f.b[f.rows*f.d:], row)
	f.rows++
	f.settled = false
	f.frob2 += s2 // a sum of finite squares; ‖A‖_F² may reach +Inf only after ~1e308
	f.n++
	return nil
}

// UpdateRows adds the rows of a, in order. All rows are checked first: if one is bad,
// none is added. A failure of the SVD mid-way (which LAPACK does not report for finite
// input in practice) is returned with the number of rows added.
func (f *FD) UpdateRows(a mat.Matrix) error {
	if err := f.ready(); err != nil {
		return err
	}
	a, r, c, err := kinds.Matrix(a)
	if err != nil {
		return err
	}
	if c != f.d {
		return fmt.Errorf("%w: rows have length %d, want %d", kinds.Dimension, c, f.d)
	}
	for i := range r {
		for j := range c {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: row %d, entry %d is %v", kinds.NonFinite, i, j, v)
			}
		}
	}
	row := make([]float64, c)
	for i := range r {
		mat.Row(row, i, a)
		if err := f.Update(row); err != nil {
			return fmt.Errorf("sketch: after %d of %d rows: %w", i, r, err)
		}
	}
	return nil
}

// Merge adds the rows of the sketch g (of the same dimension and ℓ) to f, so that f
// sketches the union of both streams with ‖AᵀA − BᵀB‖₂ ≤ Δ_f + Δ_g + (new
// shrinkage) ≤ ‖A‖_F²/(ℓ+1) (Agarwal et al. 2013, mergeable summaries). g is unchanged.
func (f *FD) Merge(g *FD) error {
	if err := f.ready(); err != nil {
		return err
	}
	if g == nil || g.d != f.d || g.ell != f.ell {
		return fmt.Errorf("%w: merging sketches of different ℓ or dimension", kinds.Argument)
	}
	if g == f {
		return fmt.Errorf("%w: merging a sketch with itself", kinds.Argument)
	}
	for i := range g.rows {
		if f.rows == f.buf {
			if err := f.compress(); err != nil {
				return err
			}
		}
		copy(f.b[f.rows*f.d:(f.rows+1)*f.d], g.b[i*g.d:(i+1)*g.d])
		f.rows++
		f.settled = false
	}
	f.shrink += g.shrink
	f.frob2 += g.frob2
	f.n += g.n
	return nil
}

// compress replaces the buffer by its compression: the right singular vectors scaled
// by √max(σᵢ² − δ, 0), δ = σ²_{ℓ+1} (zero if there are at most ℓ singular values).
func (f *FD) compress() error {
	if f.settled && f.rows <= f.ell {
		return nil
	}
	r := f.rows
	k := min(r, f.d)
	// The SVD runs on a copy into separate storage for Vᵀ (LAPACK dgesvd, JOBU = 'N',
	// JOBVT = 'S'), so that a failure leaves the sketch as it was.
	copy(f.a[:r*f.d], f.b[:r*f.d])
	if !native.Gesvd(lapack.SVDNone, lapack.SVDStore, f.general(r), blas64.General{Stride: 1},
		f.vtGeneral(k), f.s[:k], f.work, len(f.work)) {
		return fmt.Errorf("%w: the SVD of the %d×%d buffer (dgesvd)", kinds.NotConverged, r, f.d)
	}
	var delta float64
	if k > f.ell {
		delta = f.s[f.ell] * f.s[f.ell]
	}
	f.sigma2 = f.sigma2[:0]
	kept := 0
	for i := range k {
		v := f.s[i]*f.s[i] - delta
		if !(v > 0) {
			break
		}
		row, vt := f.b[i*f.d:(i+1)*f.d], f.vt[i*f.d:(i+1)*f.d]
		c := math.Sqrt(v)
		for j := range row {
			row[j] = c * vt[j]
		}
		f.sigma2 = append(f.sigma2, v)
		kept++
	}
	clear(f.b[kept*f.d : r*f.d])
	f.rows = kept
	f.shrink += delta
	f.settled = true
	return nil
}

// Sketch returns the sketch B, at most ℓ non-zero rows of the form diag(σ)·Vᵀ with
// orthonormal rows of V and σ descending, as an ℓ×d matrix (zero rows at the end).
// It compresses the buffer if it holds more than ℓ rows (raising ErrorBound) or has not
// been rotated yet. dst is reused if it is ℓ×d, allocated if empty; any other shape is
// an error, and so is a zero FD (ErrArgument: it has no size to give).
func (f *FD) Sketch(dst *mat.Dense) error {
	if err := f.ready(); err != nil {
		return err
	}
	if err := kinds.Dst(dst, f.ell, f.d); err != nil {
		return err
	}
	check.Reuse(dst, f.ell, f.d)
	if err := f.compress(); err != nil {
		return err
	}
	dst.Zero()
	for i := range f.rows {
		dst.SetRow(i, f.b[i*f.d:(i+1)*f.d])
	}
	return nil
}

// Values returns the non-zero eigenvalues of BᵀB (the squared singular values of the
// sketch, at most ℓ, descending), which estimate the top eigenvalues of AᵀA from
// below: λᵢ(AᵀA) − Δ ≤ λᵢ(BᵀB) ≤ λᵢ(AᵀA). dst is used if it has enough capacity.
// Like Sketch, it compresses the buffer (raising ErrorBound when it holds more than ℓ
// rows), and later Adds, Merges and MarshalBinary start from the compressed sketch: a
// sketch read as it grows holds the guarantee with the ErrorBound it reports, but not
// the bits of one read only at the end.
func (f *FD) Values(dst []float64) ([]float64, error) {
	if err := f.ready(); err != nil {
		return nil, err
	}
	if err := f.compress(); err != nil {
		return nil, err
	}
	return append(dst[:0], f.sigma2...), nil
}

// VectorsTo writes the right singular vectors of the sketch (the approximate top
// eigenvectors of AᵀA) as the columns of dst, d×k with k = len(Values) ≤ ℓ. dst is
// reused if it is d×k and allocated if empty.
func (f *FD) VectorsTo(dst *mat.Dense) error {
	if err := f.ready(); err != nil {
		return err
	}
	if dst == nil {
		return fmt.Errorf("%w: nil destination", kinds.Argument)
	}
	if err := f.compress(); err != nil {
		return err
	}
	k := f.rows
	if dst.IsEmpty() {
		if k == 0 {
			return fmt.Errorf("%w: no directions yet", kinds.Empty)
		}
		dst.ReuseAs(f.d, k)
	} else if r, c := dst.Dims(); r != f.d || c != k {
		return fmt.Errorf("%w: destination is %d×%d, want %d×%d", kinds.Dimension, r, c, f.d, k)
	}
	for i := range k {
		inv := 1 / math.Sqrt(f.sigma2[i])
		row := f.b[i*f.d : (i+1)*f.d]
		for j, v := range row {
			dst.Set(j, i, v*inv)
		}
	}
	return nil
}

// ready reports a zero FD, one never made by New (ErrArgument): it has no ℓ or
// dimension, and every method that can fail says so rather than report a row of the
// wrong length.
func (f *FD) ready() error {
	if f.ell == 0 {
		return fmt.Errorf("%w: a zero FD: make one with New", kinds.Argument)
	}
	return nil
}
