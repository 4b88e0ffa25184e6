package stream

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
)

// TestHugeSizes: every constructor given a size whose arrays could not be allocated —
// or whose byte count, or r+1, overflows int — returns an ErrArgument naming the size
// instead of panicking in makeslice or dying out of memory.
func TestHugeSizes(t *testing.T) {
	const huge = 100_000_000_000_000
	rbf := kernel.RBF{Sigma: 1}
	for _, c := range []struct {
		name string
		make func() error
		says string // in the message
	}{
		{"SKPCA, huge D", func() error {
			_, err := NewSKPCA(kernel.RBF{Sigma: 1}, 5, SKPCAOptions{Features: huge, Sketch: 2})
			return err
		}, "5×50000000000000"},
		{"SKPCA, D = MaxInt−1", func() error {
			_, err := NewSKPCA(kernel.RBF{Sigma: 1}, 5, SKPCAOptions{Features: math.MaxInt - 1, Sketch: 2})
			return err
		}, ""},
		{"SKPCA, huge ℓ", func() error {
			_, err := NewSKPCA(kernel.RBF{Sigma: 1}, 5, SKPCAOptions{Features: 8, Sketch: huge})
			return err
		}, "100000000000000"},
		{"SKPCA, ℓ = MaxInt", func() error {
			_, err := NewSKPCA(kernel.RBF{Sigma: 1}, 5, SKPCAOptions{Features: 8, Sketch: math.MaxInt})
			return err
		}, ""},
		{"SKPCA, D×ℓ beyond 2³⁰", func() error {
			_, err := NewSKPCA(kernel.RBF{Sigma: 1}, 1, SKPCAOptions{Features: 1 << 16, Sketch: 1 << 15, Buffer: 1<<15 + 1})
			return err
		}, ""},
		{"SKPCA centred, (ℓ+1)² beyond 2³⁰", func() error {
			_, err := NewSKPCA(kernel.RBF{Sigma: 1}, 1, SKPCAOptions{Features: 2, Sketch: 1 << 20})
			return err
		}, "the centred eigenproblem"},
		{"SKPCA, huge d", func() error {
			_, err := NewSKPCA(kernel.RBF{Sigma: 1}, huge, SKPCAOptions{Features: 8, Sketch: 2})
			return err
		}, ""},
		{"RNCA, huge D", func() error { _, err := NewRNCA(kernel.RBF{Sigma: 1}, 5, RNCAOptions{Features: huge}); return err }, ""},
		{"RNCA, huge d", func() error { _, err := NewRNCA(kernel.RBF{Sigma: 1}, huge, RNCAOptions{Features: 8}); return err }, ""},
		{"KRQA, huge r", func() error { _, err := NewKRQA(rbf, 2, KRQAOptions{Components: huge}); return err }, "100000000000000 components"},
		{"KRQA, r = MaxInt", func() error { _, err := NewKRQA(rbf, 2, KRQAOptions{Components: math.MaxInt}); return err }, ""},
		{"KRQA, r×(r+1) beyond 2³⁰", func() error { _, err := NewKRQA(rbf, 2, KRQAOptions{Components: 1 << 15}); return err }, ""},
		{"KHA, huge r", func() error {
			_, err := NewKHA(rbf, 2, KHAOptions{Components: huge, Rate: 0.1})
			return err
		}, "100000000000000 components"},
		{"KHA, r = MaxInt", func() error {
			_, err := NewKHA(rbf, 2, KHAOptions{Components: math.MaxInt, Rate: 0.1})
			return err
		}, ""},
	} {
		err := c.make()
		if !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("%s: %v, want an ErrArgument", c.name, err)
		} else if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v does not say %q", c.name, err, c.says)
		}
	}
	// The largest sizes within the bound are still accepted.
	if _, err := NewKRQA(rbf, 2, KRQAOptions{Components: 1<<15 - 1}); err != nil {
		t.Errorf("KRQA, 2¹⁵−1 components: %v", err)
	}
}
