package testmat

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
)

// PreimageCase is one reference of preimage/testdata/sklearn_preimage.py:
// KernelPCA(rbf, gamma, n_components=k, alpha, fit_inverse_transform=True) fitted on
// the first M points. The tests of preimage's map and of the models' Inverse (kpca,
// nystrom) compare with the same references (docs/design.md, "Pre-images").
type PreimageCase struct {
	Name         string
	Gamma, Alpha float64
	M, K         int
	dir          string // preimage/testdata, as the test's package sees it
}

// PreimageCases returns the references of sklearn_preimage.py, whose files are in dir:
// preimage/testdata as the calling test's package sees it ("testdata" in preimage,
// "../preimage/testdata" beside it).
func PreimageCases(dir string) []PreimageCase {
	return []PreimageCase{
		{Name: "magic", Gamma: 0.1, Alpha: 1, M: 300, K: 5, dir: dir},
		{Name: "magica", Gamma: 0.1, Alpha: 1e-3, M: 300, K: 5, dir: dir},
		{Name: "fashion", Gamma: 1e-3, Alpha: 5e-3, M: 200, K: 20, dir: dir},
	}
}

// Dataset returns the embedded data set name (data.ByName), failing the test if there is
// none.
func Dataset(t testing.TB, name string) data.Dataset {
	t.Helper()
	ds, ok := data.ByName(name)
	if !ok {
		t.Fatalf("unknown data set %q", name)
	}
	return ds
}

// FirstRows returns a copy of the first n rows of the embedded data set name, as they
// are.
func FirstRows(t testing.TB, name string, n int) *mat.Dense {
	t.Helper()
	ds := Dataset(t, name)
	_, d := ds.X.Dims()
	return mat.DenseCopyOf(ds.X.Slice(0, n, 0, d))
}

// Points returns the case's points: the M training ones, then the new ones.
func (c PreimageCase) Points(t testing.TB) *mat.Dense {
	t.Helper()
	if c.Name == "fashion" {
		return mat.DenseCopyOf(data.FashionMNISTSample().X.Slice(0, 220, 0, 784))
	}
	return ReadCSVGz(t, c.dir+"/magic_X.csv.gz")
}

// Split returns the case's training points (the first M of Points) and its new ones.
func (c PreimageCase) Split(t testing.TB) (train, fresh *mat.Dense) {
	t.Helper()
	X := c.Points(t)
	n, d := X.Dims()
	return X.Slice(0, c.M, 0, d).(*mat.Dense), X.Slice(c.M, n, 0, d).(*mat.Dense)
}

// Read returns the case's reference matrix what: "scores" (the training scores),
// "new" (the new points' scores), "inv_new" and "inv_train" (their pre-images), "dual"
// (the map's dual coefficients).
func (c PreimageCase) Read(t testing.TB, what string) *mat.Dense {
	t.Helper()
	return ReadCSVGz(t, c.dir+"/"+c.Name+"_"+what+".csv.gz")
}

// Inverter is a learned pre-image map (preimage.KRR), as the tests read it.
type Inverter interface {
	InverseTransform(dst *mat.Dense, Y mat.Matrix) error
	RCond() float64
}

// KRRImages returns the pre-images of the rows of X by the map inv: their scores on
// the top k components, which transform (a model's Transform) writes, mapped by inv —
// scikit-learn's inverse_transform(transform(X)). It fails the test on an error.
func KRRImages(t testing.TB, inv Inverter, transform func(dst *mat.Dense, X mat.Matrix, k int) error, X mat.Matrix, k int) *mat.Dense {
	t.Helper()
	var Y, Z mat.Dense
	if err := transform(&Y, X, k); err != nil {
		t.Fatal(err)
	}
	if err := inv.InverseTransform(&Z, &Y); err != nil {
		t.Fatal(err)
	}
	return &Z
}

// CheckInverse checks a model's Inverse against the case: eScores is the relative error
// of the model's training scores from scikit-learn's, at most scoreTol; inv is the map
// Inverse returned, and the pre-images of the new points fresh (KRRImages, with the
// model's transform) must match scikit-learn's inverse_transform(transform). The
// regression amplifies a perturbation of its matrix by its condition number (4·ε/RCond()
// is the bound of the solve alone, preimage.TestKRRSklearn), so the bound of the
// pre-images is (scoreTol + 4ε)/RCond(), and at most the 1e-8 asked.
func (c PreimageCase) CheckInverse(t testing.TB, inv Inverter, transform func(dst *mat.Dense, X mat.Matrix, k int) error, fresh mat.Matrix, eScores, scoreTol float64) {
	t.Helper()
	e := MaxRel(KRRImages(t, inv, transform, fresh, c.K), c.Read(t, "inv_new"))
	tol := (scoreTol + 4*0x1p-53) / inv.RCond()
	t.Logf("scores %.3g, pre-images %.3g (rcond %.3g, bound %.3g)", eScores, e, inv.RCond(), tol)
	if eScores > scoreTol {
		t.Errorf("scores: relative error %.3g from scikit-learn's > %.3g", eScores, scoreTol)
	}
	if e > tol || e > 1e-8 {
		t.Errorf("pre-images: relative error %.3g from scikit-learn's > %.3g", e, min(tol, 1e-8))
	}
}

// Circle returns n points on the unit circle at uniform angles, each coordinate with
// Gaussian noise of standard deviation noise: the toy data of Mika et al.'s denoising
// experiments, which the models' PreImage tests share.
func Circle(rng *rand.Rand, n int, noise float64) *mat.Dense {
	X := mat.NewDense(n, 2, nil)
	for i := range n {
		a := 2 * math.Pi * rng.Float64()
		X.Set(i, 0, math.Cos(a)+noise*rng.NormFloat64())
		X.Set(i, 1, math.Sin(a)+noise*rng.NormFloat64())
	}
	return X
}

// OffCircle returns the mean distance of the rows of X (points of the plane) to the
// unit circle.
func OffCircle(X mat.Matrix) float64 {
	n, _ := X.Dims()
	var s float64
	for i := range n {
		s += math.Abs(math.Hypot(X.At(i, 0), X.At(i, 1)) - 1)
	}
	return s / float64(n)
}
