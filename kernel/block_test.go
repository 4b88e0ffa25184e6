package kernel

import (
	"math"
	"math/big"
	"math/rand/v2"
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
				K := Matrix(k, Y)
				for i := range Y.RawMatrix().Rows {
					for j := i; j < Y.RawMatrix().Rows; j++ {
						checkEntry(t, k, Y.RawRowView(j), Y.RawRowView(i), K.At(i, j), "Matrix")
					}
				}
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

// TestBlockChunks checks a block whose X is shifted in several chunks (rbfChunk: 668
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
		K := Matrix(k, Y)
		for i := range 9 {
			for j := i; j < 9; j++ {
				checkEntry(t, k, Y.RawRowView(j), Y.RawRowView(i), K.At(i, j), "Matrix")
			}
		}
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
// computes further blocks without allocating, and that Reset reuses the Cross's memory.
// Serially and on a block small enough that gonum's Dgemm (in the pure-Go build) does not
// start goroutines: goroutines allocate.
func TestBlockNoAlloc(t *testing.T) {
	forceSerial(t)
	rng := rand.New(rand.NewPCG(61, 62))
	X, Y := randDense(rng, 16, 10), randDense(rng, 100, 10)
	for _, k := range allKernels() {
		c := NewCross(k, Y)
		var work BlockWork
		dst := mat.NewDense(16, 100, nil)
		c.BlockTo(dst, X, &work)
		if n := testing.AllocsPerRun(10, func() { c.BlockTo(dst, X, &work) }); n != 0 {
			t.Errorf("%v: BlockTo allocates %v times", k, n)
		}
		if n := testing.AllocsPerRun(10, func() { c.Reset(k, Y) }); n != 0 {
			t.Errorf("%v: Reset allocates %v times", k, n)
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
			K := Matrix(k, Y)
			for i := range 5 {
				for j := i; j < 5; j++ {
					checkEntry(t, k, Y.RawRowView(j), Y.RawRowView(i), K.At(i, j), "Matrix")
				}
			}
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
