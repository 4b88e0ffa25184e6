// Command compare checks a pipeline's model against the single-process model of the
// same points, for the measurement of run.sh, and prints the comparison:
//
//   - SKPCA: stream.SKPCA with the same kernel and options, the points added in file
//     order. Both estimate the eigenvalues of the features' covariance ZᵀZ − n·z̄z̄ᵀ
//     (uncentred, ZᵀZ) from below within their certified bounds Δ, so they may differ
//     by up to Δ + Δ' and no more.
//   - Nyström KPCA: nystrom.Model built by New on the pipeline model's landmarks, kernel
//     and tolerance, the points added in file order (AddBatch). Its sums are
//     compensated, so the two agree to rounding: the eigenvalues relative to λ₁, the
//     principal angles between the top components' spans and the scores of a probe set
//     (the first points read).
//
// It fails (exit status 1) when the models differ beyond that. It reads the points in
// blocks and keeps only the models and the probe set: its memory does not grow with the
// number of points.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
)

func main() {
	model := flag.String("model", "", "the pipeline's model file")
	input := flag.String("input", "", "the CSV files it was fitted on (a local glob)")
	probe := flag.Int("probe", 1000, "Nyström: the number of probe points (the first read) whose scores are compared")
	k := flag.Int("k", 10, "Nyström: the most top components whose span and scores are compared")
	flag.Parse()
	if err := compare(*model, *input, *probe, *k); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

// compare decodes the pipeline's model and compares it with its single-process fit.
func compare(model, input string, probe, k int) error {
	b, err := os.ReadFile(model)
	if err != nil {
		return err
	}
	s, err := ikpcabeam.DecodeSummary(b)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(input)
	if err != nil || len(files) == 0 {
		return fmt.Errorf("%s: no files", input)
	}
	slices.Sort(files)
	switch m := s.(type) {
	case *ikpcabeam.SKPCA:
		return compareSKPCA(m, files)
	case *ikpcabeam.Nystrom:
		if probe < 1 || k < 1 {
			return fmt.Errorf("--probe %d, --k %d: want ≥ 1", probe, k)
		}
		return compareNystrom(m, files, probe, k)
	}
	return fmt.Errorf("%s: a %T, not an SKPCA or a Nyström model", model, s)
}

// readBlock is the number of points readPoints hands on at a time.
const readBlock = 4096

// readPoints reads the points of the CSV files of dimension d, in file order, and
// calls add with blocks of up to readBlock of them (a matrix it reuses). Lines that
// are not points are skipped, as the pipeline's dead letters are not added.
func readPoints(files []string, d int, add func(X *mat.Dense) error) error {
	opts := ikpcabeam.CSVOptions{Dim: d}
	buf := make([]float64, 0, readBlock*d)
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		err := add(mat.NewDense(len(buf)/d, d, buf))
		buf = buf[:0]
		return err
	}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			x, err := ikpcabeam.ParseCSVLine(sc.Text(), opts)
			if err != nil {
				continue
			}
			buf = append(buf, x...)
			if len(buf) == cap(buf) {
				if err := flush(); err != nil {
					r.Close()
					return err
				}
			}
		}
		r.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	return flush()
}
