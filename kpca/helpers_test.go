package kpca

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
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
	return fitted[*Model](t)(Fit(k, x, opts))
}

// fitRankOne returns FitRankOne(k, x, opts), failing the test on an error.
func fitRankOne(t testing.TB, k kernel.Kernel, x mat.Matrix, opts Options) *RankOneModel {
	t.Helper()
	return fitted[*RankOneModel](t)(FitRankOne(k, x, opts))
}

// fitted returns the function that returns a fit's model, failing t on its error.
func fitted[M any](t testing.TB) func(M, error) M {
	return func(md M, err error) M {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return md
	}
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

// decoded returns the Model an encoding describes (UnmarshalBinary into a zero Model),
// or the error.
func decoded(b []byte) (*Model, error) {
	md := new(Model)
	if err := md.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return md, nil
}

// decodedAny returns the model, a *Model or a *RankOneModel, of the encoding b of
// either (UnmarshalBinary into a zero model of the type the error names), or the error.
func decodedAny(b []byte) (persisted, error) {
	md := new(Model)
	err := md.UnmarshalBinary(b)
	if errors.As(err, new(methodError)) {
		r := new(RankOneModel)
		if err := r.UnmarshalBinary(b); err != nil {
			return nil, err
		}
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	return md, nil
}

// decodedAnyFrom is decodedAny from a stream (UnmarshalFrom), with the bytes read.
func decodedAnyFrom(r io.Reader) (persisted, int, error) {
	m, n, err := UnmarshalFrom(r)
	if err != nil {
		return nil, n, err
	}
	return m.(persisted), n, nil
}

// exactModel is what checkExact reads of a Model or a RankOneModel.
type exactModel interface {
	Len() int
	Components() int
	Values(dst []float64) []float64
	VectorsTo(dst *mat.Dense)
	Points(dst *mat.Dense)
	Kernel() kernel.Kernel
	Options() Options
}

// storeOf returns the store of a Model (itself) or of a RankOneModel.
func storeOf(md exactModel) *Model {
	if r, ok := md.(*RankOneModel); ok {
		return r.md
	}
	return md.(*Model)
}

// persisted is what the encoding tests drive of either type.
type persisted interface {
	ikpca.Incremental
	ikpca.Persistent
	Components() int
}

// testModel is what the tests drive of both exact types, Model and RankOneModel.
type testModel interface {
	persisted
	exactModel
	AddRows(ctx context.Context, X mat.Matrix, progress func(added, total int)) (int, error)
	Refresh() error
	Reserve(n int) error
	Drift() Drift
	Stats() Stats
	UpdateStats(dst []update.Stats) []update.Stats
	Scores(dst *mat.Dense, k int) error
	ExplainedVariance(dst []float64) []float64
}

// named is a model a test drives, with its name in messages.
type named struct {
	name string
	md   testModel
}

// exactModels returns the Model and the RankOneModel of the rows of x for k and the
// exact options opts (one of allOptions), named name(opts) and the method.
func exactModels(t testing.TB, k kernel.Kernel, x mat.Matrix, opts Options) []named {
	t.Helper()
	return []named{{name(opts) + "/bordered", fitModel(t, k, x, opts)}, {name(opts) + "/rank-one", fitRankOne(t, k, x, opts)}}
}

// checkpointAny is checkpoint of a Model or a RankOneModel, whose decomposition is
// saved beside its store.
func checkpointAny(md testModel) (rewind func()) {
	r, ok := md.(*RankOneModel)
	if !ok {
		return checkpoint(md.(*Model))
	}
	store := checkpoint(r.md)
	var sym update.Sym
	sym.CopyFrom(&r.sym)
	return func() {
		store()
		r.sym.CopyFrom(&sym)
	}
}

// captureAny is capture of a *Model or a *RankOneModel.
func captureAny(x persisted) state {
	if r, ok := x.(*RankOneModel); ok {
		return captureRankOne(r)
	}
	return capture(x.(*Model))
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
func reconstruction(md exactModel, a mat.Symmetric) float64 {
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
func orthogonality(md exactModel) float64 {
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

func capture(md *Model) state { return captureBasis(md, md.basis()) }

// captureRankOne is capture of a RankOneModel: its store and its decomposition, the
// trivial vector included.
func captureRankOne(r *RankOneModel) state {
	b := r.basis()
	b.skip = -1
	return captureBasis(r.md, b)
}

// captureBasis is capture of the store md and the decomposition b.
func captureBasis(md *Model, b basis) state {
	var p mat.Dense
	md.Points(&p)
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
	{Components: All},
	{Components: All, Uncentred: true},
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
	s := "centred"
	if o.Uncentred {
		s = "uncentred"
	}
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

// setMaxIterationsAny is setMaxIterations of a Model or a RankOneModel.
func setMaxIterationsAny(md testModel, n int) {
	r, ok := md.(*RankOneModel)
	if !ok {
		setMaxIterations(md.(*Model), n)
		return
	}
	o := r.md.opts.Update
	o.MaxIterations = n
	r.sym.SetOptions(o)
}

// fitLike returns the model of the type of md (Model or RankOneModel) of the rows of x
// for k and opts.
func fitLike(t testing.TB, md testModel, k kernel.Kernel, x mat.Matrix, opts Options) testModel {
	t.Helper()
	if _, ok := md.(*RankOneModel); !ok {
		return fitModel(t, k, x, opts)
	}
	return fitRankOne(t, k, x, opts)
}
