package streaming

import (
	"fmt"
	"slices"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/check"
)

// maxSquare is the largest n of an n×n array within check.MaxFloats: the most points of
// an exact model or a kernel matrix of the study (docs/design.md, "Sizes").
const maxSquare = 1 << 15

// maxRNCAFeatures is RNCA's bound on its D×D matrix (stream.NewRNCA).
const maxRNCAFeatures = 1 << 14

// rows returns the number of points of an embedded data set.
func rows(name string) int {
	ds, _ := data.ByName(name)
	r, _ := ds.X.Dims()
	return r
}

// check reports, before any experiment runs, the options Run cannot run with: sizes out
// of range for the data sets or too large to allocate, unknown data sets. Each
// experiment checks its own options again when it runs alone.
func (o Options) check() error {
	for _, name := range o.Datasets {
		if !slices.Contains(DataSets, name) {
			return fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, name, DataSets)
		}
		if err := o.Approx.check(rows(name)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, name := range o.NystromDatasets {
		if !slices.Contains(NystromDataSets, name) {
			return fmt.Errorf("%w: unknown data set %q for Nyström kernel PCA (want one of %v)", study.ErrOptions, name, NystromDataSets)
		}
		if err := o.Nystrom.check(rows(name)); err != nil {
			return fmt.Errorf("Nyström kernel PCA, %s: %w", name, err)
		}
	}
	if o.Toy.Runs > 0 {
		if err := o.Toy.check(); err != nil {
			return err
		}
	}
	if o.RFF.N > 0 {
		if !slices.Contains(DataSets, o.RFF.Dataset) {
			return fmt.Errorf("%w: unknown data set %q for the random features (want one of %v)", study.ErrOptions, o.RFF.Dataset, DataSets)
		}
		if err := o.RFF.check(rows(o.RFF.Dataset)); err != nil {
			return err
		}
	}
	return nil
}

// check checks the kernel-approximation options for a data set of the given rows.
func (o ApproxOptions) check(rows int) error {
	switch {
	case len(o.Ells) == 0:
		return fmt.Errorf("%w: no sketch sizes", study.ErrOptions)
	case o.Features < 2 || o.Features%2 != 0 || o.Features > maxRNCAFeatures:
		return fmt.Errorf("%w: %d random features: want an even number from 2 to %d (RNCA's D×D matrix)", study.ErrOptions, o.Features, maxRNCAFeatures)
	case o.N < 2 || o.Test < 1 || o.N > rows || o.Test > rows-o.N:
		return fmt.Errorf("%w: %d training and %d test points from %d rows", study.ErrOptions, o.N, o.Test, rows)
	}
	for _, l := range o.Ells {
		if l < 1 || l >= o.N {
			return fmt.Errorf("%w: ℓ = %d out of range [1, %d)", study.ErrOptions, l, o.N)
		}
	}
	return nil
}

// check checks the toy's options: the exact model of N points holds an N×N
// decomposition, and every run keeps two errors per pass.
func (o ToyOptions) check() error {
	switch {
	case o.Runs < 1 || o.N < 4 || o.Passes < 1:
		return fmt.Errorf("%w: toy needs runs ≥ 1, N ≥ 4 and passes ≥ 1", study.ErrOptions)
	case o.N > maxSquare:
		return fmt.Errorf("%w: %d toy samples: at most %d (the exact model's N×N decomposition)", study.ErrOptions, o.N, maxSquare)
	case o.Passes > check.MaxFloats/2/o.Runs:
		return fmt.Errorf("%w: %d runs of %d passes: the errors kept after each pass would exceed %d numbers", study.ErrOptions, o.Runs, o.Passes, check.MaxFloats)
	}
	return nil
}

// check checks the random-feature options for a data set of the given rows: N points
// and one held out, feature dimensions from 2⁴ to 2^MaxLog.
func (o RFFOptions) check(rows int) error {
	switch {
	case o.N < 2 || o.Seeds < 1 || o.MaxLog < 5 || o.MaxLog > 16:
		return fmt.Errorf("%w: random features need n ≥ 2, seeds ≥ 1 and a largest dimension from 2⁵ to 2¹⁶", study.ErrOptions)
	case o.N > rows-1:
		return fmt.Errorf("%w: %d points for the random features, of %d rows (one held out)", study.ErrOptions, o.N, rows)
	}
	return nil
}

// check checks the Nyström kernel PCA options for a data set of the given rows (N is
// clipped to them), with NystromKPCA's defaults.
func (o NystromOptions) check(rows int) error {
	n := o.N
	if n <= 0 || n > rows {
		n = rows
	}
	k := o.Components
	if k == 0 {
		k = 10
	}
	if len(o.Ranks) == 0 || k < 1 || k+1 > n {
		return fmt.Errorf("%w: no ranks, or %d components of %d points", study.ErrOptions, k, n)
	}
	for _, r := range o.Ranks {
		if r <= k || r > n {
			return fmt.Errorf("%w: r = %d landmarks out of range (%d, %d]", study.ErrOptions, r, k, n)
		}
	}
	return nil
}
