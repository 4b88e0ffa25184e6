package update

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// blockBorder returns BorderBlock's arguments for a matrix A (n×n, the old points'
// uncentred kernel matrix) gaining b points with kernel columns Ab (n×b) and kernel
// matrix Cb (b×b) — uncentred: B = Ab, F = I, Γ = Cb; centred, in the Helmert basis of
// points n+1…n+b (docs/design.md, "Rank-r tracking in blocks"): directions (αⱼ·1, Fⱼ)
// with αⱼ = 1/√((n+j)(n+j+1)), Fᵢⱼ = αⱼ for i < j, −(n+j)·αⱼ for i = j, 0 below; B =
// Ab·F + (A1)·αᵀ; Γ = (1ᵀA1)·ααᵀ + α·(Abᵀ1)ᵀF + Fᵀ(Abᵀ1)·αᵀ + FᵀCbF; e = 1/√n and g = √n·α.
// It also returns the oracle: [[A, Ab], [Abᵀ, Cb]], centred if asked.
func blockBorder(a mat.Symmetric, ab *mat.Dense, cb mat.Symmetric, centred bool) (B *mat.Dense, e, g []float64, F *mat.Dense, gamma *mat.SymDense, oracle *mat.SymDense) {
	n, b := ab.Dims()
	oracle = mat.NewSymDense(n+b, nil)
	for i := range n {
		for j := i; j < n; j++ {
			oracle.SetSym(i, j, a.At(i, j))
		}
		for j := range b {
			oracle.SetSym(i, n+j, ab.At(i, j))
		}
	}
	for i := range b {
		for j := i; j < b; j++ {
			oracle.SetSym(n+i, n+j, cb.At(i, j))
		}
	}
	F = mat.NewDense(b, b, nil)
	if !centred {
		for i := range b {
			F.Set(i, i, 1)
		}
		return mat.DenseCopyOf(ab), nil, nil, F, mat.NewSymDense(b, mat.DenseCopyOf(cb).RawMatrix().Data), oracle
	}
	alpha := make([]float64, b)
	for j := range b {
		m := float64(n + j)
		alpha[j] = 1 / math.Sqrt(m*(m+1))
		for i := range j {
			F.Set(i, j, alpha[j])
		}
		F.Set(j, j, -m*alpha[j])
	}
	rows := make([]float64, n)
	var total float64
	for i := range n {
		for j := range n {
			rows[i] += a.At(i, j)
		}
		total += rows[i]
	}
	B = mat.NewDense(n, b, nil)
	B.Mul(ab, F)
	for i := range n {
		for j := range b {
			B.Set(i, j, B.At(i, j)+rows[i]*alpha[j])
		}
	}
	s := make([]float64, b) // Abᵀ1
	for j := range b {
		for i := range n {
			s[j] += ab.At(i, j)
		}
	}
	sf := make([]float64, b) // Fᵀs
	for j := range b {
		for i := range b {
			sf[j] += F.At(i, j) * s[i]
		}
	}
	var fcf mat.Dense
	fcf.Mul(F.T(), cb)
	fcf.Mul(&fcf, F)
	gamma = mat.NewSymDense(b, nil)
	for i := range b {
		for j := i; j < b; j++ {
			gamma.SetSym(i, j, total*alpha[i]*alpha[j]+alpha[i]*sf[j]+sf[i]*alpha[j]+(fcf.At(i, j)+fcf.At(j, i))/2)
		}
	}
	e = make([]float64, n)
	g = make([]float64, b)
	for i := range e {
		e[i] = 1 / math.Sqrt(float64(n))
	}
	for j := range g {
		g[j] = alpha[j] * math.Sqrt(float64(n))
	}
	return B, e, g, F, gamma, kernel.Centre(oracle)
}

// subBlocks returns the kernel columns of points n…n+b−1 against points 0…n−1 of k and
// their own kernel matrix.
func subBlocks(k mat.Symmetric, n, b int) (*mat.Dense, *mat.SymDense) {
	ab := mat.NewDense(n, b, nil)
	cb := mat.NewSymDense(b, nil)
	for j := range b {
		for i := range n {
			ab.Set(i, j, k.At(i, n+j))
		}
		for i := j; i < b; i++ {
			cb.SetSym(j, i, k.At(n+j, n+i))
		}
	}
	return ab, cb
}

// borderBlockChecked runs BorderBlock of b points of the kernel matrix k onto th (whose
// matrix is taken as the old points' kernel matrix, as in TestThinRank) and checks the
// result against the dense definition: the pairs are the top eigenpairs of the bordered
// matrix (centred: C·[[V·Λ·Vᵀ, Ab], [Abᵀ, Cb]]·C, V·Λ·Vᵀ being centred already), with
// pairCheck's tolerance tol relative to the step's norm plus the orthogonality th
// inherits, and what it dropped is the rest of the spectrum (trace).
func borderBlockChecked(t *testing.T, what string, th *Thin, ab *mat.Dense, cb mat.Symmetric, tol float64, centred bool) {
	t.Helper()
	n, _ := th.Dims()
	a := thinDense(th)
	B, e, g, F, gamma, want := blockBorder(a, ab, cb, centred)
	before := spectralNorm(th.Values(nil))
	tol += inherited(th, e)
	if err := th.BorderBlock(B, vd(e), vd(g), F, gamma); err != nil {
		t.Fatalf("%s: BorderBlock: %v", what, err)
	}
	if nn, _ := th.Dims(); nn != n+ab.RawMatrix().Cols {
		t.Fatalf("%s: %d rows after BorderBlock, want %d", what, nn, n+ab.RawMatrix().Cols)
	}
	vals, err := native.EigenSym(nil, nil, want)
	if err != nil {
		t.Fatal(err)
	}
	norm := math.Max(before, math.Max(-vals[0], vals[len(vals)-1]))
	for i := range ab.RawMatrix().Rows {
		norm = math.Max(norm, mat.Norm(ab.RowView(i), 2))
	}
	norm = math.Max(norm, math.SmallestNonzeroFloat64) // a zero matrix: relative to the smallest
	// The update represents the bordered matrix to within Neglected (BorderBlock).
	tol += th.Stats().Neglected / norm
	pairCheck(t, what+": border block", th, want, norm, tol, centred)
	// The trace: what was kept plus what was dropped is the bordered matrix's.
	var kept, trace float64
	for _, v := range th.Values(nil) {
		kept += v
	}
	for _, v := range vals {
		trace += v
	}
	d := th.Stats().Dropped
	if diff := math.Abs(kept + d.Positive - d.Negative - trace); !(diff <= tol*norm*float64(len(vals))) {
		t.Errorf("%s: kept %.17g + dropped %.17g − %.17g ≠ trace %.17g", what, kept, d.Positive, d.Negative, trace)
	}
}

// TestBorderBlock grows Thins of MAGIC and Yeast kernel matrices by blocks of b = 1, 2,
// 7 and 32 points, exact (every pair kept: the block must reproduce the batch
// decomposition of the grown matrix) and at rank r = 8 and 20 (the top r pairs of the
// bordered truncated matrix), uncentred and centred, checking each block against its
// dense definition (borderBlockChecked). The tolerance is 16·(N+5)·ε relative to the
// step's norm, N = k + b′ + b the order of the dense problem: a backward-stable dense
// eigensolver and three products, each n·ε-accurate in the measure of pairCheck.
func TestBorderBlock(t *testing.T) {
	sets := []data.Dataset{data.Magic(), data.Yeast()}
	if raceEnabled {
		sets = sets[:1] // the same goroutines for either set's blocks
	}
	for _, ds := range sets {
		_, d := ds.X.Dims()
		m := 150
		k := rbf(ds.X.Slice(0, m, 0, d), medianDistance(t, ds.X))
		for _, centred := range []bool{false, true} {
			for _, r := range []int{0, 8, 20} {
				for _, b := range []int{1, 2, 7, 32} {
					const m0 = 30
					var th *Thin
					if r == 0 {
						th = growExact(t, k, m0, centred, func(int) bool { return false })
					} else {
						th = rankThin(t, k, m0, r, centred)
					}
					for n := m0; n+b <= m; n += b {
						ab, cb := subBlocks(k, n, b)
						_, kk := th.Dims()
						tol := 16 * float64(kk+2*b+5) * eps
						borderBlockChecked(t, ds.Name+blockName(centred, r, b), th, ab, cb, tol, centred)
					}
				}
			}
		}
	}
}

// blockName names a case of the block tests.
func blockName(centred bool, r, b int) string {
	mode := "uncentred"
	if centred {
		mode = "centred"
	}
	return fmt.Sprintf("/%s/r=%d/b=%d", mode, r, b)
}

// TestBorderBlockAdversarial: blocks of repeated points, points that repeat old ones
// (their border lies in span(V): no new direction), a block larger than the room left
// in the span (k + b > n), tiny and zero couplings, equal eigenvalues (a kernel matrix
// of identical points), one old row, and a V orthonormal only to δ with a rest just
// above the rank threshold (as TestBorderLostOrthogonality for Border).
func TestBorderBlockAdversarial(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	x := data.Yeast().X
	base := mat.DenseCopyOf(x.Slice(0, 40, 0, 8))
	// Points 40…: copies of 3, 3, 3, then of old points 0, 5, then fresh ones.
	pts := mat.NewDense(60, 8, nil)
	pts.Copy(base)
	for i, src := range []int{3, 3, 3, 0, 5} {
		pts.SetRow(40+i, base.RawRowView(src))
	}
	for i := 45; i < 60; i++ {
		pts.SetRow(i, x.RawRowView(100+i))
	}
	k := rbf(pts, medianDistance(t, x))
	for _, centred := range []bool{false, true} {
		for _, r := range []int{0, 5} {
			var th *Thin
			if r == 0 {
				th = growExact(t, k, 40, centred, func(int) bool { return false })
			} else {
				th = rankThin(t, k, 40, r, centred)
			}
			for _, blk := range [][2]int{{40, 3}, {43, 2}, {45, 15}} {
				ab, cb := subBlocks(k, blk[0], blk[1])
				_, kk := th.Dims()
				borderBlockChecked(t, "adversarial"+blockName(centred, r, blk[1]), th, ab, cb, 16*float64(kk+2*blk[1]+5)*eps, centred)
			}
		}
	}

	// Identical points: every eigenvalue of the old matrix but one is zero, uncentred;
	// centred, the matrix is zero.
	same := mat.NewDense(12, 3, nil)
	for i := range 12 {
		same.SetRow(i, []float64{1, 2, 3})
	}
	ks := rbf(same, 1)
	for _, centred := range []bool{false, true} {
		th := growExact(t, ks, 4, centred, func(int) bool { return false })
		ab, cb := subBlocks(ks, 4, 8)
		borderBlockChecked(t, "identical", th, ab, cb, 16*20*eps, centred)
	}

	// One old row, uncentred: b = 1…5 at once.
	for b := 1; b <= 5; b++ {
		kr := rbf(mat.DenseCopyOf(x.Slice(200, 201+b, 0, 8)), medianDistance(t, x))
		th := growExact(t, kr, 1, false, func(int) bool { return false })
		ab, cb := subBlocks(kr, 1, b)
		borderBlockChecked(t, "one row", th, ab, cb, 16*float64(2*b+6)*eps, false)
	}

	// Lost orthogonality: V orthonormal to δ = 1e-10, a block in span(V) plus β along
	// directions outside it.
	const n, kk = 30, 7
	for _, betaRel := range []float64{0, 70, 100, 1e4, 1e12} {
		u := orthonormal(n, kk+3, false, rng)
		v := mat.DenseCopyOf(u.Slice(0, n, 0, kk))
		for i := range n {
			for j := range kk {
				v.Set(i, j, v.At(i, j)+1e-10*rng.NormFloat64()/math.Sqrt(n))
			}
		}
		var th Thin
		if err := th.SetEigen([]float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1}, v); err != nil {
			t.Fatal(err)
		}
		const b = 3
		B := mat.NewDense(n, b, nil)
		pc := mat.NewDense(kk, b, nil)
		for i := range kk {
			for j := range b {
				pc.Set(i, j, rng.NormFloat64()/3)
			}
		}
		B.Mul(v, pc)
		for i := range n {
			for j := range b {
				B.Set(i, j, B.At(i, j)+betaRel*eps*u.At(i, kk+j))
			}
		}
		F := mat.NewDense(b, b, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
		gamma := mat.NewSymDense(b, []float64{1, 0.1, 0, 0.1, 1, 0.2, 0, 0.2, 1})
		bound := inherited(&th, nil) + 64*float64(n+kk+2*b)*eps
		if err := th.BorderBlock(B, nil, nil, F, gamma); err != nil {
			t.Fatal(err)
		}
		var nv mat.Dense
		th.VectorsTo(&nv)
		if o := testmat.Orthogonality(&nv); !(o <= bound) {
			t.Errorf("β = %gε: orthogonality %.3g after BorderBlock > %.3g", betaRel, o, bound)
		}
	}
}

// TestBorderBlockMatchesBorder: a block of one point is Border's step, to rounding:
// the same eigenvalues, centred and uncentred, exact and at rank r.
func TestBorderBlockMatchesBorder(t *testing.T) {
	x := data.Magic().X
	k := rbf(x.Slice(0, 80, 0, 10), medianDistance(t, x))
	for _, centred := range []bool{false, true} {
		for _, r := range []int{0, 6} {
			var one, blk *Thin
			if r == 0 {
				one = growExact(t, k, 40, centred, func(int) bool { return false })
				blk = growExact(t, k, 40, centred, func(int) bool { return false })
			} else {
				one, blk = rankThin(t, k, 40, r, centred), rankThin(t, k, 40, r, centred)
			}
			for n := 40; n < 80; n++ {
				a := thinDense(one)
				col := column(k, n, n)
				var err error
				if centred {
					bb, gamma := centredBorder(a, n, col, k.At(n, n))
					e, f := helmertDir(n)
					err = one.Border(vd(bb), vd(e), f, gamma)
				} else {
					err = one.Border(vd(col), nil, 1, k.At(n, n))
				}
				if err != nil {
					t.Fatal(err)
				}
				ab, cb := subBlocks(k, n, 1)
				B, e, g, F, gamma, _ := blockBorder(thinDense(blk), ab, cb, centred)
				if err := blk.BorderBlock(B, vd(e), vd(g), F, gamma); err != nil {
					t.Fatal(err)
				}
				v1, v2 := one.Values(nil), blk.Values(nil)
				if len(v1) != len(v2) {
					t.Fatalf("centred %v, r %d, point %d: %d and %d pairs", centred, r, n, len(v1), len(v2))
				}
				norm := spectralNorm(v1)
				if d := testmat.MaxAbsDiff(v1, v2); !(d <= 64*float64(n)*eps*norm) {
					t.Errorf("centred %v, r %d, point %d: eigenvalues differ by %.3g", centred, r, n, d/norm)
				}
			}
		}
	}
}

// TestBorderBlockBadInput: every refusal is typed and leaves the Thin bit for bit as it
// was.
func TestBorderBlockBadInput(t *testing.T) {
	x := data.Magic().X
	k := rbf(x.Slice(0, 20, 0, 10), medianDistance(t, x))
	th := growExact(t, k, 10, false, func(int) bool { return false })
	ab, cb := subBlocks(k, 10, 3)
	B, _, _, F, gamma, _ := blockBorder(thinDense(th), ab, cb, false)
	nan := mat.DenseCopyOf(B)
	nan.Set(2, 1, math.NaN())
	infG := mat.NewSymDense(3, nil)
	infG.CopySym(gamma)
	infG.SetSym(0, 2, math.Inf(1))
	notOrth := mat.DenseCopyOf(F)
	notOrth.Set(0, 1, 0.5)
	e := make([]float64, 10)
	e[0] = 2
	for _, c := range []struct {
		name string
		call func() error
		want error
	}{
		{"nil B", func() error { return th.BorderBlock(nil, nil, nil, F, gamma) }, ErrArgument},
		{"nil F", func() error { return th.BorderBlock(B, nil, nil, nil, gamma) }, ErrArgument},
		{"nil Γ", func() error { return th.BorderBlock(B, nil, nil, F, nil) }, ErrArgument},
		{"B rows", func() error { return th.BorderBlock(mat.NewDense(9, 3, nil), nil, nil, F, gamma) }, ErrDimension},
		{"F shape", func() error { return th.BorderBlock(B, nil, nil, mat.NewDense(2, 2, nil), gamma) }, ErrDimension},
		{"Γ shape", func() error { return th.BorderBlock(B, nil, nil, F, mat.NewSymDense(2, nil)) }, ErrDimension},
		{"e length", func() error { return th.BorderBlock(B, vd(make([]float64, 9)), vd(make([]float64, 3)), F, gamma) }, ErrDimension},
		{"NaN in B", func() error { return th.BorderBlock(nan, nil, nil, F, gamma) }, ErrNonFinite},
		{"Inf in Γ", func() error { return th.BorderBlock(B, nil, nil, F, infG) }, ErrNonFinite},
		{"directions", func() error { return th.BorderBlock(B, nil, nil, notOrth, gamma) }, ErrArgument},
		{"e not unit", func() error { return th.BorderBlock(B, vd(e), vd(make([]float64, 3)), F, gamma) }, ErrArgument},
	} {
		was := snapT(th)
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if !snapT(th).equal(was) {
			t.Errorf("%s: the Thin changed", c.name)
		}
	}
}

// FuzzBorderBlock starts a Thin as FuzzThin does (decodeThin: small positive
// semi-definite matrices on a coarse grid, centred or not, exact or at a rank) and adds
// a block of 1 to 4 points whose kernel columns and matrix come from the numbers that
// follow (the block matrix [[S·Sᵀ, A], [Aᵀ, C]] need not be positive semi-definite),
// checked against its dense definition (borderBlockChecked).
func FuzzBorderBlock(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 64, 0, 0, 64, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0x80 | 3, 2, 3, 0, 0, 64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
		23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48})
	f.Add([]byte{5, 3, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, th, nums, ok := startThin(t, data)
		if !ok {
			return
		}
		n, k := th.Dims()
		b := int(c.ops[0]%4) + 1
		if len(nums) < n*b+b*(b+1)/2 {
			return
		}
		ab := mat.NewDense(n, b, append([]float64(nil), nums[:n*b]...))
		nums = nums[n*b:]
		cb := mat.NewSymDense(b, nil)
		for i := range b {
			for j := i; j < b; j++ {
				cb.SetSym(i, j, nums[0])
				nums = nums[1:]
			}
		}
		borderBlockChecked(t, "fuzz", th, ab, cb, 64*float64(max(n, k)+2*b+7)*eps, c.centred)
	})
}
