package check

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ikpca/ikpca"
)

// Of returns e's sentinel of the ikpca kind err wraps (the first, in the order of
// Kinds' fields, should err wrap several), or nil if err wraps none.
func (e Kinds) Of(err error) error {
	for _, k := range [...]struct{ kind, own error }{
		{ikpca.ErrDimension, e.Dimension}, {ikpca.ErrNonFinite, e.NonFinite}, {ikpca.ErrEmpty, e.Empty},
		{ikpca.ErrArgument, e.Argument}, {ikpca.ErrEncoding, e.Encoding}, {ikpca.ErrNotConverged, e.NotConverged},
	} {
		if errors.Is(err, k.kind) {
			return k.own
		}
	}
	return nil
}

// Wrap returns err, the error of another package of the module, as an error of e's
// package: wrapped in e's sentinel of the ikpca kind err wraps, then a description of
// what failed (format and args, as fmt.Sprintf; none if format is empty), then err's
// text with its kind named once, not twice ("kpca: invalid argument: the options:
// update: Workers is -1", not "…: update: invalid argument: Workers is -1"). errors.Is then
// holds with e's sentinel as with the ikpca kind and with the other package's sentinel,
// and the error wraps exactly one kind if err does. The packages of the module wrap a
// kind in every error: one that wraps none would be a numerical failure (a LAPACK
// routine's), and is wrapped in e.NotConverged.
func (e Kinds) Wrap(err error, format string, args ...any) error {
	return e.WrapOr(e.NotConverged, err, format, args...)
}

// WrapOr is Wrap with fallback, one of e's sentinels, for an error that wraps no ikpca
// kind: ErrArgument for the error of a caller's function (a kernel's Validate method, a
// filter factory) refusing what it was given.
func (e Kinds) WrapOr(fallback, err error, format string, args ...any) error {
	own := e.Of(err)
	if own == nil {
		own = fallback
	}
	msg := own.Error()
	if format != "" {
		msg += ": " + fmt.Sprintf(format, args...)
	}
	return &wrapped{msg: msg + ": " + trimKind(err), errs: []error{own, err}}
}

// wrapped is an error of one package that wraps another package's: its text, and the
// two errors errors.Is and errors.As look through — the package's sentinel and the
// other's error.
type wrapped struct {
	msg  string
	errs []error
}

func (w *wrapped) Error() string   { return w.msg }
func (w *wrapped) Unwrap() []error { return w.errs }

// trimKind returns err's text without the name of the ikpca kind err wraps where it
// follows the package's name at the start ("kernel: invalid argument: σ is NaN" becomes
// "kernel: σ is NaN"): the error that wraps it names the kind first, once.
func trimKind(err error) string {
	msg := err.Error()
	pkg, rest, ok := strings.Cut(msg, ": ")
	if !ok || strings.ContainsAny(pkg, " ") {
		return msg
	}
	for _, k := range [...]error{ikpca.ErrDimension, ikpca.ErrNonFinite, ikpca.ErrEmpty, ikpca.ErrArgument,
		ikpca.ErrEncoding, ikpca.ErrNotConverged} {
		if !errors.Is(err, k) {
			continue
		}
		if r, ok := strings.CutPrefix(rest, k.Error()+": "); ok {
			return pkg + ": " + r
		}
		if rest == k.Error() {
			return pkg
		}
	}
	return msg
}

// Kernel returns err, the error of kernel.Validate refusing a model's kernel, as an
// Argument error of e's package, and nil if err is nil. A kernel that Validate refuses
// is an invalid argument of the constructor given it: an err of kind ErrArgument (every
// built-in kernel's, kernel.ErrArgument) is wrapped, so that errors.Is holds with
// kernel.ErrArgument too, its kind named once in the text ("kpca: invalid argument:
// kernel: rbf: σ is NaN"); an err of another kind (a custom kernel's own Validate
// method may report any) is kept as text only, so that the result wraps exactly one
// kind.
func (e Kinds) Kernel(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ikpca.ErrArgument) {
		return &wrapped{msg: e.Argument.Error() + ": " + trimKind(err), errs: []error{e.Argument, err}}
	}
	return fmt.Errorf("%w: %s", e.Argument, trimKind(err))
}

// Stopped returns the error of an operation that stopped because ctx is done (format and
// args, if any, say where: "after 3 of 10 rows"). It wraps context.Cause(ctx) — the
// cause a context.WithCancelCause or WithDeadlineCause gave, or ctx.Err() — and ctx.Err()
// too when the cause is another error, so that errors.Is holds with the caller's cause
// and with context.Canceled or context.DeadlineExceeded alike. It wraps no ikpca kind:
// a stop the caller asked for is not a fault of the input (package ikpca, errors.go).
// Its text begins with the package's name ("kpca: stopped: …").
func (e Kinds) Stopped(ctx context.Context, format string, args ...any) error {
	where := ""
	if format != "" {
		where = " " + fmt.Sprintf(format, args...)
	}
	// done is context.Canceled or DeadlineExceeded, of comparable types, so that
	// comparing it with a cause of any type cannot panic.
	cause, done := context.Cause(ctx), ctx.Err()
	switch {
	case done == nil: // not done: the caller's mistake, reported as a stop all the same
		done = context.Canceled
		fallthrough
	case cause == nil || cause == done:
		return fmt.Errorf("%s: stopped%s: %w", e.pkg, where, done)
	}
	return fmt.Errorf("%s: stopped%s: %w (%w)", e.pkg, where, cause, done)
}
