package stream

import (
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/internal/sign"
	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
)

// standardised returns the first n rows of X with every column scaled to zero mean and
// unit variance (over those rows), and the median-heuristic bandwidth.
func standardised(t *testing.T, X *mat.Dense, n int) (*mat.Dense, float64) {
	return prepare(t, X, n, true)
}

// prepare returns the first n rows of X, standardised or not, and the median-heuristic
// bandwidth.
func prepare(t *testing.T, X *mat.Dense, n int, standardise bool) (*mat.Dense, float64) {
	t.Helper()
	_, d := X.Dims()
	out := mat.DenseCopyOf(X.Slice(0, n, 0, d))
	if standardise {
		synth.Standardise(out)
	}
	sigma, err := kernel.MedianDistance(out, n)
	if err != nil {
		t.Fatal(err)
	}
	return out, sigma
}

// symNorm returns ‖A‖₂ of a symmetric matrix by a full eigendecomposition (gonum).
func symNorm(t *testing.T, a *mat.SymDense) float64 {
	t.Helper()
	var eig mat.EigenSym
	if !eig.Factorize(a, false) {
		t.Fatal("EigenSym")
	}
	v := eig.Values(nil)
	return math.Max(math.Abs(v[0]), math.Abs(v[len(v)-1]))
}

// approxKernel returns Z·W·Wᵀ·Zᵀ.
func approxKernel(Z, W *mat.Dense) *mat.SymDense {
	var zw mat.Dense
	zw.Mul(Z, W)
	n, _ := Z.Dims()
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, &zw)
	return g
}

// TestSKPCABound checks SKPCA's guarantee on the paper's data sets, cpu_act (columns
// standardised) and a9a (binary features as they are), for the paper's sketch sizes:
// ‖G − G̃‖₂ ≤ ε·n with ε = ε_RFF + ε_FD, where ε_RFF = ‖G − ZZᵀ‖₂/n is the feature map's
// error and ε_FD = Δ/n ≤ 1/(ℓ+1) the sketch's certified one; and that the error does
// not grow with ℓ. The spectral norms come from full eigendecompositions (gonum), an
// oracle independent of the Lanczos iteration the experiments use.
func TestSKPCABound(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 250
	}
	for _, set := range []struct {
		name        string
		X           *mat.Dense
		standardise bool
	}{{"cpu_act", data.CPUAct().X, true}, {"a9a", data.A9A().X, false}} {
		X, sigma := prepare(t, set.X, n, set.standardise)
		_, d := X.Dims()
		G := kernel.Matrix(kernel.RBF{Sigma: sigma}, X)
		const D = 512
		prev := math.Inf(1)
		for _, ell := range []int{2, 5, 10, 20, 30, 50} {
			s, err := NewSKPCA(kernel.RBF{Sigma: sigma}, d, SKPCAOptions{Features: D, Sketch: ell, Seed: 3, Uncentred: true})
			if err != nil {
				t.Fatal(err)
			}
			testmat.AddRows(t, s, X, 0, n)
			var W, Z mat.Dense
			s.VectorsTo(&W)
			if err := s.Map().Transform(&Z, X); err != nil {
				t.Fatal(err)
			}
			diff := mat.NewSymDense(n, nil)
			subSym(diff, G, approxKernel(&Z, &W))
			errG := symNorm(t, diff)
			zz := mat.NewSymDense(n, nil)
			zz.SymOuterK(1, &Z)
			subSym(diff, G, zz)
			epsRFF := symNorm(t, diff) / float64(n)
			epsFD := s.ErrorBound() / float64(n)
			t.Logf("%s ℓ=%2d: ‖G−G̃‖₂/n = %.4f ≤ ε = ε_RFF %.4f + ε_FD %.4f (≤ 1/(ℓ+1) = %.4f)",
				set.name, ell, errG/float64(n), epsRFF, epsFD, 1/float64(ell+1))
			if errG > (epsRFF+epsFD)*float64(n)+1e-9*float64(n) {
				t.Errorf("%s ℓ=%d: ‖G−G̃‖₂ = %g exceeds ε·n = %g", set.name, ell, errG, (epsRFF+epsFD)*float64(n))
			}
			if epsFD > 1/float64(ell+1)*(1+1e-12) {
				t.Errorf("%s ℓ=%d: Δ/n = %g > 1/(ℓ+1)", set.name, ell, epsFD)
			}
			if errG > prev*1.05 {
				t.Errorf("%s ℓ=%d: error %g grew from %g", set.name, ell, errG, prev)
			}
			prev = errG
			// Scores: Transform of the training points is Z·W.
			var sc, zw mat.Dense
			if err := s.Transform(&sc, X, len(s.Values(nil))); err != nil {
				t.Fatal(err)
			}
			zw.Mul(&Z, &W)
			if !mat.EqualApprox(&sc, &zw, 1e-12) {
				t.Errorf("%s ℓ=%d: Transform differs from Z·W", set.name, ell)
			}
		}
	}
}

// TestSKPCAMergeAndMemory: shards merge into a model with the same guarantee —
// ‖ZᵀZ − BᵀB‖₂ ≤ Δ for the merged sketch B and all the points' features Z, centred or
// not, and centred the merged sum is the sum of all the features — and the memory does
// not depend on the number of points.
func TestSKPCAMergeAndMemory(t *testing.T) {
	n := 400
	X, sigma := standardised(t, data.Magic().X, n)
	for _, uncentred := range []bool{false, true} {
		opts := SKPCAOptions{Features: 256, Sketch: 8, Seed: 4, Uncentred: uncentred}
		a, _ := NewSKPCA(kernel.RBF{Sigma: sigma}, 10, opts)
		b, _ := NewSKPCA(kernel.RBF{Sigma: sigma}, 10, opts)
		if err := a.AddBatch(X.Slice(0, 150, 0, 10)); err != nil {
			t.Fatal(err)
		}
		a.Values(nil)
		bytes150 := a.Bytes()
		if err := b.AddBatch(X.Slice(150, n, 0, 10)); err != nil {
			t.Fatal(err)
		}
		if err := a.Merge(b); err != nil {
			t.Fatal(err)
		}
		if a.Len() != n {
			t.Fatalf("merged Len %d", a.Len())
		}
		a.Values(nil)
		var Z, B mat.Dense
		_ = a.Map().Transform(&Z, X)
		_ = a.Sketch().Sketch(&B)
		var ztz, btb mat.SymDense
		ztz.SymOuterK(1, Z.T())
		btb.SymOuterK(1, B.T())
		diff := mat.NewSymDense(256, nil)
		subSym(diff, &ztz, &btb)
		if e := symNorm(t, diff); e > a.ErrorBound()+1e-9*float64(n) {
			t.Errorf("uncentred %v, merged: ‖ZᵀZ − BᵀB‖₂ = %g > Δ = %g", uncentred, e, a.ErrorBound())
		}
		// The merged mean is the features' mean: the sums add exactly, and each is a sum
		// of 150 or 250 terms of at most √(2/D) in magnitude, ±n·ε·√(2/D) apart from one
		// sum of all the features (here 4e-15 of the entries' size).
		mean := a.Mean(nil)
		for j := range 256 {
			want := 0.0
			if !uncentred {
				want = mat.Sum(Z.ColView(j)) / float64(n)
			}
			if math.Abs(mean[j]-want) > float64(n)*0x1p-52*math.Sqrt(2.0/256) {
				t.Fatalf("uncentred %v: merged mean %d is %g, want %g", uncentred, j, mean[j], want)
			}
		}
		if a.Bytes() != bytes150 {
			t.Errorf("uncentred %v: memory grew from %d to %d bytes with the number of points", uncentred, bytes150, a.Bytes())
		}
		c, _ := NewSKPCA(kernel.RBF{Sigma: sigma}, 10, SKPCAOptions{Features: 256, Sketch: 8, Seed: 5, Uncentred: uncentred})
		if a.Merge(c) == nil {
			t.Error("merging models with different feature maps: no error")
		}
	}
}

func TestSKPCABadInput(t *testing.T) {
	for _, c := range []struct {
		k kernel.RBF
		o SKPCAOptions
	}{
		{kernel.RBF{Sigma: 1}, SKPCAOptions{Features: 0, Sketch: 2}},
		{kernel.RBF{Sigma: 0}, SKPCAOptions{Features: 10, Sketch: 2}},
		{kernel.RBF{Sigma: 1}, SKPCAOptions{Features: 10, Sketch: 0}},
		{kernel.RBF{Sigma: 1}, SKPCAOptions{Features: 10, Sketch: 2, Buffer: 2}},
	} {
		if _, err := NewSKPCA(c.k, 3, c.o); !errors.Is(err, ErrArgument) || !errors.Is(err, ikpca.ErrArgument) {
			t.Errorf("NewSKPCA(%v, %+v): %v, want ErrArgument", c.k, c.o, err)
		}
	}
	s, _ := NewSKPCA(kernel.RBF{Sigma: 1}, 2, SKPCAOptions{Features: 8, Sketch: 2})
	if v := s.Values(nil); len(v) != 0 {
		t.Errorf("Values of an empty model: %v", v)
	}
	var dst mat.Dense
	if err := s.Transform(&dst, mat.NewDense(1, 2, nil), 1); !errors.Is(err, ErrEmpty) {
		t.Errorf("Transform of an empty model: %v, want ErrEmpty", err)
	}
	_ = s.Add([]float64{1, 2})
	for _, c := range []struct {
		x    []float64
		want error
	}{{[]float64{1}, ErrDimension}, {[]float64{math.NaN(), 0}, ErrNonFinite}, {[]float64{0, math.Inf(1)}, ErrNonFinite}} {
		if err := s.Add(c.x); !errors.Is(err, c.want) {
			t.Errorf("Add(%v): %v, want %v", c.x, err, c.want)
		}
	}
	if err := s.AddBatch(mat.NewDense(2, 2, []float64{1, 2, 3, math.NaN()})); !errors.Is(err, ErrNonFinite) {
		t.Errorf("AddBatch with a NaN: %v", err)
	}
	if err := s.AddBatch(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("AddBatch(nil): %v", err)
	}
	if err := s.Merge(nil); !errors.Is(err, ErrArgument) {
		t.Errorf("Merge(nil): %v", err)
	}
	if s.Len() != 1 {
		t.Errorf("bad input changed the model: Len %d", s.Len())
	}
	// Centred, one point has no variance: no component yet.
	if v := s.Values(nil); len(v) != 0 {
		t.Errorf("Values of a centred model of one point: %v", v)
	}
	if err := s.Transform(&dst, mat.NewDense(1, 2, nil), 1); !errors.Is(err, ErrEmpty) {
		t.Errorf("Transform of a centred model of one point: %v, want ErrEmpty", err)
	}
	_ = s.Add([]float64{-1, 0.5})
	if v := s.Values(nil); len(v) != 1 {
		t.Errorf("Values of a centred model of two points: %v, want one", v)
	}
	if err := s.Transform(&dst, mat.NewDense(1, 2, nil), 5); !errors.Is(err, ErrArgument) {
		t.Errorf("Transform with too many components: %v", err)
	}
}

// TestRNCA: RNCA's eigenvalues are those of ZᵀZ (or the centred covariance) exactly,
// one point at a time or in a batch, its rank-k kernel approximation is the best one
// for ZZᵀ: ‖ZZᵀ − Z·V_k·V_kᵀ·Zᵀ‖₂ = λ_{k+1}(ZZᵀ), and its scores, signs included, are
// those of an independent eigendecomposition with the sign rule.
func TestRNCA(t *testing.T) {
	n := 300
	X, sigma := standardised(t, data.Magic().X, n)
	for _, centred := range []bool{false, true} {
		opts := RNCAOptions{Features: 64, Seed: 2, Uncentred: !centred, Form: features.RandomPhase}
		one, _ := NewRNCA(kernel.RBF{Sigma: sigma}, 10, opts)
		batch, _ := NewRNCA(kernel.RBF{Sigma: sigma}, 10, opts)
		testmat.AddRows(t, one, X, 0, n)
		if err := batch.AddBatch(X); err != nil {
			t.Fatal(err)
		}
		v1 := one.Values(nil)
		v2 := batch.Values(nil)
		var Z mat.Dense
		_ = one.Map().Transform(&Z, X)
		if centred {
			for j := range 64 {
				m := mat.Sum(Z.ColView(j)) / float64(n)
				for i := range n {
					Z.Set(i, j, Z.At(i, j)-m)
				}
			}
		}
		var ztz mat.SymDense
		ztz.SymOuterK(1, Z.T())
		var eig mat.EigenSym
		if !eig.Factorize(&ztz, true) {
			t.Fatal("EigenSym")
		}
		want := eig.Values(nil)
		for i := range 64 {
			w := want[63-i]
			if math.Abs(v1[i]-w) > 1e-10*want[63] || math.Abs(v2[i]-w) > 1e-10*want[63] {
				t.Errorf("centred=%v λ%d: %g (one) %g (batch), want %g", centred, i, v1[i], v2[i], w)
			}
		}
		const k = 10
		var all, sc, zv mat.Dense
		one.VectorsTo(&all)
		V := all.Slice(0, 64, 0, k)
		zz := mat.NewSymDense(n, nil)
		zz.SymOuterK(1, &Z)
		diff := mat.NewSymDense(n, nil)
		subSym(diff, zz, approxKernel(&Z, V.(*mat.Dense)))
		if e := symNorm(t, diff); math.Abs(e-want[63-k]) > 1e-9*want[63] {
			t.Errorf("centred=%v: rank-%d error %g, want λ_{k+1} = %g", centred, k, e, want[63-k])
		}
		if err := one.Transform(&sc, X, k); err != nil {
			t.Fatal(err)
		}
		zv.Mul(&Z, V)
		if !mat.EqualApprox(&sc, &zv, 1e-10) {
			t.Errorf("centred=%v: Transform differs from (Z − mean)·V", centred)
		}
		// Signs: fitted a point at a time or in one batch, the scores are those of the
		// oracle's eigenvectors (gonum, EigenSym above) signed by package sign — with no
		// alignment here. Three eigensolvers of the same matrix, accumulated in two
		// orders, agree on each of the top 4 eigenvectors to about D·ε·λ₁/gap, below
		// 1e-11 for a relative gap of at least 1e-3; 1e-9 of the largest score is far
		// below a flipped sign, an error of twice the score.
		const top = 4
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		U := mat.NewDense(64, top, nil)
		for q := range top {
			if gap := (want[63-q] - want[62-q]) / want[63]; gap < 1e-3 {
				t.Fatalf("centred=%v: component %d not separated (relative gap %.3g)", centred, q, gap)
			}
			U.SetCol(q, mat.Col(nil, 63-q, &vecs))
		}
		sign.Flip(U)
		var ref mat.Dense
		ref.Mul(&Z, U)
		scale := mat.Norm(&ref, math.Inf(1))
		for _, m := range []*RNCA{one, batch} {
			var got mat.Dense
			if err := m.Transform(&got, X, top); err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(&got, &ref, 1e-9*scale) {
				t.Errorf("centred=%v: scores differ from the oracle's (signed by the same rule)", centred)
			}
		}
	}
	r, _ := NewRNCA(kernel.RBF{Sigma: 1}, 2, RNCAOptions{Features: 8})
	if v := r.Values(nil); len(v) != 0 {
		t.Errorf("Values of an empty model: %v", v)
	}
	if err := r.Add([]float64{math.NaN(), 1}); !errors.Is(err, ErrNonFinite) || r.Len() != 0 {
		t.Errorf("Add(NaN): %v, or the model changed", err)
	}
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

// TestHugeFeatures: a point whose coordinates are finite but so large that its random
// features are not (ωᵀx overflows, and the cosine of an infinity is NaN) is an
// ErrNonFinite of SKPCA's and RNCA's Add and AddBatch, and leaves the model as it was
// (RNCA used to add the NaN features to its moments). With 16 frequencies of ω ~ N(0, I)
// at least one sum ωᵀx overflows for x = 1.7e308·(1, 1, 1) unless all 16 of ω's
// row sums are below 1.06 in magnitude, a chance of 0.46¹⁶ ≈ 4e-6 for a seed; the test
// checks the seed it uses.
func TestHugeFeatures(t *testing.T) {
	huge := []float64{1.7e308, 1.7e308, 1.7e308}
	X := mat.NewDense(20, 3, nil)
	for i := range 20 {
		X.SetRow(i, []float64{float64(i%5) / 5, float64(i%7) / 7, 0.5})
	}
	withHuge := mat.DenseCopyOf(X)
	withHuge.SetRow(13, huge)
	s, err := NewSKPCA(kernel.RBF{Sigma: 1}, 3, SKPCAOptions{Features: 32, Sketch: 4, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRNCA(kernel.RBF{Sigma: 1}, 3, RNCAOptions{Features: 32, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	type model interface {
		ikpca.Model
		Add([]float64) error
		AddBatch(mat.Matrix) error
	}
	for name, m := range map[string]model{"SKPCA": s, "RNCA": r} {
		if err := m.AddBatch(X); err != nil {
			t.Fatal(err)
		}
		before := m.Values(nil)
		if err := m.Add(huge); !errors.Is(err, ErrNonFinite) {
			t.Errorf("%s: Add of a huge point: %v, want ErrNonFinite", name, err)
		}
		if err := m.AddBatch(withHuge); !errors.Is(err, ErrNonFinite) {
			t.Errorf("%s: AddBatch with a huge point: %v, want ErrNonFinite", name, err)
		}
		if after := m.Values(nil); m.Len() != 20 || !slices.Equal(after, before) {
			t.Errorf("%s: the huge point changed the model: %d points, values %v, before %v", name, m.Len(), after, before)
		}
	}
}

// TestAddAllocations: SKPCA's Add, centred or not, and RNCA's allocate nothing in steady
// state (200 points: the sketch compresses 25 times on the way, ℓ = 4, buffer 8).
func TestAddAllocations(t *testing.T) {
	X := toy(300, 41)
	for _, uncentred := range []bool{false, true} {
		s, err := NewSKPCA(kernel.RBF{Sigma: 1}, 2, SKPCAOptions{Features: 64, Sketch: 4, Seed: 1, Uncentred: uncentred})
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewRNCA(kernel.RBF{Sigma: 1}, 2, RNCAOptions{Features: 32, Seed: 1, Uncentred: uncentred})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.AddBatch(X.Slice(0, 50, 0, 2))
		_ = r.AddBatch(X.Slice(0, 50, 0, 2))
		i := 50
		if a := testing.AllocsPerRun(200, func() { _ = s.Add(X.RawRowView(i % 300)); i++ }); a != 0 {
			t.Errorf("SKPCA (uncentred %v): Add allocates %g times per point", uncentred, a)
		}
		if a := testing.AllocsPerRun(200, func() { _ = r.Add(X.RawRowView(i % 300)); i++ }); a != 0 {
			t.Errorf("RNCA (uncentred %v): Add allocates %g times per point", uncentred, a)
		}
	}
}

// TestSKPCAReset: an SKPCA that held points and is Reset has none, nor values; the same
// points then give it the model a new one of the same options gets, bit for bit (the
// same features, the same sketch updates), centred and uncentred. Reset allocates
// nothing, and does nothing to a zero SKPCA.
func TestSKPCAReset(t *testing.T) {
	X, sigma := standardised(t, data.Magic().X, 300)
	for _, uncentred := range []bool{false, true} {
		opts := SKPCAOptions{Features: 64, Sketch: 8, Seed: 4, Uncentred: uncentred}
		s, _ := NewSKPCA(kernel.RBF{Sigma: sigma}, 10, opts)
		fresh, _ := NewSKPCA(kernel.RBF{Sigma: sigma}, 10, opts)
		if err := s.AddBatch(X.Slice(0, 150, 0, 10)); err != nil {
			t.Fatal(err)
		}
		s.Values(nil)
		if allocs := testing.AllocsPerRun(5, s.Reset); allocs != 0 {
			t.Errorf("uncentred %v: Reset allocates %v times", uncentred, allocs)
		}
		if s.Len() != 0 || len(s.Values(nil)) != 0 || s.ErrorBound() != 0 {
			t.Fatalf("uncentred %v: after Reset %d points, values %v, bound %g", uncentred, s.Len(), s.Values(nil), s.ErrorBound())
		}
		for _, m := range []*SKPCA{s, fresh} {
			if err := m.AddBatch(X.Slice(150, 300, 0, 10)); err != nil {
				t.Fatal(err)
			}
		}
		a, b := s.Values(nil), fresh.Values(nil)
		if s.Len() != 150 || len(a) == 0 || !slices.Equal(a, b) || !slices.Equal(s.Mean(nil), fresh.Mean(nil)) || s.ErrorBound() != fresh.ErrorBound() {
			t.Errorf("uncentred %v: reset model of %d points, values %v; a new one's %v", uncentred, s.Len(), a, b)
		}
	}
	var zero SKPCA
	zero.Reset()
}
