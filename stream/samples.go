package stream

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
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

func newSamples(k kernel.Kernel, d int, centred bool) (*samples, error) {
	if err := kernel.Validate(k); err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	if d < 1 {
		return nil, fmt.Errorf("stream: dimension %d, want ≥ 1", d)
	}
	return &samples{kern: k, d: d, centred: centred}, nil
}

func checkPoint(x []float64, d int) error {
	if len(x) != d {
		return fmt.Errorf("stream: point has dimension %d, want %d", len(x), d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("stream: coordinate %d of the point is %v", i, v)
		}
	}
	return nil
}

// points returns the stored points as an n×d matrix (a view; valid until the next add).
func (s *samples) points() *mat.Dense { return &s.view }

// add stores x (checked by the caller) and returns its kernel column against all stored
// points, itself included (length n after the call; valid until the next call). If a
// kernel value is not finite (an overflowing polynomial kernel, say), nothing is stored
// and an error is returned.
func (s *samples) add(x []float64) ([]float64, error) {
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
			return nil, fmt.Errorf("stream: the kernel of the new point is %v", v)
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

func (s *samples) bytes() int { return 8 * (cap(s.x) + cap(s.rowsum) + cap(s.col) + cap(s.tmp)) }

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

// rayleigh returns, for directions w_i = Σ_l α_il·φ̃(x_l) in feature space, the
// Rayleigh quotients ‖K̃α_i‖²/(α_iᵀK̃α_i) — the variance of the stored points along w_i
// times n, comparable with the eigenvalues of K̃ — evaluating the kernel columns one
// by one: O(n²·d) time, O(n·r) memory.
func (s *samples) rayleigh(dst []float64, alpha [][]float64) []float64 {
	r := len(alpha)
	ka := make([][]float64, r)
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
	dst = dst[:0]
	for i, a := range alpha {
		den := vec.Dot(a, ka[i])
		if !(den > 0) {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, vec.Dot(ka[i], ka[i])/den)
	}
	return dst
}

// scores writes the projections of the rows of X onto the unit directions
// w_i/‖w_i‖, w_i = Σ_l α_il·φ̃(x_l): (α_iᵀk̃ₓ)/‖w_i‖ with ‖w_i‖² = α_iᵀK̃α_i given in norms2.
func (s *samples) scores(dst *mat.Dense, X mat.Matrix, alpha [][]float64, norms2 []float64, k int) error {
	if k < 1 || k > len(alpha) {
		return fmt.Errorf("stream: %d components requested, have %d", k, len(alpha))
	}
	n, d := X.Dims()
	if d != s.d {
		return fmt.Errorf("stream: points have dimension %d, want %d", d, s.d)
	}
	if n == 0 {
		return fmt.Errorf("stream: no points to transform")
	}
	if !dst.IsEmpty() {
		if r, c := dst.Dims(); r != n || c != k {
			return fmt.Errorf("stream: destination is %d×%d, want %d×%d", r, c, n, k)
		}
	}
	rows := make([][]float64, n)
	for i := range n {
		rows[i] = mat.Row(nil, i, X)
		if err := checkPoint(rows[i], s.d); err != nil {
			return fmt.Errorf("stream: row %d: %w", i, err)
		}
	}
	if dst.IsEmpty() {
		dst.ReuseAs(n, k)
	}
	for i, x := range rows {
		kx := s.columnOf(x)
		s.centre(kx)
		for j := range k {
			v := 0.0
			if norms2[j] > 0 {
				v = vec.Dot(alpha[j], kx) / math.Sqrt(norms2[j])
			}
			dst.Set(i, j, v)
		}
	}
	return nil
}

// rayleighNorms returns α_iᵀK̃α_i for each direction (O(n²·d)).
func (s *samples) rayleighNorms(alpha [][]float64) []float64 {
	out := make([]float64, len(alpha))
	for l := range s.n {
		col := s.column(l)
		s.centre(col)
		for i, a := range alpha {
			out[i] += a[l] * vec.Dot(col, a)
		}
	}
	return out
}

// pass presents every stored sample once, in the order they were added, to an online
// method that has started (ready).
func (s *samples) pass(ready bool, present func(i int)) error {
	if !ready {
		return errors.New("stream: too few samples to start")
	}
	for i := range s.n {
		present(i)
	}
	return nil
}
