package kpca_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/preimage"
)

// Denoising with pre-images, as scikit-learn's KernelPCA(fit_inverse_transform=True):
// a kernel PCA of 300 noisy points on the unit circle, then 100 noisier points
// projected onto the top 8 components and mapped back — by the learned map of Inverse
// (scikit-learn's inverse_transform) and by the fixed point of PreImage — and their
// mean squared distance to the points they were drawn from.
func ExampleModel_Inverse() {
	rng := rand.New(rand.NewPCG(1, 2))
	circle := func(n int, noise float64) (clean, noisy *mat.Dense) {
		clean, noisy = mat.NewDense(n, 2, nil), mat.NewDense(n, 2, nil)
		for i := range n {
			a := 2 * math.Pi * rng.Float64()
			clean.Set(i, 0, math.Cos(a))
			clean.Set(i, 1, math.Sin(a))
			noisy.Set(i, 0, math.Cos(a)+noise*rng.NormFloat64())
			noisy.Set(i, 1, math.Sin(a)+noise*rng.NormFloat64())
		}
		return clean, noisy
	}
	_, train := circle(300, 0.05)
	clean, X := circle(100, 0.2)
	mse := func(A mat.Matrix) float64 {
		var d mat.Dense
		d.Sub(A, clean)
		return mat.Norm(&d, 2) * mat.Norm(&d, 2) / 100
	}

	model, err := kpca.Fit(kernel.RBF{Sigma: 0.5}, train, kpca.Options{Components: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	inv, err := model.Inverse(8, 0.01) // KernelPCA(n_components=8, alpha=0.01)
	if err != nil {
		fmt.Println(err)
		return
	}
	var scores, krr, fixed mat.Dense
	if err := model.Transform(&scores, X, 8); err != nil {
		fmt.Println(err)
		return
	}
	if err := inv.InverseTransform(&krr, &scores); err != nil {
		fmt.Println(err)
		return
	}
	if err := model.PreImage(&fixed, X, nil, 8, preimage.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("noisy points: %.3f\n", mse(X))
	fmt.Printf("learned map:  %.3f\n", mse(&krr))
	fmt.Printf("fixed point:  %.3f\n", mse(&fixed))
	// Output:
	// noisy points: 0.078
	// learned map:  0.056
	// fixed point:  0.042
}
