package preimage_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/preimage"
)

// sklearnCase is one reference of testdata/sklearn_preimage.py: KernelPCA(rbf, gamma,
// n_components=k, alpha, fit_inverse_transform=True) fitted on the first m points of X.
type sklearnCase struct {
	name         string
	gamma, alpha float64
	m, k         int
}

var sklearnCases = []sklearnCase{
	{name: "magic", gamma: 0.1, alpha: 1, m: 300, k: 5},
	{name: "magica", gamma: 0.1, alpha: 1e-3, m: 300, k: 5},
	{name: "fashion", gamma: 1e-3, alpha: 5e-3, m: 200, k: 20},
}

// points returns the case's points: the training ones, then the new ones.
func (c sklearnCase) points(t *testing.T) *mat.Dense {
	if c.name == "fashion" {
		return mat.DenseCopyOf(data.FashionMNISTSample().X.Slice(0, 220, 0, 784))
	}
	return testmat.ReadCSVGz(t, "testdata/magic_X.csv.gz")
}

func (c sklearnCase) read(t *testing.T, what string) *mat.Dense {
	return testmat.ReadCSVGz(t, "testdata/"+c.name+"_"+what+".csv.gz")
}

// TestKRRSklearn fits the map on scikit-learn's own training scores and compares the
// dual coefficients (magic's) and the pre-images of the training and the new scores
// with scikit-learn's: the same system solved by the same method (Cholesky), so that the
// two differ by the rounding of K_S + α·I (kernel blocks against numpy's rbf_kernel,
// each within a few ε of k) amplified by its condition number (docs/design.md,
// "Pre-images"): the bound is 4·ε/RCond(), ε = 2⁻⁵³. Measured: 2e-14 (bound 3e-13) for
// magic, 1e-11 (5e-10) for magica's α = 1e-3, 2e-12 (4e-11) for fashion.
func TestKRRSklearn(t *testing.T) {
	for _, c := range sklearnCases {
		t.Run(c.name, func(t *testing.T) {
			X := c.points(t)
			S := c.read(t, "scores")
			inv, err := preimage.FitKRR(kernel.RBF{Gamma: c.gamma}, S, X.Slice(0, c.m, 0, X.RawMatrix().Cols), c.alpha)
			if err != nil {
				t.Fatal(err)
			}
			var got mat.Dense
			if err := inv.InverseTransform(&got, c.read(t, "new")); err != nil {
				t.Fatal(err)
			}
			eNew := testmat.MaxRel(&got, c.read(t, "inv_new"))
			want := c.read(t, "inv_train")
			rows, _ := want.Dims()
			got.Reset()
			if err := inv.InverseTransform(&got, S.Slice(0, rows, 0, c.k)); err != nil {
				t.Fatal(err)
			}
			eTrain := testmat.MaxRel(&got, want)
			tol := 4 * 0x1p-53 / inv.RCond()
			t.Logf("%s: rcond %.3g, pre-images of new scores %.3g, of training scores %.3g, bound %.3g", c.name, inv.RCond(), eNew, eTrain, tol)
			if eNew > tol || eTrain > tol {
				t.Errorf("relative error %.3g, %.3g > %.3g", eNew, eTrain, tol)
			}
			if c.name == "magic" {
				var dual mat.Dense
				inv.DualCoefTo(&dual)
				if e := testmat.MaxRel(&dual, c.read(t, "dual")); e > tol {
					t.Errorf("dual coefficients: relative error %.3g > %.3g", e, tol)
				}
			}
		})
	}
}
