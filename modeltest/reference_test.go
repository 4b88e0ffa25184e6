package modeltest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/internal/wire"
)

// reference is the suite's own model: centred kernel PCA with a Gaussian kernel,
// recomputed from scratch by gonum's EigenSym after every point — slow, plainly
// correct, and a base for the defective models of modeltest_test.go. defect names the
// one promise it breaks ("" for none).
type reference struct {
	sigma  float64
	x      *mat.Dense // the points
	vals   []float64  // the m−1 leading eigenvalues of K' = CKC, descending
	vecs   *mat.Dense // their unit eigenvectors (m×(m−1)), signed
	rowAvg []float64  // K·1/m
	avg    float64    // 1ᵀK1/m²
	defect string
}

var kinds = check.Kinds{Dimension: ikpca.ErrDimension, NonFinite: ikpca.ErrNonFinite, Empty: ikpca.ErrEmpty, Argument: ikpca.ErrArgument}

func newReference(X *mat.Dense, sigma float64, defect string) (*reference, error) {
	if _, _, _, err := kinds.Data(X); err != nil {
		return nil, err
	}
	m := &reference{sigma: sigma, x: mat.DenseCopyOf(X), defect: defect}
	m.decompose()
	return m, nil
}

func (m *reference) k(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Exp(-s / (2 * m.sigma * m.sigma))
}

// decompose computes the eigendecomposition of K' from the points.
func (m *reference) decompose() {
	n, _ := m.x.Dims()
	K := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			K.SetSym(i, j, m.k(m.x.RawRowView(i), m.x.RawRowView(j)))
		}
	}
	m.rowAvg = make([]float64, n)
	m.avg = 0
	for i := range n {
		for j := range n {
			m.rowAvg[i] += K.At(i, j) / float64(n)
		}
		m.avg += m.rowAvg[i] / float64(n)
	}
	C := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			C.SetSym(i, j, K.At(i, j)-m.rowAvg[i]-m.rowAvg[j]+m.avg)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(C, true) {
		panic("reference: EigenSym failed")
	}
	v := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	m.vals = make([]float64, n-1)
	m.vecs = mat.NewDense(n, max(n-1, 1), nil)
	for q := range n - 1 {
		j := n - 1 - q // descending; the smallest, the trivial one along 1, is left out
		m.vals[q] = v[j]
		col := mat.Col(nil, j, &u)
		f := sign.Of(col)
		if m.defect == "flipped signs" {
			f = -f
		}
		for i := range n {
			m.vecs.Set(i, q, f*col[i])
		}
	}
}

// rows and dim are the model's true sizes; Len and Dim report them, or not.
func (m *reference) rows() int { r, _ := m.x.Dims(); return r }
func (m *reference) dim() int  { _, c := m.x.Dims(); return c }

func (m *reference) Len() int {
	if m.defect == "wrong Len" {
		return m.rows() - 1
	}
	return m.rows()
}

// Centred reports true: the reference decomposes K' = CKC.
func (m *reference) Centred() bool { return m.defect != "Centred reports false" }

func (m *reference) Dim() int {
	if m.defect == "wrong Dim" {
		return m.dim() + 1
	}
	return m.dim()
}

func (m *reference) Bytes() int {
	r, c := m.x.Dims()
	b := 8 * (r*c + len(m.vals) + r*(r-1) + len(m.rowAvg) + 1)
	switch m.defect {
	case "shrinking Bytes":
		return 1 << 20 / r
	case "zero Bytes":
		return 0
	}
	return b
}

func (m *reference) Values(dst []float64) []float64 {
	v := m.vals
	switch m.defect {
	case "ascending Values":
		v = append([]float64(nil), v...)
		for i, j := 0, len(v)-1; i < j; i, j = i+1, j-1 {
			v[i], v[j] = v[j], v[i]
		}
	case "a negative eigenvalue":
		v = append(append([]float64(nil), v...), -0.5*v[0])
	case "a NaN eigenvalue":
		v = append(append([]float64(nil), v...), math.NaN())
	case "Values ignores dst":
		return append([]float64(nil), v...)
	}
	dst = check.Room(dst, len(v))
	copy(dst, v)
	return dst
}

// VectorsTo writes the eigenvectors (the module's rule for destinations, check.Vectors),
// or breaks it.
func (m *reference) VectorsTo(dst *mat.Dense) {
	switch m.defect {
	case "VectorsTo panics on another shape":
		dst.Copy(m.vecs)
		if r, c := dst.Dims(); r != m.rows() || c != len(m.vals) {
			panic(mat.ErrShape)
		}
		return
	case "VectorsTo writes into another shape":
		if !dst.IsEmpty() {
			dst.Copy(m.vecs)
			return
		}
	}
	if check.Vectors(dst, m.rows(), len(m.vals)) {
		dst.Copy(m.vecs)
	}
}

func (m *reference) Add(x []float64) error {
	if m.defect == "Add stores a bad point" {
		m.x = mat.NewDense(m.rows()+1, len(x), append(append([]float64(nil), m.x.RawMatrix().Data...), x...))
		m.decompose()
	}
	if err := kinds.Point(x, m.dim()); err != nil {
		return err
	}
	if m.defect != "Add stores a bad point" {
		m.x = mat.NewDense(m.rows()+1, len(x), append(append([]float64(nil), m.x.RawMatrix().Data...), x...))
		m.decompose()
	}
	return nil
}

func (m *reference) AddBatch(X mat.Matrix) error {
	if m.defect != "AddBatch adds rows before a bad one" {
		if _, _, err := kinds.Points(X, m.dim()); err != nil {
			return err
		}
	} else if check.IsNil(X) {
		return fmt.Errorf("%w: nil", ikpca.ErrArgument)
	}
	r, _ := X.Dims()
	if r == 0 {
		return fmt.Errorf("%w: no rows", ikpca.ErrEmpty)
	}
	for i := range r {
		if err := m.Add(mat.Row(nil, i, X)); err != nil {
			return err
		}
	}
	return nil
}

// scores returns the rows×k scores of the points X: uⱼᵀk'ₓ/√λⱼ, k'ₓ the centred kernel
// column.
func (m *reference) scores(X mat.Matrix, k int) *mat.Dense {
	rows, _ := X.Dims()
	n := m.rows()
	out := mat.NewDense(rows, k, nil)
	kx := make([]float64, n)
	for i := range rows {
		x := mat.Row(nil, i, X)
		var mean float64
		for l := range n {
			kx[l] = m.k(m.x.RawRowView(l), x)
			mean += kx[l] / float64(n)
		}
		if m.defect != "scores not centred" {
			for l := range n {
				kx[l] += m.avg - m.rowAvg[l] - mean
			}
		}
		for j := range k {
			if m.vals[j] > 1e-12*m.vals[0] {
				out.Set(i, j, mat.Dot(mat.NewVecDense(n, kx), m.vecs.ColView(j))/math.Sqrt(m.vals[j]))
			}
		}
	}
	return out
}

func (m *reference) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	var rows int
	var err error
	if m.defect == "NaN accepted" {
		if check.IsNil(X) {
			return fmt.Errorf("%w: nil", ikpca.ErrArgument)
		}
		rows, _ = X.Dims()
		if rows == 0 {
			return fmt.Errorf("%w: no rows", ikpca.ErrEmpty)
		}
	} else if _, rows, err = kinds.Points(X, m.dim()); err != nil {
		if m.defect == "wrong error kind" && errors.Is(err, ikpca.ErrDimension) {
			return fmt.Errorf("%w: dimension", ikpca.ErrArgument)
		}
		return err
	}
	have := len(m.vals)
	if m.defect == "k beyond len(Values)" {
		have++
	}
	if err := kinds.Components(k, have); err != nil {
		if m.defect == "dst written on error" && dst != nil && !dst.IsEmpty() {
			dst.Zero()
		}
		if m.defect == "failed Transform changes the model" {
			m.vals[0] = math.Nextafter(m.vals[0], math.Inf(1))
		}
		return err
	}
	if err := kinds.Dst(dst, rows, k); err != nil {
		return err
	}
	s := m.scores(X, min(k, len(m.vals)))
	check.Reuse(dst, rows, k)
	f := 1.0
	if m.defect == "scaled Transform" {
		f = 1.001
	}
	for i := range rows {
		for j := range min(k, len(m.vals)) {
			dst.Set(i, j, f*s.At(i, j))
		}
	}
	return nil
}

// trainingScores are U_k·Λ_k^½.
func (m *reference) trainingScores(k int) *mat.Dense {
	n := m.rows()
	out := mat.NewDense(n, k, nil)
	for j := range k {
		for i := range n {
			out.Set(i, j, m.vecs.At(i, j)*math.Sqrt(math.Max(m.vals[j], 0)))
		}
	}
	return out
}

func (m *reference) Remove(i int) error {
	n := m.rows()
	if m.defect != "Remove accepts an index out of range" && (i < 0 || i >= n) {
		return fmt.Errorf("%w: index %d of %d points", ikpca.ErrArgument, i, n)
	}
	if i < 0 || i >= n {
		return nil
	}
	if m.defect == "Remove drops another point" {
		i = (i + 1) % n
	}
	_, d := m.x.Dims()
	data := append([]float64(nil), m.x.RawMatrix().Data[:i*d]...)
	data = append(data, m.x.RawMatrix().Data[(i+1)*d:]...)
	m.x = mat.NewDense(n-1, d, data)
	m.decompose()
	return nil
}

// The reference's encoding: the wire frame around σ, the defect's name and the points,
// from which a decoded model recomputes its decomposition.
const referenceMagic = "MTSTREFM"

var errEncoding = fmt.Errorf("reference: %w", ikpca.ErrEncoding)

func (m *reference) MarshalBinary() ([]byte, error) {
	r, c := m.x.Dims()
	data := append([]float64(nil), m.x.RawMatrix().Data...)
	if m.defect == "lossy encoding" {
		for i, v := range data {
			data[i] = float64(float32(v))
		}
	}
	body := wire.AppendFloats(nil, m.sigma, float64(r), float64(c))
	body = binary.LittleEndian.AppendUint32(body, uint32(len(m.defect)))
	body = append(body, m.defect...)
	body = wire.AppendFloats(body, data...)
	return wire.Frame(referenceMagic, 1, body), nil
}

func (m *reference) MarshalBinaryTo(w io.Writer) (int, error) {
	if w == nil {
		return 0, fmt.Errorf("%w: nil writer", ikpca.ErrArgument)
	}
	b, _ := m.MarshalBinary()
	if m.defect == "MarshalBinaryTo writes another encoding" {
		b = append(b, 0)
	}
	return w.Write(b)
}

// decoding is the defect of the decoders under test: a zero value decoded into has no
// defect of its own, so subject sets it for the decoders of every reference.
var decoding string

func (m *reference) UnmarshalBinary(b []byte) error {
	if decoding == "failed decoding changes the receiver" && m.x != nil {
		m.sigma *= 2
		m.decompose()
	}
	var body []byte
	if decoding == "bad bytes accepted" && len(b) >= wire.Overhead {
		body = b[wire.PrefixSize : len(b)-32]
	} else {
		var err error
		if _, body, err = wire.OpenFrame(b, referenceMagic, errEncoding, "reference model", 1); err != nil {
			return err
		}
	}
	rd := wire.NewReader(body)
	if rd.Len() < 28 {
		return fmt.Errorf("%w: short body", errEncoding)
	}
	sigma, r, c := rd.F64(), int(rd.F64()), int(rd.F64())
	l := int(rd.U32())
	if l > rd.Len() {
		return fmt.Errorf("%w: defect", errEncoding)
	}
	defect := string(rd.Bytes(l))
	if r < 1 || c < 1 || r*c*8 != rd.Len() {
		return fmt.Errorf("%w: sizes %d×%d", errEncoding, r, c)
	}
	data, err := rd.Floats(r*c, errEncoding, "points")
	if err != nil {
		return err
	}
	back, err := newReference(mat.NewDense(r, c, data), sigma, defect)
	if err != nil {
		return fmt.Errorf("%w: %v", errEncoding, err)
	}
	*m = *back
	return nil
}

func (m *reference) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	if r == nil {
		return 0, fmt.Errorf("%w: nil reader", ikpca.ErrArgument)
	}
	if decoding == "UnmarshalBinaryFrom reads the whole stream" {
		b, err := io.ReadAll(r)
		if err != nil {
			return len(b), err
		}
		return len(b), m.UnmarshalBinary(b)
	}
	b, n, err := wire.ReadFrame(r, referenceMagic, errEncoding, "reference model")
	if err != nil {
		return n, err
	}
	return n, m.UnmarshalBinary(b)
}

// subject describes a reference model with the given defect to the suite.
func subject(defect string) Subject {
	decoding = defect
	return Subject{
		New: func(X *mat.Dense) (ikpca.Incremental, error) { return newReference(X, 1, defect) },
		TrainingScores: func(m ikpca.Model, k int) (*mat.Dense, error) {
			return unwrap(m).trainingScores(k), nil
		},
		Project: func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) {
			return unwrap(m).scores(X, k), nil
		},
		Signed: func(m ikpca.Model) (*mat.Dense, error) { return mat.DenseCopyOf(unwrap(m).vecs), nil },
	}
}

// unwrap returns the reference behind m, a reference or a readOnly one.
func unwrap(m ikpca.Model) *reference {
	if r, ok := m.(readOnly); ok {
		return r.Incremental.(*reference)
	}
	return m.(*reference)
}
