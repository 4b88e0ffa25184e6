package update

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/oracle"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/secular"
)

// TestBadInputLeavesStateUnchanged: every rejected call must leave the decomposition
// bit for bit as it was, and the next valid call must work.
func TestBadInputLeavesStateUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	n := 30
	a := synth.RandomSym(n, rng)
	s := factorized(t, a)
	nan, inf := math.NaN(), math.Inf(1)
	good := make([]float64, n)
	for i := range good {
		good[i] = rng.NormFloat64()
	}
	bad := func(i int, v float64) []float64 {
		x := append([]float64(nil), good...)
		x[i] = v
		return x
	}
	badSym := mat.NewSymDense(n, nil)
	badSym.CopySym(a)
	badSym.SetSym(3, 7, nan)
	notOrth := mat.NewDense(n, n, nil)
	for i := range n {
		notOrth.Set(i, i, 1)
	}
	notOrth.Set(0, 1, 0.5)
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"rank-one NaN rho", func() error { return s.RankOne(nan, vd(good)) }, ErrNonFinite},
		{"rank-one Inf rho", func() error { return s.RankOne(-inf, vd(good)) }, ErrNonFinite},
		{"rank-one NaN v", func() error { return s.RankOne(1, vd(bad(5, nan))) }, ErrNonFinite},
		{"rank-one Inf v", func() error { return s.RankOne(1, vd(bad(0, inf))) }, ErrNonFinite},
		{"rank-one short v", func() error { return s.RankOne(1, vd(good[:n-1])) }, ErrDimension},
		{"rank-one overflow", func() error { return s.RankOne(1e300, vd(bad(2, 1e200))) }, secular.ErrNonFinite},
		{"border NaN c", func() error { return s.Border(vd(good), nan) }, ErrNonFinite},
		{"border Inf a", func() error { return s.Border(vd(bad(n-1, -inf)), 1) }, ErrNonFinite},
		{"border long a", func() error { return s.Border(vd(append(good, 1)), 1) }, ErrDimension},
		{"border nil a", func() error { return s.Border(nil, 1) }, ErrArgument},
		{"border empty a", func() error { return s.Border(&mat.VecDense{}, 1) }, ErrDimension},
		{"factorize NaN", func() error { return s.Factorize(badSym) }, nil},
		{"set not orthogonal", func() error { return s.SetEigen(good, notOrth) }, ErrNotOrthogonal},
		{"set NaN value", func() error { return s.SetEigen(bad(1, nan), mat.NewDense(n, n, nil)) }, ErrNonFinite},
		{"set wrong size", func() error { return s.SetEigen(good[:3], notOrth) }, ErrDimension},
	}
	for _, c := range cases {
		before := snap(s)
		err := c.call()
		if err == nil {
			t.Errorf("%s: no error", c.name)
		} else if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if !snap(s).equal(before) {
			t.Errorf("%s: state changed", c.name)
		}
	}
	// Still usable.
	if err := s.RankOne(1, vd(good)); err != nil {
		t.Fatal(err)
	}
	if err := s.Border(vd(good), 2); err != nil {
		t.Fatal(err)
	}
}

// TestNonConvergenceLeavesStateUnchanged forces the root finder's iteration cap on the
// problem of LAPACK issue #1166 (set up as an eigendecomposition) and checks that the
// failure is reported and the state untouched.
func TestNonConvergenceLeavesStateUnchanged(t *testing.T) {
	p := oracle.Issue1166
	n := len(p.D)
	var s Sym
	eye := mat.NewDense(n, n, nil)
	for i := range n {
		eye.Set(i, i, 1)
	}
	if err := s.SetEigen(p.D, eye); err != nil {
		t.Fatal(err)
	}
	s.SetOptions(Options{MaxIterations: 2})
	before := snap(&s)
	if err := s.RankOne(p.Rho, vd(p.Z)); !errors.Is(err, secular.ErrNotConverged) {
		t.Errorf("rank-one: got %v, want ErrNotConverged", err)
	}
	if err := s.Border(vd(p.Z), 1e-4); !errors.Is(err, secular.ErrNotConverged) {
		t.Errorf("border: got %v, want ErrNotConverged", err)
	}
	if !snap(&s).equal(before) {
		t.Fatal("state changed")
	}
	s.SetOptions(Options{})
	if err := s.RankOne(p.Rho, vd(p.Z)); err != nil {
		t.Fatal(err)
	}
	b := mat.NewSymDense(n, nil)
	for i := range n {
		b.SetSym(i, i, p.D[i])
	}
	b.SymRankOne(b, p.Rho, mat.NewVecDense(n, p.Z))
	checkSym(t, "issue 1166", &s, b, 4)
}

// TestConcurrentSyms updates independent Syms from several goroutines (run with -race)
// and checks each against the same computation done serially.
func TestConcurrentSyms(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	a := synth.RandomSym(90, rng)
	run := func(s *Sym) {
		for j := range 90 {
			if err := s.Border(vd(column(a, j, j)), a.At(j, j)); err != nil {
				t.Error(err)
				return
			}
		}
		v := column(a, 0, 90)
		for range 5 {
			if err := s.RankOne(-0.5, vd(v)); err != nil {
				t.Error(err)
				return
			}
		}
	}
	var want Sym
	run(&want)
	syms := make([]Sym, 4)
	var wg sync.WaitGroup
	for i := range syms {
		syms[i].SetOptions(Options{Workers: 2, Serial: 16}) // parallel roots inside, too
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(&syms[i])
		}()
	}
	wg.Wait()
	for i := range syms {
		// The secular solver is deterministic whatever the goroutine split, and the
		// BLAS product is the same call: results agree to the last bit.
		if !snap(&syms[i]).equal(snap(&want)) {
			t.Errorf("goroutine %d: result differs from the serial run", i)
		}
	}
}

// TestSteadyStateAllocations: once the capacity suffices, updates allocate nothing of
// their own, whether their vector is a *mat.VecDense header pointed at a slice (as a
// library caller keeps one) or a strided vector (a column of a matrix, increment 3),
// which is copied into the Sym's scratch. With OpenBLAS that means zero; gonum's
// pure-Go dgemm allocates a few objects for its goroutines, so there the bound is what
// one bare dgemm of the same size allocates.
func TestSteadyStateAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	n, steps := 300, 10
	size := n + 2*steps + 2
	a := synth.RandomSym(size, rng)
	cols := make([][]float64, size)
	for j := range cols {
		cols[j] = column(a, j, j)
	}
	var s Sym
	s.SetOptions(Options{Workers: 2, Serial: 64})
	s.Reserve(size)
	if err := s.Factorize(synth.Leading(a, n)); err != nil {
		t.Fatal(err)
	}
	v := make([]float64, size)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	var h mat.VecDense
	// Warm the solver's workspace for both kinds of update.
	if err := s.RankOne(0.5, header(&h, v[:n])); err != nil {
		t.Fatal(err)
	}
	m := n
	if err := s.Border(header(&h, cols[m]), a.At(m, m)); err != nil {
		t.Fatal(err)
	}
	m++
	border := testing.AllocsPerRun(steps-1, func() {
		if err := s.Border(header(&h, cols[m]), a.At(m, m)); err != nil {
			t.Fatal(err)
		}
		m++
	})
	rankOne := testing.AllocsPerRun(steps, func() {
		if err := s.RankOne(0.25, header(&h, v[:s.Len()])); err != nil {
			t.Fatal(err)
		}
	})

	// Strided vectors: the border columns as columns of a dense copy of A (increment
	// size), v as column 1 of a size×3 matrix (increment 3). The views are made before
	// the count: a view is a new header, which a caller would keep too.
	ad := mat.DenseCopyOf(a)
	wide := mat.NewDense(size, 3, nil)
	wide.SetCol(1, v)
	colViews := make([]mat.Vector, steps)
	for i := range colViews {
		colViews[i] = ad.Slice(0, m+i, m+i, m+i+1).(*mat.Dense).ColView(0)
	}
	vView := wide.Slice(0, m+steps, 0, 3).(*mat.Dense).ColView(1) // the order after the borders
	if inc := vView.(*mat.VecDense).RawVector().Inc; inc != 3 {
		t.Fatalf("the strided vector has increment %d", inc)
	}
	step := 0
	borderStrided := testing.AllocsPerRun(steps-1, func() {
		if err := s.Border(colViews[step], a.At(m, m)); err != nil {
			t.Fatal(err)
		}
		step++
		m++
	})
	rankOneStrided := testing.AllocsPerRun(steps, func() {
		if err := s.RankOne(0.25, vView); err != nil {
			t.Fatal(err)
		}
	})
	// testing.AllocsPerRun runs its function once more, uncounted, first.
	if got := s.Len(); got != m || m != n+1+2*steps {
		t.Fatalf("order %d after the steps, want %d", got, m)
	}
	strided := max(borderStrided, rankOneStrided)
	// What one dgemm of this size allocates by itself.
	g := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	c := blas64.General{Rows: m, Cols: m, Stride: m, Data: make([]float64, m*m)}
	gemm := testing.AllocsPerRun(steps, func() {
		native.Gemm(blas.NoTrans, blas.Trans, 1, g, g, 0, c)
	})
	t.Logf("allocations per step: Border %v, RankOne %v, strided %v and %v; one bare dgemm %v (%s)",
		border, rankOne, borderStrided, rankOneStrided, gemm, native.Compiled)
	if border > gemm || rankOne > gemm || strided > gemm {
		t.Errorf("Border allocates %v, RankOne %v, with strided vectors %v and %v per step; a bare dgemm %v",
			border, rankOne, borderStrided, rankOneStrided, gemm)
	}
	if native.Compiled == "openblas" && (border != 0 || rankOne != 0 || strided != 0) {
		t.Errorf("with OpenBLAS an update must not allocate: Border %v, RankOne %v, strided %v", border, rankOne, strided)
	}
}
