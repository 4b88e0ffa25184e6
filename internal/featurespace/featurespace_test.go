package featurespace

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/kernel"
)

func TestCoordinatesKeepInnerProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	X := synth.Normal(12, 3, rng)
	k := kernel.RBF{Sigma: 1}
	s, err := New(k, X)
	if err != nil {
		t.Fatal(err)
	}
	c := mat.NewDense(12, 2, nil)
	for i := range 12 {
		c.Set(i, 0, rng.NormFloat64())
		c.Set(i, 1, rng.NormFloat64())
	}
	y := s.Coordinates(c)
	var yty, kc, ckc mat.Dense
	yty.Mul(y.T(), y)
	kc.Mul(kernel.Matrix(k, X), c)
	ckc.Mul(c.T(), &kc)
	if !mat.EqualApprox(&yty, &ckc, 1e-12*mat.Norm(&ckc, 2)) {
		t.Fatalf("YᵀY = %v, cᵀKc = %v", mat.Formatted(&yty), mat.Formatted(&ckc))
	}
	// The same span: sine 0; a vector against one orthogonal to it: sine 1.
	var mix mat.Dense
	mix.Mul(y, mat.NewDense(2, 2, []float64{2, 1, -1, 3}))
	if sin, err := Sine(&mix, y); err != nil || sin > 1e-12 {
		t.Fatalf("same span: sine %v (%v)", sin, err)
	}
	a := mat.NewDense(3, 1, []float64{1, 0, 0})
	b := mat.NewDense(3, 1, []float64{0, 2, 0})
	if sin, _ := Sine(a, b); math.Abs(sin-1) > 1e-15 {
		t.Fatalf("orthogonal: sine %v", sin)
	}
	if _, err := Sine(a, y); err == nil {
		t.Fatal("different dimensions accepted")
	}
	if o := Orthogonality(mat.NewDense(2, 2, []float64{1, 0, 0, 1})); o != 0 {
		t.Fatalf("identity: orthogonality %v", o)
	}
	// A pair sharing its points reuses one space; one with distinct points embeds both.
	p, err := NewPair(k, X, X)
	if err != nil || !p.shared {
		t.Fatalf("shared pair: %v", err)
	}
	q, err := NewPair(k, X.Slice(0, 6, 0, 3).(*mat.Dense), X.Slice(6, 12, 0, 3).(*mat.Dense))
	if err != nil || q.shared {
		t.Fatalf("distinct pair: %v", err)
	}
	e := mat.NewDense(6, 1, nil)
	e.Set(0, 0, 1)
	if n := mat.Norm(q.A(e), 2); math.Abs(n-1) > 1e-7 {
		t.Fatalf("‖φ(A₀)‖ = %v, want 1", n)
	}
}
