package testmat

import (
	"testing"

	"github.com/ikpca/ikpca/kernel"
)

// TestBadKernels: kernel.Validate, which every constructor calls first, refuses every
// kernel of BadKernels, and BadRBFs holds exactly those of them that are kernel.RBF
// values.
func TestBadKernels(t *testing.T) {
	rbfs := 0
	for _, b := range BadKernels() {
		if kernel.Validate(b.Kernel) == nil {
			t.Errorf("%s: kernel.Validate accepts it", b.Name)
		}
		if _, ok := b.Kernel.(kernel.RBF); ok {
			rbfs++
		}
	}
	bad := BadRBFs()
	for _, b := range bad {
		if _, ok := b.Kernel.(kernel.RBF); !ok {
			t.Errorf("BadRBFs: %s is not a kernel.RBF", b.Name)
		}
	}
	if len(bad) != rbfs || rbfs == 0 {
		t.Errorf("BadRBFs has %d kernels, BadKernels %d kernel.RBF values", len(bad), rbfs)
	}
}
