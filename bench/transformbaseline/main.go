//go:build ignore

// Command transformbaseline measures kpca.Model.Transform's points per second exactly as
// bench/transform's ikpca-kpca-transform does (the same data, split, kernel, k = 6 and
// best of -reps), for revisions of the library older than today's:
// bench/transform_vs_sklearn.sh -baseline REV copies it into a git worktree of an
// earlier revision and builds it there, to compare today's Transform (bench/transform)
// with the one of that revision in the same run (by default the last before kernel
// blocks: kernel columns one point at a time, issue 14's "today's path").
//
// It uses only APIs that every revision up to issue 19 has — kpca.New(k, x0, opts) with
// Options.Mode, which issue 19 replaced by kpca.Fit and Options.Components — so it is not
// part of today's build (the ignore constraint above); the script names the file to
// build, which go build accepts whatever the constraint:
//
//	go build -tags openblas -o transformbaseline ./bench/transformbaseline/main.go   # in an old worktree
//
// It prints method,n,d,m,points_per_s,seconds,peak_rss_mib, as bench/transform does.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

func main() {
	dataset := flag.String("dataset", "a9a", "magic or a9a")
	n := flag.Int("n", 10000, "points projected")
	m := flag.Int("m", 1000, "points fitted")
	reps := flag.Int("reps", 3, "projections timed (the best is kept)")
	method := flag.String("method", "baseline-kpca-transform", "the name printed in the CSV")
	flag.Parse()
	if err := run(*dataset, *method, *n, *m, *reps); err != nil {
		fmt.Fprintln(os.Stderr, "transformbaseline:", err)
		os.Exit(1)
	}
}

func run(dataset, method string, n, m, reps int) error {
	native.Use()
	X := data.A9A().X
	if dataset == "magic" {
		X = data.Magic().X
	}
	rows, d := X.Dims()
	if m < 2 || m > rows || n < 1 {
		return fmt.Errorf("-m %d, -n %d: %s has %d rows", m, n, dataset, rows)
	}
	// bench/transform's split: fit on the first m rows, project the n following ones,
	// wrapping around; the bandwidth is the median distance between the first
	// min(m, 1000) rows.
	train := mat.DenseCopyOf(X.Slice(0, m, 0, d))
	test := mat.NewDense(n, d, nil)
	for i := range n {
		copy(test.RawRowView(i), X.RawRowView((m+i)%rows))
	}
	sigma, err := kernel.MedianDistance(train, 1000)
	if err != nil {
		return err
	}
	md, err := kpca.New(kernel.RBF{Sigma: sigma}, train, kpca.Options{Mode: kpca.Centred})
	if err != nil {
		return err
	}
	var dst mat.Dense
	best := time.Duration(1<<63 - 1)
	for range reps {
		dst.Reset()
		start := time.Now()
		if err := md.Transform(&dst, test, 6); err != nil {
			return err
		}
		best = min(best, time.Since(start))
	}
	s := best.Seconds()
	fmt.Printf("%s,%d,%d,%d,%.6g,%.6g,%s\n", method, n, d, m, float64(n)/s, s, peakMiB())
	return nil
}

// peakMiB returns the process's peak resident memory (VmHWM) in MiB, or NaN.
func peakMiB() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "NaN"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			var kb float64
			fmt.Sscan(f[1], &kb)
			return fmt.Sprintf("%.1f", kb/1024)
		}
	}
	return "NaN"
}
