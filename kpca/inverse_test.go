package kpca

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// inverseCase is one reference of preimage/testdata/sklearn_preimage.py:
// KernelPCA(rbf, gamma, n_components=k, alpha, fit_inverse_transform=True) fitted on
// the first m points.
type inverseCase struct {
	name         string
	gamma, alpha float64
	m, k         int
}

var inverseCases = []inverseCase{
	{name: "magic", gamma: 0.1, alpha: 1, m: 300, k: 5},
	{name: "magica", gamma: 0.1, alpha: 1e-3, m: 300, k: 5},
	{name: "fashion", gamma: 1e-3, alpha: 5e-3, m: 200, k: 20},
}

// points returns the case's training points, then its new ones.
func (c inverseCase) points(t *testing.T) *mat.Dense {
	if c.name == "fashion" {
		return mat.DenseCopyOf(data.FashionMNISTSample().X.Slice(0, 220, 0, 784))
	}
	return testmat.ReadCSVGz(t, "../preimage/testdata/magic_X.csv.gz")
}

func (c inverseCase) read(t *testing.T, what string) *mat.Dense {
	return testmat.ReadCSVGz(t, "../preimage/testdata/"+c.name+"_"+what+".csv.gz")
}

// TestInverseSklearn fits exact and rank-r models to the points of each reference and
// compares their training scores and the pre-images of new points — Transform, then
// the map of Inverse — with scikit-learn's fit_transform and inverse_transform(transform)
// (same signs: both follow svd_flip). The scores of the two eigensolvers differ by
// rounding amplified by the eigengaps (measured ≤ 2.7e-14 relative, bound 1e-13); the
// ridge regression amplifies a perturbation of its matrix by its condition number
// (4·ε/RCond() is the bound of the solve alone, preimage.TestKRRSklearn), so the bound
// of the pre-images is (1e-13 + 4ε)/RCond(), and at most the 1e-8 asked. Measured:
// 1.7e-14 (magic), 8e-12 (magica, α = 1e-3), 2.8e-12 (fashion).
func TestInverseSklearn(t *testing.T) {
	for _, c := range inverseCases {
		X := c.points(t)
		_, d := X.Dims()
		n, _ := X.Dims()
		train, fresh := X.Slice(0, c.m, 0, d), X.Slice(c.m, n, 0, d)
		for _, opts := range []Options{{Components: All}, {Components: c.k}} {
			t.Run(c.name+"/"+name(opts), func(t *testing.T) {
				md := fitModel(t, kernel.RBF{Gamma: c.gamma}, train, opts)
				var S mat.Dense
				if err := md.Scores(&S, c.k); err != nil {
					t.Fatal(err)
				}
				eScores := testmat.MaxRel(&S, c.read(t, "scores"))
				inv, err := md.Inverse(c.k, c.alpha)
				if err != nil {
					t.Fatal(err)
				}
				var Y, got mat.Dense
				if err := md.Transform(&Y, fresh, c.k); err != nil {
					t.Fatal(err)
				}
				if err := inv.InverseTransform(&got, &Y); err != nil {
					t.Fatal(err)
				}
				e := testmat.MaxRel(&got, c.read(t, "inv_new"))
				tol := (1e-13 + 4*0x1p-53) / inv.RCond()
				t.Logf("scores %.3g, pre-images %.3g (rcond %.3g, bound %.3g)", eScores, e, inv.RCond(), tol)
				if eScores > 1e-13 {
					t.Errorf("scores: relative error %.3g from scikit-learn's > 1e-13", eScores)
				}
				if e > tol || e > 1e-8 {
					t.Errorf("pre-images: relative error %.3g from scikit-learn's > %.3g", e, min(tol, 1e-8))
				}
			})
		}
	}
}
