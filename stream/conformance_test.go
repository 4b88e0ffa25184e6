package stream

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/modeltest"
)

// TestConformance: every model of the package passes the modeltest suite, centred (the
// default) and uncentred, persistence included.
func TestConformance(t *testing.T) {
	const d = 3 // the suite's points
	rbf := kernel.RBF{Sigma: 1}
	// SKPCA and RNCA: Transform against (z(x) − m)ᵀW, W from VectorsTo and m the mean
	// of the features recomputed from the running sum; the signed vectors are the
	// directions in feature space.
	type features interface {
		persistent
		VectorsTo(*mat.Dense)
		Mean([]float64) []float64
	}
	for _, uncentred := range []bool{false, true} {
		centring := modeName(uncentred)
		for _, c := range []struct {
			name string
			new  func() (features, func(features) []float64, error)
		}{
			{"SKPCA", func() (features, func(features) []float64, error) {
				s, err := NewSKPCA(rbf, d, SKPCAOptions{Features: 64, Sketch: 5, Seed: 1, Uncentred: uncentred})
				mean := func(m features) []float64 {
					s := m.(*SKPCA)
					if s.sum == nil {
						return nil
					}
					out := make([]float64, len(s.sum))
					for i, v := range s.sum {
						out[i] = v / float64(s.Len())
					}
					return out
				}
				return s, mean, err
			}},
			{"RNCA", func() (features, func(features) []float64, error) {
				r, err := NewRNCA(rbf, d, RNCAOptions{Features: 32, Seed: 2, Uncentred: uncentred})
				mean := func(m features) []float64 {
					r := m.(*RNCA)
					if r.opts.Uncentred {
						return nil
					}
					out := make([]float64, len(r.sum))
					for i, v := range r.sum {
						out[i] = v / float64(r.n)
					}
					return out
				}
				return r, mean, err
			}},
		} {
			t.Run(c.name+"/"+centring, func(t *testing.T) {
				var meanOf func(features) []float64
				mapOf := func(m ikpca.Model) func(*mat.Dense, mat.Matrix) error {
					switch m := m.(type) {
					case *SKPCA:
						return m.Map().Transform
					case *RNCA:
						return m.Map().Transform
					}
					t.Fatalf("%T", m)
					return nil
				}
				modeltest.Run(t, modeltest.Subject{
					Uncentred: uncentred,
					New: func(X *mat.Dense) (ikpca.Incremental, error) {
						m, mean, err := c.new()
						if err != nil {
							return nil, err
						}
						meanOf = mean
						return m, m.AddBatch(X)
					},
					Project: func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) {
						var W mat.Dense
						f := m.(features)
						f.VectorsTo(&W)
						return featureScores(t, mapOf(m), X, &W, meanOf(f), k), nil
					},
					Signed: func(m ikpca.Model) (*mat.Dense, error) {
						var W mat.Dense
						m.(features).VectorsTo(&W)
						return &W, nil
					},
				})
			})
		}
	}
	// KRQA and KHA: Transform against the kernel expansion of VectorsTo's
	// coefficients, evaluated from scratch; the signed vectors are the samples' scores.
	type online interface {
		persistent
		VectorsTo(*mat.Dense)
	}
	samplesOf := func(m ikpca.Model) *samples { return m.(interface{ stored() *samples }).stored() }
	for _, uncentred := range []bool{false, true} {
		centring := modeName(uncentred)
		for _, c := range []struct {
			name string
			new  func() (online, error)
		}{
			{"KRQA", func() (online, error) {
				return NewKRQA(rbf, d, KRQAOptions{Components: 3, Seed: 1, Uncentred: uncentred})
			}},
			{"KHA", func() (online, error) {
				return NewKHA(rbf, d, KHAOptions{Components: 3, Rate: 0.05, Seed: 1, Uncentred: uncentred})
			}},
		} {
			t.Run(c.name+"/"+centring, func(t *testing.T) {
				modeltest.Run(t, modeltest.Subject{
					Uncentred: uncentred,
					New: func(X *mat.Dense) (ikpca.Incremental, error) {
						m, err := c.new()
						if err != nil {
							return nil, err
						}
						return m, m.AddBatch(X)
					},
					Project: func(m ikpca.Model, X mat.Matrix, k int) (*mat.Dense, error) {
						var C mat.Dense
						m.(online).VectorsTo(&C)
						return expansionScores(samplesOf(m), X, &C, k), nil
					},
					Signed: func(m ikpca.Model) (*mat.Dense, error) {
						var C mat.Dense
						m.(online).VectorsTo(&C)
						s := samplesOf(m)
						_, r := C.Dims()
						return expansionScores(s, s.points(), &C, r), nil
					},
				})
			})
		}
	}
}

// modeName names a model's mode in a subtest: "centred", or "uncentred".
func modeName(uncentred bool) string {
	if uncentred {
		return "uncentred"
	}
	return "centred"
}

// featureScores returns (z(x) − mean)ᵀW_k for the rows of X (mean nil: none).
func featureScores(t *testing.T, transform func(*mat.Dense, mat.Matrix) error, X mat.Matrix, W *mat.Dense, mean []float64, k int) *mat.Dense {
	var Z mat.Dense
	if err := transform(&Z, X); err != nil {
		t.Fatal(err)
	}
	n, D := Z.Dims()
	for i := range n {
		for j := range mean {
			Z.Set(i, j, Z.At(i, j)-mean[j])
		}
	}
	var out mat.Dense
	out.Mul(&Z, W.Slice(0, D, 0, k))
	return &out
}

// expansionScores returns Σ_l C_lj·k̃(x_l, x) for the rows x of X and the stored
// samples x_l, with k̃ the kernel centred on the samples (uncentred: k itself) computed
// from scratch (testmat.Centring), not from the running sums the model keeps.
func expansionScores(s *samples, X mat.Matrix, C *mat.Dense, k int) *mat.Dense {
	return testmat.NewCentring(s.kern, s.points()).Scores(X, C, k, nil, s.centred)
}
