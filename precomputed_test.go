package ikpca_test

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/kaf"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
	"github.com/ikpca/ikpca/preimage"
	"github.com/ikpca/ikpca/stream"
)

// TestPrecomputedRefused: kernel.Precomputed stands for values the caller computes,
// which only kpca takes (as columns). Every other model evaluates its kernel, and must
// refuse it when it is built — an error wrapping ikpca.ErrArgument, never a panic and
// never a model whose kernel values would all be NaN.
func TestPrecomputedRefused(t *testing.T) {
	p := kernel.Precomputed{}
	X := mat.NewDense(20, 2, nil)
	for i := range 20 {
		X.Set(i, 0, float64(i))
		X.Set(i, 1, float64(i*i%7))
	}
	for _, tc := range []struct {
		name string
		new  func() error
	}{
		{"nystrom.Fit", func() error { _, err := nystrom.Fit(p, X, nystrom.Options{Landmarks: 5}); return err }},
		{"nystrom.NewApproximation", func() error {
			_, err := nystrom.NewApproximation(p, X, nystrom.ApproximationOptions{})
			return err
		}},
		{"chinsuter.New", func() error { _, err := chinsuter.New(p, 2, chinsuter.Options{Components: 2}); return err }},
		{"stream.NewKHA", func() error { _, err := stream.NewKHA(p, 2, stream.KHAOptions{Components: 2, Rate: 0.1}); return err }},
		{"stream.NewKRQA", func() error { _, err := stream.NewKRQA(p, 2, stream.KRQAOptions{Components: 2}); return err }},
		{"stream.NewRNCA", func() error { _, err := stream.NewRNCA(p, 2, stream.RNCAOptions{}); return err }},
		{"stream.NewSKPCA", func() error { _, err := stream.NewSKPCA(p, 2, stream.SKPCAOptions{}); return err }},
		{"kaf.NewKLMS", func() error { _, err := kaf.NewKLMS(p, 2, 0.1, 0.1); return err }},
		{"kaf.NewSPEED", func() error { _, err := kaf.NewSPEED(p, X, kaf.SPEEDOptions{Components: 2}); return err }},
		{"preimage.FitKRR", func() error { _, err := preimage.FitKRR(p, X, X, 1); return err }},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked: %v", tc.name, r)
				}
			}()
			if err := tc.new(); !errors.Is(err, ikpca.ErrArgument) {
				t.Errorf("%s: %v, want an error wrapping ikpca.ErrArgument", tc.name, err)
			}
		}()
	}
}
