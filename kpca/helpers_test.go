package kpca

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

func TestMain(m *testing.M) {
	native.Use()
	m.Run()
}

// dataset returns an embedded data set by name (data.ByName).
var dataset = testmat.Dataset

// points returns the first n rows of a data set: "yeast" or "magic".
var points = testmat.FirstRows

// rbfMedian is the paper's kernel: RBF with the median distance of the first 1000 rows.
var rbfMedian = testmat.MedianRBF

// fitModel returns Fit(k, x, opts), failing the test on an error.
func fitModel(t testing.TB, k kernel.Kernel, x mat.Matrix, opts Options) *Model {
	t.Helper()
	md, err := Fit(k, x, opts)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// sample returns the first n rows of a data set ("yeast" or "magic") and the paper's
// kernel for them (rbfMedian).
func sample(t testing.TB, name string, n int) (*mat.Dense, kernel.RBF) {
	t.Helper()
	x := points(t, name, n)
	return x, rbfMedian(t, x)
}

// encode returns md's encoding (MarshalBinary), failing the test on an error.
func encode(t testing.TB, md *Model) []byte {
	t.Helper()
	b := wiretest.Marshal(t, md)
	return b
}

// decoded returns the model an encoding describes (UnmarshalBinary into a zero Model),
// or the error; a RankOneModel's encoding gives the Model it wraps.
func decoded(b []byte) (*Model, error) {
	md := new(Model)
	if err := unmarshalAny(md, b); err != nil {
		return nil, err
	}
	return md, nil
}

// unmarshalAny is md.UnmarshalBinary(b) of the encoding of a Model or, into the Model a
// RankOneModel wraps, of a RankOneModel.
func unmarshalAny(md *Model, b []byte) error {
	err := md.UnmarshalBinary(b)
	if errors.As(err, new(methodError)) {
		return md.unmarshal(b, methodRankOne)
	}
	return err
}

// unmarshalAnyFrom is unmarshalAny from a stream (UnmarshalBinaryFrom).
func unmarshalAnyFrom(md *Model, r io.Reader) (int, error) {
	return format.UnmarshalFrom(r, func(b []byte) error { return unmarshalAny(md, b) })
}

// poisoned returns the kernel k but for the pairs of which a point is bad, whose value
// is v (NaN or infinite): a kernel whose values fail at the points a test chooses.
func poisoned(k kernel.Kernel, bad func(x []float64) bool, v float64) kernel.Func {
	return kernel.Func{Name: "poisoned", F: func(a, b []float64) float64 {
		if bad(a) || bad(b) {
			return v
		}
		return k.Eval(a, b)
	}}
}

// target is the matrix a model of the first m rows of x decomposes: CKC or, uncentred,
// K.
func target(k kernel.Kernel, x *mat.Dense, m int, uncentred bool) *mat.SymDense {
	_, d := x.Dims()
	km := kernel.Matrix(k, x.Slice(0, m, 0, d).(*mat.Dense))
	if !uncentred {
		return kernel.Centre(km)
	}
	return km
}

// batchPairs returns the eigenpairs of CKC for all the rows of x, values ascending
// (native.EigenSym): the dense reference of the rank-r tests.
func batchPairs(t testing.TB, k kernel.Kernel, x *mat.Dense) ([]float64, *mat.Dense) {
	t.Helper()
	n, _ := x.Dims()
	var vecs mat.Dense
	values, err := native.EigenSym(nil, &vecs, target(k, x, n, false))
	if err != nil {
		t.Fatal(err)
	}
	return values, &vecs
}

// batchValues returns the eigenvalues a batch kernel PCA reports, descending: all of
// them uncentred, without the trivial zero (the smallest in magnitude) centred.
func batchValues(t testing.TB, a mat.Symmetric, uncentred bool) []float64 {
	t.Helper()
	v, err := native.EigenSym(nil, nil, a)
	if err != nil {
		t.Fatal(err)
	}
	if !uncentred {
		drop := 0
		for i := range v {
			if math.Abs(v[i]) < math.Abs(v[drop]) {
				drop = i
			}
		}
		v = slices.Delete(v, drop, drop+1)
	}
	slices.Reverse(v)
	return v
}

// reconstruction returns ‖A − V·Λ·Vᵀ‖_F/‖A‖_F for the model's vectors and values.
func reconstruction(md *Model, a mat.Symmetric) float64 {
	var v mat.Dense
	md.VectorsTo(&v)
	values := md.Values(nil)
	if len(values) == 0 {
		return 0
	}
	var vl mat.Dense
	vl.CloneFrom(&v)
	for j, l := range values {
		col := vl.ColView(j).(*mat.VecDense)
		col.ScaleVec(l, col)
	}
	var r mat.Dense
	r.Mul(&vl, v.T())
	r.Sub(a, &r)
	return mat.Norm(&r, 2) / mat.Norm(a, 2)
}

// sameVectors reports whether two models give the same eigenvectors (VectorsTo), bit
// for bit.
func sameVectors(a, b *Model) bool {
	var u, v mat.Dense
	a.VectorsTo(&u)
	b.VectorsTo(&v)
	return mat.Equal(&u, &v)
}

// orthogonality returns max|VᵀV − I| for the model's vectors.
func orthogonality(md *Model) float64 {
	var v mat.Dense
	md.VectorsTo(&v)
	return testmat.Orthogonality(&v)
}

// maxRelDiff returns max|a − b|/max|b|.
func maxRelDiff(a, b []float64) float64 {
	var d, big float64
	for i := range b {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		big = math.Max(big, math.Abs(b[i]))
	}
	if big == 0 {
		return d
	}
	return d / big
}

// checkSums compares the row sums, total and trace of md with sums formed afresh
// (relative 1e-12: sums of m kernel values, updated in O(m) a point).
func checkSums(t *testing.T, what string, md *Model) {
	t.Helper()
	var p mat.Dense
	md.Points(&p)
	checkSumsWithin(t, what, md, kernel.Matrix(md.Kernel(), &p), func(s float64) float64 { return 1e-12 * math.Max(math.Abs(s), 1) })
}

// checkSumsWithin compares the row sums, total and trace of md with those of k, its
// kernel matrix, each sum s within tol(s).
func checkSumsWithin(t *testing.T, what string, md *Model, k mat.Symmetric, tol func(s float64) float64) {
	t.Helper()
	var total, self float64
	for i := range md.Len() {
		var s float64
		for j := range md.Len() {
			s += k.At(i, j)
		}
		total += s
		self += k.At(i, i)
		if d := math.Abs(s - md.rowSum[i]); !(d <= tol(s)) {
			t.Errorf("%s: row sum %d is %.17g, want %.17g", what, i, md.rowSum[i], s)
			return
		}
	}
	if !(math.Abs(total-md.total) <= tol(total)) || !(math.Abs(self-md.self) <= tol(self)) {
		t.Errorf("%s: total %.17g and trace %.17g, want %.17g and %.17g", what, md.total, md.self, total, self)
	}
}

// state captures a model's observable state and its running sums, for checks that a
// failed call changed nothing: the stored eigenvalues and eigenvectors bit for bit, the
// points, the row sums, total and trace, and the certificate.
type state struct {
	values, vectors, points, sums []float64
	total, self                   float64
	cert                          certificate
	m                             int
}

func capture(md *Model) state {
	var p mat.Dense
	md.Points(&p)
	b := md.basis()
	var vecs []float64
	for i := range md.m {
		if len(b.values) > 0 {
			vecs = append(vecs, b.vecs.Data[i*b.vecs.Stride:i*b.vecs.Stride+len(b.values)]...)
		}
	}
	var pts []float64
	if md.m > 0 {
		pts = p.RawMatrix().Data
	}
	return state{values: b.values, vectors: vecs, points: pts, sums: slices.Clone(md.rowSum[:md.m]),
		total: md.total, self: md.self, cert: md.cert, m: md.m}
}

func (a state) equal(b state) bool {
	return a.m == b.m && a.total == b.total && a.self == b.self && a.cert == b.cert && slices.Equal(a.values, b.values) &&
		slices.Equal(a.vectors, b.vectors) && slices.Equal(a.points, b.points) && slices.Equal(a.sums, b.sums)
}

// setMaxIterations caps the root finder of the model's decomposition (to force a
// failure) or, with 0, restores the default.
func setMaxIterations(md *Model, n int) {
	o := md.opts.Update
	o.MaxIterations = n
	md.thin.SetOptions(o)
	if md.paper != nil {
		md.paper.sym.SetOptions(o)
	}
}

// checkpoint records md's whole state in a txn of its own — not in the buffers the
// model lends its calls, which the calls then still find — and returns the function that
// rolls md back to it, as often as wanted: a test that times or counts the same step
// again and again.
func checkpoint(md *Model) (rewind func()) {
	spare := md.spare
	md.spare = txnBuffers{}
	tx := md.begin(scopeAll)
	md.spare = spare
	return func() { md.rollback(&tx) }
}

var allOptions = []Options{
	{Components: All, method: methodBordered},
	{Components: All, Uncentred: true, method: methodBordered},
	{Components: All, method: methodRankOne},
	{Components: All, Uncentred: true, method: methodRankOne},
}

// streamOptions are the bordered models at rank r and in a window.
var streamOptions = []Options{
	{Components: 8, Rank: 8},
	{Uncentred: true, Components: 8, Rank: 8},
	{Components: All, Window: 40},
	{Components: All, Uncentred: true, Window: 40},
	{Components: 8, Rank: 8, Window: 40},
	{Uncentred: true, Components: 8, Rank: 8, Window: 40},
}

func name(o Options) string {
	s := "centred/"
	if o.Uncentred {
		s = "uncentred/"
	}
	s += o.method.String()
	if o.Components != All {
		s += fmt.Sprintf("/%d components", o.Components)
	}
	if o.Rank > 0 {
		s += fmt.Sprintf("/rank %d", o.Rank)
	}
	if o.Window > 0 {
		s += fmt.Sprintf("/window %d", o.Window)
	}
	return s
}

// updateOptionsMaxIter caps the root finder, to force a failure.
func updateOptionsMaxIter(n int) update.Options { return update.Options{MaxIterations: n} }

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// modeName names the centring of a model.
func modeName(uncentred bool) string {
	if uncentred {
		return "uncentred"
	}
	return "centred"
}
