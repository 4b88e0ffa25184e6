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

//go:embed magic04.data
var magicRaw string

// magicFeatures are the names of columns 1–10 of magic04.data, as in the UCI
// magic04.names file.
var magicFeatures = []string{
	"fLength", "fWidth", "fSize", "fConc", "fConc1",
	"fAsym", "fM3Long", "fM3Trans", "fAlpha", "fDist",
}

var (
	magicOnce sync.Once
	magicData Dataset
	magicErr  error
)

// loadMagic parses the embedded MAGIC file once.
func loadMagic() (Dataset, error) {
	magicOnce.Do(func() {
		magicData, magicErr = parseCSVTable("magic", magicRaw, magicFeatures)
	})
	return magicData, magicErr
}

// Magic returns the UCI MAGIC Gamma Telescope data (Monte Carlo simulated
// images of a Cherenkov gamma telescope; owner R. K. Bock, donor P. Savicky):
// 19020 rows × 10 features (fLength, fWidth, fSize, fConc, fConc1, fAsym,
// fM3Long, fM3Trans, fAlpha, fDist), with Labels holding the class of each
// row: "g" (gamma, signal; 12332 rows) or "h" (hadron, background; 6688
// rows).
//
// Rows are in file order, in which all "g" rows come first (rows 0–12331)
// and all "h" rows follow. In particular the first 10 000 rows, the subset
// used by Hallgren & Northrop, are all of class "g"; shuffle before taking a
// prefix if a mixture of classes is wanted.
//
// The embedded file is parsed once; each call returns a fresh deep copy, so
// callers may modify it.
func Magic() Dataset {
	d, err := loadMagic()
	if err != nil {
		// Unreachable for the file shipped with the package: the tests
		// check that it parses. Only a corrupted build could get here.
		panic("data: embedded magic04.data is corrupt: " + err.Error())
	}
	return d.clone()
}

// MagicRaw returns the bytes of the embedded magic04.data file, exactly as
// distributed (comma-separated, no header, LF line endings). The returned
// slice is a fresh copy on every call.
func MagicRaw() []byte {
	return []byte(magicRaw)
}

// parseCSVTable parses a comma-separated table without a header whose lines
// are
//
//	f_1,…,f_k,label
//
// with k = len(features). Fields are taken verbatim (no quoting, no
// trimming). Every line must have exactly k+1 fields, every feature must be a
// finite number and every label non-empty; blank lines are errors.
func parseCSVTable(name, raw string, features []string) (Dataset, error) {
	k := len(features)
	var (
		vals   []float64
		labels []string
		n      int
	)
	for line := range strings.Lines(raw) {
		n++
		line = strings.TrimSuffix(line, "\n")
		f := strings.Split(line, ",")
		if len(f) != k+1 {
			return Dataset{}, fmt.Errorf("%s: line %d: got %d fields, want %d", name, n, len(f), k+1)
		}
		for j, s := range f[:k] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return Dataset{}, fmt.Errorf("%s: line %d, column %d (%s): %w", name, n, j+1, features[j], err)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Dataset{}, fmt.Errorf("%s: line %d, column %d (%s): non-finite value %q", name, n, j+1, features[j], s)
			}
			vals = append(vals, v)
		}
		if f[k] == "" {
			return Dataset{}, fmt.Errorf("%s: line %d: empty label", name, n)
		}
		labels = append(labels, f[k])
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
