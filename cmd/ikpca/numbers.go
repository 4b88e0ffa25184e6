package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/ikpca/ikpca/internal/check"
)

// Every numeric flag is checked before any work (docs/design.md, "Sizes"): checkNumbers
// refuses, as a usage error, an integer flag (or an entry of an integer list) above
// maxCount and a floating-point flag that is not finite, whatever the command; each
// command then checks its own ranges, and the studies their options, against the data
// and what they allocate. No size is allocated from a flag before the data arrive.

// maxCount is the largest value of any integer flag: 2³⁰, check.MaxFloats, the most
// numbers one array of the library holds. A count beyond it — of points, components,
// features, runs or steps — is no experiment's, and sums and products of two such
// counts cannot overflow an int.
const maxCount = check.MaxFloats

// maxSquare is the largest n for an n×n array within check.MaxFloats (2¹⁵): the most
// points a starting batch decomposition, an exact model or a batch reference can hold.
const maxSquare = 1 << 15

// checkNumbers checks every numeric flag of fs: integers at most maxCount (and, as
// pflag parses them, within int), floats finite.
func checkNumbers(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		switch f.Value.Type() {
		case "int":
			if v, e := strconv.Atoi(f.Value.String()); e == nil && v > maxCount {
				err = usageError{fmt.Errorf("--%s %d is too large: at most %d", f.Name, v, maxCount)}
			}
		case "float64":
			if v, e := strconv.ParseFloat(f.Value.String(), 64); e == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				err = usageError{fmt.Errorf("--%s %v: want a finite number", f.Name, v)}
			}
		}
	})
	return err
}

// atMost returns a usage error if the flag's value v is above hi, saying why (what
// needs the bound), or nil.
func atMost(flag string, v, hi int, why string) error {
	if v > hi {
		return usageError{fmt.Errorf("--%s %d is too large: at most %d (%s)", flag, v, hi, why)}
	}
	return nil
}

// firstErr returns the first error that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
