package kaf

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/featurespace"
	"github.com/ikpca/ikpca/kaf"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// BasisOptions configure Basis: N embedded Mackey–Glass inputs (order 7), M
// eigenfunctions, iSPEED grown from the first Seed inputs and compared with batch every
// Every inputs, the Gaussian kernel of width Sigma (kernel.RBF's convention).
type BasisOptions struct {
	N, M, Seed, Every int
	Sigma             float64
	// Progress, if set, is called after each comparison with the inputs added and
	// their total.
	Progress func(done, total int)
}

// BasisResult holds the SPEED paper's Figures 2 and 3 on Mackey–Glass inputs: the
// relative Gram-matrix reconstruction error ‖K − V_mΛ_mV_mᵀ‖_F/‖K‖_F of the eigenmap
// against the number m of eigenfunctions, and, as iSPEED grows its dictionary from Seed
// samples one bordered update at a time, the largest principal angle between its m
// leading eigenvectors and those of a batch eigendecomposition of the same dictionary.
type BasisResult struct {
	N, M       int
	Components []int
	GramError  []float64
	Sizes      []int
	Angle      []float64 // radians
}

// Basis computes both. It stops early with ctx's error when ctx is done.
func Basis(ctx context.Context, o BasisOptions) (*BasisResult, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	series, err := mackeyGlass(o.N + 7 + 100)
	if err != nil {
		return nil, err
	}
	X, _, err := kaf.Embed(series, 7, 1)
	if err != nil {
		return nil, err
	}
	X = X.Slice(0, o.N, 0, 7).(*mat.Dense)
	k := kernel.RBF{Sigma: o.Sigma}
	md, err := kpca.Fit(k, X, kpca.Options{Components: kpca.All, Uncentred: true})
	if err != nil {
		return nil, err
	}
	vals := md.Values(nil)
	var total float64
	for _, v := range vals {
		total += v * v
	}
	res := &BasisResult{N: o.N, M: o.M}
	tail := total
	for c := 1; c <= min(200, o.N); c++ {
		tail -= vals[c-1] * vals[c-1]
		res.Components = append(res.Components, c)
		res.GramError = append(res.GramError, math.Sqrt(math.Max(tail, 0)/total))
	}
	s, err := kaf.NewSPEED(k, X.Slice(0, o.Seed, 0, 7), kaf.SPEEDOptions{Components: o.M})
	if err != nil {
		return nil, err
	}
	for i := o.Seed; i < o.N; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := s.Grow(X.RawRowView(i), nil); err != nil {
			return nil, err
		}
		size := i + 1
		if size%o.Every != 0 && size != o.N {
			continue
		}
		batch, err := kpca.Fit(k, X.Slice(0, size, 0, 7), kpca.Options{Components: kpca.All, Uncentred: true})
		if err != nil {
			return nil, err
		}
		var vb, vi mat.Dense
		batch.VectorsTo(&vb)
		var psi mat.Dense
		s.Basis(&psi) // Λ^{-½}Vᵀ: rows are scaled eigenvectors
		vi.CloneFrom(psi.T())
		for j, v := range s.Values(nil) {
			col := vi.ColView(j).(*mat.VecDense)
			col.ScaleVec(math.Sqrt(v), col)
		}
		// The largest principal angle, asin of the largest singular value of
		// (I − V_bV_bᵀ)V_i, which unlike acos(σ_min(V_bᵀV_i)) keeps its accuracy for tiny
		// angles.
		sine, err := featurespace.Sine(&vi, mat.DenseCopyOf(vb.Slice(0, size, 0, o.M)))
		if err != nil {
			return nil, err
		}
		res.Sizes = append(res.Sizes, size)
		res.Angle = append(res.Angle, math.Asin(math.Min(sine, 1)))
		if o.Progress != nil {
			o.Progress(size, o.N)
		}
	}
	return res, nil
}
