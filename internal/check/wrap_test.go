package check

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ikpca/ikpca"
)

// TestWrap: an error of another package of each ikpca kind comes back under our
// sentinel of that kind, with the description and the other package's error — its kind
// named once, by ours, not again after the other package's name — wrapping our
// sentinel, the other's and the kind, and no other kind; an error of no kind gets the
// fallback (NotConverged for Wrap).
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
		if want := p.own.Error() + ": adding point 7: theirs: row 3"; err.Error() != want {
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
		if err := ours.WrapOr(ours.Argument, cause, ""); err.Error() != p.own.Error()+": theirs: row 3" || !errors.Is(err, p.own) {
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
// error, its kind named once ("ours: invalid argument: kernel: σ is NaN", not "…:
// kernel: invalid argument: σ is NaN"); a kernel error of kind ErrArgument stays in the
// chain (errors.Is with the kernel package's sentinel), one of another kind or of none
// is kept as text; no error is no error.
func TestKernel(t *testing.T) {
	ours, theirs := NewKinds("ours"), NewKinds("kernel")
	if err := ours.Kernel(nil); err != nil {
		t.Errorf("Kernel(nil) = %v", err)
	}
	for _, c := range []struct {
		cause   error
		text    string
		inChain bool
	}{
		{errors.New("refused"), "ours: invalid argument: refused", false},
		{fmt.Errorf("%w: σ is NaN", theirs.NonFinite), "ours: invalid argument: kernel: σ is NaN", false},
		{fmt.Errorf("%w: σ is NaN", theirs.Argument), "ours: invalid argument: kernel: σ is NaN", true},
		{theirs.Argument, "ours: invalid argument: kernel", true},
	} {
		err := ours.Kernel(c.cause)
		if !errors.Is(err, ours.Argument) || err.Error() != c.text {
			t.Errorf("Kernel(%v) = %q, want %q under ours.Argument", c.cause, err, c.text)
		}
		if errors.Is(err, ikpca.ErrNonFinite) || errors.Is(err, c.cause) != c.inChain || errors.Is(err, theirs.Argument) != c.inChain {
			t.Errorf("Kernel(%v) = %v: the kernel's error in the chain %v, want %v", c.cause, err, errors.Is(err, c.cause), c.inChain)
		}
	}
}

// TestStopped: a stop by a context wraps its cause and its Err, names the package first,
// and wraps no ikpca kind; without a cause of its own, the Err once.
func TestStopped(t *testing.T) {
	ours := NewKinds("ours")
	cause := errors.New("the user pressed ^C")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	err := ours.Stopped(ctx, "after %d of %d rows", 3, 10)
	if !errors.Is(err, cause) || !errors.Is(err, context.Canceled) ||
		err.Error() != "ours: stopped after 3 of 10 rows: the user pressed ^C (context canceled)" {
		t.Errorf("Stopped with a cause: %q", err)
	}
	plain, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := ours.Stopped(plain, ""); !errors.Is(err, context.Canceled) || err.Error() != "ours: stopped: context canceled" {
		t.Errorf("Stopped without a cause: %q", err)
	}
	late, cancel3 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel3()
	if err := ours.Stopped(late, ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stopped by a deadline: %q", err)
	}
	for _, err := range []error{err, ours.Stopped(plain, "")} {
		for _, k := range []error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument, ikpca.ErrEncoding, ikpca.ErrNotConverged} {
			if errors.Is(err, k) {
				t.Errorf("Stopped: %v wraps %v", err, k)
			}
		}
	}
}
