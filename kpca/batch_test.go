package kpca

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

// nanAfter is an RBF kernel whose value is NaN for any point whose first coordinate is
// above a threshold: a block step that fails part-way through AddBatch.
type nanAfter struct {
	rbf       kernel.RBF
	threshold float64
}

func (k nanAfter) Eval(x, y []float64) float64 {
	if x[0] > k.threshold || y[0] > k.threshold {
		return math.NaN()
	}
	return k.rbf.Eval(x, y)
}

// TestAddBatchRollback checks that an AddBatch at rank r whose later block fails — a
// kernel value that is not finite, found after earlier blocks were added — leaves the
// model as it was, bit for bit (its encoding), though its txn (scopeAppend) keeps no
// copy of the points.
func TestAddBatchRollback(t *testing.T) {
	x, k := sample(t, "yeast", 400)
	for _, opts := range []Options{{Components: 3, Rank: 6, Block: 16}, {Components: 3, Rank: 6, Block: 1}} {
		md := fitModel(t, k, x.Slice(0, 100, 0, 8), opts)
		before := encode(t, md)
		// Row 250 of x gets a first coordinate above every other: its block fails.
		X := mat.DenseCopyOf(x.Slice(100, 400, 0, 8))
		X.Set(150, 0, 1e6)
		md.kern = nanAfter{k, 1e5}
		err := md.AddBatch(X)
		if !errors.Is(err, ErrNonFinite) {
			t.Fatalf("%+v: AddBatch: %v, want ErrNonFinite", opts, err)
		}
		md.kern = k
		if after := encode(t, md); !bytes.Equal(before, after) {
			t.Errorf("%+v: the model changed after a failed AddBatch", opts)
		}
		if md.Len() != 100 {
			t.Errorf("%+v: %d points after a failed AddBatch, want 100", opts, md.Len())
		}
	}
}
