// Command points writes the first n points of the seeded random order of a data set that
// the study "ikpca tracking" uses (data.Dataset.Shuffled: MAGIC's columns as in
// data/magic04.data, a9a's 123 binary columns) as CSV without a header, and prints on
// standard output the bandwidth σ of the Gaussian kernel the study and "ikpca fit" give
// those points (kernel.DefaultBandwidth), so that "ikpca fit --sigma σ" and scikit-learn
// with γ = 1/(2σ²) (bench/sklearn_fit.py --sigma σ) fit the same kernel matrix. It serves
// bench/fit_vs_sklearn.sh.
//
//	go run ./bench/points -dataset magic -n 2000 -o /tmp/magic-2000.csv    # prints σ
//	go run ./bench/points -dataset magic -n 0 -o /tmp/magic-all.csv        # all 19,020
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/table"
	"github.com/ikpca/ikpca/kernel"
)

func main() {
	dataset := flag.String("dataset", "magic", "data set: magic or a9a")
	n := flag.Int("n", 0, "points (0: all)")
	seed := flag.Uint64("seed", 1, "seed of the order (ikpca tracking's --seed)")
	out := flag.String("o", "", "CSV file to write (required)")
	flag.Parse()
	if *out == "" || *n < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: points -dataset magic|a9a -n N -o FILE [-seed S]")
		os.Exit(2)
	}
	if err := run(*dataset, *n, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "points:", err)
		os.Exit(1)
	}
}

func run(dataset string, n int, seed uint64, path string) error {
	ds, ok := data.ByName(dataset)
	if !ok || (dataset != "magic" && dataset != "a9a") {
		return fmt.Errorf("unknown data set %q (want magic or a9a)", dataset)
	}
	X := ds.Shuffled(n, seed)
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := table.Write(f, nil, X, 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("%.17g\n", sigma)
	return nil
}
