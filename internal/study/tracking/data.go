package tracking

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/study"
)

// DataSets are the data sets of the rank-r comparison: MAGIC (10 columns, as in
// data/magic04.data, not standardised) and a9a (123 binary columns).
var DataSets = []string{"magic", "a9a"}

// orderStream is the PCG stream of the seeded order of the points (with the seed as
// the other half of the state), so that Points, the command fit's comparison script
// (bench/fit_vs_sklearn.sh, through bench/points) and the study see the same order.
const orderStream = 0x7ac

// Points returns the first n points of a seeded random order of the rows of a data set
// ("magic" or "a9a"), as package data holds them (MAGIC's columns not standardised, as
// the command fit and scikit-learn read data/magic04.data). n ≤ 0 or more than the data
// set has: all of them. An unknown name is an error wrapping study.ErrOptions.
func Points(name string, n int, seed uint64) (*mat.Dense, error) {
	X := dataset(name)
	if X == nil {
		return nil, fmt.Errorf("%w: unknown data set %q (want one of %v)", study.ErrOptions, name, DataSets)
	}
	rows, d := X.Dims()
	if n <= 0 || n > rows {
		n = rows
	}
	perm := rand.New(rand.NewPCG(seed, orderStream)).Perm(rows)
	out := mat.NewDense(n, d, nil)
	for i := range n {
		out.SetRow(i, X.RawRowView(perm[i]))
	}
	return out, nil
}

// classSizes returns the number of rows of MAGIC's classes "g" and "h".
func classSizes() (g, h int) {
	for _, l := range data.Magic().Labels {
		switch l {
		case "g":
			g++
		case "h":
			h++
		}
	}
	return g, h
}

// rows returns the number of points Points returns for the data set (0 for an unknown
// one).
func rows(name string, n int) int {
	X := dataset(name)
	if X == nil {
		return 0
	}
	r, _ := X.Dims()
	if n <= 0 || n > r {
		return r
	}
	return n
}

// classStream returns MAGIC's two classes one after the other: perClass rows of class
// "g" (gamma) drawn at random, then perClass of class "h" (hadron), each class in a
// seeded random order — a stream whose distribution changes once, at row perClass.
func classStream(perClass int, seed uint64) (*mat.Dense, error) {
	ds := data.Magic()
	rows, d := ds.X.Dims()
	var byClass [2][]int
	for i, l := range ds.Labels {
		switch l {
		case "g":
			byClass[0] = append(byClass[0], i)
		case "h":
			byClass[1] = append(byClass[1], i)
		}
	}
	if perClass < 1 || perClass > min(len(byClass[0]), len(byClass[1])) {
		return nil, fmt.Errorf("%w: %d points of each MAGIC class (it has %d and %d of %d rows)", study.ErrOptions, perClass,
			len(byClass[0]), len(byClass[1]), rows)
	}
	rng := rand.New(rand.NewPCG(seed, orderStream+1))
	out := mat.NewDense(2*perClass, d, nil)
	for c, idx := range byClass {
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for i := range perClass {
			out.SetRow(c*perClass+i, ds.X.RawRowView(idx[i]))
		}
	}
	return out, nil
}

// WritePoints writes the rows of X as CSV without a header, each number in the
// shortest form that reads back exactly, for the command fit and for scikit-learn.
func WritePoints(w io.Writer, X mat.Matrix) error {
	bw := bufio.NewWriter(w)
	rows, d := X.Dims()
	buf := make([]byte, 0, 32*d)
	for i := range rows {
		buf = buf[:0]
		for j := range d {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, X.At(i, j), 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// dataset returns the points of the data set of the comparison ("magic" or "a9a"), or
// nil for an unknown name.
func dataset(name string) *mat.Dense {
	switch name {
	case "magic":
		return data.Magic().X
	case "a9a":
		return data.A9A().X
	}
	return nil
}
