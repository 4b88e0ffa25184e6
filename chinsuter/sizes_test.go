package chinsuter

import (
	"errors"
	"math"
	"testing"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
)

// TestHugeCompression: a component cap or a number of pre-images whose compression
// could not be allocated — (r+1)·n′ pre-images and their kernel matrix, whose size
// overflows int at these sizes — is an ErrArgument of New, never a panic later in Add.
func TestHugeCompression(t *testing.T) {
	X := toy(10, 1)
	const huge = 100_000_000_000_000
	for _, c := range []struct{ r, n int }{
		{huge, 10}, {math.MaxInt, 10}, {5, huge}, {5, math.MaxInt}, {math.MaxInt / 2, 3},
		{5, 1 << 13}, // 6·2¹³ pre-images: a kernel matrix of 2.4·10⁹ numbers
	} {
		md, err := Fit(kernel.RBF{Sigma: 1}, X, Options{Components: c.r, Compression: &Compression{PreImages: c.n}})
		if md != nil || !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("r = %d, n′ = %d: model %v, error %v; want an ErrArgument", c.r, c.n, md, err)
		}
	}
	// Without compression the cap only limits the components kept: any size is fine.
	if _, err := Fit(kernel.RBF{Sigma: 1}, X, Options{Components: huge}); err != nil {
		t.Errorf("a huge cap without compression: %v", err)
	}
}
