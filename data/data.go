// Package data provides reference data sets embedded in the binary, for
// examples, tests and benchmarks of the kernel PCA routines: Yeast, Magic,
// CPUAct (with CPUActTarget), A9A and A9ATest. It also provides
// ParseLIBSVM, a reader for the sparse text format of LIBSVM.
//
// Every accessor returns a fresh deep copy, so callers may modify the result
// freely. See README.md in this directory for provenance, licences and
// checksums.
package data

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Dataset is a numeric data set: one row per point.
type Dataset struct {
	// Name is a short identifier of the data set, e.g. "yeast".
	Name string
	// X holds the features, rows × features.
	X *mat.Dense
	// Features names the columns of X.
	Features []string
	// Labels is the class label of each row, or nil if the data set has none.
	Labels []string
}

// clone returns a deep copy of d.
func (d Dataset) clone() Dataset {
	c := Dataset{
		Name:     d.Name,
		Features: slices.Clone(d.Features),
		Labels:   slices.Clone(d.Labels),
	}
	if d.X != nil {
		c.X = mat.DenseCopyOf(d.X)
	}
	return c
}

//go:embed yeast.data
var yeastRaw string

// yeastFeatures are the names of columns 2–9 of yeast.data.
var yeastFeatures = []string{"mcg", "gvh", "alm", "mit", "erl", "pox", "vac", "nuc"}

var (
	yeastOnce sync.Once
	yeastData Dataset
	yeastErr  error
)

// loadYeast parses the embedded Yeast file once.
func loadYeast() (Dataset, error) {
	yeastOnce.Do(func() {
		yeastData, yeastErr = parseNamedTable("yeast", yeastRaw, yeastFeatures)
	})
	return yeastData, yeastErr
}

// Yeast returns the UCI Yeast data (protein localisation sites, K. Nakai and
// P. Horton): 1484 rows × 8 features (mcg, gvh, alm, mit, erl, pox, vac, nuc),
// with Labels holding the localisation class of each row (10 classes: CYT,
// NUC, MIT, ME3, ME2, ME1, EXC, VAC, POX, ERL). The sequence-name column of
// the file is dropped. Rows are in file order; the data contain duplicate
// rows (e.g. file lines 407/408 and 409/410), which are kept.
//
// The embedded file is parsed once; each call returns a fresh deep copy, so
// callers may modify it.
func Yeast() Dataset {
	d, err := loadYeast()
	if err != nil {
		// Unreachable for the file shipped with the package: the tests
		// check that it parses. Only a corrupted build could get here.
		panic("data: embedded yeast.data is corrupt: " + err.Error())
	}
	return d.clone()
}

// YeastRaw returns the bytes of the embedded yeast.data file, exactly as
// distributed (whitespace-separated, variable number of spaces). The
// returned slice is a fresh copy on every call.
func YeastRaw() []byte {
	return []byte(yeastRaw)
}

// parseNamedTable parses a whitespace-separated table whose lines are
//
//	name f_1 … f_k label
//
// with k = len(features). Any run of spaces or tabs separates fields. Every
// line must have exactly k+2 fields and every feature must be a finite
// number; blank lines are errors.
func parseNamedTable(name, raw string, features []string) (Dataset, error) {
	k := len(features)
	var (
		vals   []float64
		labels []string
		n      int
	)
	for line := range strings.Lines(raw) {
		n++
		f := strings.Fields(line)
		if len(f) != k+2 {
			return Dataset{}, fmt.Errorf("%s: line %d: got %d fields, want %d", name, n, len(f), k+2)
		}
		for j, s := range f[1 : k+1] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return Dataset{}, fmt.Errorf("%s: line %d, column %d (%s): %w", name, n, j+2, features[j], err)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Dataset{}, fmt.Errorf("%s: line %d, column %d (%s): non-finite value %q", name, n, j+2, features[j], s)
			}
			vals = append(vals, v)
		}
		labels = append(labels, f[k+1])
	}
	if n == 0 || k == 0 {
		return Dataset{}, fmt.Errorf("%s: empty table", name)
	}
	return Dataset{
		Name:     name,
		X:        mat.NewDense(n, k, vals),
		Features: slices.Clone(features),
		Labels:   labels,
	}, nil
}
