package modeltest

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
)

// checkCentring: Centred reports what the Subject's options ask for, and a centring
// model's scores of the points it has seen sum to zero on every component checked.
//
// For a centring model the score of x on component j is ⟨vⱼ, φ(x) − μ⟩ with μ the mean
// of the n points seen, so Σᵢ⟨vⱼ, φ(xᵢ) − μ⟩ = ⟨vⱼ, Σᵢφ(xᵢ) − n·μ⟩ = 0 whatever vⱼ is:
// the check holds for approximate components as for exact ones, and fails by the mean
// score — of the order of the scores themselves — for a model that does not subtract the
// mean, or subtracts the wrong one.
func checkCentring(r reporter, s *Subject, m ikpca.Incremental, _ *mat.Dense) {
	r.Helper()
	if m.Centred() == s.Uncentred {
		r.Errorf("Centred() = %v, but the Subject's options ask for Uncentred = %v (every model centres by default)", m.Centred(), s.Uncentred)
		return
	}
	if !m.Centred() {
		return
	}
	X, _ := s.data()
	X = s.seen(X)
	k := wellConditioned(m.Values(nil))
	var sc mat.Dense
	if err := try(func() error { return m.Transform(&sc, X, k) }); err != nil {
		r.Errorf("Transform of the points seen: %v", err)
		return
	}
	tol := s.CentringTolerance
	if tol == 0 {
		tol = 1e-10
	}
	n, _ := sc.Dims()
	for j := range k {
		var sum, abs float64
		for i := range n {
			sum += sc.At(i, j)
			abs += math.Abs(sc.At(i, j))
		}
		if !(math.Abs(sum) <= tol*abs) {
			r.Errorf("component %d: the scores of the %d points seen sum to %g, not zero (Σ|s| = %g, tolerance %.3g): the model does not centre on their mean", j, n, sum, abs, tol)
		}
	}
}

// checkRemove: for an ikpca.Decremental model, an index out of range is an ErrArgument
// that changes nothing; removing a point gives the model of the other points; the model
// takes points again afterwards.
func checkRemove(r reporter, s *Subject, m ikpca.Incremental, P *mat.Dense) {
	r.Helper()
	dm, ok := m.(ikpca.Decremental)
	if !ok {
		r.Skipf("%T does not forget points: it is not an ikpca.Decremental", m)
		return
	}
	n := dm.Len()
	for _, i := range []int{-1, n, n + 3} {
		before := capture(dm, P)
		if err := try(func() error { return dm.Remove(i) }); !errors.Is(err, ikpca.ErrArgument) {
			r.Errorf("Remove(%d) of %d points: %v, want an error that wraps %v", i, n, err, ikpca.ErrArgument)
		}
		if diff := before.diff(capture(dm, P), true); diff != "" {
			r.Errorf("Remove(%d) of %d points changed the model: %s", i, n, diff)
		}
	}

	X, _ := s.data()
	X = s.seen(X)
	_, d := X.Dims()
	i := n / 3
	if err := try(func() error { return dm.Remove(i) }); err != nil {
		r.Errorf("Remove(%d) of %d points: %v", i, n, err)
		return
	}
	if dm.Len() != n-1 {
		r.Errorf("Remove(%d): Len %d, want %d", i, dm.Len(), n-1)
	}
	others := mat.NewDense(n-1, d, nil)
	for q, row := 0, 0; row < n; row++ {
		if row != i {
			others.SetRow(q, X.RawRowView(row))
			q++
		}
	}
	var ref ikpca.Incremental
	if err := try(func() (err error) { ref, err = s.New(others); return err }); err != nil {
		r.Errorf("New of the %d points left: %v", n-1, err)
		return
	}
	got, want := dm.Values(nil), ref.Values(nil)
	if len(got) == 0 || len(want) == 0 {
		r.Errorf("after Remove: %d eigenvalues, the model of the points left %d", len(got), len(want))
		return
	}
	tol := s.RemoveTolerance
	if tol == 0 {
		tol = 1e-8
	}
	for j := range min(len(got), len(want)) {
		if !(math.Abs(got[j]-want[j]) <= tol*want[0]) {
			r.Errorf("after Remove(%d): λ%d = %g, the model of the points left has %g (tolerance %.3g·λ₁)", i, j, got[j], want[j], tol)
			break
		}
	}
	if err := try(func() error { return dm.Add(P.RawRowView(0)) }); err != nil || dm.Len() != s.size(n) {
		r.Errorf("Add after Remove: %v, Len %d, want %d", err, dm.Len(), s.size(n))
	}
}
