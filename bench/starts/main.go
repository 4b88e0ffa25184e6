// Command starts measures how many passes over the points kpca.FitFrom needs to reach
// the top eigenvalues of the batch to 1e-12·λ₁ from each starting subspace (docs/design.md,
// "Starting subspaces"): the vectors of a tracked model (kpca.Fit at rank R), the
// eigenvectors of a Nyström model lifted to the points (nystrom.Fit with -landmarks
// uniform landmarks, its scores of the points, nystrom.Model.Transform), and random
// vectors. The reference is the tracked model polished with -refpasses passes
// (kpca.Model.Polish) and certified (kpca.Model.Certify): its top -k values, whose
// certified widths it prints beside them.
//
// The points are MAGIC in the seeded order of bench/points (data.Dataset.Shuffled(n, 1),
// all 19,020 with -n 0), or the first -n images of data.FashionMNIST; the kernel is the
// centred RBF of σ = kernel.DefaultBandwidth of the points, what "ikpca fit" picks. For
// each start and each number of passes in -passes it prints the top-k error
// max|λ̂ⱼ − λⱼ|/λ₁ against the reference, the model's ErrorBound/λ₁, and the time of the
// FitFrom (its passes, and the one that gives the running sums):
//
//	go run -tags openblas ./bench/starts -dataset magic -n 0 -passes 2,3,4,6,8
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/bench/internal/cli"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/nystrom"
)

func main() { cli.Main("starts", 2, parse, run) }

// config is the command line.
type config struct {
	dataset                          string
	n, rank, k, landmarks, refPasses int
	list                             string
}

func parse(args []string) (config, error) {
	var c config
	f := flag.NewFlagSet("starts", flag.ContinueOnError)
	f.StringVar(&c.dataset, "dataset", "magic", "magic or fashion-mnist")
	f.IntVar(&c.n, "n", 0, "points (0: all of MAGIC; required for fashion-mnist)")
	f.IntVar(&c.rank, "rank", 50, "the rank R of the models and the width of the starts")
	f.IntVar(&c.k, "k", 10, "the top eigenvalues compared")
	f.IntVar(&c.landmarks, "landmarks", 1000, "the Nyström model's landmarks")
	f.IntVar(&c.refPasses, "refpasses", 8, "the reference's Polish passes")
	f.StringVar(&c.list, "passes", "2,3,4,6,8", "the numbers of passes, comma-separated")
	if err := f.Parse(args); err != nil {
		return c, err
	}
	if c.dataset == "fashion-mnist" && c.n <= 0 {
		return c, fmt.Errorf("-n: the number of Fashion-MNIST images")
	}
	return c, nil
}

func run(c config) error {
	var passes []int
	for _, s := range strings.Split(c.list, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-passes: %v", err)
		}
		passes = append(passes, p)
	}
	X, err := cli.Points(c.dataset, c.n)
	if err != nil {
		return err
	}
	m, d := X.Dims()
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		return err
	}
	kern := kernel.RBF{Sigma: sigma}
	opts := kpca.Options{Components: c.rank, Rank: c.rank}
	fmt.Printf("# %s, %d points of d = %d, RBF σ = %.5g, rank %d, top %d; backend %v\n", c.dataset, m, d, sigma, c.rank, c.k, native.Use())

	t0 := time.Now()
	tracked, err := kpca.Fit(kern, X, opts)
	if err != nil {
		return err
	}
	fmt.Printf("# tracked fit: %.1f s\n", time.Since(t0).Seconds())
	var tv mat.Dense
	tracked.VectorsTo(&tv)

	want, err := reference(c, kern, X, opts)
	if err != nil {
		return err
	}

	t0 = time.Now()
	nys, err := nystrom.Fit(kern, X, nystrom.Options{Landmarks: c.landmarks, Seed: 1})
	if err != nil {
		return err
	}
	var lifted mat.Dense
	if err := nys.Transform(&lifted, X, min(c.rank, len(nys.Values(nil)))); err != nil {
		return err
	}
	fmt.Printf("# Nyström model of %d landmarks and its scores of the points: %.1f s\n", c.landmarks, time.Since(t0).Seconds())

	starts := []struct {
		name string
		s    kpca.Start
	}{
		{"tracked", kpca.Start{Vectors: &tv}},
		{"nystrom", kpca.Start{Vectors: &lifted}},
		{"random", kpca.Start{Seed: 1}},
	}
	fmt.Println("| start | passes | top-k max abs(Δλ)/λ₁ | ErrorBound/λ₁ | FitFrom s |")
	fmt.Println("| --- | --: | --: | --: | --: |")
	for _, st := range starts {
		for _, p := range passes {
			st.s.Passes = p
			t0 := time.Now()
			md, err := kpca.FitFromContext(context.Background(), kern, X, st.s, opts)
			if err != nil {
				return fmt.Errorf("%s start, %d passes: %w", st.name, p, err)
			}
			secs := time.Since(t0).Seconds()
			got := md.Values(nil)
			var e float64
			for j := range c.k {
				e = math.Max(e, math.Abs(got[j]-want[j])/want[0])
			}
			fmt.Printf("| %s | %d | %.2g | %.2g | %.1f |\n", st.name, p, e, md.ErrorBound()/want[0], secs)
		}
	}
	return nil
}

// reference returns the top c.k eigenvalues of the points' kernel matrix to batch
// accuracy — a tracked fit polished by c.refPasses passes — and prints how wide
// Certify's intervals around them are.
func reference(c config, kern kernel.Kernel, X *mat.Dense, opts kpca.Options) ([]float64, error) {
	ref, err := kpca.Fit(kern, X, opts)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := ref.Polish(c.refPasses); err != nil {
		return nil, err
	}
	cert, err := ref.Certify()
	if err != nil {
		return nil, err
	}
	want := ref.Values(nil)[:c.k]
	var width float64
	for j := range c.k {
		width = math.Max(width, (cert.Upper[j]-cert.Lower[j])/want[0])
	}
	fmt.Printf("# reference: Polish(%d) and Certify, %.1f s; top-%d certified widths at most %.2g·λ₁\n",
		c.refPasses, time.Since(t0).Seconds(), c.k, width)
	return want, nil
}
