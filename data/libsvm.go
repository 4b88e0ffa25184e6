package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
)

// libsvmMaxElements bounds the size of the dense matrix ParseLIBSVM builds:
// 2^28 float64 values, i.e. 2 GiB.
const libsvmMaxElements = 1 << 28

// ParseLIBSVM reads data in the sparse text format of LIBSVM and returns it
// as a dense matrix X (one row per data line) and the labels y (one per
// row). Each data line is
//
//	label index:value index:value …
//
// where label and every value are finite numbers in the syntax of
// strconv.ParseFloat (e.g. "-1", "+1", "0.5", "1e-3") and every index is an
// unsigned decimal integer ≥ 1 (indices are 1-based), strictly ascending
// within the line.
// Fields are separated by any amount of white space; leading and trailing
// white space (including a "\r" before the "\n") is ignored. Lines that are
// empty or contain only white space are skipped. Features a line does not
// list are zero. A line with only a label is a row of zeros.
//
// If dim > 0, X has dim columns and an index greater than dim is an error.
// If dim ≤ 0, the number of columns is the largest index in the input.
//
// ParseLIBSVM returns an error, naming the 1-based line number, for a
// malformed token, an index that is below 1, above dim, not ascending or
// repeated (ErrArgument), a label or value that is not a finite number
// (ErrNonFinite), and for a read error of r, returned as it is. It also
// returns an error if the input has no data lines or if dim ≤ 0 and no line
// lists a feature (ErrEmpty), if X would have more than 2^28 elements (2 GiB),
// and if r is nil (ErrArgument). It never panics, whatever the input. On error
// X and y are nil.
func ParseLIBSVM(r io.Reader, dim int) (X *mat.Dense, y []float64, err error) {
	return parseLIBSVM(r, dim, libsvmMaxElements)
}

// parseLIBSVM is ParseLIBSVM with the limit on the number of elements of X
// as a parameter, so that tests can exercise it with small limits.
func parseLIBSVM(r io.Reader, dim, maxElements int) (*mat.Dense, []float64, error) {
	if check.IsNil(r) {
		return nil, nil, fmt.Errorf("%w: libsvm: nil reader", ErrArgument)
	}
	if dim > maxElements {
		return nil, nil, fmt.Errorf("%w: libsvm: dimension %d exceeds the limit of %d elements", ErrArgument, dim, maxElements)
	}
	var (
		labels []float64
		start  = []int{0} // row i has entries idx[start[i]:start[i+1]]
		idx    []int      // 0-based column indices
		vals   []float64
		maxIdx int // largest 1-based index seen
	)
	br := bufio.NewReader(r)
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadString('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			// The reader's own error, not the package's to classify: as it is.
			return nil, nil, fmt.Errorf("data: libsvm: line %d: %w", lineNo, rerr)
		}
		if line == "" && rerr != nil {
			break // end of input
		}
		fields := strings.Fields(line)
		if len(fields) > 0 {
			label, last, lerr := parseLIBSVMFields(fields, dim, maxElements, func(j int, v float64) {
				idx = append(idx, j)
				vals = append(vals, v)
			})
			if lerr != nil {
				return nil, nil, fmt.Errorf("%w: libsvm: line %d: %w", lerr.kind, lineNo, lerr.err)
			}
			maxIdx = max(maxIdx, last)
			labels = append(labels, label)
			start = append(start, len(idx))
		}
		if rerr != nil {
			break // io.EOF after a final line without "\n"
		}
	}

	n := len(labels)
	if n == 0 {
		return nil, nil, fmt.Errorf("%w: libsvm: no data lines", ErrEmpty)
	}
	cols := dim
	if cols <= 0 {
		cols = maxIdx
		if cols == 0 {
			return nil, nil, fmt.Errorf("%w: libsvm: no line lists a feature; cannot infer the dimension", ErrEmpty)
		}
	}
	if cols > maxElements/n {
		return nil, nil, fmt.Errorf("%w: libsvm: %d rows × %d columns exceeds the limit of %d elements", ErrArgument, n, cols, maxElements)
	}
	X := mat.NewDense(n, cols, nil)
	raw := X.RawMatrix()
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+cols]
		for p := start[i]; p < start[i+1]; p++ {
			row[idx[p]] = vals[p]
		}
	}
	return X, labels, nil
}

// parseLIBSVMFields parses the fields of one data line, label first, and calls add
// with the 0-based index and the value of each feature in order. It returns the label
// and the largest 1-based index (0 for a line with only a label). dim and maxElements
// are those of parseLIBSVM. Its errors do not name the line: the caller does.
func parseLIBSVMFields(fields []string, dim, maxElements int, add func(j int, v float64)) (label float64, last int, err *lineError) {
	label, err = parseFinite(fields[0])
	if err != nil {
		return 0, 0, errorf(err.kind, "label: %w", err.err)
	}
	prev := 0
	for _, tok := range fields[1:] {
		is, vs, ok := strings.Cut(tok, ":")
		if !ok {
			return 0, 0, errorf(ErrArgument, "token %q is not index:value", tok)
		}
		j, err := parseIndex(is)
		if err != nil {
			return 0, 0, errorf(err.kind, "token %q: %w", tok, err.err)
		}
		switch {
		case dim > 0 && j > dim:
			return 0, 0, errorf(ErrArgument, "index %d exceeds dimension %d", j, dim)
		case dim <= 0 && j > maxElements:
			return 0, 0, errorf(ErrArgument, "index %d exceeds the limit of %d elements", j, maxElements)
		case j <= prev:
			return 0, 0, errorf(ErrArgument, "index %d does not follow %d (indices must be strictly ascending)", j, prev)
		}
		v, err := parseFinite(vs)
		if err != nil {
			return 0, 0, errorf(err.kind, "token %q: value: %w", tok, err.err)
		}
		prev = j
		add(j-1, v)
	}
	return label, prev, nil
}

// parseFinite parses s as a float64: a syntax error is ErrArgument, and NaN, ±Inf
// and a magnitude that overflows (which strconv.ParseFloat reports as ±Inf) are
// ErrNonFinite.
func parseFinite(s string) (float64, *lineError) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, errorf(ErrNonFinite, "non-finite value %q", s)
	case err != nil:
		return 0, errorf(ErrArgument, "%w", err)
	}
	return v, nil
}

// parseIndex parses a 1-based feature index: one or more ASCII digits, no
// sign, value ≥ 1.
func parseIndex(s string) (int, *lineError) {
	if s == "" {
		return 0, errorf(ErrArgument, "empty index")
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, errorf(ErrArgument, "index %q is not an unsigned decimal integer", s)
		}
	}
	j, err := strconv.Atoi(s)
	if err != nil {
		return 0, errorf(ErrArgument, "index %q: %w", s, err)
	}
	if j < 1 {
		return 0, errorf(ErrArgument, "index %d is below 1", j)
	}
	return j, nil
}
