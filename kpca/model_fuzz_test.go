package kpca

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// fuzzModels are the Models FuzzModel drives: every way a Model keeps its pairs — exact
// (centred, uncentred, windows), tracked at
// a rank one point and a block at a time, a tracked window — on an RBF kernel, whose
// values lie in [0, 1] whatever the points, and a cubic polynomial, whose values
// overflow for coordinates beyond about 1e51 and dwarf each other well before.
var fuzzModels = []fuzzKind{
	{"exact", kernel.RBF{Sigma: 1}, Options{Components: All}},
	{"exact uncentred", kernel.RBF{Sigma: 1}, Options{Components: All, Uncentred: true}},
	{"exact window", kernel.RBF{Sigma: 1}, Options{Components: All, Window: 5}},
	{"exact uncentred window", kernel.RBF{Sigma: 1}, Options{Components: All, Uncentred: true, Window: 6}},
	{"exact cubic", kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, Options{Components: All}},
	{"rank 3", kernel.RBF{Sigma: 1}, Options{Components: 3, Rank: 3, Block: 1}},
	{"rank 3 blocks", kernel.RBF{Sigma: 1}, Options{Components: 3, Rank: 3, Block: 3, Uncentred: true}},
	{"rank 3 window", kernel.RBF{Sigma: 1}, Options{Components: 3, Rank: 3, Window: 7}},
	{"rank 3 cubic", kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, Options{Components: 3, Rank: 3}},
}

// FuzzModel drives every kind of Model (fuzzModels), started empty by New, and of
// RankOneModel (fuzzRankOnes, fuzzRankOne), with
// arbitrary 3-D points — any float64 bits: NaN, infinities, huge and tiny values,
// repeats — through Add, AddBatch, Remove and Polish, in an order and with indices the
// input chooses. Nothing may panic. A refused call must leave the model exactly as it
// was (capture: the pairs, points, sums and certificate, bit for bit). After an
// accepted one the model must hold the points it was given (Len), and (checkFuzzed):
//   - its running sums must be the points', and an exact model's eigenvalues and matrix
//     VΛVᵀ a batch decomposition's, with orthonormal vectors, to 1e-10 of the largest
//     matrix the model has held: a removal's rounding is that of the matrix it removes
//     from ("Accuracy of a removal" in docs/design.md), and growth agrees to 1e-10 of
//     the current matrix on real data (TestAgainstBatch; these models hold at most 40
//     points);
//   - a tracked model's certificate must hold (certifyAt): E = K′ − K̃ within its bounds
//     and every batch eigenvalue within ValueBounds, up to the rounding of the kernel
//     values it holds now, max(m, 32)·u·m·max|kᵢⱼ| — the certificate accounts for the
//     removals' rounding; and a tracked model left without pairs must bound ‖K′‖₂.
func FuzzModel(f *testing.F) {
	seed := testmat.FuzzBytes
	walk := seed(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0.5, 0.2, -1, 2, 0.3, 0.1, -0.7, 1.1, 0.4)
	f.Add(walk, []byte{0, 0, 0, 1 | 1<<2, 0, 2, 0, 3, 0, 2 | 3<<2})
	f.Add(seed(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), []byte{0, 0, 1 | 2<<2, 2, 3, 0})
	f.Add(seed(1e300, 1, 0, -1e300, 2, 0, 1e-300, 3, 0, 1e150, 0, 0, 5e-324, 0, 1), []byte{0, 0, 0, 0, 0, 2 | 1<<2})
	f.Add(seed(math.NaN(), 0, 1, 1, math.Inf(1), 2, 3, 4, 5, 0, 0, 1), []byte{0, 1 | 3<<2, 0, 0})
	f.Add(seed(1, 2, 3, 1, 2, 3+1e-15, 1, 2, 3, 1e-8, 0, 0, 2e-8, 0, 0), []byte{1 | 3<<2, 0, 0, 2 | 4<<2, 3, 0})
	// A cubic kernel's outlier, k(x, x) = 1e66, among points near the origin, then
	// removed: what the fuzzer found first ("Accuracy of a removal", docs/design.md).
	f.Add(seed(0, 1e11, 0, 0.1, 0.2, -0.1, 0.2, 0.2, -0.4, 0.3, 0.2, -0.9, 0.4, 0.2, -1.6), []byte{0, 0, 0, 0, 0, 2, 0})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		const d, most = 3, 40
		vals := testmat.FuzzFloats(data, d*most)
		X := mat.NewDense(max(len(vals)/d, 1), d, nil)
		copy(X.RawMatrix().Data, vals)
		n := len(vals) / d
		if len(ops) > 24 {
			ops = ops[:24]
		}
		for _, c := range fuzzModels {
			md, err := New(c.k, d, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			next := 0   // the next row of X to add
			held := 0.0 // the largest m·max|kᵢⱼ| the model has held (checkFuzzed)
			for step, op := range ops {
				what := fmt.Sprintf("%s, step %d (op %#x, %d points)", c.name, step, op, md.Len())
				before := capture(md)
				want := md.Len()
				switch arg := int(op >> 2); op & 3 {
				case 0:
					if next == n {
						continue
					}
					err = md.Add(X.RawRowView(next))
					next, want = next+1, want+1
				case 1:
					b := min(arg%4+1, n-next)
					if b == 0 {
						continue
					}
					err = md.AddBatch(X.Slice(next, next+b, 0, d))
					next, want = next+b, want+b
				case 2:
					err = md.Remove(arg % (md.Len() + 1)) // Len() itself: out of range
					want--
				case 3:
					err = md.Polish(1)
				}
				if w := c.opts.Window; w > 0 {
					want = min(want, w)
				}
				if err != nil {
					if !capture(md).equal(before) {
						t.Fatalf("%s: refused (%v), and the model changed", what, err)
					}
					continue
				}
				if md.Len() != want {
					t.Fatalf("%s: %d points, want %d", what, md.Len(), want)
				}
				checkFuzzed(t, what, md, &held)
				if t.Failed() {
					t.FailNow()
				}
			}
		}
		for _, c := range fuzzRankOnes {
			fuzzRankOne(t, c.name, c.k, c.opts, X, n, ops)
		}
	})
}

// fuzzKind is a model FuzzModel drives: its name, kernel and options.
type fuzzKind struct {
	name string
	k    kernel.Kernel
	opts Options
}

// fuzzRankOnes are the RankOneModels FuzzModel drives.
var fuzzRankOnes = []fuzzKind{
	{"rank-one", kernel.RBF{Sigma: 1}, Options{Components: All}},
	{"rank-one uncentred", kernel.RBF{Sigma: 1}, Options{Components: All, Uncentred: true}},
	{"rank-one cubic", kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, Options{Components: All}},
}

// fuzzRankOne is FuzzModel's drive of a RankOneModel, started empty by NewRankOne, with
// the first n rows of X: ops 0 and 1 Add and AddBatch as for a Model, 2 Refresh, 3
// AddRows — which keeps the rows it added before a refused one.
func fuzzRankOne(t *testing.T, label string, k kernel.Kernel, opts Options, X *mat.Dense, n int, ops []byte) {
	_, d := X.Dims()
	r, err := NewRankOne(k, d, opts)
	if err != nil {
		t.Fatal(err)
	}
	next, held := 0, 0.0
	for step, op := range ops {
		what := fmt.Sprintf("%s, step %d (op %#x, %d points)", label, step, op, r.Len())
		before := captureRankOne(r)
		rows := 0 // the rows the call adds if it succeeds
		switch op & 3 {
		case 0:
			rows = min(1, n-next)
		case 1, 3:
			rows = min(int(op>>2)%4+1, n-next)
		}
		if rows == 0 && op&3 != 2 {
			continue
		}
		var block mat.Matrix
		if rows > 0 {
			block = X.Slice(next, next+rows, 0, d)
		}
		switch op & 3 {
		case 0:
			err = r.Add(mat.Row(nil, 0, block))
		case 1:
			err = r.AddBatch(block)
		case 2:
			err = r.Refresh()
		case 3:
			var added int
			added, err = r.AddRows(context.Background(), block, nil)
			if err != nil { // the rows before the refused one stay
				next += added
				before = captureRankOne(r)
			}
		}
		if err != nil {
			if !captureRankOne(r).equal(before) {
				t.Fatalf("%s: refused (%v), and the model changed", what, err)
			}
			continue
		}
		next += rows
		if r.Len() != next {
			t.Fatalf("%s: %d points, want %d", what, r.Len(), next)
		}
		if a, tol, _, ok := fuzzedReference(t, what, r, &held); ok && r.Components() > 0 {
			checkFuzzedExact(t, what, r, a, tol)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
}

// checkFuzzed checks md after an accepted call: its running sums, and either the
// exact model against a batch decomposition of its points or the tracked model's
// certificate. The tolerances are absolute, on the scale of the largest matrix the model
// has held, *held (m·max|kᵢⱼ|, a bound on ‖K‖₂ and ‖K′‖₂, updated here): a removal
// downdates the sums and the decomposition, and its rounding is that of the matrix it
// removed from — after a polynomial kernel's outlier of k(x, x) = 1e66 leaves, the
// points left (kernel values near 1) keep errors of 1e66·ε (docs/design.md, "Removing a
// point"). Refresh restores their own scale. A batch reference that cannot be formed
// (kernel values whose sums overflow) is not compared.
func checkFuzzed(t *testing.T, what string, md *Model, held *float64) {
	t.Helper()
	a, tol, kmax, ok := fuzzedReference(t, what, md, held)
	if !ok {
		return
	}
	m := md.Len()
	switch {
	case md.Rank() > 0 && md.Components() == 0:
		// A tracked model that holds no pair (it lost them all to a removal's rounding,
		// or a batch decomposition found none above its rounding) claims K̃ = 0: its
		// bound must cover K′ itself, up to the rounding of the batch decomposition it
		// starts from, which ErrorBound leaves out (certifyAt's slack).
		if norm := mat.Norm(a, 2); !(md.ErrorBound()+certifySlack(m, float64(m)*kmax) >= norm*(1-1e-12)) {
			t.Errorf("%s: no pair, ErrorBound %.6g, ‖K′‖₂ %.6g", what, md.ErrorBound(), norm)
		}
	case md.Components() == 0:
	case md.Rank() > 0:
		if m >= 2 {
			certifyAt(t, what, md, float64(m)*kmax)
		}
	default:
		checkFuzzedExact(t, what, md, a, tol)
	}
}

// fuzzedReference returns the batch reference of md's points — the matrix a the model
// decomposes, the tolerance on the scale *held (updated here), and max|kᵢⱼ| — after
// checking md's running sums against it; ok is false for a model without points or a
// reference that overflows.
func fuzzedReference(t *testing.T, what string, md exactModel, held *float64) (a *mat.SymDense, tol, kmax float64, ok bool) {
	t.Helper()
	m := md.Len()
	if m == 0 {
		return nil, 0, 0, false
	}
	var p mat.Dense
	md.Points(&p)
	k := kernel.Matrix(md.Kernel(), &p)
	a = pointsTarget(md)
	if !finiteUpper(k) || !finiteUpper(a) {
		t.Logf("%s: the batch reference overflows", what)
		return nil, 0, 0, false
	}
	for i := range m {
		for j := i; j < m; j++ {
			kmax = math.Max(kmax, math.Abs(k.At(i, j)))
		}
	}
	*held = math.Max(*held, float64(m)*kmax)
	tol = 1e-10 * *held
	checkSumsWithin(t, what, storeOf(md), k, func(float64) float64 { return tol })
	return a, tol, kmax, true
}

// checkFuzzedExact compares an exact model with a batch decomposition of its points, a:
// the eigenvalues and the matrix VΛVᵀ within tol, the vectors orthonormal.
func checkFuzzedExact(t *testing.T, what string, md exactModel, a *mat.SymDense, tol float64) {
	t.Helper()
	values, want := md.Values(nil), batchValues(t, a, md.Options().Uncentred)
	for i, v := range want {
		if !(math.Abs(values[i]-v) <= tol) {
			t.Errorf("%s: λ%d = %.17g, batch %.17g (tolerance %.3g)", what, i, values[i], v, tol)
			return
		}
	}
	var v, vl, r mat.Dense
	md.VectorsTo(&v)
	vl.CloneFrom(&v)
	for j, l := range values {
		col := vl.ColView(j).(*mat.VecDense)
		col.ScaleVec(l, col)
	}
	r.Mul(&vl, v.T())
	r.Sub(a, &r)
	if e := mat.Norm(&r, 2); !(e <= tol) {
		t.Errorf("%s: ‖K′ − VΛVᵀ‖₂ = %.3g (tolerance %.3g)", what, e, tol)
	}
	if o := orthogonality(md); !(o <= 1e-10) {
		t.Errorf("%s: vectors orthogonal to %.3g", what, o)
	}
}
