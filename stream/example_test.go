package stream_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

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

// Streaming kernel PCA keeps an ℓ×D sketch, whatever the length of the stream.
func ExampleSKPCA() {
	X := points(5000, 1)
	s, err := stream.NewSKPCA(2, stream.SKPCAOptions{Features: 256, Sigma: 0.5, Sketch: 10, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 5000 {
		if err := s.Add(X.RawRowView(i)); err != nil {
			fmt.Println(err)
			return
		}
	}
	vals := s.Values(nil)
	var scores mat.Dense
	_ = s.Transform(&scores, points(3, 2), 2)
	fmt.Printf("%d points, %d KiB; λ₁/n = %.2f; scores of 3 new points on 2 components: %d×%d\n",
		s.Len(), s.Bytes()/1024, vals[0]/5000, scores.RawMatrix().Rows, scores.RawMatrix().Cols)
	// Output: 5000 points, 159 KiB; λ₁/n = 0.37; scores of 3 new points on 2 components: 3×2
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
