package paper

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
)

// NystromOptions configure Nystrom.
type NystromOptions struct {
	Data   *mat.Dense    // the n points whose kernel matrix is approximated (the paper: the first 1000)
	Kernel kernel.Kernel //
	MMax   int           // last number of landmarks
	Seed   uint64        // seeds the random landmark order
	// Progress, if set, is called after each landmark with the landmarks done and the total.
	Progress func(done, total int)
}

// NystromResult holds the curves of Figure 2.
type NystromResult struct {
	N      int     // points approximated
	M      []int   // numbers of landmarks 1, …, mmax
	Errors Series  // ‖K − K̃ₘ‖
	Norm   float64 // ‖K‖_F, for relative errors
}

// Nystrom runs Figure 2's experiment. It stops early with ctx's error when ctx is done.
func Nystrom(ctx context.Context, o NystromOptions) (*NystromResult, error) {
	if o.Data == nil || o.Kernel == nil {
		return nil, fmt.Errorf("%w: data and kernel are required", study.ErrOptions)
	}
	n, _ := o.Data.Dims()
	if o.MMax < 1 || o.MMax > n {
		return nil, fmt.Errorf("%w: need 1 ≤ mmax ≤ %d landmarks, got %d", study.ErrOptions, n, o.MMax)
	}
	ny, err := nystrom.NewApproximation(o.Kernel, o.Data, nystrom.ApproximationOptions{Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	res := &NystromResult{N: n}
	k := kernel.Matrix(o.Kernel, o.Data)
	res.Norm = mat.Norm(k, 2)
	for m := 1; m <= o.MMax; m++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := ny.Add(); err != nil {
			return nil, err
		}
		e, err := ny.Errors()
		if err != nil {
			return nil, err
		}
		res.M = append(res.M, m)
		res.Errors[Frobenius] = append(res.Errors[Frobenius], e.Frobenius)
		res.Errors[Spectral] = append(res.Errors[Spectral], e.Spectral)
		res.Errors[Trace] = append(res.Errors[Trace], e.Trace)
		if o.Progress != nil {
			o.Progress(m, o.MMax)
		}
	}
	return res, nil
}
