package data

import (
	_ "embed"
	"slices"
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

// cpuAct is cpu_act.csv parsed: a header line numbering the columns, then lines
// "f₁,…,f₂₁,usr".
var cpuAct = embedded[withTarget]{file: "cpu_act.csv", parse: func() (withTarget, error) {
	d, y, err := parseTable(layout{name: "cpu_act", fields: commaFields, header: true, features: cpuActFeatures,
		target: cpuActTargetName}, cpuActRaw)
	return withTarget{d, y}, err
}}

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
func CPUAct() Dataset { return cpuAct.must().clone() }

// CPUActTarget returns the regression target of CPUAct, one value per row
// in the same order: usr, the portion of time (in %) that the CPUs run in
// user mode, an integer between 0 and 99. The returned slice is a fresh
// copy on every call.
func CPUActTarget() []float64 { return slices.Clone(cpuAct.must().target) }

// CPUActRaw returns the bytes of the embedded cpu_act.csv file, exactly as
// distributed (comma-separated, a header line "1,2,…,22" numbering the
// columns, LF line endings). The returned slice is a fresh copy on every
// call.
func CPUActRaw() []byte {
	return []byte(cpuActRaw)
}
