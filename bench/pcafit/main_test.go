package main

import (
	"bufio"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/pca"
)

// TestFit: each method's files hold what a batch fit of the same images gives — the
// oracle pca.Fit, one decomposition of the scatter matrix. The exact fits (one image at a
// time, and blocks of 64 whose last is short) agree with it within 1e-11·v₁ in every
// variance (the tolerance of package pca's tests against stat.PC, docs/design.md,
// "Linear PCA"; measured, a few ε) and their top 5 components span its top 5 within a
// Frobenius residual of 1e-9 (rounding over the gaps of the sample's top 6 variances,
// which are at least 1e-2·v₁: a few 1e-14); the rank-8 model writes its 8 components,
// of unit length. -n limits the images read.
func TestFit(t *testing.T) {
	dir := t.TempDir()
	X := writeSample(t, filepath.Join(dir, "s.idx"), 300)
	const n, k = 250, 20
	want, err := pca.Fit(X.Slice(0, n, 0, 784), pca.Options{Components: k})
	if err != nil {
		t.Fatal(err)
	}
	wantVars := want.VarsTo(nil)
	var wantV mat.Dense
	want.VectorsTo(&wantV)
	for _, c := range []config{
		{method: "add"},
		{method: "batch", block: 64},
		{method: "rank", rank: 8},
	} {
		c.input, c.n, c.k, c.out = filepath.Join(dir, "s.idx"), n, k, filepath.Join(dir, c.method)
		c.block, c.rank = max(c.block, 1), max(c.rank, 1)
		out, err := run(c)
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		if out["n"] != n || out["d"] != 784 {
			t.Errorf("%s: n = %v, d = %v; want %d and 784", c.method, out["n"], out["d"], n)
		}
		vars, comps := readOutputs(t, c.out)
		if c.method == "rank" {
			if len(vars) != 8 || len(comps) != 8 {
				t.Errorf("rank 8: %d variances and %d components, want 8", len(vars), len(comps))
			}
			for j, row := range comps {
				if e := math.Abs(norm(row) - 1); e > 1e-12 {
					t.Errorf("rank 8: component %d has length 1 + %g", j, e)
				}
			}
			continue
		}
		if len(vars) != k || len(comps) != k {
			t.Fatalf("%s: %d variances and %d components, want %d", c.method, len(vars), len(comps), k)
		}
		for j, v := range vars {
			if e := math.Abs(v - wantVars[j]); e > 1e-11*wantVars[0] {
				t.Errorf("%s: variance %d is %v, batch %v", c.method, j, v, wantVars[j])
			}
		}
		// ‖V − U(UᵀV)‖_F over the top 5, U the batch's components and V the file's.
		const top = 5
		U := wantV.Slice(0, 784, 0, top)
		V := mat.NewDense(784, top, nil)
		for j := range top {
			V.SetCol(j, comps[j])
		}
		var c2, r mat.Dense
		c2.Mul(U.T(), V)
		r.Mul(U, &c2)
		r.Sub(V, &r)
		if res := mat.Norm(&r, 2); res > 1e-9 {
			t.Errorf("%s: the top %d components are %g from the batch's span", c.method, top, res)
		}
	}
}

// TestDgemm: the timed product runs and every time is positive and finite.
func TestDgemm(t *testing.T) {
	best, all := dgemm(64, 3)
	if len(all) != 3 || !(best > 0) || math.IsInf(best, 0) {
		t.Fatalf("best %v of %v", best, all)
	}
	for _, s := range all {
		if s < best {
			t.Errorf("a run of %v s below the best %v s", s, best)
		}
	}
}

// TestParse: impossible command lines are refused.
func TestParse(t *testing.T) {
	for _, args := range [][]string{
		{},                                   // no -input
		{"-input", "x", "-method", "svd"},    // unknown method
		{"-input", "x", "-block", "0"},       // empty blocks
		{"-input", "x", "-k", "0"},           // no components
		{"-input", "x", "extra"},             // an argument
		{"-input", "x", "-dgemm-runs", "-1"}, // negative runs
	} {
		if _, err := parse(args); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	if _, err := parse([]string{"-input", "x", "-method", "rank", "-rank", "10"}); err != nil {
		t.Error(err)
	}
}

// writeSample writes the first n images of the embedded Fashion-MNIST sample as an IDX
// file of unsigned bytes (what bench/points writes) and returns them.
func writeSample(t *testing.T, path string, n int) *mat.Dense {
	t.Helper()
	X := data.FashionMNISTSample().X
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, v := range []uint32{0x00000803, uint32(n), 28, 28} {
		if err := binary.Write(w, binary.BigEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		for _, v := range X.RawRowView(i) {
			w.WriteByte(byte(math.Round(v * 255))) // v = b/255 exactly (data's reader)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return mat.DenseCopyOf(X.Slice(0, n, 0, 784))
}

// readOutputs reads prefix.values and prefix.components.
func readOutputs(t *testing.T, prefix string) ([]float64, [][]float64) {
	t.Helper()
	lines := func(name string) []string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(b))
	}
	parse := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var vars []float64
	for _, s := range lines(prefix + ".values") {
		vars = append(vars, parse(s))
	}
	var comps [][]float64
	for _, l := range lines(prefix + ".components") {
		var row []float64
		for _, s := range strings.Split(l, ",") {
			row = append(row, parse(s))
		}
		comps = append(comps, row)
	}
	return vars, comps
}

// norm returns the Euclidean length of v.
func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}
