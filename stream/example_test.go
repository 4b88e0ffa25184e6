package stream_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/stream"
)

func points(n int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, 2, nil)
	for i := range n {
		x := 2*rng.Float64() - 1
		X.SetRow(i, []float64{x, x*x + 0.2*rng.NormFloat64()})
	}
	return X
}

// Streaming kernel PCA of the Yeast data set, fed as two shards — sketched apart, as
// two workers would, and merged — into models of ℓ×D numbers however many points come.
// The model centres in feature space (the default); its eigenvalues estimate those of
// the centred kernel matrix from below, within the sketch's certified ErrorBound.
func ExampleSKPCA() {
	X := data.Yeast().X // 1484 points, 8 features in [0, 1]
	n, d := X.Dims()
	k := kernel.RBF{Gamma: 2} // exp(−2‖x − y‖²), scikit-learn's gamma = 2
	opts := stream.SKPCAOptions{Features: 512, Sketch: 10, Seed: 1}
	a, err := stream.NewSKPCA(k, d, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := stream.NewSKPCA(k, d, opts)
	if err := a.AddBatch(X.Slice(0, 700, 0, d)); err != nil {
		fmt.Println(err)
		return
	}
	if err := b.AddBatch(X.Slice(700, n, 0, d)); err != nil {
		fmt.Println(err)
		return
	}
	if err := a.Merge(b); err != nil {
		fmt.Println(err)
		return
	}
	vals := a.Values(nil)
	fmt.Printf("%d points, centred %v, %d components, %d KiB\n", a.Len(), a.Centred(), len(vals), a.Bytes()/1024)
	fmt.Printf("λ₁/n = %.4f, λ₂/n = %.4f, Δ/n = %.4f\n", vals[0]/float64(n), vals[1]/float64(n), a.ErrorBound()/float64(n))

	var scores mat.Dense
	if err := a.Transform(&scores, X, 2); err != nil {
		fmt.Println(err)
		return
	}
	r, c := scores.Dims()
	mean := mat.Sum(scores.ColView(0)) / float64(r)
	fmt.Printf("scores %d×%d, centred: %v\n", r, c, math.Abs(mean) < 1e-12)
	// Output:
	// 1484 points, centred true, 10 components, 388 KiB
	// λ₁/n = 0.0696, λ₂/n = 0.0411, Δ/n = 0.0087
	// scores 1484×2, centred: true
}

// KRQA learns kernel principal components online, presenting the samples repeatedly.
func ExampleKRQA() {
	X := points(200, 3)
	m, err := stream.NewKRQA(kernel.Polynomial{Degree: 2, Gamma: 1}, 2, stream.KRQAOptions{Components: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 200 {
		_ = m.Add(X.RawRowView(i))
	}
	for range 299 {
		_ = m.Pass()
	}
	vals := m.Values(nil)
	fmt.Printf("eig(K̃)/n ≈ %.3f %.3f %.3f after %d presentations\n", vals[0]/200, vals[1]/200, vals[2]/200, m.Presentations())
	// Output: eig(K̃)/n ≈ 0.338 0.174 0.022 after 59997 presentations
}
