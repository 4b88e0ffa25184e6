package ikpca_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// Kernel PCA in one call, as scikit-learn's
// KernelPCA(n_components=3, kernel="rbf", gamma=4).fit(train): the top 3 components of
// 1000 points, the scores of new points, and the share of the variance each component
// explains. The model then grows point by point (Add), forgets points (Remove) and saves
// itself (MarshalBinary).
func Example() {
	X := data.Yeast().X // 1484 points, 8 features
	train, test := X.Slice(0, 1000, 0, 8), X.Slice(1000, 1002, 0, 8)

	model, err := kpca.Fit(kernel.RBF{Gamma: 4}, train, kpca.Options{Components: 3})
	if err != nil {
		log.Fatal(err)
	}
	var scores mat.Dense
	if err := model.Transform(&scores, test, 3); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("scores\n%.4f\n", mat.Formatted(&scores))
	fmt.Printf("explained variance %.3f\n", model.ExplainedVariance(nil))
	// Output:
	// scores
	// ⎡ 0.4937  -0.3425   0.2505⎤
	// ⎣-0.0221   0.2334  -0.1512⎦
	// explained variance [0.243 0.169 0.102]
}
