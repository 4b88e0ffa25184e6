// Command gendata writes the data of the Beam module's measurement (run.sh): n points
// as CSV files without a header, either synthetic — d coordinates of points near a
// noisy closed curve, a stream whose kernel spectrum decays fast — or the MAGIC gamma
// telescope data (10 features) replicated with Gaussian noise of a tenth of each
// column's standard deviation. The same flags give the same files.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ikpca/ikpca/data"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of points")
	d := flag.Int("d", 10, "dimension of the synthetic points")
	parts := flag.Int("parts", 4, "number of files")
	magic := flag.Bool("magic", false, "MAGIC replicated with noise instead of synthetic points")
	seed := flag.Uint64("seed", 1, "seed")
	out := flag.String("out", "data", "output directory")
	flag.Parse()
	if err := write(*n, *d, *parts, *magic, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

// write writes the files.
func write(n, d, parts int, magic bool, seed uint64, out string) error {
	if n < 1 || d < 1 || parts < 1 {
		return fmt.Errorf("need n, d, parts ≥ 1")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	next := curve(rng, d)
	if magic {
		next = replicate(rng, data.Magic().X)
	}
	files := make([]*bufio.Writer, parts)
	for i := range files {
		f, err := os.Create(filepath.Join(out, fmt.Sprintf("part-%03d.csv", i)))
		if err != nil {
			return err
		}
		defer f.Close()
		files[i] = bufio.NewWriterSize(f, 1<<20)
	}
	var line []byte
	for i := range n {
		line = line[:0]
		for j, v := range next() {
			if j > 0 {
				line = append(line, ',')
			}
			line = strconv.AppendFloat(line, v, 'g', -1, 64)
		}
		line = append(line, '\n')
		if _, err := files[i%parts].Write(line); err != nil {
			return err
		}
	}
	for _, w := range files {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// curve draws points x_j = sin(t·(j+1)/2) + 0.1·ε, t uniform on [0, 4).
func curve(rng *rand.Rand, d int) func() []float64 {
	x := make([]float64, d)
	return func() []float64 {
		t := 4 * rng.Float64()
		for j := range x {
			x[j] = math.Sin(t*float64(j+1)/2) + 0.1*rng.NormFloat64()
		}
		return x
	}
}

// replicate draws rows of X uniformly, each coordinate plus Gaussian noise of a tenth
// of its column's standard deviation.
func replicate(rng *rand.Rand, X *mat.Dense) func() []float64 {
	m, d := X.Dims()
	sd := make([]float64, d)
	for j := range d {
		sd[j] = stat.StdDev(mat.Col(nil, j, X), nil)
	}
	x := make([]float64, d)
	return func() []float64 {
		row := X.RawRowView(rng.IntN(m))
		for j := range x {
			x[j] = row[j] + 0.1*sd[j]*rng.NormFloat64()
		}
		return x
	}
}
