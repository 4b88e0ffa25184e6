package data

import _ "embed"

//go:embed magic04.data
var magicRaw string

// magicFeatures are the names of columns 1–10 of magic04.data, as in the UCI
// magic04.names file.
var magicFeatures = []string{
	"fLength", "fWidth", "fSize", "fConc", "fConc1",
	"fAsym", "fM3Long", "fM3Trans", "fAlpha", "fDist",
}

// magic is magic04.data parsed: lines "f₁,…,f₁₀,class".
var magic = embedded[Dataset]{file: "magic04.data", parse: func() (Dataset, error) {
	d, _, err := parseTable(layout{name: "magic", fields: commaFields, features: magicFeatures, label: true}, magicRaw)
	return d, err
}}

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
func Magic() Dataset { return magic.must().clone() }

// MagicRaw returns the bytes of the embedded magic04.data file, exactly as
// distributed (comma-separated, no header, LF line endings). The returned
// slice is a fresh copy on every call.
func MagicRaw() []byte {
	return []byte(magicRaw)
}
