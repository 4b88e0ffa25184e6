package kernel

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/backend"
	"github.com/ikpca/ikpca/native"

	"github.com/ikpca/ikpca/internal/allocs"
	"github.com/ikpca/ikpca/internal/vec"
)

const eps = 0x1p-53

// norm2 returns ‖x‖.
func norm2(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// blockBound returns how far a kernel block's value k(x, y) may be from Eval(x, y): exact
// reports that it must be Eval's bits (entry-by-entry kernels); otherwise bound is the
// largest allowed |block − Eval|, from the error analysis of docs/design.md, "Kernel
// blocks":
//
//   - RBF: each of the two values is within (τ + 10ε)·max(1, v) (identity) and
//     (d+3)·ε·max(1, v) (direct) of the true one, relative, v = ‖x−y‖²/(2σ²) or
//     γ·‖x−y‖²; plus the smallest normal number, below which values are subnormal and
//     have fewer digits;
//   - Polynomial and Linear: xᵀy is within d·ε·‖x‖‖y‖ whichever way it is summed, so each
//     value is within deg·(d+4)·ε·M^deg of the true one, M = γ‖x‖‖y‖ + c (the powers'
//     roundings included), and the two within twice that.
//   - Sigmoid: the argument γ·ĝ + c of each is within (d+2)·ε·M of γ·xᵀy + c,
//     M = γ‖x‖‖y‖ + |c| (ĝ within d·ε·‖x‖‖y‖, then a product and a sum), plus γ times
//     what products below the normal range lose, (2d+2)·2⁻¹⁰⁷⁴; tanh is 1-Lipschitz, and
//     math.Tanh's value is within 4ε of tanh of its argument (|tanh| < 1): the two within
//     2(d+4)·ε·M + 2γ(2d+2)·2⁻¹⁰⁷⁴ + 8ε.
//   - Cosine: both divide their product by the same p = ‖x‖·‖y‖ (vec.Norm, bit for bit);
//     the products are each within d·ε·‖x‖‖y‖ + (2d+2)·2⁻¹⁰⁷⁴ of xᵀy, the quotients
//     round by ε·|k| ≤ ε (up to rounding): the two within 2(d+4)·ε + (4d+4)·2⁻¹⁰⁷⁴/p,
//     exactly 0 both when p is 0.
func blockBound(k Kernel, x, y []float64) (exact bool, bound float64) {
	d := float64(len(x))
	switch k := deref(k).(type) {
	case RBF:
		e := k.Eval(x, y)
		v := exponent(k, vec.SqDist(x, y))
		return false, (blockTolerance+(d+7)*eps)*max(1, v)*e + 0x1p-1022
	case Polynomial:
		deg := float64(k.Degree)
		m := k.Gamma*norm2(x)*norm2(y) + k.Coef0
		return false, 2 * deg * (d + 4) * eps * math.Pow(m, deg)
	case Linear:
		return false, 2 * (d + 4) * eps * norm2(x) * norm2(y)
	case Sigmoid:
		m := k.Gamma*vec.Norm(x)*vec.Norm(y) + math.Abs(k.Coef0)
		return false, 2*(d+4)*eps*m + 2*k.Gamma*(2*d+2)*0x1p-1074 + 8*eps
	case Cosine:
		p := vec.Norm(x) * vec.Norm(y)
		if p == 0 {
			return true, 0
		}
		return false, 2*(d+4)*eps + (4*d+4)*0x1p-1074/p
	}
	return true, 0
}

// exponent returns an RBF kernel's exponent for the squared distance sq, as Eval
// computes it: sq/(2σ²), or γ·sq.
func exponent(k RBF, sq float64) float64 {
	if k.Gamma != 0 {
		return k.Gamma * sq
	}
	return sq / (2 * k.Sigma * k.Sigma)
}

// checkEntry compares a block value with Eval within blockBound; NaN matches NaN.
func checkEntry(t *testing.T, k Kernel, x, y []float64, got float64, where string) {
	t.Helper()
	want := k.Eval(x, y)
	if got == want {
		return
	}
	if math.IsNaN(want) || math.IsInf(want, 0) {
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("%v %s: %v, Eval %v", k, where, got, want)
		}
		return
	}
	exact, bound := blockBound(k, x, y)
	if exact && got != want || !exact && !(math.Abs(got-want) <= bound) {
		t.Fatalf("%v %s: %v, Eval %v (|Δ| = %.3g, bound %.3g)", k, where, got, want, math.Abs(got-want), bound)
	}
}

// checkBlock computes K(X, Y) through a Cross and compares every entry with Eval.
func checkBlock(t *testing.T, k Kernel, X, Y *mat.Dense) *mat.Dense {
	t.Helper()
	var dst mat.Dense
	Block(&dst, k, X, Y)
	r, _ := X.Dims()
	m, _ := Y.Dims()
	if rr, cc := dst.Dims(); rr != r || cc != m {
		t.Fatalf("%v: block is %d×%d, want %d×%d", k, rr, cc, r, m)
	}
	for i := range r {
		for j := range m {
			checkEntry(t, k, X.RawRowView(i), Y.RawRowView(j), dst.At(i, j), "")
		}
	}
	return &dst
}

// checkMatrixEntries computes K(Y, Y) through Matrix and compares every entry of its
// upper triangle with Eval (checkEntry: non-finite ones too). checkMatrix checks more —
// the diagonal bit for bit, the symmetry — which points with NaN or ±Inf do not allow.
func checkMatrixEntries(t *testing.T, k Kernel, Y *mat.Dense) {
	t.Helper()
	K := Matrix(k, Y)
	m, _ := Y.Dims()
	for i := range m {
		for j := i; j < m; j++ {
			checkEntry(t, k, Y.RawRowView(j), Y.RawRowView(i), K.At(i, j), "Matrix")
		}
	}
}

// TestBlock compares blocks with Eval for every kind of kernel, dimensions from 1 to 123,
// points in [0, 1)ᵈ, strided views, X aliasing Y.
func TestBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, d := range []int{1, 3, 4, 10, 123} {
		X, Y := view(rng, 29, d), randDense(rng, 41, d)
		for _, k := range allKernels() {
			checkBlock(t, k, X, Y)
			checkBlock(t, k, Y, Y)
			checkBlock(t, k, X.Slice(3, 4, 0, d).(*mat.Dense), Y) // one row
		}
	}
}

// cancellationPoints returns pairs of points at distances δ·‖y‖ from one another for δ
// from 1e-8 to 1e3, exact duplicates (δ = 0) and near-duplicates differing in one last
// bit, around a centre offset·(1, …, 1) with unit spread: X holds the moved copies, Y the
// originals.
func cancellationPoints(rng *rand.Rand, m, d int, offset float64) (X, Y *mat.Dense) {
	deltas := []float64{0, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100, 1000}
	Y = mat.NewDense(m, d, nil)
	for i := range m {
		for j := range d {
			Y.Set(i, j, offset+rng.NormFloat64())
		}
	}
	X = mat.NewDense(m*(len(deltas)+1), d, nil)
	dir := make([]float64, d)
	for i := range m {
		y := Y.RawRowView(i)
		ny := norm2(y)
		for q, delta := range deltas {
			for j := range dir {
				dir[j] = rng.NormFloat64()
			}
			nd := norm2(dir)
			row := X.RawRowView(i*(len(deltas)+1) + q)
			for j := range row {
				row[j] = y[j] + delta*ny*dir[j]/nd
			}
		}
		row := X.RawRowView(i*(len(deltas)+1) + len(deltas))
		copy(row, y)
		j := rng.IntN(d)
		row[j] = math.Nextafter(row[j], math.Inf(1)) // one last bit apart, in coordinate j
	}
	return X, Y
}

// refRBF returns the RBF kernel's exp(−‖x−y‖²/(2σ²)) or exp(−γ‖x−y‖²) with ‖x−y‖²
// exact (big.Float) and the exponent rounded once: a reference within ε·max(1, v) +
// 1 ulp of the true value, v the exponent. (2σ² is rounded as Eval rounds it: the
// reference is the kernel with that unit.)
func refRBF(x, y []float64, k RBF) float64 {
	const prec = 2200 // differences and squares of float64 values are exact
	s := new(big.Float).SetPrec(prec)
	t := new(big.Float).SetPrec(prec)
	for i := range x {
		t.SetPrec(prec).SetFloat64(x[i])
		t.Sub(t, new(big.Float).SetPrec(prec).SetFloat64(y[i]))
		t.Mul(t, t)
		s.Add(s, t)
	}
	if k.Gamma != 0 {
		s.Mul(s, new(big.Float).SetPrec(prec).SetFloat64(k.Gamma))
	} else {
		s.Quo(s, new(big.Float).SetPrec(prec).SetFloat64(2*k.Sigma*k.Sigma))
	}
	v, _ := s.Float64()
	return math.Exp(-v)
}

// TestBlockCancellation checks the RBF identity where it cancels: points at distances
// from 1e-8 to 1e3 of their norm, exact duplicates and near-duplicates one last bit apart
// in one coordinate, near the origin and around 1e4·(1, …, 1), bandwidths from 1e-3 to
// 1e3 (and the same kernels given by γ = 1/(2σ²)), d = 10, 123 and 784 (where the
// identity's bound, (d + ⌈d/8⌉ + 12)·ε·S, is nearly τ·S), so that exponents v
// run from 0 through 1e-27 (a near-duplicate)
// to beyond exp's underflow, and entries come from the identity and, where it cancels,
// from the direct evaluation. Every value must agree with Eval within blockBound, and
// with an exact-distance reference within the bound docs/design.md, "Kernel blocks",
// states — relative (τ + 10ε)·max(1, v) from the identity and (d + 3)·ε·max(1, v)
// evaluated directly, the larger of the two as the test does not know which was taken
// — plus the reference's own error (refRBF: v rounded once, ε·v, and exp's ulp, 2ε)
// and two units of 2⁻¹⁰⁷⁴, the spacing below which values are subnormal and the
// relative bounds stop holding (exp's ulp there, once for each value). The same for
// Matrix.
func TestBlockCancellation(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, d := range []int{10, 123, 784} {
		documented := max(blockTolerance+10*eps, float64(d+3)*eps)
		m := 6
		if d > 200 {
			m = 2 // the exact reference costs d big.Float operations an entry
		}
		for _, offset := range []float64{0, 1e4} {
			X, Y := cancellationPoints(rng, m, d, offset)
			checkNearDuplicates(t, X, Y)
			for _, k := range cancellationKernels() {
				dst := checkBlock(t, k, X, Y)
				for i := range X.RawMatrix().Rows {
					for j := range Y.RawMatrix().Rows {
						x, y := X.RawRowView(i), Y.RawRowView(j)
						want := refRBF(x, y, k)
						v := exponent(k, vec.SqDist(x, y))
						bound := (documented*max(1, v)+eps*v+2*eps)*want + 0x1p-1073
						if got := dst.At(i, j); !(math.Abs(got-want) <= bound) {
							t.Fatalf("d=%d offset=%g %v (%d,%d): %v, exact distance gives %v (v = %.3g, |Δ| = %.3g, bound %.3g)",
								d, offset, k, i, j, got, want, v, math.Abs(got-want), bound)
						}
					}
				}
				checkMatrixEntries(t, k, Y)
			}
		}
	}
}

// TestSqNorm checks sqNorm against the exact sum of squares (big.Float) within the bound
// the identity's error analysis takes from it (identityCoef): γ_{⌈d/8⌉+3}·‖a‖², on
// entries of one sign and of mixed magnitudes — spread over 2⁻⁶⁰ to 2⁶⁰, and the
// adversarial 1 + 2⁻²⁷·k, whose squares all round — for lengths around each multiple of
// eight and up to 1000.
func TestSqNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	lengths := []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 123, 784, 1000}
	for _, d := range lengths {
		for trial := range 3 {
			a := make([]float64, d)
			for i := range a {
				switch trial {
				case 0:
					a[i] = rng.NormFloat64()
				case 1:
					a[i] = math.Ldexp(rng.Float64(), rng.IntN(121)-60)
				default:
					a[i] = 1 + 0x1p-27*float64(rng.IntN(1<<20))
				}
			}
			exact := new(big.Float).SetPrec(2200)
			for _, v := range a {
				sq := new(big.Float).SetPrec(2200).SetFloat64(v)
				exact.Add(exact, sq.Mul(sq, sq))
			}
			want, _ := exact.Float64()
			n := float64((d+7)/8 + 3)
			bound := n * eps / (1 - n*eps) * want
			if got := sqNorm(a); !(math.Abs(got-want) <= bound) {
				t.Fatalf("d=%d trial %d: sqNorm %v, exact %v (|Δ| = %.3g, bound %.3g)", d, trial, got, want, math.Abs(got-want), bound)
			}
		}
	}
}

// TestBlockWorkers: a block of many rows, whose chunks run on several goroutines, has
// the values of the same block on one (BlockWork.Workers = 1), bit for bit, for every
// GOMAXPROCS: the chunks are the same (rbfChunk depends on the rows and the dimension
// alone), and each is computed the same way on whichever goroutine. RBF at d = 10 and
// d = 784, the copy kept and not (NewCrossNoCopy), a point that is not finite in X and
// one in Y.
func TestBlockWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(81, 82))
	for _, d := range []int{10, 784} {
		X, Y := randDense(rng, 5*rbfChunk(1<<20, d)+13, d), randDense(rng, 70, d)
		X.Set(300, 2, math.NaN())
		Y.Set(9, 1, math.Inf(1))
		for _, k := range []Kernel{RBF{Sigma: 0.6 * math.Sqrt(float64(d))}, RBF{Gamma: 0.5 / float64(d)}} {
			for _, c := range []*Cross{NewCross(k, Y), NewCrossNoCopy(k, Y)} {
				var one mat.Dense
				c.BlockTo(&one, X, &BlockWork{Workers: 1})
				for _, procs := range []int{2, 3, 8} {
					runtime.GOMAXPROCS(procs)
					var got mat.Dense
					c.BlockTo(&got, X, nil)
					checkSameBlock(t, &got, &one, fmt.Sprintf("d = %d, %v, copy %v, GOMAXPROCS %d", d, k, !c.noCopy, procs))
				}
			}
		}
	}
}

// TestBlockChunks checks a block whose X is shifted in several chunks (rbfChunk: 256
// rows at d = 784), points not finite in two of them included, against Eval.
func TestBlockChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	const d = 784
	X, Y := randDense(rng, 2*rbfChunk(1<<20, d)+37, d), randDense(rng, 7, d)
	X.Set(5, 3, math.NaN())
	X.Set(rbfChunk(1<<20, d)+1, 0, math.Inf(1))
	X.Set(rbfChunk(1<<20, d)+2, 9, 1e300) // finite, but its squared norm overflows
	Y.Set(4, 100, math.NaN())
	for _, k := range []RBF{{Sigma: 3}, {Gamma: 0.05}} {
		checkBlock(t, k, X, Y)
	}
}

// cancellationKernels are the RBF kernels of the cancellation tests: bandwidths from
// 1e-3 to 1e3, given by σ and by γ = 1/(2σ²).
func cancellationKernels() []RBF {
	var ks []RBF
	for _, sigma := range []float64{1e-3, 0.1, 1, 30, 1e3} {
		ks = append(ks, RBF{Sigma: sigma}, RBF{Gamma: 1 / (2 * sigma * sigma)})
	}
	return ks
}

// checkNearDuplicates checks cancellationPoints' last copy of each original: it differs
// from the original in exactly one coordinate, by one unit in the last place.
func checkNearDuplicates(t *testing.T, X, Y *mat.Dense) {
	t.Helper()
	m, d := Y.Dims()
	per := X.RawMatrix().Rows / m
	for i := range m {
		x, y := X.RawRowView(i*per+per-1), Y.RawRowView(i)
		differ := 0
		for j := range d {
			if x[j] != y[j] {
				differ++
				if x[j] != math.Nextafter(y[j], math.Inf(1)) {
					t.Fatalf("near-duplicate %d: coordinate %d is %v, original %v: not one ulp apart", i, j, x[j], y[j])
				}
			}
		}
		if differ != 1 {
			t.Fatalf("near-duplicate %d differs from its original in %d coordinates, want 1", i, differ)
		}
	}
}

// TestBlockNonFinite checks that entries with a point holding a NaN or an infinity are
// what Eval gives, and that such a point does not spoil the others.
func TestBlockNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	X, Y := randDense(rng, 7, 5), randDense(rng, 9, 5)
	X.Set(2, 1, math.NaN())
	X.Set(4, 0, math.Inf(1))
	Y.Set(3, 4, math.Inf(-1))
	Y.Set(6, 2, math.NaN())
	for _, k := range allKernels() {
		checkBlock(t, k, X, Y)
		checkMatrixEntries(t, k, Y)
	}
}

// TestBlockParallel checks that blocks do not depend on GOMAXPROCS or on the split
// between goroutines.
func TestBlockParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	X, Y := view(rng, 130, 6), randDense(rng, 70, 6)
	for _, k := range allKernels() {
		forceSerial(t)
		ref := checkBlock(t, k, X, Y)
		forceParallel(t)
		for _, p := range []int{1, 2, 3, 8} {
			setProcs(t, p)
			if got := checkBlock(t, k, X, Y); !mat.Equal(got, ref) {
				t.Fatalf("%v: GOMAXPROCS=%d changes the block", k, p)
			}
		}
	}
}

// TestBlockNoAlloc checks that a Cross with a BlockWork that has served a block as large
// computes further blocks without allocating, and that Reset reuses the Cross's memory,
// for a Cross of NewCross and one of NewCrossNoCopy, whose BlockColumnsTo and BlockTo
// shift Y's points in the BlockWork: a panel of columns after a larger one, and
// BlockTo's panels (d = 784: two of them) after BlockColumnsTo's. Serially and on
// blocks small enough that gonum's Dgemm (in the pure-Go build) does not start
// goroutines, which allocate — except BlockTo at d = 784, whose 16×698 block gonum's
// Dgemm computes in parallel: that one is counted with OpenBLAS only.
func TestBlockNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("serial, and the race detector's instrumentation allocates: counted in the builds without it")
	}
	forceSerial(t)
	rng := rand.New(rand.NewPCG(61, 62))
	for _, d := range []int{10, 784} {
		m := 100
		if d > 100 {
			m = rbfPanel(1<<20, d) + 30
		}
		X, Y := randDense(rng, 16, d), randDense(rng, m, d)
		for _, k := range allKernels() {
			for _, c := range []*Cross{NewCross(k, Y), NewCrossNoCopy(k, Y)} {
				what := fmt.Sprintf("%v, d = %d, copy %v", k, d, !c.noCopy)
				var work BlockWork
				dst := mat.NewDense(16, m, nil)
				cols := mat.NewDense(16, 12, nil)
				c.BlockColumnsTo(mat.NewDense(16, 40, nil), X, 50, 90, &work)
				if n := testing.AllocsPerRun(10, func() { c.BlockColumnsTo(cols, X, 15, 27, &work) }); n != 0 {
					t.Errorf("%s: BlockColumnsTo allocates %v times", what, n)
				}
				c.BlockTo(dst, X, &work)
				if n := testing.AllocsPerRun(10, func() { c.BlockTo(dst, X, &work) }); n != 0 && (d < 100 || native.Compiled == "openblas") {
					t.Errorf("%s: BlockTo allocates %v times", what, n)
				}
				if n := testing.AllocsPerRun(10, func() { c.Reset(k, Y) }); n != 0 {
					t.Errorf("%s: Reset allocates %v times", what, n)
				}
			}
		}
	}
}

// TestBlockNoAllocParallel checks that a block evaluated on several goroutines (the
// shared workers of internal/parallel) allocates nothing either, with two threads, for
// the kernels whose values are not a product (gonum's pure-Go dgemm starts goroutines
// of its own, which allocate).
func TestBlockNoAllocParallel(t *testing.T) {
	forceParallel(t)
	rng := rand.New(rand.NewPCG(63, 64))
	X, Y := randDense(rng, 64, 10), randDense(rng, 100, 10)
	for _, k := range allKernels() {
		c := NewCross(k, Y)
		var work BlockWork
		dst := mat.NewDense(64, 100, nil)
		n := allocs.Count(2, 5, 20, func() { c.BlockTo(dst, X, &work) })
		_, product := deref(k).(RBF)
		switch deref(k).(type) {
		case Polynomial, Linear, Sigmoid, Cosine:
			product = true
		}
		if n != 0 && (!product || native.Compiled == "openblas") {
			t.Errorf("%v: 20 parallel blocks allocate %d times (%s)", k, n, native.Compiled)
		}
	}
}

// TestBlockPanics checks the programming errors BlockTo and Block reject.
func TestBlockPanics(t *testing.T) {
	X, Y := mat.NewDense(3, 2, nil), mat.NewDense(4, 2, nil)
	c := NewCross(RBF{Sigma: 1}, Y)
	cases := map[string]func(){
		"wrong dst":      func() { c.BlockTo(mat.NewDense(3, 3, nil), X, nil) },
		"wrong X":        func() { c.BlockTo(&mat.Dense{}, mat.NewDense(3, 3, nil), nil) },
		"empty X":        func() { c.BlockTo(&mat.Dense{}, &mat.Dense{}, nil) },
		"empty Y":        func() { NewCross(RBF{Sigma: 1}, &mat.Dense{}) },
		"nil kernel":     func() { NewCross(nil, Y) },
		"no copy, empty": func() { NewCrossNoCopy(RBF{Sigma: 1}, &mat.Dense{}) },
		"no copy, nil":   func() { NewCrossNoCopy(nil, Y) },
		"no copy, X":     func() { NewCrossNoCopy(RBF{Sigma: 1}, Y).BlockTo(&mat.Dense{}, mat.NewDense(3, 3, nil), nil) },
		"nil pointer":    func() { Block(&mat.Dense{}, (*RBF)(nil), X, Y) },
		"zero Cross":     func() { new(Cross).BlockTo(&mat.Dense{}, X, nil) },
		"Block mismatch": func() { Block(&mat.Dense{}, Linear{}, X, mat.NewDense(2, 3, nil)) },
	}
	mustPanic(t, cases)
}

// TestBlockRoute checks that blocks and Matrix reach BLAS only through package native.
func TestBlockRoute(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	X, Y := randDense(rng, 20, 5), randDense(rng, 30, 5)
	backend.CheckRoute(t, native.Compiled == "gonum", func() {
		for _, k := range builtins() {
			var dst mat.Dense
			Block(&dst, k, X, Y)
			Matrix(k, Y)
		}
	})
}

// TestBlockBackends checks that the two backends give blocks within the bounds of each
// other (openblas build only: it compares OpenBLAS with gonum's BLAS in one process).
func TestBlockBackends(t *testing.T) {
	if native.Compiled == "gonum" {
		t.Skip("one backend compiled in: nothing to compare (the openblas build runs this)")
	}
	rng := rand.New(rand.NewPCG(81, 82))
	X, Y := cancellationPoints(rng, 5, 123, 1e4)
	for _, k := range builtins() {
		var a, b mat.Dense
		Block(&a, k, X, Y)
		backend.WithGonum(func() { Block(&b, k, X, Y) })
		for i := range X.RawMatrix().Rows {
			for j := range Y.RawMatrix().Rows {
				checkEntry(t, k, X.RawRowView(i), Y.RawRowView(j), a.At(i, j), "openblas")
				checkEntry(t, k, X.RawRowView(i), Y.RawRowView(j), b.At(i, j), "gonum")
			}
		}
	}
}

// extremeScales are the scales of TestBlockExtremes's points: squared norms that
// overflow, tiny, and subnormal.
var extremeScales = []float64{1e160, 1e-160, 1e-310}

// extremePoints returns 6 points X and m points Y of dimension 4 at the given scale,
// X's third a duplicate of Y's second.
func extremePoints(rng *rand.Rand, scale float64, m int) (X, Y *mat.Dense) {
	X, Y = randDense(rng, 6, 4), randDense(rng, m, 4)
	X.Scale(scale, X)
	Y.Scale(scale, Y)
	copy(X.RawRowView(2), Y.RawRowView(1))
	return X, Y
}

// extremeKernels returns every kernel, RBFs whose 2σ² overflows or underflows or
// whose σ is the points' scale, and kernels given by a γ that is subnormal, huge or the
// points' 1/(2·scale²) — kernels Validate refuses but whose blocks must still be
// Eval's.
func extremeKernels(scale float64) []Kernel {
	return append(allKernels(), RBF{Sigma: 1e200}, RBF{Sigma: 1e-200}, RBF{Sigma: scale},
		RBF{Gamma: 1e-320}, RBF{Gamma: 1e300}, RBF{Gamma: math.MaxFloat64}, RBF{Gamma: 1 / (2 * scale * scale)},
		Laplacian{Gamma: 1e-320}, Laplacian{Gamma: 1e300})
}

// TestBlockExtremes checks blocks of points whose coordinates are huge (squared norms
// overflow), tiny or subnormal, and bandwidths whose 2σ² overflows or underflows, or
// whose γ is subnormal or huge: every entry is Eval's within blockBound, NaN where
// Eval gives NaN.
func TestBlockExtremes(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for _, scale := range extremeScales {
		X, Y := extremePoints(rng, scale, 5)
		for _, k := range extremeKernels(scale) {
			checkBlock(t, k, X, Y)
			checkMatrixEntries(t, k, Y)
		}
	}
}

// TestShiftNorm checks that shiftNorm's shifted row is x − mu and its value sqNorm's of
// that row, bit for bit, for lengths around each multiple of eight.
func TestShiftNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	for _, d := range []int{0, 1, 7, 8, 9, 15, 16, 17, 123, 784} {
		x, mu, dst := make([]float64, d+3), make([]float64, d+1), make([]float64, d)
		for i := range x {
			x[i] = rng.NormFloat64() * 100
		}
		for i := range mu {
			mu[i] = rng.NormFloat64() * 100
		}
		got := shiftNorm(dst, x, mu)
		for i, v := range dst {
			if v != x[i]-mu[i] {
				t.Fatalf("d=%d: dst[%d] = %v, want %v", d, i, v, x[i]-mu[i])
			}
		}
		if want := sqNorm(dst); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("d=%d: shiftNorm %v, sqNorm %v", d, got, want)
		}
	}
}

// TestBlockColumns checks BlockColumnsTo against Eval for every kind of kernel: column
// ranges at the start, in the middle, at the end, of one column and of all of them, of
// a strided X against a Y with points that are not finite inside and outside the range,
// every entry within blockBound of Eval (as BlockTo's), and the entries that BlockTo
// evaluates entry by entry (Laplacian, Func, the non-finite points' rows and columns)
// Eval's bits, so equal to BlockTo's; it allocates nothing once its BlockWork has
// served a block as large, and a refused range panics.
func TestBlockColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	const m, d = 41, 10
	X, Y := view(rng, 13, d), randDense(rng, m, d)
	X.Set(5, 2, math.NaN())
	Y.Set(3, 1, math.Inf(1))
	Y.Set(20, 4, math.NaN())
	for _, k := range allKernels() {
		c := NewCross(k, Y)
		var full mat.Dense
		c.BlockTo(&full, X, nil)
		var work BlockWork
		for _, r := range [][2]int{{0, m}, {0, 7}, {3, 4}, {17, 29}, {20, 21}, {m - 1, m}, {21, m}} {
			var dst mat.Dense
			c.BlockColumnsTo(&dst, X, r[0], r[1], &work)
			if rr, cc := dst.Dims(); rr != 13 || cc != r[1]-r[0] {
				t.Fatalf("%v %v: %d×%d", k, r, rr, cc)
			}
			for i := range 13 {
				for j := r[0]; j < r[1]; j++ {
					got := dst.At(i, j-r[0])
					checkEntry(t, k, X.RawRowView(i), Y.RawRowView(j), got, "BlockColumnsTo")
					if exact, _ := blockBound(k, X.RawRowView(i), Y.RawRowView(j)); (exact || !finiteRow(X.RawMatrix(), i) || !finiteRow(Y.RawMatrix(), j)) &&
						math.Float64bits(got) != math.Float64bits(full.At(i, j)) && !(math.IsNaN(got) && math.IsNaN(full.At(i, j))) {
						t.Fatalf("%v %v: entry (%d, %d) is %v, BlockTo's %v", k, r, i, j, got, full.At(i, j))
					}
				}
			}
		}
		forceSerial(t)
		dst := mat.NewDense(13, 12, nil)
		if n := testing.AllocsPerRun(10, func() { c.BlockColumnsTo(dst, X, 15, 27, &work) }); n != 0 {
			t.Errorf("%v: BlockColumnsTo allocates %v times", k, n)
		}
	}
	c := NewCross(RBF{Sigma: 1}, Y)
	mustPanic(t, map[string]func(){
		"empty range":    func() { c.BlockColumnsTo(&mat.Dense{}, X, 4, 4, nil) },
		"negative start": func() { c.BlockColumnsTo(&mat.Dense{}, X, -1, 4, nil) },
		"beyond Len":     func() { c.BlockColumnsTo(&mat.Dense{}, X, 0, m+1, nil) },
		"wrong dst":      func() { c.BlockColumnsTo(mat.NewDense(13, 5, nil), X, 0, 4, nil) },
		"wrong X":        func() { c.BlockColumnsTo(&mat.Dense{}, mat.NewDense(3, d+1, nil), 0, 4, nil) },
		"zero Cross":     func() { new(Cross).BlockColumnsTo(&mat.Dense{}, X, 0, 1, nil) },
	})
}

// sameBits reports whether a and b are the same float64, bit for bit, or both NaN.
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// checkSameBlock fails unless got and want are the same block, bit for bit (NaN
// matching NaN).
func checkSameBlock(t *testing.T, got, want *mat.Dense, what string) {
	t.Helper()
	r, c := want.Dims()
	if rr, cc := got.Dims(); rr != r || cc != c {
		t.Fatalf("%s: %d×%d, want %d×%d", what, rr, cc, r, c)
	}
	for i := range r {
		for j := range c {
			if !sameBits(got.At(i, j), want.At(i, j)) {
				t.Fatalf("%s: entry (%d, %d) is %v, want %v", what, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

// TestCrossNoCopy checks a Cross made by NewCrossNoCopy against NewCross's, for every
// kind of kernel (the RBF is the only one with a shift and a copy; the Laplacian is
// evaluated entry by entry, without one), on three sets of points: d = 10 with points
// that are not finite in X and in Y; d = 784 with Y of 1,373 points, which BlockTo takes
// in three panels of up to 668 (rbfChunk), points that are not finite in the first
// and the last, and in X a NaN and a finite point whose squared norm overflows; and
// the cancellation points of TestBlockCancellation around 1e4·(1, …, 1) at d = 123,
// whose close pairs with small bandwidths are evaluated directly. Then:
//
//   - BlockColumnsTo, column ranges at the start, across panels and non-finite points,
//     at the end and all of them: the copy's bit for bit. The dgemm is given the same
//     operands — the same shifted rows of X, and the rows of Y shifted by the same
//     subtractions (shiftOnly against shiftNorm) — and the same shape, and the
//     norms and the choice of direct evaluations are the same: nothing may differ.
//   - BlockTo: for an RBF, the copy's BlockColumnsTo over the same panels, bit for bit
//     (the same operands and shapes again), and every entry within blockBound of Eval,
//     as the copy's BlockTo — the one block of all the columns is another dgemm shape,
//     whose sums a BLAS may order otherwise, so against it the bound is what holds;
//     for the other kernels, the copy's BlockTo bit for bit (the same computation).
//   - ProjectTo, through BlockTo and one dgemm: within Σⱼ bⱼ·|P_qj| + 2(m+2)·ε·Σⱼ|kᵢⱼ·P_qj|
//     of Σⱼ Eval(xᵢ, yⱼ)·P_qj, bⱼ the entries' blockBound, the rest the rounding of the
//     two sums of m products (γ_m each, with the products' own rounding); non-finite
//     where the reference is; the same first non-finite row as the copy's.
//   - MatrixTo: Matrix's, bit for bit, as the copy's.
//   - The Cross keeps no copy (its ys is empty) after Reset and after every block.
func TestCrossNoCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	type set struct {
		what    string
		X, Y    *mat.Dense
		kernels []Kernel
		ranges  [][2]int
		matrix  bool
	}
	var sets []set
	{
		X, Y := view(rng, 13, 10), randDense(rng, 41, 10)
		X.Set(5, 2, math.NaN())
		Y.Set(3, 1, math.Inf(1))
		Y.Set(20, 4, math.NaN())
		sets = append(sets, set{"d = 10", X, Y, allKernels(), [][2]int{{0, 41}, {0, 7}, {3, 4}, {17, 29}, {20, 21}, {40, 41}, {21, 41}}, true})
	}
	{
		const d = 784
		p := rbfPanel(1<<20, d)
		m := 2*p + 37
		X, Y := randDense(rng, 9, d), randDense(rng, m, d)
		X.Set(2, 7, math.NaN())
		X.Set(6, 100, 1e300) // finite, but its squared norm overflows
		Y.Set(5, 3, math.NaN())
		Y.Set(m-20, 700, math.Inf(-1))
		kernels := []Kernel{RBF{Sigma: 3}, RBF{Gamma: 0.05}, &RBF{Sigma: 10}, Cosine{}, Laplacian{Sigma: 5}}
		if raceEnabled {
			// A product kernel and an entry-by-entry one, as in TestBlockPoints: the two
			// ways the panels are shared out.
			kernels = []Kernel{RBF{Sigma: 3}, Laplacian{Sigma: 5}}
		}
		sets = append(sets, set{"d = 784", X, Y, kernels, [][2]int{{0, m}, {0, p}, {p - 5, p + 5}, {4, 6}, {m - 20, m}, {2 * p, m}}, false})
	}
	{
		X, Y := cancellationPoints(rng, 30, 123, 1e4)
		var kernels []Kernel
		for _, k := range cancellationKernels() {
			kernels = append(kernels, k)
		}
		sets = append(sets, set{"cancellation", X, Y, kernels, [][2]int{{0, 30}, {0, 1}, {7, 19}, {29, 30}}, true})
	}
	for _, s := range sets {
		m, d := s.Y.Dims()
		b, _ := s.X.Dims()
		for _, k := range s.kernels {
			what := fmt.Sprintf("%s, %v", s.what, k)
			cp, nc := NewCross(k, s.Y), NewCrossNoCopy(k, s.Y)
			var work BlockWork
			for _, r := range s.ranges {
				var got, want mat.Dense
				nc.BlockColumnsTo(&got, s.X, r[0], r[1], &work)
				cp.BlockColumnsTo(&want, s.X, r[0], r[1], nil)
				checkSameBlock(t, &got, &want, fmt.Sprintf("%s: BlockColumnsTo(%d, %d)", what, r[0], r[1]))
			}
			var got, full mat.Dense
			nc.BlockTo(&got, s.X, &work)
			cp.BlockTo(&full, s.X, nil)
			if _, rbf := deref(k).(RBF); rbf {
				want := mat.NewDense(b, m, nil)
				for j0, panel := 0, rbfPanel(m, d); j0 < m; j0 += panel {
					j1 := min(j0+panel, m)
					cp.BlockColumnsTo(want.Slice(0, b, j0, j1).(*mat.Dense), s.X, j0, j1, nil)
				}
				checkSameBlock(t, &got, want, what+": BlockTo against the copy's panels")
				differ := 0
				for i := range b {
					for j := range m {
						checkEntry(t, k, s.X.RawRowView(i), s.Y.RawRowView(j), got.At(i, j), "BlockTo without the copy")
						if !sameBits(got.At(i, j), full.At(i, j)) {
							differ++
						}
					}
				}
				if testing.Verbose() {
					t.Logf("%s: BlockTo differs from the copy's in %d of %d entries", what, differ, b*m)
				}
			} else {
				checkSameBlock(t, &got, &full, what+": BlockTo")
			}
			checkNoCopyProject(t, k, cp, nc, s.X, s.Y, what)
			if s.matrix {
				var K mat.SymDense
				nc.MatrixTo(&K)
				want := Matrix(k, s.Y)
				for i := range m {
					for j := i; j < m; j++ {
						if !sameBits(K.At(i, j), want.At(i, j)) {
							t.Fatalf("%s: MatrixTo (%d, %d) is %v, Matrix's %v", what, i, j, K.At(i, j), want.At(i, j))
						}
					}
				}
			}
			if len(nc.ys) != 0 {
				t.Fatalf("%s: the Cross without the copy holds %d shifted numbers", what, len(nc.ys))
			}
		}
	}
}

// checkNoCopyProject checks ProjectTo of a Cross without the copy against the reference
// Σⱼ Eval(xᵢ, yⱼ)·P_qj (see TestCrossNoCopy), and its first non-finite row against the
// copy cp's. A point of Y that is not finite makes every product NaN (an RBF's Eval of
// a NaN point is NaN), so the values are checked on Y with its non-finite coordinates
// replaced by 0.5, where only X's non-finite rows have non-finite products.
func checkNoCopyProject(t *testing.T, k Kernel, cp, nc *Cross, X, Y *mat.Dense, what string) {
	t.Helper()
	b, _ := X.Dims()
	m, d := Y.Dims()
	P := randVectors(rand.New(rand.NewPCG(uint64(m), 7)), 3, m)
	var got, ref mat.Dense
	if bad, want := nc.ProjectTo(&got, X, P, nil), cp.ProjectTo(&ref, X, P, nil); bad != want {
		t.Fatalf("%s: ProjectTo's first non-finite row is %d, the copy's %d", what, bad, want)
	}
	Yf := mat.DenseCopyOf(Y)
	for j := range m {
		for l := range d {
			if v := Yf.At(j, l); math.IsNaN(v) || math.IsInf(v, 0) {
				Yf.Set(j, l, 0.5)
			}
		}
	}
	bad := NewCrossNoCopy(k, Yf).ProjectTo(&got, X, P, nil)
	first, checked := -1, 0
	for i := range b {
		x := X.RawRowView(i)
		for q := range 3 {
			var sum, abs, bound float64
			for j := range m {
				y, p := Yf.RawRowView(j), P.At(q, j)
				e := k.Eval(x, y)
				sum += e * p
				abs += math.Abs(e * p)
				// A distance that overflows (a point of X whose squared norm overflows)
				// has no relative bound, v = +Inf: the entry is Eval's 0, the row
				// evaluated directly (rbfRows).
				if _, bj := blockBound(k, x, y); !math.IsNaN(bj) {
					bound += bj * math.Abs(p)
				}
			}
			bound += 2 * float64(m+2) * eps * abs
			g := got.At(i, q)
			if math.IsNaN(sum) || math.IsInf(sum, 0) {
				if !math.IsNaN(g) && !math.IsInf(g, 0) {
					t.Fatalf("%s: ProjectTo (%d, %d) is %v, the reference %v", what, i, q, g, sum)
				}
				if first < 0 {
					first = i
				}
				continue
			}
			if !(math.Abs(g-sum) <= bound) {
				t.Fatalf("%s: ProjectTo (%d, %d) is %v, the reference %v (|Δ| = %.3g, bound %.3g)", what, i, q, g, sum, math.Abs(g-sum), bound)
			}
			checked++
		}
	}
	if bad != first || checked == 0 {
		t.Fatalf("%s: ProjectTo's first non-finite row is %d, the reference's %d; %d products checked", what, bad, first, checked)
	}
}

// TestCrossNoCopyPanel checks the shifted panel a BlockWork keeps for a Cross without the
// copy: columns within the last panel shifted take their points from it, and columns
// outside it, another Cross of other points (of the same shape) and the same Cross
// after a Reset on changed points each shift their own — every block the copy's bit for
// bit, a stale panel would give another Y's values.
func TestCrossNoCopyPanel(t *testing.T) {
	rng := rand.New(rand.NewPCG(103, 104))
	const m, d = 30, 6
	X, Y1, Y2 := randDense(rng, 5, d), randDense(rng, m, d), randDense(rng, m, d)
	k := RBF{Sigma: 0.8}
	var work BlockWork
	check := func(c *Cross, Y *mat.Dense, j0, j1 int, what string) {
		t.Helper()
		var got, want mat.Dense
		c.BlockColumnsTo(&got, X, j0, j1, &work)
		NewCross(k, Y).BlockColumnsTo(&want, X, j0, j1, nil)
		checkSameBlock(t, &got, &want, what)
		if work.ysLo > j0 || work.ysHi < j1 || work.ysGen != c.gen {
			t.Fatalf("%s: the BlockWork holds columns %d…%d of Reset %d, not %d…%d of Reset %d", what, work.ysLo, work.ysHi, work.ysGen, j0, j1, c.gen)
		}
	}
	c1, c2 := NewCrossNoCopy(k, Y1), NewCrossNoCopy(k, Y2)
	check(c1, Y1, 4, 20, "a panel")
	check(c1, Y1, 10, 20, "columns within it")
	if work.ysLo != 4 || work.ysHi != 20 {
		t.Fatalf("columns within the panel shifted a panel of their own, %d…%d", work.ysLo, work.ysHi)
	}
	check(c1, Y1, 15, 25, "columns beyond it")
	check(c2, Y2, 16, 20, "another Cross's columns")
	Y2.Scale(3, Y2)
	c2.Reset(k, Y2)
	check(c2, Y2, 17, 19, "the same Cross's columns after Reset on changed points")
}

// TestBlockPoints: BlockPointsTo, a block of the prepared points against themselves, is
// BlockColumnsTo's block of those rows of Y with the backend single-threaded
// (native.OwnCores, as in a pass's tiles), bit for bit, for every kernel, with the
// shifted copy and without it, at d = 10 and 784 (rows in several chunks), points that
// are not finite among the rows and the columns (a NaN, an infinity, a coordinate whose
// square overflows), close points far from the mean (the direct evaluations), blocks on
// and off the diagonal, and a scratch reused across calls as a pass reuses it.
func TestBlockPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	type set struct {
		what    string
		Y       *mat.Dense
		kernels []Kernel
		ranges  [][4]int
	}
	var sets []set
	{
		Y := randDense(rng, 60, 10)
		Y.Set(5, 2, math.NaN())
		Y.Set(33, 1, math.Inf(1))
		Y.Set(47, 4, 1e300)
		sets = append(sets, set{"d = 10", Y, allKernels(), [][4]int{{0, 60, 0, 60}, {0, 7, 7, 20}, {30, 40, 30, 40}, {5, 6, 40, 60}, {33, 50, 0, 10}}})
	}
	{
		const d = 784
		m := 2*rbfChunk(1<<20, d) + 37
		Y := randDense(rng, m, d)
		Y.Set(3, 7, math.NaN())
		Y.Set(m-20, 700, math.Inf(-1))
		kernels := []Kernel{RBF{Sigma: 3}, RBF{Gamma: 0.05}, &RBF{Sigma: 10}, Cosine{}, Laplacian{Sigma: 5}}
		ranges := [][4]int{{0, m, 0, m}, {0, 300, 300, m}, {m - 30, m, 0, 40}, {2, 4, 2, 4}}
		if raceEnabled {
			// A product kernel and an entry-by-entry one: the two ways chunks are shared
			// out. The whole diagonal block goes: the block of 300 rows is already two
			// chunks shared out, and the whole one, instrumented, took half a minute.
			kernels = []Kernel{RBF{Sigma: 3}, Laplacian{Sigma: 5}}
			ranges = ranges[1:]
		}
		sets = append(sets, set{"d = 784", Y, kernels, ranges})
	}
	{
		X, Y0 := cancellationPoints(rng, 30, 123, 1e4)
		var Y mat.Dense
		Y.Stack(Y0, X)
		var kernels []Kernel
		for _, k := range cancellationKernels() {
			kernels = append(kernels, k)
		}
		rows, _ := Y.Dims()
		sets = append(sets, set{"cancellation", &Y, kernels, [][4]int{{0, rows, 0, rows}, {0, 30, 30, rows}, {29, 31, 29, 31}}})
	}
	for _, s := range sets {
		for _, k := range s.kernels {
			for _, c := range []*Cross{NewCross(k, s.Y), NewCrossNoCopy(k, s.Y)} {
				var work BlockWork
				for _, r := range s.ranges {
					what := fmt.Sprintf("%s, %v, copy %v, points %d…%d against %d…%d", s.what, k, !c.noCopy, r[0], r[1], r[2], r[3])
					var got, want mat.Dense
					c.BlockPointsTo(&got, r[0], r[1], r[2], r[3], &work)
					release := native.OwnCores(1) // BlockPointsTo's dgemms are single-threaded
					c.BlockColumnsTo(&want, s.Y.Slice(r[0], r[1], 0, s.Y.RawMatrix().Cols).(*mat.Dense), r[2], r[3], nil)
					release()
					checkSameBlock(t, &got, &want, what)
				}
			}
		}
	}
}
