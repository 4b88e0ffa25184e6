package stream

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
)

// TestOnlineAddBatch: KRQA's and KHA's AddBatch is Add of each row in order, bit for bit
// (the same values and scores); and it is all or nothing — a batch with a row whose
// kernel value is not finite (coordinates of 1e200 under a quadratic kernel: 1e400
// overflows), which only adding the row reveals, leaves the model exactly as it was,
// its encoding the same bytes, whether the batch would have started the iteration or
// not, and the model goes on as if the batch had never come.
func TestOnlineAddBatch(t *testing.T) {
	X := toy(40, 21)
	Y := X.Slice(30, 40, 0, 2)
	quadratic := kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}
	for _, c := range []struct {
		name string
		new  func() onlineModel
	}{
		{"KRQA", func() onlineModel {
			m, _ := NewKRQA(quadratic, 2, KRQAOptions{Components: 3, Seed: 2})
			return m
		}},
		{"KRQA, uncentred", func() onlineModel {
			m, _ := NewKRQA(quadratic, 2, KRQAOptions{Components: 2, Seed: 2, Uncentred: true})
			return m
		}},
		{"KHA", func() onlineModel {
			m, _ := NewKHA(quadratic, 2, KHAOptions{Components: 3, Rate: 0.02, Seed: 2})
			return m
		}},
	} {
		one, batch := c.new(), c.new()
		testmat.AddRows(t, one, X, 0, 25)
		if err := batch.AddBatch(X.Slice(0, 25, 0, 2)); err != nil {
			t.Fatal(err)
		}
		wiretest.SameModel(t, c.name+": AddBatch against Add", one, batch, Y)

		for _, start := range []int{0, 2, 25} { // before, across and after the start
			m, ref := c.new(), c.new()
			for _, model := range []onlineModel{m, ref} {
				if start > 0 {
					if err := model.AddBatch(X.Slice(0, start, 0, 2)); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := wiretest.Marshal(t, m)
			bad := mat.DenseCopyOf(X.Slice(start, start+6, 0, 2))
			bad.Set(4, 0, 1e200)
			bad.Set(4, 1, 1e200)
			if err := m.AddBatch(bad); !errors.Is(err, ErrNonFinite) || !errors.Is(err, ikpca.ErrNonFinite) {
				t.Errorf("%s, %d points: a batch with an overflowing kernel value: %v, want ErrNonFinite", c.name, start, err)
			}
			if after, _ := m.MarshalBinary(); !bytes.Equal(before, after) {
				t.Errorf("%s, %d points: the refused batch changed the model", c.name, start)
			}
			for _, model := range []onlineModel{m, ref} {
				batchPass(t, model, X.Slice(start, 30, 0, 2))
			}
			wiretest.SameModel(t, c.name+": after a refused batch", m, ref, Y)
		}
	}
}

// TestKHAScaleFree: KHA's values and scores depend on the directions, not on the scale
// of their coefficients, bit for bit: coefficients multiplied by 2⁶⁰⁰ — whose squares
// would overflow — read exactly as before (the reads scale by powers of two, exactly).
func TestKHAScaleFree(t *testing.T) {
	X := toy(40, 22)
	m, err := NewKHA(kernel.RBF{Sigma: 1}, 2, KHAOptions{Components: 3, Rate: 0.05, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBatch(X.Slice(0, 30, 0, 2)); err != nil {
		t.Fatal(err)
	}
	big, err := NewKHA(kernel.RBF{Sigma: 1}, 2, KHAOptions{Components: 3, Rate: 0.05, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	_ = big.AddBatch(X.Slice(0, 30, 0, 2))
	for _, a := range big.alpha {
		for l := range a {
			a[l] = math.Ldexp(a[l], 600)
		}
	}
	wiretest.SameModel(t, "coefficients times 2⁶⁰⁰", m, big, X.Slice(30, 40, 0, 2))
}
