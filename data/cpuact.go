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

//go:embed cpu_act.csv
var cpuActRaw string

// cpuActFeatures are the names of columns 1–21 of cpu_act.csv. The file's
// header only numbers the columns (1,…,22); the names are those of the DELVE
// comp-activ description and of the OpenML copy of cpu_act, whose rows match
// this file in this column order (see README.md).
var cpuActFeatures = []string{
	"lread", "lwrite", "scall", "sread", "swrite", "fork", "exec",
	"rchar", "wchar", "pgout", "ppgout", "pgfree", "pgscan", "atch",
	"pgin", "ppgin", "pflt", "vflt", "runqsz", "freemem", "freeswap",
}

// cpuActTargetName is the name of column 22 of cpu_act.csv, the regression
// target.
const cpuActTargetName = "usr"

var (
	cpuActOnce   sync.Once
	cpuActData   Dataset
	cpuActTarget []float64
	cpuActErr    error
)

// loadCPUAct parses the embedded cpu_act file once.
func loadCPUAct() (Dataset, []float64, error) {
	cpuActOnce.Do(func() {
		cpuActData, cpuActTarget, cpuActErr = parseTargetCSV("cpu_act", cpuActRaw, cpuActFeatures, cpuActTargetName)
	})
	return cpuActData, cpuActTarget, cpuActErr
}

// CPUAct returns the cpu_act data of the DELVE "Computer Activity"
// (comp-activ) collection: 8192 rows × 21 features, activity measures of a
// Sun SPARCstation 20/712 in a multi-user university department, sampled
// every 5 seconds. The features are lread, lwrite, scall, sread, swrite,
// fork, exec, rchar, wchar, pgout, ppgout, pgfree, pgscan, atch, pgin,
// ppgin, pflt, vflt, runqsz, freemem and freeswap (see README.md for their
// meaning). Labels is nil: this is a regression data set, and its target,
// the percentage of time the CPUs run in user mode (usr), is returned by
// CPUActTarget.
//
// The features span very different scales (freeswap reaches about 2.2e6,
// fork about 20), so standardise the columns before using a distance-based
// kernel. About 290 rows form an extreme regime (freeswap below 1000, a
// run queue of hundreds, usr often 0; see README.md) that lies far from the
// other rows. Rows are in file order.
//
// The embedded file is parsed once; each call returns a fresh deep copy, so
// callers may modify it.
func CPUAct() Dataset {
	d, _, err := loadCPUAct()
	if err != nil {
		// Unreachable for the file shipped with the package: the tests
		// check that it parses. Only a corrupted build could get here.
		panic("data: embedded cpu_act.csv is corrupt: " + err.Error())
	}
	return d.clone()
}

// CPUActTarget returns the regression target of CPUAct, one value per row
// in the same order: usr, the portion of time (in %) that the CPUs run in
// user mode, an integer between 0 and 99. The returned slice is a fresh
// copy on every call.
func CPUActTarget() []float64 {
	_, y, err := loadCPUAct()
	if err != nil {
		// Unreachable for the file shipped with the package; see CPUAct.
		panic("data: embedded cpu_act.csv is corrupt: " + err.Error())
	}
	return slices.Clone(y)
}

// CPUActRaw returns the bytes of the embedded cpu_act.csv file, exactly as
// distributed (comma-separated, a header line "1,2,…,22" numbering the
// columns, LF line endings). The returned slice is a fresh copy on every
// call.
func CPUActRaw() []byte {
	return []byte(cpuActRaw)
}

// parseTargetCSV parses a comma-separated numeric table with one header line,
//
//	h_1,…,h_k,h_{k+1}
//	f_1,…,f_k,t
//	…
//
// with k = len(features): k feature columns followed by one target column.
// The header must have exactly k+1 non-empty fields; its contents are not
// interpreted. Fields are taken verbatim (no quoting, no trimming). Every
// data line must have exactly k+1 fields and every field must be a finite
// number; blank lines and a table without data lines are errors. Line
// numbers in errors count the header as line 1.
func parseTargetCSV(name, raw string, features []string, target string) (Dataset, []float64, error) {
	k := len(features)
	if k == 0 {
		return Dataset{}, nil, fmt.Errorf("%s: no feature columns", name)
	}
	var (
		vals []float64
		y    []float64
		n    int // lines read, including the header
	)
	for line := range strings.Lines(raw) {
		n++
		line = strings.TrimSuffix(line, "\n")
		f := strings.Split(line, ",")
		if len(f) != k+1 {
			return Dataset{}, nil, fmt.Errorf("%s: line %d: got %d fields, want %d", name, n, len(f), k+1)
		}
		if n == 1 {
			if i := slices.Index(f, ""); i >= 0 {
				return Dataset{}, nil, fmt.Errorf("%s: line 1 (header): empty field %d", name, i+1)
			}
			continue
		}
		for j, s := range f {
			col := target
			if j < k {
				col = features[j]
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return Dataset{}, nil, fmt.Errorf("%s: line %d, column %d (%s): %w", name, n, j+1, col, err)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Dataset{}, nil, fmt.Errorf("%s: line %d, column %d (%s): non-finite value %q", name, n, j+1, col, s)
			}
			if j < k {
				vals = append(vals, v)
			} else {
				y = append(y, v)
			}
		}
	}
	if n < 2 {
		return Dataset{}, nil, fmt.Errorf("%s: no data lines", name)
	}
	return Dataset{
		Name:     name,
		X:        mat.NewDense(n-1, k, vals),
		Features: slices.Clone(features),
	}, y, nil
}
