package data

import (
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The a9a files are embedded gzip-compressed (gzip -9 -n): 2.3 MB and
// 1.2 MB of text shrink to about 200 kB and 100 kB. See README.md.

//go:embed a9a.gz
var a9aGz string

//go:embed a9a.t.gz
var a9aTestGz string

// a9aDim is the number of features of a9a. The test file never uses
// feature 123, so its dimension must not be inferred.
const a9aDim = 123

// a9aFeatures names the columns of a9a: "f1", …, "f123", after the 1-based
// feature indices of the LIBSVM file.
var a9aFeatures = func() []string {
	f := make([]string, a9aDim)
	for j := range f {
		f[j] = "f" + strconv.Itoa(j+1)
	}
	return f
}()

// a9a and a9aTest are the a9a files decompressed and parsed.
var (
	a9a     = embedded[Dataset]{file: "a9a.gz", parse: func() (Dataset, error) { return parseA9A("a9a", a9aGz) }}
	a9aTest = embedded[Dataset]{file: "a9a.t.gz", parse: func() (Dataset, error) { return parseA9A("a9a.t", a9aTestGz) }}
)

// A9A returns the training part of LIBSVM's a9a data set, the UCI "Adult"
// census data (R. Kohavi and B. Becker) in the binarised form of J. Platt:
// 32561 rows × 123 binary features (values 0 or 1; each row has 11 to 14
// ones), named "f1", …, "f123" after the 1-based LIBSVM indices. Labels
// holds the class of each row as in the file, "+1" (income > 50K; 7841
// rows) or "-1" (24720 rows). Rows are in file order.
//
// The data contain many repeated rows: only 24947 of the 32561 feature
// vectors are distinct, and 1061 distinct vectors occur with both labels.
//
// The embedded file is decompressed and parsed once; each call returns a
// fresh deep copy, so callers may modify it.
func A9A() Dataset { return a9a.must().clone() }

// A9ATest returns the test part of LIBSVM's a9a data set (file a9a.t):
// 16281 rows × 123 binary features, with Labels "+1" (3846 rows) or "-1"
// (12435 rows), in the same format and with the same feature names as A9A.
// Feature 123 is zero in every row of this file; X nevertheless has 123
// columns, so that it matches A9A.
//
// The embedded file is decompressed and parsed once; each call returns a
// fresh deep copy, so callers may modify it.
func A9ATest() Dataset { return a9aTest.must().clone() }

// A9ARaw returns the a9a training file in LIBSVM format, decompressed, i.e.
// exactly the bytes of LIBSVM's a9a (LF line endings; every line ends in a
// space before the newline). It can be parsed with ParseLIBSVM. The
// returned slice is a fresh copy on every call.
func A9ARaw() []byte {
	b, err := gunzip(a9aGz)
	if err != nil {
		// Unreachable for the file shipped with the package; see A9A.
		panic("data: embedded a9a.gz is corrupt: " + err.Error())
	}
	return b
}

// A9ATestRaw returns the a9a.t test file in LIBSVM format, decompressed, in
// the same form as A9ARaw. The returned slice is a fresh copy on every call.
func A9ATestRaw() []byte {
	b, err := gunzip(a9aTestGz)
	if err != nil {
		// Unreachable for the file shipped with the package; see A9A.
		panic("data: embedded a9a.t.gz is corrupt: " + err.Error())
	}
	return b
}

// gunzip decompresses gz, checking the gzip checksum and length.
func gunzip(gz string) ([]byte, error) {
	zr, err := gzip.NewReader(strings.NewReader(gz))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	return b, zr.Close()
}

// parseA9A decompresses gz and parses it as a LIBSVM file with a9aDim
// features and labels ±1.
func parseA9A(name, gz string) (Dataset, error) {
	zr, err := gzip.NewReader(strings.NewReader(gz))
	if err != nil {
		return Dataset{}, fmt.Errorf("%s: %w", name, err)
	}
	// ParseLIBSVM reads to the end of the stream, where the gzip reader
	// verifies the checksum; a mismatch is returned as a read error.
	X, y, err := ParseLIBSVM(zr, a9aDim)
	if err != nil {
		return Dataset{}, fmt.Errorf("%s: %w", name, err)
	}
	if err := zr.Close(); err != nil {
		return Dataset{}, fmt.Errorf("%s: %w", name, err)
	}
	labels := make([]string, len(y))
	for i, v := range y {
		switch v {
		case 1:
			labels[i] = "+1"
		case -1:
			labels[i] = "-1"
		default:
			return Dataset{}, fmt.Errorf("%s: row %d: label %v, want +1 or -1", name, i+1, v)
		}
	}
	return Dataset{
		Name:     name,
		X:        X,
		Features: slices.Clone(a9aFeatures),
		Labels:   labels,
	}, nil
}
