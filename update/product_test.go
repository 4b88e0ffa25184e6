package update

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/synth"
)

// TestProductFollowsBorder grows a kernel matrix of Yeast points (with duplicates, so
// that deflation and rotations occur) and carries P = B·U with B the kernel columns of
// all points against the growing set: P must equal B·U computed directly at every step.
func TestProductFollowsBorder(t *testing.T) {
	y := data.Yeast().X
	const n, m = 400, 150 // all points, landmarks
	// Point i is Yeast row i mod 97: from landmark 97 on every new landmark repeats one.
	x := mat.NewDense(n, 8, nil)
	for i := range n {
		x.SetRow(i, y.RawRowView(i%97))
	}
	// A wide bandwidth: the spectrum decays fast and its tiny eigenvalues cluster, so close
	// poles deflate by rotation too.
	sigma := 4 * medianDistance(t, y)
	k := rbf(x, sigma) // B = k[:, :m]
	kd := mat.DenseCopyOf(k)
	var s Sym
	var p Product
	p.Reset(n)
	b := make([]float64, n)
	var deflated, rotated int
	for j := range m {
		for i := range n {
			b[i] = k.At(i, j)
		}
		if err := s.BorderWith(vd(column(k, j, j)), k.At(j, j), &p, vd(b)); err != nil {
			t.Fatalf("step %d: %v", j, err)
		}
		deflated += s.Stats().Deflated
		rotated += s.Stats().Rotated
		if j%25 != 24 && j > 3 {
			continue
		}
		var want mat.Dense
		want.Mul(kd.Slice(0, n, 0, j+1), s.Vectors())
		var got mat.Dense
		p.To(&got)
		var diff mat.Dense
		diff.Sub(&got, &want)
		if e := mat.Norm(&diff, 2) / mat.Norm(&want, 2); e > 1e-13 {
			t.Errorf("step %d: ‖P − B·U‖/‖B·U‖ = %.3g", j, e)
		}
	}
	// Deflation by small weights is certain here (hundreds of numerically zero
	// eigenvalues); deflation by rotation is not — whether two tiny poles fall within the
	// tolerance of each other is decided by rounding (one rotation on the machine this was
	// measured on) — so TestProductFollowsRotation covers it on exactly equal poles.
	if deflated == 0 {
		t.Errorf("no deflation exercised (%d deflated, %d rotated)", deflated, rotated)
	}
	t.Logf("%d steps, %d deflated (%d rotated)", m, deflated, rotated)
}

// TestProductFollowsRotation borders diag(1, 1, 2), whose equal poles 1, 1 make the
// deflation by a Givens rotation certain (LAPACK returns a diagonal matrix's eigenvalues
// and the identity exactly), and the zero third weight a deflation by a small weight;
// P must still equal [B, b]·U.
func TestProductFollowsRotation(t *testing.T) {
	var s Sym
	if err := s.Factorize(mat.NewSymDense(3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 2})); err != nil {
		t.Fatal(err)
	}
	bOld := mat.NewDense(2, 3, []float64{0.3, -1.2, 0.7, 2.1, 0.4, -0.9})
	var p Product
	if err := p.Mul(bOld, &s); err != nil {
		t.Fatal(err)
	}
	b := []float64{0.5, -1.5}
	if err := s.BorderWith(vd([]float64{1, 1, 0}), 0.25, &p, vd(b)); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Rotated == 0 || st.Deflated < 2 {
		t.Fatalf("stats %+v: the equal poles were not rotated, or the zero weight not deflated", st)
	}
	bNew := mat.NewDense(2, 4, []float64{0.3, -1.2, 0.7, 0.5, 2.1, 0.4, -0.9, -1.5})
	var want, got, diff mat.Dense
	want.Mul(bNew, s.Vectors())
	p.To(&got)
	diff.Sub(&got, &want)
	// Entries of size ≤ 3 from sums of 4 products: 1e-14 is about 20 ε times their size.
	if e := mat.Norm(&diff, math.Inf(1)); e > 1e-14 {
		t.Errorf("‖P − [B, b]·U‖ = %.3g after a rotation", e)
	}
	checkSym(t, "rotation", &s, mat.NewSymDense(4, []float64{1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 2, 0, 1, 1, 0, 0.25}), 4)
}

// TestProductErrors: bad arguments to BorderWith leave the Sym and the product as they were.
func TestProductErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	a := synth.RandomSym(6, rng)
	var s Sym
	if err := s.Factorize(synth.Leading(a, 5)); err != nil {
		t.Fatal(err)
	}
	var p Product
	if err := p.Mul(mat.NewDense(3, 5, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}), &s); err != nil {
		t.Fatal(err)
	}
	if err := p.Mul(mat.NewDense(3, 4, nil), &s); !errors.Is(err, ErrDimension) {
		t.Errorf("Reset with wrong width: %v", err)
	}
	before, pb := snap(&s), append([]float64(nil), p.p[:15]...)
	col := column(a, 5, 5)
	for _, c := range []struct {
		b    []float64
		want error
	}{{[]float64{1, 2}, ErrDimension}, {[]float64{1, math.NaN(), 3}, ErrNonFinite}} {
		if err := s.BorderWith(vd(col), a.At(5, 5), &p, vd(c.b)); !errors.Is(err, c.want) {
			t.Errorf("b = %v: got %v, want %v", c.b, err, c.want)
		}
	}
	if !snap(&s).equal(before) || p.n != 5 || !equalF(p.p[:15], pb) {
		t.Fatal("state changed")
	}
	if err := s.BorderWith(vd(col), a.At(5, 5), &p, vd([]float64{1, 2, 3})); err != nil {
		t.Fatal(err)
	}
	if r, c := p.Dims(); r != 3 || c != 6 {
		t.Errorf("dims %d×%d", r, c)
	}
}

func equalF(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
