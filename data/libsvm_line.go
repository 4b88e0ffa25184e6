package data

import (
	"fmt"
	"strings"
)

// ParseLIBSVMLine parses one data line of the LIBSVM format, by the rules of
// ParseLIBSVM, into a dense point of dim ≥ 1 features and its label: x holds the
// listed values at their indices and zeros elsewhere. x is dst[:dim] if dst has the
// capacity, else a new slice; it is cleared first. It is for readers that see one line
// at a time (a distributed pipeline, a stream), where ParseLIBSVM would need the
// whole input.
//
// A line that is empty or only white space is an error here (ParseLIBSVM skips such
// lines; a caller that wants the same checks strings.TrimSpace first), and so is
// everything ParseLIBSVM rejects in a line: a malformed token, a label or value that is
// not a finite number, an index below 1, above dim, not ascending or repeated. Errors
// do not name a line number, which only the caller knows; their kinds are those of
// ParseLIBSVM (a label or value that is not a finite number ErrNonFinite, anything else
// the line gets wrong ErrArgument), a blank line is ErrEmpty, and a dim below 1 or above
// 2^28 ErrArgument. On error x is nil, and dst's contents are unspecified.
func ParseLIBSVMLine(dst []float64, line string, dim int) (x []float64, label float64, err error) {
	if dim < 1 {
		return nil, 0, fmt.Errorf("%w: libsvm: dimension %d, want ≥ 1", ErrArgument, dim)
	}
	if dim > libsvmMaxElements {
		return nil, 0, fmt.Errorf("%w: libsvm: dimension %d exceeds the limit of %d elements", ErrArgument, dim, libsvmMaxElements)
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil, 0, fmt.Errorf("%w: libsvm: blank line", ErrEmpty)
	}
	if cap(dst) >= dim {
		x = dst[:dim]
		clear(x)
	} else {
		x = make([]float64, dim)
	}
	label, _, lerr := parseLIBSVMFields(fields, dim, libsvmMaxElements, func(j int, v float64) { x[j] = v })
	if lerr != nil {
		return nil, 0, fmt.Errorf("%w: libsvm: %w", lerr.kind, lerr.err)
	}
	return x, label, nil
}
