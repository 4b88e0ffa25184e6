package stream

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/blocks"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// samples stores the distinct points an online kernel method has seen, with what
// centring in feature space needs: the row sums r = K·1 of the kernel matrix and its
// total T = 1ᵀK1, kept up to date in O(n·d) per new point. Nothing of size n² is kept:
// kernel columns are evaluated when needed.
type samples struct {
	kern     kernel.Kernel
	d, n     int
	x        []float64 // n×d, row-major, capacity grows geometrically
	view     mat.Dense // the stored points, re-pointed at x after every change
	rowsum   []float64 // r = K·1
	total    float64   // T = 1ᵀK1
	centred  bool
	col, tmp []float64 // scratch: a kernel column
}

// iteration is what KRQA and KHA share beside their options and coefficients: the
// samples they iterate over, their number r of components and where the iteration
// stands.
type iteration struct {
	s     *samples
	r     int
	ready bool // the iteration has started
	t     int  // presentations since the start
}

// Kernel returns the model's kernel (nil for a zero model).
func (m *iteration) Kernel() kernel.Kernel {
	if m.s == nil {
		return nil
	}
	return m.s.kern
}

// Len returns the number of distinct samples stored.
func (m *iteration) Len() int {
	if m.s == nil {
		return 0
	}
	return m.s.n
}

// Dim returns the dimension of the points (0 for a zero model).
func (m *iteration) Dim() int {
	if m.s == nil {
		return 0
	}
	return m.s.d
}

// Presentations returns the number of sample presentations the iteration has made.
func (m *iteration) Presentations() int { return m.t }

// stored returns the model's samples (nil in a zero model), for its encoding.
func (m *iteration) stored() *samples { return m.s }

// checkComponents checks a number r of components for an online method (KRQA, KHA): at
// least 1, and few enough that the r×(r+1) coefficients the iteration starts with (it
// starts once r+1 samples are stored) can be allocated (docs/design.md, "Sizes").
func checkComponents(r int) error {
	if r < 1 {
		return fmt.Errorf("%w: %d components, want ≥ 1", ErrArgument, r)
	}
	if r >= check.MaxFloats {
		return fmt.Errorf("%w: %d components: their coefficients would hold more than %d numbers", ErrArgument, r, check.MaxFloats)
	}
	_, err := kinds.Floats(fmt.Sprintf("the coefficients of %d components over the %d samples they start from", r, r+1), r, r+1)
	return err
}

func newSamples(k kernel.Kernel, d int, centred bool) (*samples, error) {
	if err := kinds.Kernel(kernel.Validate(k)); err != nil {
		return nil, err
	}
	if err := kinds.Dim(d); err != nil {
		return nil, err
	}
	return &samples{kern: k, d: d, centred: centred}, nil
}

// points returns the stored points as an n×d matrix (a view; valid until the next add).
func (s *samples) points() *mat.Dense { return &s.view }

// add stores x and returns its kernel column against all stored points, itself
// included (length n after the call; valid until the next call). A point of the wrong
// dimension or with a non-finite coordinate, or one with a kernel value that is not
// finite (an overflowing polynomial kernel, say), is an error and nothing is stored.
func (s *samples) add(x []float64) ([]float64, error) {
	if s == nil {
		return nil, errZero // the samples of a zero KRQA or KHA
	}
	if err := kinds.Point(x, s.d); err != nil {
		return nil, err
	}
	s.x = append(s.x, x...)
	s.n++
	s.view.SetRawMatrix(rawOf(s.x, s.n, s.d))
	s.col = grow(s.col, s.n)
	kernel.Column(s.col, s.kern, &s.view, x)
	for _, v := range s.col {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			s.n--
			s.x = s.x[:s.n*s.d]
			if s.n > 0 {
				s.view.SetRawMatrix(rawOf(s.x, s.n, s.d))
			} else {
				s.view = mat.Dense{}
			}
			return nil, fmt.Errorf("%w: a kernel value of the new point is %v", ErrNonFinite, v)
		}
	}
	var sum float64
	for i := range s.n - 1 {
		s.rowsum[i] += s.col[i]
		sum += s.col[i]
	}
	s.rowsum = append(s.rowsum, sum+s.col[s.n-1])
	s.total += 2*sum + s.col[s.n-1]
	return s.col, nil
}

// mark is the state of the samples a batch starts from (samples.mark), to roll back to
// if a point of the batch is refused: the count, the row sums as they were, bit for bit,
// and the total.
type mark struct {
	n      int
	rowsum []float64
	total  float64
}

// mark returns the samples' state, O(n).
func (s *samples) mark() mark {
	return mark{n: s.n, rowsum: slices.Clone(s.rowsum), total: s.total}
}

// rollback restores the state of m: the points added since are forgotten, and the row
// sums and total are those of m bit for bit (not recomputed, which would round
// otherwise).
func (s *samples) rollback(m mark) {
	s.n = m.n
	s.x = s.x[:m.n*s.d]
	s.rowsum = append(s.rowsum[:0], m.rowsum...)
	s.total = m.total
	if s.n > 0 {
		s.view.SetRawMatrix(rawOf(s.x, s.n, s.d))
	} else {
		s.view = mat.Dense{}
	}
}

// batch checks the rows of X as points (every row before any is added: dimension and
// finiteness; a nil X is an ErrArgument, one without rows ErrEmpty), then calls save,
// which keeps the model's state and returns the function that restores it, and add on
// each row in order. If add refuses a row — a kernel value that is not finite, which
// only adding it computes — the state is restored, undoing the rows added before it,
// and the error names the row: all or nothing.
func (s *samples) batch(X mat.Matrix, add func([]float64) error, save func() (restore func())) error {
	if s == nil {
		return errZero
	}
	X, r, err := kinds.Points(X, s.d)
	if err != nil {
		return err
	}
	restore := save()
	row := make([]float64, s.d)
	for i := range r {
		mat.Row(row, i, X)
		if err := add(row); err != nil {
			restore()
			return fmt.Errorf("point %d of the batch: %w (none of the batch added)", i, err)
		}
	}
	return nil
}

// binaryScaled returns a copy of each of xs scaled by the power of two 2⁻ᵉ that brings
// its largest magnitude into [½, 1) (math.Frexp), exactly: a vector of zeros stays
// zero. Scaling by a power of two is exact unless it underflows, which here needs
// entries 2¹⁰²² times smaller than the largest.
func binaryScaled(xs [][]float64) [][]float64 {
	out := make([][]float64, len(xs))
	for i, x := range xs {
		var top float64
		for _, v := range x {
			top = max(top, math.Abs(v))
		}
		_, e := math.Frexp(top)
		out[i] = make([]float64, len(x))
		for l, v := range x {
			out[i][l] = math.Ldexp(v, -e)
		}
	}
	return out
}

// clones returns a copy of each of xs.
func clones(xs [][]float64) [][]float64 {
	out := make([][]float64, len(xs))
	for i, x := range xs {
		out[i] = slices.Clone(x)
	}
	return out
}

// column returns the kernel column of stored point i (valid until the next call).
func (s *samples) column(i int) []float64 {
	s.col = grow(s.col, s.n)
	kernel.Column(s.col, s.kern, &s.view, s.x[i*s.d:(i+1)*s.d])
	return s.col
}

// columnOf returns the kernel column of an arbitrary point x (valid until the next
// call).
func (s *samples) columnOf(x []float64) []float64 {
	s.tmp = grow(s.tmp, s.n)
	kernel.Column(s.tmp, s.kern, &s.view, x)
	return s.tmp
}

// centre turns the kernel column k of a point (k_l = k(x_l, x)) into its centred form
// in place, k̃_l = k_l − r_l/n − mean(k) + T/n², the column of the centred kernel
// HKH bordered by the point (Schölkopf et al. 1998, eq. for test points); a no-op when
// uncentred.
func (s *samples) centre(k []float64) {
	if !s.centred {
		return
	}
	n := float64(s.n)
	var mean float64
	for _, v := range k {
		mean += v
	}
	mean /= n
	c := s.total/(n*n) - mean
	for l := range k {
		k[l] += c - s.rowsum[l]/n
	}
}

// centredProduct writes h = K̃·β from p = K·β and sb = 1ᵀβ, sp = 1ᵀp: with H = I − 11ᵀ/n,
// HKHβ = H(p − (sb/n)·r), in O(n); the identity for the uncentred case.
func (s *samples) centredProduct(h, p []float64, sb, sp float64) {
	if !s.centred {
		copy(h, p)
		return
	}
	n := float64(s.n)
	mean := (sp - sb*s.total/n) / n
	for l := range h {
		h[l] = p[l] - sb/n*s.rowsum[l] - mean
	}
}

func (s *samples) bytes() int {
	if s == nil {
		return 0 // a zero KRQA's or KHA's
	}
	return 8 * (cap(s.x) + cap(s.rowsum) + cap(s.col) + cap(s.tmp))
}

func grow(x []float64, n int) []float64 {
	if cap(x) >= n {
		return x[:n]
	}
	return append(x[:cap(x)], make([]float64, n-cap(x))...)[:n]
}

func sum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

func rawOf(x []float64, n, d int) blas64.General {
	return blas64.General{Rows: n, Cols: d, Stride: d, Data: x[:n*d]}
}

// rayleigh returns, for directions w_i = Σ_l α_il·φ̃(x_l) in feature space with
// ka_i = K̃α_i (centredProducts), the Rayleigh quotients ‖K̃α_i‖²/(α_iᵀK̃α_i) — the
// variance of the stored points along w_i times n, comparable with the eigenvalues of
// K̃ — in the order of the directions; a direction of zero norm gets zero.
func rayleigh(alpha, ka [][]float64) []float64 {
	out := make([]float64, len(alpha))
	for i, a := range alpha {
		if den := vec.Dot(a, ka[i]); den > 0 {
			out[i] = vec.Dot(ka[i], ka[i]) / den
		}
	}
	return out
}

// scores writes the projections of the rows of X onto the top k unit directions whose
// coefficient vectors coefficients returns (w_j = Σ_l c_jl·φ̃(x_l), unit and signed, in
// the order of the model's Values): c_jᵀk̃ₓ, one column per direction, after checking X,
// and k against the have components, and dst. On error dst is unchanged.
//
// The points go through blocks.Size at a time: their kernel values against the stored
// samples by one kernel.Cross block (docs/design.md, "Kernel blocks"), each row centred
// (centre), then the scores by one dgemm with the n×k matrix of the coefficients.
func (s *samples) scores(dst *mat.Dense, X mat.Matrix, k, have int, coefficients func() [][]float64) error {
	if s == nil {
		return errZero
	}
	X, _, err := kinds.Transform(dst, X, s.d, k, have)
	if err != nil {
		return err
	}
	coef := coefficients()
	n := s.n
	c := mat.NewDense(n, k, nil)
	for j, cj := range coef[:k] {
		for l, v := range cj {
			c.Set(l, j, v)
		}
	}
	return blocks.KernelScores(dst, kernel.NewCross(s.kern, &s.view), X, k, func(lo, hi int, kv, out *mat.Dense) error {
		for i := range hi - lo {
			kx := kv.RawRowView(i)
			for l, v := range kx {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: kernel value of point %d with sample %d is %v", ErrNonFinite, lo+i, l, v)
				}
			}
			s.centre(kx)
		}
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, kv.RawMatrix(), c.RawMatrix(), 0, out.RawMatrix())
		return nil
	})
}

// descending returns the indices of v in descending order of value, ties in index
// order: the order in which the online methods report their components, whose
// iterations do not keep them sorted.
func descending(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[b], v[a]) })
	return idx
}

// unitSigned returns, for the directions order[q] = i, the coefficient vectors of the
// unit direction ±w_i/‖w_i‖ given α_i and kα_i = K̃α_i (so that ‖w_i‖² = α_iᵀK̃α_i): the
// sign makes the largest-magnitude entry of the direction's training scores K̃α_i/‖w_i‖
// positive (package sign, docs/design.md, "Signs"). A direction of zero norm gets zero
// coefficients and scores zero.
func unitSigned(alpha, kalpha [][]float64, order []int) [][]float64 {
	out := make([][]float64, len(order))
	for q, i := range order {
		c := make([]float64, len(alpha[i]))
		if nrm2 := vec.Dot(alpha[i], kalpha[i]); nrm2 > 0 {
			f := sign.Of(kalpha[i]) / math.Sqrt(nrm2)
			for l, a := range alpha[i] {
				c[l] = f * a
			}
		}
		out[q] = c
	}
	return out
}

// vectorsTo writes the coefficient vectors coef as the columns of dst (n×len(coef)),
// by the rule of check.Vectors (a dst of another shape is replaced, never a panic).
func vectorsTo(dst *mat.Dense, coef [][]float64, n int) {
	if !check.Vectors(dst, n, len(coef)) {
		return
	}
	for j, c := range coef {
		for i, v := range c { // not SetCol, which copies through the blas64 registry
			dst.Set(i, j, v)
		}
	}
}

// centredProducts returns K̃α_i for each direction, evaluating the kernel columns one
// by one: O(n²·d) time, O(n·r) memory.
func (s *samples) centredProducts(alpha [][]float64) [][]float64 {
	ka := make([][]float64, len(alpha))
	for i := range ka {
		ka[i] = make([]float64, s.n)
	}
	for l := range s.n {
		col := s.column(l)
		s.centre(col)
		for i, a := range alpha {
			ka[i][l] = vec.Dot(col, a)
		}
	}
	return ka
}

// pass presents every stored sample once, in the order they were added, to an online
// method that has started (ready).
func (s *samples) pass(ready bool, present func(i int)) error {
	if s == nil {
		return errZero
	}
	if !ready {
		return fmt.Errorf("%w: too few samples to start", ErrEmpty)
	}
	for i := range s.n {
		present(i)
	}
	return nil
}

// errZero is the error of a zero SKPCA, RNCA, KRQA or KHA — one never made nor decoded,
// which has no kernel, dimension or features — given points or asked to project them.
// Its methods that cannot fail read it as a model without points (docs/design.md,
// "Hostile input").
var errZero = fmt.Errorf("%w: a zero model: make one with NewSKPCA, NewRNCA, NewKRQA or NewKHA, or decode one into it (UnmarshalBinary)", ErrArgument)
