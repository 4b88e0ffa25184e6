// Command points writes the first n points of the seeded random order of an embedded data
// set (data.Dataset.Shuffled: MAGIC's columns as in data/magic04.data, a9a's 123 binary
// columns, cpu_act's 21, Yeast's 8) as CSV without a header, and prints on
// standard output the bandwidth σ of the Gaussian kernel the study and "ikpca fit" give
// those points (kernel.DefaultBandwidth), so that "ikpca fit --sigma σ" and scikit-learn
// with γ = 1/(2σ²) (bench/sklearn_fit.py --sigma σ) fit the same kernel matrix. It serves
// bench/fit_vs_sklearn.sh and bench/certified_vs_sklearn.sh.
//
// With -dataset fashion-mnist it writes the first n images of data.FashionMNIST (the
// 60,000 training images, then the 10,000 test images; not shuffled) as one IDX file of
// unsigned bytes, n×28×28, which "ikpca fit" and bench/sklearn_fit.py read by content:
// the pixels are the files' bytes, so that bytes/255 is bit for bit what FashionMNIST
// reads, and the 70,000 images, in two files, become one input. With -o FILE.csv the
// images are written as CSV instead (table.Write: the shortest decimal of each b/255,
// which parses back to the same float64), as a user with a CSV of images has them —
// the input of issue 28's comparisons.
//
//	go run ./bench/points -dataset magic -n 2000 -o /tmp/magic-2000.csv    # prints σ
//	go run ./bench/points -dataset magic -n 0 -o /tmp/magic-all.csv        # all 19,020
//	go run ./bench/points -dataset fashion-mnist -n 0 -o /tmp/fashion.idx  # all 70,000
//	go run ./bench/points -dataset fashion-mnist -n 10000 -o /tmp/f10k.csv # as CSV
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/table"
	"github.com/ikpca/ikpca/kernel"
)

func main() {
	dataset := flag.String("dataset", "magic", "data set: magic, a9a, cpu_act, yeast or fashion-mnist")
	n := flag.Int("n", 0, "points (0: all)")
	seed := flag.Uint64("seed", 1, "seed of the order (ikpca tracking's --seed)")
	out := flag.String("o", "", "CSV file to write (required)")
	flag.Parse()
	if *out == "" || *n < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: points -dataset magic|a9a|cpu_act|yeast|fashion-mnist -n N -o FILE [-seed S]")
		os.Exit(2)
	}
	if err := run(*dataset, *n, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "points:", err)
		os.Exit(1)
	}
}

func run(dataset string, n int, seed uint64, path string) error {
	if dataset == "fashion-mnist" {
		return runFashion(n, path)
	}
	ds, ok := data.ByName(dataset)
	if !ok || ds.X == nil {
		return fmt.Errorf("unknown data set %q (want magic, a9a, cpu_act, yeast or fashion-mnist)", dataset)
	}
	X := ds.Shuffled(n, seed)
	return writePoints(path, X, writeCSV)
}

// writePoints writes X to path with write and prints the bandwidth σ of its points.
func writePoints(path string, X *mat.Dense, write func(*os.File, *mat.Dense) error) error {
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f, X); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("%.17g\n", sigma)
	return nil
}

// writeCSV writes the rows of X as CSV without a header (table.Write: the shortest
// decimal of each value, which parses back to the same float64).
func writeCSV(f *os.File, X *mat.Dense) error {
	w := bufio.NewWriterSize(f, 1<<20)
	if err := table.Write(w, nil, X, 0); err != nil {
		return err
	}
	return w.Flush()
}

// runFashion writes the first n images of Fashion-MNIST (all with n = 0) as an IDX
// file, or as CSV if path ends in .csv, and prints their bandwidth.
func runFashion(n int, path string) error {
	ds, err := data.FashionMNIST("", n)
	if err != nil {
		return err
	}
	write := writeIDX
	if strings.HasSuffix(path, ".csv") {
		write = writeCSV
	}
	return writePoints(path, ds.X, write)
}

// writeIDX writes the rows of X, 28×28 images with pixels b/255 for bytes b, as an IDX
// file of unsigned bytes: the magic number 0x00000803 (type 0x08, three dimensions),
// the dimensions n, 28, 28 as big-endian 32-bit integers, then the bytes, row by row.
func writeIDX(f *os.File, X *mat.Dense) error {
	n, d := X.Dims()
	if d != 28*28 {
		return fmt.Errorf("images of %d pixels, want 784", d)
	}
	w := bufio.NewWriter(f)
	for _, v := range []uint32{0x00000803, uint32(n), 28, 28} {
		if err := binary.Write(w, binary.BigEndian, v); err != nil {
			return err
		}
	}
	row := make([]byte, d)
	for i := range n {
		for j, v := range X.RawRowView(i) {
			// b/255·255 rounds back to b exactly: its error is far below ½.
			b := math.Round(v * 255)
			if !(b >= 0 && b <= 255) || b/255 != v {
				return fmt.Errorf("pixel (%d, %d) = %v is not a byte over 255", i, j, v)
			}
			row[j] = byte(b)
		}
		if _, err := w.Write(row); err != nil {
			return err
		}
	}
	return w.Flush()
}
