// Package data provides reference data sets embedded in the binary, for
// examples, tests and benchmarks of the kernel PCA routines: Yeast, Magic,
// CPUAct (with CPUActTarget), A9A, A9ATest and FashionMNISTSample. It also provides
// ParseLIBSVM, a reader for the sparse text format of LIBSVM, and ParseLIBSVMLine,
// which parses one line of it; ReadIDX, ReadIDXLabels and IDXReader, readers of the
// binary IDX format of the MNIST files, gzip-compressed or not; and FashionMNIST, which
// reads the 70000 Fashion-MNIST images that Debian's package dataset-fashion-mnist
// installs.
//
// Every accessor returns a fresh deep copy, so callers may modify the result
// freely. See README.md in this directory for provenance, licences and
// checksums.
//
// Every error of ParseLIBSVM and ParseLIBSVMLine wraps one of the package's
// sentinel errors (ErrArgument, ErrNonFinite, ErrEmpty), each of which wraps the
// ikpca kind of the same name — malformed text, an index out of range or out of
// order and sizes beyond the limit are ErrArgument, a label or value that is not a
// finite number ErrNonFinite, an input without data ErrEmpty — except the error of
// ParseLIBSVM's reader, returned as it is. The IDX readers follow the same rule (see
// errors.go), and FashionMNIST returns the error of a file it cannot open as os.Open
// does.
package data

import (
	_ "embed"
	"math/rand/v2"
	"slices"
	"strings"

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

// shuffleStream is the PCG stream of Shuffled's order (the seed is the other half of the
// state). Its value is arbitrary but fixed: the study "ikpca tracking", the command's
// comparison with scikit-learn (bench/fit_vs_sklearn.sh) and their tests see one order.
const shuffleStream = 0x7ac

// Shuffled returns the first n rows of X in a seeded random order (a permutation of all
// the rows drawn by PCG from seed), as a new matrix: a sample of n points without
// replacement that is the same on every machine for the same seed, and whose first rows
// are those of any larger n. n ≤ 0, or more than X has rows, means all of them. Like
// gonum's methods it panics on a programming error: a Dataset without X.
func (d Dataset) Shuffled(n int, seed uint64) *mat.Dense {
	rows, cols := d.X.Dims()
	if n <= 0 || n > rows {
		n = rows
	}
	perm := rand.New(rand.NewPCG(seed, shuffleStream)).Perm(rows)
	out := mat.NewDense(n, cols, nil)
	for i := range n {
		out.SetRow(i, d.X.RawRowView(perm[i]))
	}
	return out
}

// ByName returns the embedded data set whose Name is name — "yeast", "magic",
// "cpu_act", "a9a", "a9a.t" or "fashion-mnist-sample" — as its accessor does (a fresh
// copy), or false for any other name.
func ByName(name string) (Dataset, bool) {
	get, ok := map[string]func() Dataset{
		"yeast": Yeast, "magic": Magic, "cpu_act": CPUAct, "a9a": A9A, "a9a.t": A9ATest,
		"fashion-mnist-sample": FashionMNISTSample,
	}[name]
	if !ok {
		return Dataset{}, false
	}
	return get(), true
}

//go:embed yeast.data
var yeastRaw string

// yeastFeatures are the names of columns 2–9 of yeast.data.
var yeastFeatures = []string{"mcg", "gvh", "alm", "mit", "erl", "pox", "vac", "nuc"}

// yeast is yeast.data parsed: lines "name f₁ … f₈ class", fields separated by any run
// of blanks.
var yeast = embedded[Dataset]{file: "yeast.data", parse: func() (Dataset, error) {
	d, _, err := parseTable(layout{name: "yeast", fields: strings.Fields, skip: 1, features: yeastFeatures, label: true}, yeastRaw)
	return d, err
}}

// Yeast returns the UCI Yeast data (protein localisation sites, K. Nakai and
// P. Horton): 1484 rows × 8 features (mcg, gvh, alm, mit, erl, pox, vac, nuc),
// with Labels holding the localisation class of each row (10 classes: CYT,
// NUC, MIT, ME3, ME2, ME1, EXC, VAC, POX, ERL). The sequence-name column of
// the file is dropped. Rows are in file order; the data contain duplicate
// rows (e.g. file lines 407/408 and 409/410), which are kept.
//
// The embedded file is parsed once; each call returns a fresh deep copy, so
// callers may modify it.
func Yeast() Dataset { return yeast.must().clone() }

// YeastRaw returns the bytes of the embedded yeast.data file, exactly as
// distributed (whitespace-separated, variable number of spaces). The
// returned slice is a fresh copy on every call.
func YeastRaw() []byte {
	return []byte(yeastRaw)
}
