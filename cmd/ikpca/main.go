// Command ikpca demonstrates exact incremental eigendecomposition of a kernel matrix.
//
// With no arguments it streams the embedded UCI Yeast data set, point by point, through
// update.Sym.Border: each new point borders the Gaussian (RBF) kernel matrix with its
// kernel column, and the eigendecomposition is updated in place of a recomputation. It
// prints the leading eigenvalues, their share of the trace, the drift of the incremental
// decomposition from a batch one computed at the end, the backend in use and the time
// per step.
//
// Usage:
//
//	go run ./cmd/ikpca [-n points] [-top k]
//	go run -tags openblas ./cmd/ikpca        # with OpenBLAS (Debian: libopenblas-dev liblapacke-dev)
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ikpca:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("ikpca", flag.ContinueOnError)
	n := fs.Int("n", 500, "number of Yeast points to stream (at most 1484)")
	top := fs.Int("top", 5, "number of leading eigenvalues to print")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ds := data.Yeast()
	rows, cols := ds.X.Dims()
	if *n < 2 || *n > rows {
		return fmt.Errorf("-n must be between 2 and %d, got %d", rows, *n)
	}
	if *top < 1 || *top > *n {
		return fmt.Errorf("-top must be between 1 and -n, got %d", *top)
	}
	backend := native.Use()
	fmt.Fprintf(out, "backend:  %v\n", backend)

	x := ds.X.Slice(0, *n, 0, cols).(*mat.Dense)
	sigma := medianDistance(ds.X, 1000)
	fmt.Fprintf(out, "data:     UCI Yeast (embedded), %d of %d points × %d features; RBF kernel, σ = %.4f (median distance)\n",
		*n, rows, cols, sigma)

	// Stream the points: the kernel column of point m against points 0..m−1 borders the
	// kernel matrix of the first m points.
	var s update.Sym
	s.Reserve(*n)
	col := make([]float64, *n)
	var total, last time.Duration
	deflated := 0
	for m := range *n {
		xm := x.RawRowView(m)
		for i := range m {
			col[i] = rbf(x.RawRowView(i), xm, sigma)
		}
		start := time.Now()
		if err := s.Border(col[:m], 1); err != nil {
			return fmt.Errorf("point %d: %w", m, err)
		}
		last = time.Since(start)
		total += last
		deflated += s.Stats().Deflated
	}
	fmt.Fprintf(out, "stream:   %d Border steps in %v; last step %v (n = %d); %d components deflated in all\n",
		*n, total.Round(time.Millisecond), last.Round(10*time.Microsecond), *n, deflated)

	values := s.Values(nil)
	var trace float64
	for _, v := range values {
		trace += v
	}
	fmt.Fprintf(out, "top %d:    ", *top)
	for i := range *top {
		v := values[len(values)-1-i]
		fmt.Fprintf(out, "%.4f (%.1f%%)  ", v, 100*v/trace)
	}
	fmt.Fprintln(out)

	// Drift: compare with a batch decomposition of the same kernel matrix.
	k := mat.NewSymDense(*n, nil)
	for i := range *n {
		for j := i; j < *n; j++ {
			k.SetSym(i, j, rbf(x.RawRowView(i), x.RawRowView(j), sigma))
		}
	}
	// The recompute baseline produces what an update produces: values and vectors.
	start := time.Now()
	var batchVectors mat.Dense
	batch, err := native.EigenSym(nil, &batchVectors, k)
	if err != nil {
		return err
	}
	batchTime := time.Since(start)
	var u mat.Dense
	s.VectorsTo(&u)
	var r mat.Dense
	r.Mul(k, &u)
	for j, v := range values {
		for i := range *n {
			r.Set(i, j, r.At(i, j)-v*u.At(i, j))
		}
	}
	var drift float64
	for i := range values {
		drift = math.Max(drift, math.Abs(values[i]-batch[i]))
	}
	fmt.Fprintf(out, "drift:    max |λ − λbatch| / λmax = %.2e;  ‖K·U − U·Λ‖_F / ‖K‖_F = %.2e;  ‖UᵀU − I‖_max = %.2e\n",
		drift/batch[*n-1], mat.Norm(&r, 2)/mat.Norm(k, 2), orthogonality(&u))
	fmt.Fprintf(out, "batch:    recomputing values and vectors of the %d×%d matrix with %s takes %v (the last step took %v)\n",
		*n, *n, batchName(), batchTime.Round(time.Millisecond), last.Round(10*time.Microsecond))
	return nil
}

// rbf is the Gaussian kernel exp(−‖x − y‖²/(2σ²)).
func rbf(x, y []float64, sigma float64) float64 {
	var ss float64
	for i, v := range x {
		d := v - y[i]
		ss += d * d
	}
	return math.Exp(-ss / (2 * sigma * sigma))
}

// medianDistance is the median Euclidean distance between pairs of the first limit rows
// of x, the bandwidth heuristic of Hallgren and Northrop.
func medianDistance(x *mat.Dense, limit int) float64 {
	r, _ := x.Dims()
	r = min(r, limit)
	dist := make([]float64, 0, r*(r-1)/2)
	for i := range r {
		for j := i + 1; j < r; j++ {
			var ss float64
			xi, xj := x.RawRowView(i), x.RawRowView(j)
			for k, v := range xi {
				d := v - xj[k]
				ss += d * d
			}
			dist = append(dist, math.Sqrt(ss))
		}
	}
	slices.Sort(dist)
	m := len(dist)
	if m%2 == 1 {
		return dist[m/2]
	}
	return (dist[m/2-1] + dist[m/2]) / 2
}

func orthogonality(u *mat.Dense) float64 {
	var g mat.Dense
	g.Mul(u.T(), u)
	n, _ := g.Dims()
	var worst float64
	for i := range n {
		for j := range n {
			v := g.At(i, j)
			if i == j {
				v--
			}
			worst = math.Max(worst, math.Abs(v))
		}
	}
	return worst
}

func batchName() string {
	if native.Compiled == "openblas" {
		return "LAPACK dsyevd"
	}
	return "gonum Dsyev"
}
