package sketch

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
)

// errorNorm returns ‖AᵀA − BᵀB‖₂ and the smallest eigenvalue of AᵀA − BᵀB (which must
// be ≥ 0 up to rounding: a sketch never overstates a direction).
func errorNorm(t *testing.T, a, b *mat.Dense) (norm, minEig float64) {
	t.Helper()
	_, d := a.Dims()
	var ata, btb mat.SymDense
	ata.SymOuterK(1, a.T())
	btb.SymOuterK(1, b.T())
	diff := mat.NewSymDense(d, nil)
	subSym(diff, &ata, &btb)
	var eig mat.EigenSym
	if !eig.Factorize(diff, false) {
		t.Fatal("EigenSym failed")
	}
	v := eig.Values(nil)
	return math.Max(math.Abs(v[0]), math.Abs(v[d-1])), v[0]
}

// streams returns the test streams: random, repeated rows, low rank plus noise, fewer
// dimensions than ℓ, one row much larger than the rest, and zero rows.
func streams(rng *rand.Rand) map[string]*mat.Dense {
	out := map[string]*mat.Dense{}
	n, d := 300, 40
	r := synth.Normal(n, d, rng)
	out["random"] = r
	rep := mat.NewDense(n, d, nil)
	row := mat.Row(nil, 0, r)
	for i := range n {
		rep.SetRow(i, row)
	}
	out["repeated row"] = rep
	u := mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 3 {
			u.Set(i, j, rng.NormFloat64()*float64(10-3*j))
		}
	}
	v := synth.Normal(3, d, rng)
	lr := mat.NewDense(n, d, nil)
	lr.Mul(u, v)
	for i := range n {
		for j := range d {
			lr.Set(i, j, lr.At(i, j)+0.01*rng.NormFloat64())
		}
	}
	out["low rank + noise"] = lr
	out["d < ℓ"] = mat.DenseCopyOf(r.Slice(0, n, 0, 4))
	big := mat.DenseCopyOf(r)
	for j := range d {
		big.Set(150, j, 1e6*big.At(150, j))
	}
	out["one huge row"] = big
	z := mat.DenseCopyOf(r)
	for i := 0; i < n; i += 2 {
		z.SetRow(i, make([]float64, d))
	}
	out["zero rows"] = z
	return out
}

func TestBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for name, a := range streams(rng) {
		n, d := a.Dims()
		for _, ell := range []int{1, 2, 5, 10, 20} {
			for _, buf := range []int{0, ell + 1, 5 * ell} {
				f, err := New(ell, d, Options{Buffer: buf})
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					if err := f.Update(a.RawRowView(i)); err != nil {
						t.Fatal(err)
					}
				}
				checkSketch(t, name, f, a)
			}
		}
	}
}

// checkSketch verifies the guarantees of f as a sketch of a.
func checkSketch(t *testing.T, name string, f *FD, a *mat.Dense) {
	t.Helper()
	var b mat.Dense
	if err := f.Sketch(&b); err != nil {
		t.Fatal(err)
	}
	ell := f.Ell()
	frobA := mat.Norm(a, 2) * mat.Norm(a, 2)
	frobB := mat.Norm(&b, 2) * mat.Norm(&b, 2)
	norm, minEig := errorNorm(t, a, &b)
	delta := f.ErrorBound()
	tol := 1e-12 * frobA
	if math.Abs(f.Frobenius2()-frobA) > tol {
		t.Errorf("%s ℓ=%d: ‖A‖_F² %g, tracked %g", name, ell, frobA, f.Frobenius2())
	}
	if norm > delta+tol {
		t.Errorf("%s ℓ=%d: ‖AᵀA − BᵀB‖₂ = %g > Δ = %g", name, ell, norm, delta)
	}
	if delta > (frobA-frobB)/float64(ell+1)+tol {
		t.Errorf("%s ℓ=%d: Δ = %g > (‖A‖² − ‖B‖²)/(ℓ+1) = %g", name, ell, delta, (frobA-frobB)/float64(ell+1))
	}
	if norm > frobA/(float64(ell)/2)+tol {
		t.Errorf("%s ℓ=%d: the guarantee ‖A‖_F²/(ℓ/2) fails", name, ell)
	}
	if minEig < -tol {
		t.Errorf("%s ℓ=%d: BᵀB exceeds AᵀA by %g in some direction", name, ell, -minEig)
	}
	// Values and VectorsTo describe B: B = diag(σ)·Vᵀ.
	vals, err := f.Values(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) > ell {
		t.Errorf("%s ℓ=%d: %d values", name, ell, len(vals))
	}
	if len(vals) == 0 {
		return
	}
	var v mat.Dense
	if err := f.VectorsTo(&v); err != nil {
		t.Fatal(err)
	}
	_, d := a.Dims()
	var rebuilt mat.Dense
	s := mat.NewDense(ell, len(vals), nil)
	for i, x := range vals {
		s.Set(i, i, math.Sqrt(x))
	}
	rebuilt.Mul(s, v.T())
	rebuilt.Sub(&rebuilt, &b)
	if e := mat.Norm(&rebuilt, math.Inf(1)); e > 1e-10*math.Sqrt(vals[0]) {
		t.Errorf("%s ℓ=%d: diag(σ)·Vᵀ differs from the sketch by %g", name, ell, e)
	}
	var vtv mat.Dense
	vtv.Mul(v.T(), &v)
	for i := range len(vals) {
		vtv.Set(i, i, vtv.At(i, i)-1)
	}
	if e := mat.Norm(&vtv, math.Inf(1)); e > 1e-12*float64(d) {
		t.Errorf("%s ℓ=%d: VᵀV − I = %g", name, ell, e)
	}
	for i := 1; i < len(vals); i++ {
		if vals[i] > vals[i-1] {
			t.Errorf("%s: values not descending", name)
		}
	}
}

// TestMerge sketches three shards separately, merges them, and checks the guarantee for
// the union; merging leaves the merged-in sketch unchanged.
func TestMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for name, a := range streams(rng) {
		n, d := a.Dims()
		const ell = 6
		parts := []*FD{}
		cuts := []int{0, 100, 230, n}
		for p := range 3 {
			f, _ := New(ell, d, Options{})
			for i := cuts[p]; i < cuts[p+1]; i++ {
				_ = f.Update(a.RawRowView(i))
			}
			parts = append(parts, f)
		}
		var b1 mat.Dense
		_ = parts[1].Sketch(&b1) // settles it: reading does not change it again
		before := parts[1].ErrorBound()
		if err := parts[0].Merge(parts[1]); err != nil {
			t.Fatal(err)
		}
		if err := parts[0].Merge(parts[2]); err != nil {
			t.Fatal(err)
		}
		var b1after mat.Dense
		_ = parts[1].Sketch(&b1after)
		if parts[1].ErrorBound() != before || !mat.Equal(&b1, &b1after) {
			t.Errorf("%s: merging changed the merged-in sketch", name)
		}
		if parts[0].Count() != n {
			t.Errorf("%s: merged count %d, want %d", name, parts[0].Count(), n)
		}
		checkSketch(t, name+" merged", parts[0], a)
	}
	f, _ := New(3, 5, Options{})
	g, _ := New(4, 5, Options{})
	h, _ := New(3, 6, Options{})
	if f.Merge(g) == nil || f.Merge(h) == nil || f.Merge(f) == nil || f.Merge(nil) == nil {
		t.Error("merging incompatible sketches: no error")
	}
}

// TestBadInput checks that bad rows are errors that change nothing.
func TestBadInput(t *testing.T) {
	for _, c := range [][3]int{{0, 3, 0}, {3, 0, 0}, {3, 4, 3}} {
		if _, err := New(c[0], c[1], Options{Buffer: c[2]}); err == nil {
			t.Errorf("New(%d, %d, buffer %d): no error", c[0], c[1], c[2])
		}
	}
	f, _ := New(2, 3, Options{})
	rows := [][]float64{{1, 2, 3}, {0, 1, 0}, {4, 4, 1}, {2, 0, 2}}
	for _, r := range rows {
		_ = f.Update(r)
	}
	snap := *f
	snapB := append([]float64(nil), f.b...)
	for _, bad := range [][]float64{{1, 2}, {1, math.NaN(), 3}, {math.Inf(-1), 0, 0}, {1e200, 1e200, 0}} {
		if err := f.Update(bad); err == nil {
			t.Errorf("Update(%v): no error", bad)
		}
	}
	a := mat.NewDense(3, 3, []float64{1, 1, 1, 2, 2, 2, 3, math.NaN(), 3})
	if err := f.UpdateRows(a); err == nil {
		t.Error("UpdateRows with a NaN: no error")
	}
	if err := f.UpdateRows(mat.NewDense(2, 4, nil)); err == nil {
		t.Error("UpdateRows of the wrong width: no error")
	}
	if f.rows != snap.rows || f.n != snap.n || f.frob2 != snap.frob2 || f.shrink != snap.shrink {
		t.Error("bad input changed the sketch")
	}
	for i := range snapB {
		if f.b[i] != snapB[i] {
			t.Fatal("bad input changed the buffer")
		}
	}
	if err := f.Sketch(mat.NewDense(3, 3, nil)); err == nil {
		t.Error("Sketch into a wrong shape: no error")
	}
	f.Reset()
	if f.Count() != 0 || f.ErrorBound() != 0 || f.Frobenius2() != 0 {
		t.Error("Reset")
	}
	if err := f.VectorsTo(&mat.Dense{}); err == nil {
		t.Error("VectorsTo of an empty sketch: no error")
	}
}

func TestUpdateNoAllocations(t *testing.T) {
	f, _ := New(8, 50, Options{})
	rng := rand.New(rand.NewPCG(1, 1))
	row := make([]float64, 50)
	for range 100 {
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		_ = f.Update(row)
	}
	if a := testing.AllocsPerRun(200, func() { _ = f.Update(row) }); a != 0 {
		t.Errorf("Update allocates %g times per row in steady state", a)
	}
}

// FuzzFD feeds rows decoded from the fuzzer's bytes and checks the guarantee.
func FuzzFD(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint8(2), uint8(3))
	f.Add([]byte{255, 0, 255, 0, 128, 128, 1, 1, 0, 0, 0, 0}, uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, ellB, dB uint8) {
		ell, d := int(ellB%6)+1, int(dB%7)+1
		n := len(data) / d
		if n == 0 {
			return
		}
		a := mat.NewDense(n, d, nil)
		for i := range n {
			for j := range d {
				b := data[i*d+j]
				// Signed values over several scales, zeros included.
				a.Set(i, j, float64(int8(b))*math.Pow(10, float64(b%5)-2))
			}
		}
		sk, err := New(ell, d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := sk.UpdateRows(a); err != nil {
			t.Fatal(err)
		}
		checkSketch(t, "fuzz", sk, a)
	})
}

// subSym sets dst = a − b (upper triangles).
func subSym(dst *mat.SymDense, a, b mat.Symmetric) {
	n := dst.SymmetricDim()
	for i := range n {
		for j := i; j < n; j++ {
			dst.SetSym(i, j, a.At(i, j)-b.At(i, j))
		}
	}
}
