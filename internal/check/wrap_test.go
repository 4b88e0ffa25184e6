package check

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ikpca/ikpca"
)

// TestWrap: an error of another package of each ikpca kind comes back under our
// sentinel of that kind, with the description and the other package's error, wrapping
// our sentinel, the other's and the kind, and no other kind; an error of no kind gets
// the fallback (NotConverged for Wrap).
func TestWrap(t *testing.T) {
	ours, theirs := NewKinds("ours"), NewKinds("theirs")
	kinds := []error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument, ikpca.ErrEncoding, ikpca.ErrNotConverged}
	pairs := []struct{ own, other error }{
		{ours.Dimension, theirs.Dimension}, {ours.NonFinite, theirs.NonFinite}, {ours.Empty, theirs.Empty},
		{ours.Argument, theirs.Argument}, {ours.Encoding, theirs.Encoding}, {ours.NotConverged, theirs.NotConverged},
	}
	for i, p := range pairs {
		cause := fmt.Errorf("%w: row %d", p.other, 3)
		if got := ours.Of(cause); got != p.own {
			t.Errorf("Of(%v) = %v, want %v", cause, got, p.own)
		}
		err := ours.Wrap(cause, "adding point %d", 7)
		if want := p.own.Error() + ": adding point 7: " + cause.Error(); err.Error() != want {
			t.Errorf("Wrap: %q, want %q", err, want)
		}
		if !errors.Is(err, p.own) || !errors.Is(err, p.other) || !errors.Is(err, cause) {
			t.Errorf("Wrap: %v does not wrap %v, %v and the cause", err, p.own, p.other)
		}
		for j, k := range kinds {
			if errors.Is(err, k) != (i == j) {
				t.Errorf("Wrap: %v and %v: errors.Is %v", err, k, i != j)
			}
		}
		if err := ours.WrapOr(ours.Argument, cause, ""); err.Error() != p.own.Error()+": "+cause.Error() || !errors.Is(err, p.own) {
			t.Errorf("WrapOr without a description: %q", err)
		}
	}
	plain := errors.New("dsyevr: info 3")
	if got := ours.Of(plain); got != nil {
		t.Errorf("Of(an error of no kind) = %v", got)
	}
	if err := ours.Wrap(plain, "the SVD"); !errors.Is(err, ours.NotConverged) || !errors.Is(err, plain) ||
		err.Error() != "ours: not converged: the SVD: dsyevr: info 3" {
		t.Errorf("Wrap of an error of no kind: %q, want it under ours.NotConverged", err)
	}
	if err := ours.WrapOr(ours.Argument, plain, "the factory"); !errors.Is(err, ours.Argument) || errors.Is(err, ikpca.ErrNotConverged) {
		t.Errorf("WrapOr(Argument) of an error of no kind: %q", err)
	}
}

// TestKernel: a refused kernel is an Argument error whatever the kind of the kernel's
// error, which it keeps as text; no error is no error.
func TestKernel(t *testing.T) {
	ours := NewKinds("ours")
	if err := ours.Kernel(nil); err != nil {
		t.Errorf("Kernel(nil) = %v", err)
	}
	for _, cause := range []error{errors.New("refused"), NewKinds("kernel").NonFinite, NewKinds("kernel").Argument} {
		err := ours.Kernel(cause)
		if !errors.Is(err, ours.Argument) || err.Error() != "ours: invalid argument: "+cause.Error() {
			t.Errorf("Kernel(%v) = %v, want it under ours.Argument", cause, err)
		}
		if errors.Is(err, ikpca.ErrNonFinite) || errors.Is(err, cause) {
			t.Errorf("Kernel(%v) = %v keeps the kernel's error in the chain", cause, err)
		}
	}
}
