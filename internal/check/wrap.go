package check

import (
	"errors"
	"fmt"

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
// what failed (format and args, as fmt.Sprintf; none if format is empty), then err
// itself ("kpca: invalid argument: kernel: kernel: invalid argument: …"). errors.Is then
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
	if format == "" {
		return fmt.Errorf("%w: %w", own, err)
	}
	return fmt.Errorf("%w: %s: %w", own, fmt.Sprintf(format, args...), err)
}

// Kernel returns err, the error of kernel.Validate refusing a model's kernel, as an
// Argument error of e's package, and nil if err is nil. A kernel that Validate refuses
// is an invalid argument of the constructor given it, whatever kind a custom kernel's
// own Validate method reported; that error is kept as text, so that the result wraps
// exactly one kind.
func (e Kinds) Kernel(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", e.Argument, err)
}
