package kpca

import (
	"errors"
	"testing"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/update"
)

// TestUpdateErrorKinds: an error of package update (here the secular root finder's
// non-convergence, forced by an iteration cap of one) reaches the caller of Add wrapped
// by kpca's sentinel of its kind and still wraps its ikpca kind, for each method; and the
// model is left as it was.
func TestUpdateErrorKinds(t *testing.T) {
	x := points(t, "yeast", 40)
	k := rbfMedian(t, x)
	capped := update.Options{MaxIterations: 1}
	for _, opts := range []Options{
		{Components: All, Update: capped},
		{Components: 5, Rank: 5, Update: capped},
	} {
		md := fitModel(t, k, x.Slice(0, 10, 0, 8), opts)
		var err error
		for i := 10; i < 40 && err == nil; i++ {
			before := md.Len()
			if err = md.Add(x.RawRowView(i)); err != nil && md.Len() != before {
				t.Errorf("%+v: a failed Add changed the number of points", opts)
			}
		}
		if !errors.Is(err, ikpca.ErrNotConverged) || !errors.Is(err, ErrNotConverged) {
			t.Errorf("%+v: Add with one root-finder iteration = %v, want an error wrapping ikpca.ErrNotConverged and kpca's", opts, err)
		}
	}
}
