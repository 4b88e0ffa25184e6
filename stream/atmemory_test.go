package stream

import (
	"testing"

	"github.com/ikpca/ikpca/kernel"
)

// TestAtMemory: the chosen D is even, within the budget, and D + 2 is not (the
// largest), for budgets that end the doubling early and late; other options are kept.
func TestAtMemory(t *testing.T) {
	const d = 5
	k := kernel.RBF{Sigma: 1.5}
	bytes := func(o SKPCAOptions) int {
		s, err := NewSKPCA(k, d, o)
		if err != nil {
			t.Fatal(err)
		}
		return s.Bytes()
	}
	for _, base := range []SKPCAOptions{{Sketch: 8, Seed: 3}, {Sketch: 8, Seed: 3, Uncentred: true}} {
		for _, budget := range []int{bytes(SKPCAOptions{Features: 6, Sketch: 8, Uncentred: base.Uncentred}), 1 << 16, 1 << 20} {
			o := base.AtMemory(k, d, budget)
			D := o.Features
			if o.Uncentred != base.Uncentred || o.Sketch != base.Sketch || o.Seed != base.Seed {
				t.Fatalf("budget %d: options changed: %+v", budget, o)
			}
			if D%2 != 0 || bytes(o) > budget {
				t.Errorf("budget %d: D = %d holds %d bytes", budget, D, bytes(o))
			}
			o.Features = D + 2
			if bytes(o) <= budget {
				t.Errorf("budget %d: D = %d is not the largest (D + 2 holds %d bytes)", budget, D, bytes(o))
			}
		}
	}
}
