// Command compare checks a pipeline's SKPCA model against the single-process model of
// the same points (stream.SKPCA, the same options, the points in file order): both
// estimate the eigenvalues of the features' ZᵀZ from below within their certified
// bounds Δ, so they may differ by up to Δ + Δ' and no more. It prints the points, the
// bounds, the largest difference of an eigenvalue against that slack, and the
// single-process fit's time, for the measurement of run.sh. Reading all points, it is
// for data that fit in memory.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/stream"
)

func main() {
	model := flag.String("model", "", "the pipeline's model file")
	input := flag.String("input", "", "the CSV files it was fitted on (a local glob)")
	flag.Parse()
	if err := compare(*model, *input); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

// compare fits the single-process model and prints the comparison.
func compare(model, input string) error {
	b, err := os.ReadFile(model)
	if err != nil {
		return err
	}
	s, err := ikpcabeam.DecodeSummary(b)
	if err != nil {
		return err
	}
	pipe, ok := s.(*ikpcabeam.SKPCA)
	if !ok {
		return fmt.Errorf("%s is not an SKPCA model", model)
	}
	single, err := stream.NewSKPCA(pipe.Dim(), pipe.Options())
	if err != nil {
		return err
	}
	files, err := filepath.Glob(input)
	if err != nil || len(files) == 0 {
		return fmt.Errorf("%s: no files", input)
	}
	slices.Sort(files)
	opts := ikpcabeam.CSVOptions{Dim: pipe.Dim()}
	start := time.Now()
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if x, err := ikpcabeam.ParseCSVLine(sc.Text(), opts); err == nil {
				if err := single.Add(x); err != nil {
					return err
				}
			}
		}
		r.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	a, c := pipe.Values(nil), single.Values(nil)
	elapsed := time.Since(start)
	slack := pipe.ErrorBound() + single.ErrorBound()
	var worst float64
	for i := range min(len(a), len(c)) {
		worst = math.Max(worst, math.Abs(a[i]-c[i]))
	}
	fmt.Printf("points: pipeline %d, single process %d\n", pipe.Len(), single.Len())
	fmt.Printf("certified bounds: pipeline Δ = %.6g, single process Δ' = %.6g\n", pipe.ErrorBound(), single.ErrorBound())
	fmt.Printf("largest eigenvalue difference %.6g = %.3g·(Δ + Δ'), λ₁ = %.6g\n", worst, worst/slack, c[0])
	fmt.Printf("single-process fit (reading included): %v\n", elapsed.Round(time.Millisecond))
	if worst > slack*(1+1e-9) || pipe.Len() != single.Len() {
		return fmt.Errorf("the models differ beyond their bounds")
	}
	return nil
}
