package data

import (
	"fmt"

	"github.com/ikpca/ikpca/internal/check"
)

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("data")

// Errors returned by ParseLIBSVM and ParseLIBSVMLine, wrapped with details; test with
// errors.Is. Each wraps the ikpca kind of the same name, and every error of the two
// functions wraps exactly one of them but one: the error of the reader given to
// ParseLIBSVM, which is not the package's to classify, is returned as it is (wrapped with
// the line number). The accessors of the embedded data sets return no error: their files
// are checked when the package is built and tested.
//
// The rule of the text: everything a line gets wrong — a malformed token, an index below
// 1, not ascending, above dim or beyond the element limit of 2²⁸, a dimension or a matrix
// beyond it — is ErrArgument, as is a nil reader, with one exception, a label or value
// that is not a finite number (NaN, ±Inf, or a number whose magnitude overflows a
// float64), which is ErrNonFinite. An input without data lines, a blank line given to
// ParseLIBSVMLine, or an input none of whose lines lists a feature when the dimension is
// to be inferred is ErrEmpty. The text is the argument of a parser, not an encoding of
// the module's: ikpca.ErrEncoding is for bytes that cannot be decoded into a model, and
// is not returned here.
//
// The IDX readers (NewIDXReader, IDXReader.Next, ReadIDX, ReadIDXLabels) and
// FashionMNIST follow the same rule. A file is the argument of a reader, so whatever
// it gets wrong — a magic that is not IDX's, an unknown element type, a header or data
// that end too soon, bytes after the declared data, sizes beyond the limits, a file of
// labels where images are expected or the reverse, a gzip stream that cannot be
// decoded — is ErrArgument; a float element that is NaN or infinite is ErrNonFinite; an
// empty input, a file without items and a file of empty items are ErrEmpty. The error
// of the caller's reader, and the error of a file FashionMNIST cannot open, are
// returned as they are, wrapped with what was being read.
var (
	ErrNonFinite, ErrEmpty, ErrArgument = kinds.NonFinite, kinds.Empty, kinds.Argument
)

// lineError is an error of one line's text, without the line's number, which only the
// caller knows: its kind (one of the package's sentinels) and what is wrong.
type lineError struct {
	kind error
	err  error
}

// errorf returns a lineError of the kind from a format and arguments (fmt.Errorf's,
// %w included).
func errorf(kind error, format string, args ...any) *lineError {
	return &lineError{kind: kind, err: fmt.Errorf(format, args...)}
}
