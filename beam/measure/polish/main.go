// Command polish is the measurement of ikpcabeam.Polish against one process
// (docs/design.md, "Polish and Certify over sharded points"; beam/measure/polish.sh):
//
//	polish -write DIR -dataset magic|fashion-mnist [-n N] [-parts P]
//	    writes the points as CSV files DIR/points-*.csv and their median-heuristic
//	    bandwidth (kernel.DefaultBandwidth) to DIR/sigma;
//	polish -single GLOB -sigma σ -k K -rank R -passes P -seed S
//	    reads the CSV files as the pipeline does (a point's identity is its byte offset
//	    and coordinates, ikpcabeam.PointID) and runs kpca.FitFrom from the pipeline's
//	    start (sharded.StartRow), then kpca.Model.Certify, printing the values and
//	    Certify's intervals and sines as the pipeline writes its certificate
//	    (ikpcabeam.PolishCertificate, JSON);
//	polish -compare A.json B.json
//	    prints the largest difference of the values over λ₁, and whether every pair of
//	    intervals overlaps;
//	polish -floor GLOB -sigma σ -rank R -shards S
//	    a pass's floor in one process, the same run: the dgemm of the pass's flops
//	    (m×m from m×(d + 2c), c = R + 1), then the pass's tiles by sharded.Tile over one
//	    shard and over S shards (all S(S+1)/2 tiles, one after another).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/ikpcabeam"
	"github.com/ikpca/ikpca/beam/sharded"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

func main() {
	write := flag.String("write", "", "write the points as CSV to this directory")
	dataset := flag.String("dataset", "magic", "magic or fashion-mnist")
	n := flag.Int("n", 0, "points (0: all)")
	parts := flag.Int("parts", 4, "CSV files")
	single := flag.String("single", "", "run kpca.FitFrom on the CSV files of this glob")
	sigma := flag.Float64("sigma", 0, "RBF bandwidth")
	k := flag.Int("k", 10, "components")
	rank := flag.Int("rank", 50, "rank")
	passes := flag.Int("passes", 6, "passes")
	seed := flag.Uint64("seed", 1, "seed of the start")
	compare := flag.Bool("compare", false, "compare the two certificates named by the arguments")
	floor := flag.String("floor", "", "time a pass's floor on the CSV files of this glob")
	shards := flag.Int("shards", 4, "floor: shards")
	flag.Parse()
	var err error
	switch {
	case *write != "":
		err = writePoints(*write, *dataset, *n, *parts)
	case *single != "":
		err = fitSingle(*single, *sigma, *k, *rank, *passes, *seed)
	case *floor != "":
		err = passFloor(*floor, *sigma, *rank, *shards)
	case *compare && flag.NArg() == 2:
		err = compareFiles(flag.Arg(0), flag.Arg(1))
	default:
		err = fmt.Errorf("one of -write, -single or -compare A B")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "polish:", err)
		os.Exit(1)
	}
}

// writePoints writes the data set's points, shortest round-trip form, to parts CSV
// files dealt row by row, and the median-heuristic bandwidth to dir/sigma.
func writePoints(dir, dataset string, n, parts int) error {
	var X *mat.Dense
	switch dataset {
	case "magic":
		X = data.Magic().X
	case "fashion-mnist":
		ds, err := data.FashionMNIST("", n)
		if err != nil {
			return err
		}
		X = ds.X
	default:
		return fmt.Errorf("-dataset %q", dataset)
	}
	if r, c := X.Dims(); n > 0 && n < r {
		X = X.Slice(0, n, 0, c).(*mat.Dense)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m, _ := X.Dims()
	for f := range parts {
		file, err := os.Create(filepath.Join(dir, fmt.Sprintf("points-%d.csv", f)))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(file, 1<<20)
		var num []byte
		for i := f; i < m; i += parts {
			for j, v := range X.RawRowView(i) {
				if j > 0 {
					w.WriteByte(',')
				}
				num = strconv.AppendFloat(num[:0], v, 'g', -1, 64)
				w.Write(num)
			}
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := file.Close(); err != nil {
			return err
		}
	}
	s, err := kernel.DefaultBandwidth(X)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sigma"), []byte(strconv.FormatFloat(s, 'g', -1, 64)+"\n"), 0o644)
}

// readCSV reads the points of the files glob matches, each with its byte offset, as
// ikpcabeam.ReadCSV gives them.
func readCSV(glob string) ([]ikpcabeam.Point, error) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s: no files (%v)", glob, err)
	}
	sort.Strings(files)
	var pts []ikpcabeam.Point
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		off := 0
		for line := range strings.SplitAfterSeq(string(b), "\n") {
			text := strings.TrimRight(line, "\r\n")
			if text != "" {
				fields := strings.Split(text, ",")
				x := make([]float64, len(fields))
				for j, s := range fields {
					if x[j], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
						return nil, fmt.Errorf("%s at %d: %v", f, off, err)
					}
				}
				pts = append(pts, ikpcabeam.Point{Source: f, Offset: int64(off), X: x})
			}
			off += len(line)
		}
	}
	return pts, nil
}

// fitSingle runs kpca.FitFrom from the pipeline's start and prints its certificate.
func fitSingle(glob string, sigma float64, k, rank, passes int, seed uint64) error {
	t0 := time.Now()
	pts, err := readCSV(glob)
	if err != nil {
		return err
	}
	m, d := len(pts), len(pts[0].X)
	X := mat.NewDense(m, d, nil)
	V := mat.NewDense(m, rank, nil)
	for i, p := range pts {
		X.SetRow(i, p.X)
		sharded.StartRow(V.RawRowView(i), seed, ikpcabeam.PointID(p))
	}
	read := time.Since(t0)
	spec := kernel.Spec{Name: "rbf", Sigma: sigma}
	kern, err := kernel.New(spec)
	if err != nil {
		return err
	}
	t1 := time.Now()
	md, err := kpca.FitFromContext(context.Background(), kern, X, kpca.Start{Vectors: V, Passes: passes}, kpca.Options{Components: k, Rank: rank})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "polish: %d points of d = %d read in %.1f s, FitFrom of %d passes in %.1f s (backend %v)\n",
		m, d, read.Seconds(), passes, time.Since(t1).Seconds(), native.Use())
	t2 := time.Now()
	cert, err := md.Certify()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "polish: Certify in %.1f s\n", time.Since(t2).Seconds())
	c := ikpcabeam.PolishCertificate{Points: m, Kernel: spec, Centred: true, Rank: rank, Passes: passes,
		Values: md.Values(nil), Lower: cert.Lower[:k], Upper: cert.Upper[:k], Sine: cert.Sine[:k], Tail: cert.Tail, ErrorBound: md.ErrorBound()}
	for j, v := range c.Sine {
		c.Sine[j] = math.Min(v, 1)
	}
	out, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Println(string(out))
	return err
}

// passFloor times, in one process, a dgemm of a pass's flops and the pass's tiles over
// one shard and over S shards.
func passFloor(glob string, sigma float64, rank, S int) error {
	pts, err := readCSV(glob)
	if err != nil {
		return err
	}
	m, d := len(pts), len(pts[0].X)
	c := rank + 1 // the first pass's block [1, Q₀]
	kern := kernel.RBF{Sigma: sigma}
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.Float64() - 0.5
		}
		return v
	}
	fmt.Printf("# %d points, d = %d, c = %d; backend %v\n", m, d, c, native.Use())
	// The floor: the pass's two matrix products as a tile makes them, a panel of 512 rows
	// at a time into one reused block (the distances' Xp·Xᵀ, then the block times B),
	// without the exponentials: m²·(2d + 2c) flops.
	const panel = 512
	Xg := blas64.General{Rows: m, Cols: d, Stride: d, Data: make([]float64, m*d)}
	for i, p := range pts {
		copy(Xg.Data[i*d:], p.X)
	}
	Bg := blas64.General{Rows: m, Cols: c, Stride: c, Data: fill(m * c)}
	Kp := blas64.General{Rows: panel, Cols: m, Stride: m, Data: fill(panel * m)}
	Yp := blas64.General{Rows: panel, Cols: c, Stride: c, Data: make([]float64, panel*c)}
	flops := 2 * float64(m) * float64(m) * float64(d+c)
	t0 := time.Now()
	for lo := 0; lo < m; lo += panel {
		n := min(panel, m-lo)
		xp := blas64.General{Rows: n, Cols: d, Stride: d, Data: Xg.Data[lo*d : (lo+n)*d]}
		kp := blas64.General{Rows: n, Cols: m, Stride: m, Data: Kp.Data[:n*m]}
		yp := blas64.General{Rows: n, Cols: c, Stride: c, Data: Yp.Data[:n*c]}
		native.Gemm(blas.NoTrans, blas.Trans, 1, xp, Xg, 0, kp)
		native.Gemm(blas.NoTrans, blas.NoTrans, 1, kp, Bg, 0, yp)
	}
	gemm := time.Since(t0).Seconds()
	fmt.Printf("the pass's dgemms in 512-row panels (%.3g flops): %.2f s, %.1f GFLOP/s\n", flops, gemm, flops/gemm/1e9)

	X := sharded.Matrix{Rows: m, Cols: d, Data: make([]float64, m*d)}
	for i, p := range pts {
		copy(X.Data[i*d:], p.X)
	}
	B := sharded.Matrix{Rows: m, Cols: c, Data: fill(m * c)}
	t1 := time.Now()
	if _, _, err := sharded.Tile(kern, X, X, B, B, true); err != nil {
		return err
	}
	one := time.Since(t1).Seconds()
	fmt.Printf("the pass's tiles, 1 shard: %.2f s, %.2f× the dgemm\n", one, one/gemm)
	rows := func(M sharded.Matrix, s int) sharded.Matrix {
		lo, hi := s*M.Rows/S, (s+1)*M.Rows/S
		return sharded.Matrix{Rows: hi - lo, Cols: M.Cols, Data: M.Data[lo*M.Cols : hi*M.Cols]}
	}
	t2 := time.Now()
	for _, ij := range sharded.TilePairs(S) {
		i, j := ij[0], ij[1]
		if _, _, err := sharded.Tile(kern, rows(X, i), rows(X, j), rows(B, i), rows(B, j), i == j); err != nil {
			return err
		}
	}
	many := time.Since(t2).Seconds()
	fmt.Printf("the pass's tiles, %d shards (%d tiles): %.2f s, %.2f× the dgemm\n", S, S*(S+1)/2, many, many/gemm)
	return nil
}

// compareFiles compares two certificates.
func compareFiles(a, b string) error {
	var c [2]ikpcabeam.PolishCertificate
	for i, f := range []string{a, b} {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &c[i]); err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
	}
	if len(c[0].Values) != len(c[1].Values) || len(c[0].Values) == 0 {
		return fmt.Errorf("%d and %d values", len(c[0].Values), len(c[1].Values))
	}
	l1 := c[1].Values[0]
	var diff, width0, width1, sine0, sine1 float64
	overlap := true
	for j := range c[0].Values {
		diff = math.Max(diff, math.Abs(c[0].Values[j]-c[1].Values[j]))
		width0 = math.Max(width0, c[0].Upper[j]-c[0].Lower[j])
		width1 = math.Max(width1, c[1].Upper[j]-c[1].Lower[j])
		sine0 = math.Max(sine0, c[0].Sine[j])
		sine1 = math.Max(sine1, c[1].Sine[j])
		overlap = overlap && c[0].Lower[j] <= c[1].Upper[j] && c[1].Lower[j] <= c[0].Upper[j]
	}
	fmt.Printf("%d points, top %d: max |Δλ|/λ₁ = %.2g; widest interval/λ₁ %.2g and %.2g; intervals overlap: %v; largest sine bound %.2g and %.2g\n",
		c[0].Points, len(c[0].Values), diff/l1, width0/l1, width1/l1, overlap, sine0, sine1)
	fmt.Printf("values: %.10g\n", c[0].Values)
	return nil
}
