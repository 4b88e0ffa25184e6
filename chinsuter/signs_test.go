package chinsuter_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// TestSignsAcrossMethods: the exact form gives the scores of kpca.Model — signs
// included, with no alignment in the test — whether it is fitted at once, a point at a
// time or in chunks: both fix each component's sign by the training scores' largest
// entry.
func TestSignsAcrossMethods(t *testing.T) {
	const n, k = 150, 4
	X := synth.Toy(n+10, rand.New(rand.NewPCG(3, 7)))
	train := X.Slice(0, n, 0, 2)
	kern := kernel.RBF{Sigma: 0.5}
	ref, err := kpca.Fit(kern, train, kpca.Options{Components: kpca.All})
	if err != nil {
		t.Fatal(err)
	}
	vals := ref.Values(nil)
	gap := math.Inf(1)
	for j := range k {
		gap = math.Min(gap, (vals[j]-vals[j+1])/vals[0])
	}
	// A point at a time, the exact form's scores drift from batch kernel PCA's by about
	// 1e-10 of the largest after these 150 updates (each SVD of F loses a little
	// orthogonality; see Orthogonality), on components separated by a relative gap of
	// at least 1e-3. 1e-8 leaves a margin of 100 over that and is far below a flipped
	// sign, an error of twice the score.
	if gap < 1e-3 {
		t.Fatalf("the top %d components are not separated (relative gap %.3g)", k, gap)
	}
	const tol = 1e-8
	var want mat.Dense
	if err := ref.Transform(&want, X, k); err != nil {
		t.Fatal(err)
	}
	scale := mat.Norm(&want, math.Inf(1))

	once, err := chinsuter.Fit(kern, train, chinsuter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	each, err := chinsuter.Fit(kern, X.Slice(0, 2, 0, 2), chinsuter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	testmat.AddRows(t, each, X, 2, n)
	chunks, err := chinsuter.Fit(kern, X.Slice(0, 10, 0, 2), chinsuter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 10; i < n; i += 20 {
		if err := chunks.AddBatch(X.Slice(i, min(i+20, n), 0, 2)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		md   *chinsuter.Model
	}{{"at once", once}, {"a point at a time", each}, {"in chunks", chunks}} {
		var got mat.Dense
		if err := c.md.Transform(&got, X, k); err != nil {
			t.Fatal(err)
		}
		var worst float64
		for i := range n + 10 {
			for j := range k {
				worst = math.Max(worst, math.Abs(got.At(i, j)-want.At(i, j)))
			}
		}
		t.Logf("%s: largest difference from kpca's scores %.3g (scale %.3g)", c.name, worst, scale)
		if !(worst <= tol*scale) {
			t.Errorf("%s: scores differ from kpca's by %.3g > %.3g", c.name, worst, tol*scale)
		}
	}
}
