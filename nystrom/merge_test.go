package nystrom

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
)

// sumsDiff returns the largest difference between the sums of a and b, each entry
// relative to its Cauchy–Schwarz bound on Σ|terms| — √(SᵢᵢSⱼⱼ) for Σ(φ−c)ᵢ(φ−c)ⱼ and
// √(n·Sᵢᵢ) for Σ(φ−c)ᵢ — the scale of the summation error bound.
func sumsDiff(a, b *Model) float64 {
	p := a.p
	var worst float64
	for i := range p {
		sii := a.sq.at(i, i)
		if sii == 0 {
			continue
		}
		worst = math.Max(worst, math.Abs(a.sum.hi[i]+a.sum.lo[i]-b.sum.hi[i]-b.sum.lo[i])/math.Sqrt(float64(a.n)*sii))
		for j := i; j < p; j++ {
			worst = math.Max(worst, math.Abs(a.sq.at(i, j)-b.sq.at(i, j))/math.Sqrt(sii*a.sq.at(j, j)))
		}
	}
	return worst
}

// merged returns the model of the rows of X split at the given rows, each part summed
// by add into a model of its own (Empty), then merged left to right.
func merged(t *testing.T, proto *Model, X *mat.Dense, add func(*Model, *mat.Dense) error, cuts ...int) *Model {
	t.Helper()
	n, _ := X.Dims()
	bounds := append(append([]int{0}, cuts...), n)
	out := proto.Empty()
	for i := range len(bounds) - 1 {
		part := proto.Empty()
		if err := add(part, rows(X, bounds[i], bounds[i+1])); err != nil {
			t.Fatal(err)
		}
		if err := out.Merge(part); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func addBatch(m *Model, X *mat.Dense) error { return m.AddBatch(X) }

func addEach(m *Model, X *mat.Dense) error {
	n, _ := X.Dims()
	for i := range n {
		if err := m.Add(X.RawRowView(i)); err != nil {
			return err
		}
	}
	return nil
}

// TestMerge: merging the models of parts of a data set equals one pass over all of it,
// in either merge order, on MAGIC (10,000 points), Yeast (1,484) and a9a (32,561
// points, 123 binary columns), Gaussian kernel, 100 uniform landmarks.
//
// Sums: the compensated sums of a part and of a merge err by at most 2ε|S| + (b·ε +
// 2Nε²)·Σ|terms| per entry (b = 64 rows summed plainly by a dsyrk, 1 by Add), so one
// pass and any merge order differ by at most 4ε|S| + 2(64ε + 2Nε²)·Σ|terms| ≤ 1.5e-14
// of the Cauchy–Schwarz bound on Σ|terms|, when the points' features are the same bits.
// They are when both go through the same route (measured 2e-16; a dgemm's rows do not
// depend on where a block starts), and the test asks 1e-12 there. Add's dgemv and
// AddBatch's dgemm may round a point's features differently in the last bits, which
// coordinates along small eigenvalues of K_LL amplify (measured 3e-13 of the bound
// with OpenBLAS on Yeast, whose smallest σⱼ kept is 2e-7·σ₁): routes that mix are
// compared at the eigenvalue level only.
//
// Eigenvalues: |Δλⱼ| ≤ ‖ΔC‖₂, a few ε·‖S‖ (measured below 2e-15·λ₁): 1e-12·λ₁.
func TestMerge(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
	}{{"magic", 10000}, {"yeast", 0}, {"a9a", 0}} {
		t.Run(c.name, func(t *testing.T) {
			X := points(t, c.name, c.n, 7)
			n, _ := X.Dims()
			if testing.Short() {
				n = min(n, 3000)
				X = rows(X, 0, n)
			}
			k := rbfMedian(t, X)
			L, err := Choose(k, X, Options{Landmarks: 100, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			one := fit(t, k, L, X, Options{})
			want := one.Values(nil)
			if len(want) != one.Features() || one.Features() < 90 {
				t.Fatalf("%d values, %d features (a9a's duplicate rows may make a few landmarks coincide)", len(want), one.Features())
			}
			h, third := n/2+13, n/3+5
			for _, v := range []struct {
				what  string
				m     *Model
				sums  bool   // same route as one: compare the sums too
				other *Model // a second model the first must equal (another merge order)
			}{
				{"two halves by AddBatch", merged(t, one, X, addBatch, h), true, nil},
				{"((a+b)+c) by AddBatch", merged(t, one, X, addBatch, third, 2*third), true, nil},
				{"(a+(b+c)) by AddBatch", func() *Model {
					bc := merged(t, one, rows(X, third, n), addBatch, third)
					a := one.Empty()
					if err := a.AddBatch(rows(X, 0, third)); err != nil {
						t.Fatal(err)
					}
					if err := a.Merge(bc); err != nil {
						t.Fatal(err)
					}
					return a
				}(), true, merged(t, one, X, addBatch, third, 2*third)},
				{"a half by Add, a half by AddBatch", func() *Model {
					a := merged(t, one, rows(X, 0, h), addEach)
					b := merged(t, one, rows(X, h, n), addBatch)
					if err := b.Merge(a); err != nil { // the other order
						t.Fatal(err)
					}
					return b
				}(), false, nil},
			} {
				if v.m.Len() != n {
					t.Fatalf("%s: %d points, want %d", v.what, v.m.Len(), n)
				}
				if v.sums {
					if d := sumsDiff(one, v.m); d > 1e-12 {
						t.Errorf("%s: sums differ from one pass's by %.3g of their bound", v.what, d)
					} else {
						t.Logf("%s: sums within %.3g of their bound", v.what, d)
					}
				}
				if v.other != nil {
					if d := sumsDiff(v.other, v.m); d > 1e-12 {
						t.Errorf("%s: sums differ from the other merge order's by %.3g of their bound", v.what, d)
					}
					if d := maxRelDiff(v.other.Values(nil), v.m.Values(nil), want[0]); d > 1e-12 {
						t.Errorf("%s: eigenvalues differ from the other merge order's by %.3g·λ₁", v.what, d)
					}
				}
				if d := maxRelDiff(v.m.Values(nil), want, want[0]); d > 1e-12 {
					t.Errorf("%s: eigenvalues differ from one pass's by %.3g·λ₁", v.what, d)
				} else {
					t.Logf("%s: eigenvalues within %.3g·λ₁", v.what, d)
				}
			}
		})
	}
}

// TestMergeUncentred: an uncentred model merges as a centred one does — its sums are
// Σφ and Σφφᵀ themselves (no shift) — so halves and thirds merged equal one pass over
// Yeast, to the bounds of TestMerge: sums within 1e-12 of their Cauchy–Schwarz bound
// (the same route, AddBatch), eigenvalues within 1e-12·λ₁.
func TestMergeUncentred(t *testing.T) {
	X := points(t, "yeast", 0, 7)
	n, _ := X.Dims()
	k := rbfMedian(t, X)
	L, err := Choose(k, X, Options{Landmarks: 60, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	one := fit(t, k, L, X, Options{Uncentred: true})
	want := one.Values(nil)
	if len(want) != one.Features() {
		t.Fatalf("%d values of %d features", len(want), one.Features())
	}
	for _, cuts := range [][]int{{n / 2}, {n / 3, 2 * n / 3}} {
		m := merged(t, one, X, addBatch, cuts...)
		if d := sumsDiff(one, m); d > 1e-12 {
			t.Errorf("cut at %v: sums differ from one pass's by %.3g of their bound", cuts, d)
		}
		if d := maxRelDiff(m.Values(nil), want, want[0]); d > 1e-12 {
			t.Errorf("cut at %v: eigenvalues differ from one pass's by %.3g·λ₁", cuts, d)
		}
	}
}

// TestMergeRefused: models that cannot be merged — nil, the model itself, another
// kernel, other landmarks (one bit), another tolerance or centring, another feature map, too many
// points in all — are refused with an ErrArgument and change nothing; sums that would
// overflow are an ErrNonFinite.
func TestMergeRefused(t *testing.T) {
	X := points(t, "yeast", 120, 3)
	k := rbfMedian(t, X)
	L := rows(X, 0, 20)
	m := fit(t, k, L, rows(X, 20, 80), Options{})
	other := func(k kernel.Kernel, L *mat.Dense, opts Options) *Model { return fit(t, k, L, rows(X, 80, 120), opts) }
	nudged := mat.DenseCopyOf(L)
	nudged.Set(3, 2, math.Nextafter(nudged.At(3, 2), 1))
	mapped := other(k, L, Options{})
	mapped.f = append([]float64(nil), mapped.f...)
	mapped.f[7] = math.Nextafter(mapped.f[7], 0)
	full := other(k, L, Options{})
	full.n = maxPoints - m.n + 1
	for _, c := range []struct {
		what string
		o    *Model
		want error
	}{
		{"nil", nil, ikpca.ErrArgument},
		{"itself", m, ikpca.ErrArgument},
		{"another σ", other(kernel.RBF{Sigma: k.Sigma * 1.01}, L, Options{}), ikpca.ErrArgument},
		{"another kernel", other(kernel.Laplacian{Sigma: k.Sigma}, L, Options{}), ikpca.ErrArgument},
		{"a landmark one bit off", other(k, nudged, Options{}), ikpca.ErrArgument},
		{"fewer landmarks", other(k, rows(L, 0, 19), Options{}), ikpca.ErrArgument},
		{"another tolerance", other(k, L, Options{Tolerance: 1e-10}), ikpca.ErrArgument},
		{"an uncentred model", other(k, L, Options{Uncentred: true}), ikpca.ErrArgument},
		{"another feature map", mapped, ikpca.ErrArgument},
		{"too many points", full, ikpca.ErrArgument},
	} {
		before, n := m.Values(nil), m.Len()
		err := m.Merge(c.o)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, err, c.want)
		}
		if !vec.SameBits(before, m.Values(nil)) || m.Len() != n {
			t.Errorf("%s: the refused merge changed the model", c.what)
		}
	}
	// Two models whose sums of squares are each ¾ of the bound: the second merge
	// would take them beyond it.
	big := m.Empty()
	for i := range 2 {
		o := other(k, L, Options{})
		o.sq.hi[0] = 0.75 * sumLimit
		err := big.Merge(o)
		if i == 0 && err != nil || i == 1 && !errors.Is(err, ikpca.ErrNonFinite) {
			t.Errorf("merge %d of sums of ¾ the bound: %v", i, err)
		}
	}
	if big.Len() != 40 {
		t.Errorf("%d points after a refused merge, want 40", big.Len())
	}
	// The same landmarks through New in the same process: the same map, mergeable.
	if err := m.Merge(other(k, mat.DenseCopyOf(L), Options{Seed: 9, Strategy: Greedy})); err != nil {
		t.Errorf("a model of the same landmarks: %v", err)
	}
	if m.Len() != 100 {
		t.Errorf("%d points after the merge, want 100", m.Len())
	}
}

// TestReset: a model that held points and is Reset is the model Empty returns — no
// points, no values — and the same points then give it the same sums and values bit
// for bit (the same calls on the same map), centred and uncentred; Reset allocates
// nothing, and does nothing to a zero Model.
func TestReset(t *testing.T) {
	X := points(t, "magic", 400, 6)
	k := rbfMedian(t, X)
	for _, uncentred := range []bool{false, true} {
		m := fit(t, k, rows(X, 0, 60), rows(X, 60, 260), Options{Uncentred: uncentred})
		if allocs := testing.AllocsPerRun(5, m.Reset); allocs != 0 {
			t.Errorf("uncentred %v: Reset allocates %v times", uncentred, allocs)
		}
		if m.Len() != 0 || len(m.Values(nil)) != 0 {
			t.Fatalf("uncentred %v: after Reset %d points, values %v", uncentred, m.Len(), m.Values(nil))
		}
		e := m.Empty()
		for _, a := range []*Model{m, e} {
			if err := a.AddBatch(rows(X, 260, 400)); err != nil {
				t.Fatal(err)
			}
		}
		same := vec.SameBits(m.sum.hi, e.sum.hi) && vec.SameBits(m.sum.lo, e.sum.lo) && vec.SameBits(m.sq.hi, e.sq.hi) && vec.SameBits(m.sq.lo, e.sq.lo)
		if m.Len() != 140 || !same || !vec.SameBits(m.Values(nil), e.Values(nil)) {
			t.Errorf("uncentred %v: reset model of %d points, the same sums %v, values %v; Empty's %d, %v", uncentred, m.Len(), same, m.Values(nil), e.Len(), e.Values(nil))
		}
	}
	var zero Model
	zero.Reset()
	if zero.Len() != 0 {
		t.Error("a zero Model has points after Reset")
	}
}
