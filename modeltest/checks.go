package modeltest

import (
	"errors"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/internal/vec"
)

// negativeTolerance bounds how far below zero an eigenvalue may be, relative to
// Σ|λᵢ| (≥ ‖K‖₂): a backward-stable eigensolver errs by about c·m·ε·‖K‖₂, and an
// incremental model adds one such error per point, so s steps on m points give
// c·m·s·ε·‖K‖₂ — below 1e-10·‖K‖₂ for c ≤ 10 and m, s ≤ 200. A real defect (a
// wrong centring, an indefinite kernel matrix) is of the size of the spectrum.
const negativeTolerance = 1e-10

// sentinel fills destinations whose entries must not change.
const sentinel = 12345.678

// model returns a model of all the subject's points — New of the first Start rows, then
// Add of the others one at a time — and probe points for it. It reports any error.
func (s *Subject) model(r reporter) (ikpca.Incremental, *mat.Dense, bool) {
	r.Helper()
	X, start := s.data()
	n, d := X.Dims()
	var m ikpca.Incremental
	if err := try(func() (err error) { m, err = s.New(mat.DenseCopyOf(X.Slice(0, start, 0, d))); return err }); err != nil {
		r.Errorf("New of %d points: %v", start, err)
		return nil, nil, false
	}
	for i := start; i < n; i++ {
		x := append([]float64(nil), X.RawRowView(i)...)
		if err := try(func() error { return m.Add(x) }); err != nil {
			r.Errorf("Add of point %d: %v", i, err)
			return nil, nil, false
		}
	}
	return m, probe(X), true
}

// checkValues: the eigenvalues are finite, descending and non-negative up to rounding;
// Values follows its dst rule and reads the same twice; Transform accepts k up to
// len(Values) and not beyond.
func checkValues(r reporter, s *Subject, m ikpca.Incremental, P *mat.Dense) {
	r.Helper()
	v := m.Values(nil)
	if len(v) == 0 {
		r.Errorf("no eigenvalues after %d points", m.Len())
		return
	}
	var sum float64
	for _, x := range v {
		sum += math.Abs(x)
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			r.Errorf("λ%d = %g is not finite", i, x)
		}
		if i > 0 && !(x <= v[i-1]) {
			r.Errorf("not descending: λ%d = %g after λ%d = %g", i, x, i-1, v[i-1])
		}
		if x < -negativeTolerance*sum {
			r.Errorf("λ%d = %g is negative beyond rounding (bound %.3g = %g·Σ|λ|)", i, x, -negativeTolerance*sum, negativeTolerance)
		}
	}
	if again := m.Values(nil); !vec.SameBits(v, again) {
		r.Errorf("Values read twice: %v, then %v", v, again)
	}

	// dst with room: written in place, the rest of it untouched.
	long := make([]float64, len(v)+3)
	for i := range long {
		long[i] = sentinel
	}
	got := m.Values(long)
	switch {
	case len(got) != len(v) || &got[0] != &long[0]:
		r.Errorf("Values(dst) with len(dst) = %d ≥ %d did not return dst[:%d]", len(long), len(v), len(v))
	case !vec.SameBits(got, v):
		r.Errorf("Values(dst) = %v, Values(nil) = %v", got, v)
	}
	for i := len(v); i < len(long); i++ {
		if long[i] != sentinel {
			r.Errorf("Values(dst) wrote dst[%d] beyond the %d eigenvalues", i, len(v))
			break
		}
	}
	// dst without room (len too small, however large its capacity): a new slice.
	short := make([]float64, len(v)-1, 2*len(v)+2)
	for i := range short[:cap(short)] {
		short[:cap(short)][i] = sentinel
	}
	got = m.Values(short)
	if !vec.SameBits(got, v) {
		r.Errorf("Values(dst) with len(dst) = %d < %d: %v, want %v", len(short), len(v), got, v)
	}
	for _, x := range short[:cap(short)] {
		if x != sentinel {
			r.Errorf("Values(dst) with len(dst) = %d < %d wrote into dst's array", len(short), len(v))
			break
		}
	}

	// k ranges over [1, len(Values)].
	var sc mat.Dense
	if err := try(func() error { return m.Transform(&sc, P, len(v)) }); err != nil {
		r.Errorf("Transform with k = len(Values) = %d: %v", len(v), err)
	}
	if err := try(func() error { return m.Transform(&mat.Dense{}, P, len(v)+1) }); !errors.Is(err, ikpca.ErrArgument) {
		r.Errorf("Transform with k = len(Values)+1 = %d: %v, want an ErrArgument", len(v)+1, err)
	}
}

// wellConditioned returns the number of leading components the consistency check
// compares: those with λⱼ ≥ 1e-3·λ₁, at most 5 and at least 1. A score divides by √λⱼ
// (or its equivalent), so a component near zero amplifies rounding without bound.
func wellConditioned(v []float64) int {
	k := 1
	for k < min(len(v), 5) && v[k] >= 1e-3*v[0] {
		k++
	}
	return k
}

// checkConsistency: Transform agrees with the model's own decomposition, on the points
// it has seen (TrainingScores, Project) and on new ones (Project).
func checkConsistency(r reporter, s *Subject, m ikpca.Incremental, P *mat.Dense) {
	r.Helper()
	if s.TrainingScores == nil && s.Project == nil {
		r.Errorf("the Subject has neither TrainingScores nor Project: nothing to check Transform against")
		return
	}
	k := wellConditioned(m.Values(nil))
	tol := s.Tolerance
	if tol == 0 {
		tol = 1e-8
	}
	X, _ := s.data()
	X = s.seen(X)
	transform := func(Y mat.Matrix) *mat.Dense {
		var sc mat.Dense
		if err := try(func() error { return m.Transform(&sc, Y, k) }); err != nil {
			r.Errorf("Transform: %v", err)
			return nil
		}
		return &sc
	}
	if s.TrainingScores != nil {
		want, err := s.TrainingScores(m, k)
		if err != nil {
			r.Errorf("TrainingScores: %v", err)
		} else if got := transform(X); got != nil {
			compare(r, "Transform of the points seen against TrainingScores", got, want, tol)
		}
	}
	if s.Project != nil {
		for _, c := range []struct {
			what string
			Y    *mat.Dense
		}{{"the points seen", X}, {"new points", P}} {
			want, err := s.Project(m, c.Y, k)
			if err != nil {
				r.Errorf("Project of %s: %v", c.what, err)
			} else if got := transform(c.Y); got != nil {
				compare(r, "Transform of "+c.what+" against Project", got, want, tol)
			}
		}
	}
}

// compare reports where got differs from want by more than tol·max|want|.
func compare(r reporter, what string, got, want *mat.Dense, tol float64) {
	r.Helper()
	rg, cg := got.Dims()
	rw, cw := want.Dims()
	if rg != rw || cg != cw {
		r.Errorf("%s: %d×%d, want %d×%d", what, rg, cg, rw, cw)
		return
	}
	var scale float64
	for i := range rw {
		for j := range cw {
			scale = math.Max(scale, math.Abs(want.At(i, j)))
		}
	}
	for j := range cw {
		for i := range rw {
			if g, w := got.At(i, j), want.At(i, j); !(math.Abs(g-w) <= tol*scale) {
				r.Errorf("%s: component %d, point %d: %g, want %g (tolerance %.3g·%.3g)", what, j, i, g, w, tol, scale)
				break
			}
		}
	}
}

// checkSigns: each component's Signed vector has its first entry of largest magnitude
// (within a relative 1e-6) positive, as scikit-learn's svd_flip makes it.
func checkSigns(r reporter, s *Subject, m ikpca.Incremental, _ *mat.Dense) {
	r.Helper()
	if s.Signed == nil {
		r.Errorf("the Subject has no Signed hook: the sign convention cannot be checked")
		return
	}
	V, err := s.Signed(m)
	if err != nil {
		r.Errorf("Signed: %v", err)
		return
	}
	if _, c := V.Dims(); c != len(m.Values(nil)) {
		r.Errorf("Signed has %d columns, Values %d", c, len(m.Values(nil)))
		return
	}
	_, c := V.Dims()
	for j := range c {
		if sign.OfColumn(V, j) < 0 {
			r.Errorf("component %d: the largest-magnitude entry of its vector is negative", j)
		}
	}
}

// checkBadTransform: every bad argument to Transform is an error of the right kind and
// changes neither the model nor dst.
func checkBadTransform(r reporter, s *Subject, m ikpca.Incremental, P *mat.Dense) {
	r.Helper()
	p, d := P.Dims()
	n := len(m.Values(nil))
	before := capture(m, P)
	empty := func() *mat.Dense { return &mat.Dense{} }
	filled := func(r, c int) func() *mat.Dense {
		return func() *mat.Dense {
			a := mat.NewDense(r, c, nil)
			for i := range r {
				for j := range c {
					a.Set(i, j, sentinel)
				}
			}
			return a
		}
	}
	cases := []struct {
		what string
		X    mat.Matrix
		k    int
		dst  func() *mat.Dense
		want error
	}{
		{"a NaN coordinate", with(P, p/2, 0, math.NaN()), 1, filled(p, 1), ikpca.ErrNonFinite},
		{"a +Inf coordinate", with(P, p-1, d-1, math.Inf(1)), 1, empty, ikpca.ErrNonFinite},
		{"a −Inf coordinate", with(P, 0, d/2, math.Inf(-1)), n, filled(p, n), ikpca.ErrNonFinite},
		{"points with a column too many", mat.NewDense(p, d+1, nil), 1, empty, ikpca.ErrDimension},
		{"k = 0", P, 0, filled(p, 1), ikpca.ErrArgument},
		{"k < 0", P, -1, empty, ikpca.ErrArgument},
		{"k = len(Values)+1", P, n + 1, empty, ikpca.ErrArgument},
		{"a dst with a row too many", P, 1, filled(p+1, 1), ikpca.ErrDimension},
		{"a dst with a column too many", P, 1, filled(p, 2), ikpca.ErrDimension},
		{"a nil X", nil, 1, empty, ikpca.ErrArgument},
		{"a nil *mat.Dense X", (*mat.Dense)(nil), 1, empty, ikpca.ErrArgument},
		{"an X without rows", &mat.Dense{}, 1, empty, ikpca.ErrEmpty},
		{"a nil dst", P, 1, func() *mat.Dense { return nil }, ikpca.ErrArgument},
	}
	if d > 1 {
		cases = append(cases, struct {
			what string
			X    mat.Matrix
			k    int
			dst  func() *mat.Dense
			want error
		}{"points with a column too few", P.Slice(0, p, 0, d-1), 1, empty, ikpca.ErrDimension})
	}
	for _, c := range cases {
		dst := c.dst()
		var saved *mat.Dense
		if dst != nil {
			saved = mat.DenseCopyOf(dst)
			if dst.IsEmpty() {
				saved = &mat.Dense{}
			}
		}
		err := try(func() error { return m.Transform(dst, c.X, c.k) })
		if !errors.Is(err, c.want) {
			r.Errorf("Transform with %s: %v, want an error that wraps %v", c.what, err, c.want)
		}
		if dst != nil && !sameDense(dst, saved) {
			r.Errorf("Transform with %s changed dst", c.what)
		}
		if diff := before.diff(capture(m, P), true); diff != "" {
			r.Errorf("Transform with %s changed the model: %s", c.what, diff)
		}
	}
}

// with returns a copy of A with entry (i, j) set to v.
func with(A *mat.Dense, i, j int, v float64) *mat.Dense {
	B := mat.DenseCopyOf(A)
	B.Set(i, j, v)
	return B
}

// checkBadAdd: every bad point or batch is an error of the right kind and leaves the
// model as it was; the model then still takes a good point.
func checkBadAdd(r reporter, s *Subject, m ikpca.Incremental, P *mat.Dense) {
	r.Helper()
	p, d := P.Dims()
	point := func(j int, v float64) []float64 {
		x := append([]float64(nil), P.RawRowView(0)...)
		x[j] = v
		return x
	}
	type call struct {
		what string
		f    func() error
		want error
	}
	calls := []call{
		{"a NaN coordinate", func() error { return m.Add(point(0, math.NaN())) }, ikpca.ErrNonFinite},
		{"a +Inf coordinate", func() error { return m.Add(point(d-1, math.Inf(1))) }, ikpca.ErrNonFinite},
		{"a −Inf coordinate", func() error { return m.Add(point(d/2, math.Inf(-1))) }, ikpca.ErrNonFinite},
		{"a point too long", func() error { return m.Add(append(point(0, 0), 1)) }, ikpca.ErrDimension},
		{"a point too short", func() error { return m.Add(point(0, 0)[:d-1]) }, ikpca.ErrDimension},
		{"a nil point", func() error { return m.Add(nil) }, ikpca.ErrDimension},
	}
	calls = append(calls,
		call{"a batch with a NaN in its last row", func() error { return m.AddBatch(with(P, p-1, 0, math.NaN())) }, ikpca.ErrNonFinite},
		call{"a batch with an Inf in its first row", func() error { return m.AddBatch(with(P, 0, d-1, math.Inf(1))) }, ikpca.ErrNonFinite},
		call{"a batch with a column too many", func() error { return m.AddBatch(mat.NewDense(p, d+1, nil)) }, ikpca.ErrDimension},
		call{"a nil batch", func() error { return m.AddBatch(nil) }, ikpca.ErrArgument},
		call{"a nil *mat.Dense batch", func() error { return m.AddBatch((*mat.Dense)(nil)) }, ikpca.ErrArgument},
		call{"a batch without rows", func() error { return m.AddBatch(&mat.Dense{}) }, ikpca.ErrEmpty},
	)
	for _, c := range calls {
		before := capture(m, P)
		if err := try(c.f); !errors.Is(err, c.want) {
			r.Errorf("Add of %s: %v, want an error that wraps %v", c.what, err, c.want)
		}
		if diff := before.diff(capture(m, P), true); diff != "" {
			r.Errorf("Add of %s changed the model: %s", c.what, diff)
		}
	}
	n := m.Len()
	if err := try(func() error { return m.Add(P.RawRowView(0)) }); err != nil || m.Len() != s.size(n+1) {
		r.Errorf("a good point after the bad ones: %v, Len %d → %d", err, n, m.Len())
	}
}

// checkGrowth: Len and Dim are right after New and after every point added, and Bytes
// is positive and (unless the model bounds its memory) never falls; AddBatch adds every
// row.
func checkGrowth(r reporter, s *Subject, _ ikpca.Incremental, _ *mat.Dense) {
	r.Helper()
	X, start := s.data()
	n, d := X.Dims()
	fresh := func() (ikpca.Incremental, bool) {
		var m ikpca.Incremental
		if err := try(func() (err error) { m, err = s.New(mat.DenseCopyOf(X.Slice(0, start, 0, d))); return err }); err != nil {
			r.Errorf("New of %d points: %v", start, err)
			return nil, false
		}
		return m, true
	}
	m, ok := fresh()
	if !ok {
		return
	}
	sizes := func(when string, want int) int {
		if m.Len() != want || m.Dim() != d {
			r.Errorf("%s: Len %d, Dim %d; want %d and %d", when, m.Len(), m.Dim(), want, d)
		}
		b := m.Bytes()
		if b <= 0 {
			r.Errorf("%s: Bytes %d", when, b)
		}
		return b
	}
	prev := sizes("after New", s.size(start))
	for i := start; i < n; i++ {
		if err := try(func() error { return m.Add(X.RawRowView(i)) }); err != nil {
			r.Errorf("Add of point %d: %v", i, err)
			return
		}
		b := sizes("after point "+strconv.Itoa(i), s.size(i+1))
		if !s.Bounded && s.Window <= 0 && b < prev {
			r.Errorf("after point %d: Bytes fell from %d to %d", i, prev, b)
		}
		prev = b
	}
	if len(m.Values(nil)) == 0 {
		r.Errorf("no eigenvalues after %d points", n)
	}
	if start == n {
		return
	}
	if m, ok = fresh(); !ok {
		return
	}
	if err := try(func() error { return m.AddBatch(X.Slice(start, n, 0, d)) }); err != nil {
		r.Errorf("AddBatch of points %d to %d: %v", start, n-1, err)
		return
	}
	sizes("after AddBatch", s.size(n))
}
