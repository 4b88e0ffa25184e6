package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/bench/internal/cli"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/internal/testmat"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/stream"
)

// TestReference: a reference file reads back bit for bit, and a file of the wrong
// length is refused.
func TestReference(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.ref")
	vals := []float64{3, 2, math.Pi}
	V := mat.NewDense(4, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -12.5})
	if err := writeReference(path, vals, V); err != nil {
		t.Fatal(err)
	}
	r, err := readReference(path)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range vals {
		if r.values[j] != v {
			t.Errorf("value %d: %v, want %v", j, r.values[j], v)
		}
	}
	if !mat.Equal(r.vectors, V) {
		t.Errorf("vectors %v, want %v", mat.Formatted(r.vectors), mat.Formatted(V))
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-8], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readReference(path); err == nil {
		t.Error("a cut file was read")
	}
}

// TestSine: the sine of two planes in R⁴ that share one direction and turn the other by
// θ is sin θ, resolved down to θ = 1e-12 (the cosine route would give 0 below 1e-8).
// The formed residual's rounding is a few ε, so 1e-15 absolute is the tolerance.
func TestSine(t *testing.T) {
	for _, theta := range []float64{1, 1e-3, 1e-9, 1e-12} {
		U := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 0, 0, 0, 0})
		V := mat.NewDense(4, 2, []float64{1, 0, 0, math.Cos(theta), 0, math.Sin(theta), 0, 0})
		if got := sine(U, V); math.Abs(got-math.Sin(theta)) > 1e-15 {
			t.Errorf("θ = %g: sine %g, want %g", theta, got, math.Sin(theta))
		}
	}
}

// TestSKPCAAtMemory: the chosen D is even and within the budget, and D + 2 is not.
func TestSKPCAAtMemory(t *testing.T) {
	for _, budget := range []int{200_000, 3_000_000} {
		o := skpcaOptions(20).AtMemory(kernel.RBF{Sigma: 1}, 10, budget)
		if o.Features%2 != 0 || bytesOf(t, o.Features) > budget || bytesOf(t, o.Features+2) <= budget {
			t.Errorf("budget %d: D = %d holds %d bytes, D + 2 %d", budget, o.Features, bytesOf(t, o.Features), bytesOf(t, o.Features+2))
		}
	}
}

func skpcaOptions(ell int) stream.SKPCAOptions { return stream.SKPCAOptions{Sketch: ell, Seed: 1} }

// bytesOf returns the memory of the SKPCA model of TestSKPCAAtMemory with D features.
func bytesOf(t *testing.T, D int) int {
	t.Helper()
	o := skpcaOptions(20)
	o.Features = D
	s, err := stream.NewSKPCA(kernel.RBF{Sigma: 1}, 10, o)
	if err != nil {
		t.Fatal(err)
	}
	return s.Bytes()
}

// TestFitAgainstBatch runs -mode fit on 400 MAGIC points tracked at rank 50 (batch
// start 150) against the exact batch fit's top 10 (kpca.Fit with every pair: dsyevr on
// the formed matrix), and checks what the report relies on: the polished top 10 within
// 1e-12·λ₁ and a sine below 1e-6 (docs/design.md, "Polishing": four passes reach
// rounding and sines of 1e-9 on MAGIC), the tracked ones further off, every certified
// interval holding the batch value (the certificate's rounding allowance covers the
// difference between the kernel blocks' entries and Eval's), the sine bound above the
// true sine, and a polish of a copy of the tracked model (-polish 2,4) equal to a
// polish of a fresh fit.
func TestFitAgainstBatch(t *testing.T) {
	dir := t.TempDir()
	X, sigma, exact := magicFit(t, 400, kpca.Options{Components: kpca.All})
	const k = 10
	ref := filepath.Join(dir, "exact.ref")
	if err := writeReference(ref, exact.Values(nil)[:k], topVectors(exact, k)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "fit.json")
	save := filepath.Join(dir, "polished.ref")
	runArgs(t, "-dataset", "magic", "-n", "400", "-rank", "50", "-batch-max", "150", "-polish", "2,4",
		"-ref", ref, "-save", save, "-json", out, "-floor-seconds", "0")
	var res struct {
		Tracked  result
		Polished []result
		Passes   []struct {
			TimesFloor float64 `json:"times_floor"`
		}
	}
	testmat.ReadJSON(t, out, &res)
	if len(res.Polished) != 2 || res.Polished[1].Passes != 4 {
		t.Fatalf("polished %+v, want passes 2 and 4", res.Polished)
	}
	p := res.Polished[1]
	t.Logf("tracked: %.2g·λ₁, sine %.2g; polished 4: %.2g·λ₁, sine %.2g, bound %.2g, width %.2g·λ₁",
		res.Tracked.ValueError, res.Tracked.Sine, p.ValueError, p.Sine, p.SineBound, p.Width)
	if p.ValueError > 1e-12 || p.Sine > 1e-6 {
		t.Errorf("polished: values within %g·λ₁, sine %g; want 1e-12, 1e-6", p.ValueError, p.Sine)
	}
	if res.Tracked.ValueError <= p.ValueError || res.Tracked.Sine <= p.Sine {
		t.Errorf("tracked (%g, sine %g) no worse than polished (%g, sine %g)", res.Tracked.ValueError, res.Tracked.Sine, p.ValueError, p.Sine)
	}
	for _, r := range append([]result{res.Tracked}, res.Polished...) {
		if r.ReferenceOutside != 0 || !(r.SineBound >= r.Sine) || !(r.Width > 0) {
			t.Errorf("certificate: reference outside by %g·λ₁, sine bound %g for a sine %g, width %g", r.ReferenceOutside, r.SineBound, r.Sine, r.Width)
		}
	}
	if len(res.Passes) != 2 || !(res.Passes[0].TimesFloor > 0) {
		t.Errorf("passes %+v", res.Passes)
	}

	// The polish from the copy (-polish 2,4 polished a copy 4 times) against a fresh fit
	// polished 4 times: the same arithmetic on the same state, so the same bits.
	fresh, err := kpca.Fit(kernel.RBF{Sigma: sigma}, X, kpca.Options{Components: 50, Rank: 50, BatchMax: 150})
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Polish(4); err != nil {
		t.Fatal(err)
	}
	for j, v := range fresh.Values(nil)[:k] {
		if p.Values[j] != v {
			t.Errorf("λ%d: %v after a copy's polish, %v after a fresh fit's", j+1, p.Values[j], v)
		}
	}

	// -save wrote the polished pairs.
	saved, err := readReference(save)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range saved.values {
		if v != p.Values[j] {
			t.Errorf("saved λ%d = %v, want %v", j+1, v, p.Values[j])
		}
	}

	// -mode compare against the batch reference: Nyström KPCA with every point a
	// landmark approximates K by K_nL·K_LL⁺·K_Ln = K but for the pairs of K_LL below its
	// cutoff (2r·ε·σ₁, nystrom.Options.Tolerance), so its top 10 are within 1e-9·λ₁ of
	// batch and its subspace within a sine of 1e-6 (a gap of 0.001·λ₁ at least divides
	// the perturbation).
	out = filepath.Join(dir, "nys.json")
	runArgs(t, "-mode", "compare", "-method", "nystrom", "-landmarks", "400", "-dataset", "magic", "-n", "400",
		"-ref", ref, "-json", out)
	var nys result
	testmat.ReadJSON(t, out, &nys)
	ev := exact.Values(nil)
	t.Logf("Nyström, every point: %.2g·λ₁, sine %.2g; (λ10 − λ11)/λ₁ = %.2g", nys.ValueError, nys.Sine, (ev[9]-ev[10])/ev[0])
	if nys.ValueError > 1e-9 || nys.Sine > 1e-6 || len(nys.Sines) != k {
		t.Errorf("Nyström with every point a landmark: values within %g·λ₁, sine %g, %d sines", nys.ValueError, nys.Sine, len(nys.Sines))
	}
	// SKPCA, against the saved polished pairs, is an approximation at any size: it runs,
	// and its errors are measured.
	out = filepath.Join(dir, "skpca.json")
	runArgs(t, "-mode", "compare", "-method", "skpca", "-landmarks", "50", "-dataset", "magic", "-n", "400",
		"-ref", save, "-json", out)
	var sk result
	testmat.ReadJSON(t, out, &sk)
	if !(sk.ValueError > 0) || !(sk.Sine > 0 && sk.Sine <= 1+1e-12) || sk.Features < 2 {
		t.Errorf("SKPCA: values within %g·λ₁, sine %g, D = %d", sk.ValueError, sk.Sine, sk.Features)
	}
}

// TestFloorReference: -mode floor makes a reference of the command's outputs — the
// values and the training scores, written here as "ikpca fit --values --scores" writes
// them (a header, then the numbers, exact in %g with -1 precision) — whose vectors are
// the model's unit eigenvectors: the scores divided by √λⱼ, to rounding (a sine of a
// few ε·√m; 1e-13 allows for it), and times the floor of both passes.
func TestFloorReference(t *testing.T) {
	dir := t.TempDir()
	_, sigma, md := magicFit(t, 300, kpca.Options{Components: 20})
	const k = 5
	var S mat.Dense
	if err := md.Scores(&S, k); err != nil {
		t.Fatal(err)
	}
	vals := md.Values(nil)
	values := "component,eigenvalue,explained_variance\n"
	for j, v := range vals {
		values += strconv.Itoa(j+1) + "," + strconv.FormatFloat(v, 'g', -1, 64) + ",0\n"
	}
	scores := "pc1,pc2,pc3,pc4,pc5\n"
	for i := range 300 {
		for j := range k {
			if j > 0 {
				scores += ","
			}
			scores += strconv.FormatFloat(S.At(i, j), 'g', -1, 64)
		}
		scores += "\n"
	}
	vpath, spath, ref, out := filepath.Join(dir, "v.csv"), filepath.Join(dir, "s.csv"), filepath.Join(dir, "r.ref"), filepath.Join(dir, "f.json")
	if err := os.WriteFile(vpath, []byte(values), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spath, []byte(scores), 0o644); err != nil {
		t.Fatal(err)
	}
	runArgs(t, "-mode", "floor", "-dataset", "magic", "-n", "300", "-sigma", strconv.FormatFloat(sigma, 'g', -1, 64),
		"-rank", "20", "-k", "5", "-values", vpath, "-scores", spath, "-save", ref, "-json", out, "-floor-seconds", "0")
	r, err := readReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if s := sine(r.vectors, topVectors(md, k)); s > 1e-13 {
		t.Errorf("the reference's vectors are a sine %g from the model's", s)
	}
	for j := range k {
		if r.values[j] != vals[j] {
			t.Errorf("λ%d = %v, want %v", j+1, r.values[j], vals[j])
		}
		if n := mat.Norm(r.vectors.ColView(j), 2); math.Abs(n-1) > 1e-13 {
			t.Errorf("vector %d has norm %v", j+1, n)
		}
	}
	var res struct {
		Floors []struct {
			C        int     `json:"c"`
			Distance float64 `json:"floor_distance_s"`
		} `json:"floors"`
	}
	testmat.ReadJSON(t, out, &res)
	if len(res.Floors) != 2 || res.Floors[0].C != 20 || res.Floors[1].C != 50 || !(res.Floors[0].Distance > 0) {
		t.Errorf("floors %+v", res.Floors)
	}
}

// magicFit returns the first n MAGIC points as the command reads them (cli.Points),
// their default bandwidth σ (kernel.DefaultBandwidth) and the kernel PCA of the RBF
// kernel of that σ with opts, failing the test at once on an error.
func magicFit(t *testing.T, n int, opts kpca.Options) (*mat.Dense, float64, *kpca.Model) {
	t.Helper()
	X, err := cli.Points("magic", n)
	if err != nil {
		t.Fatal(err)
	}
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		t.Fatal(err)
	}
	md, err := kpca.Fit(kernel.RBF{Sigma: sigma}, X, opts)
	if err != nil {
		t.Fatal(err)
	}
	return X, sigma, md
}

// runArgs runs the command with the arguments args, as main does, and fails the test
// at once if they do not parse or the run fails.
func runArgs(t *testing.T, args ...string) {
	t.Helper()
	cfg, err := parse(args)
	if err != nil {
		t.Fatal(err)
	}
	if err := run(cfg); err != nil {
		t.Fatal(err)
	}
}

// result holds the fields of the JSON the tests read.
type result struct {
	Passes           int       `json:"passes"`
	Values           []float64 `json:"values"`
	ValueError       float64   `json:"value_error"`
	Sine             float64   `json:"sine"`
	Sines            []float64 `json:"sines"`
	SineBound        float64   `json:"sine_bound"`
	Width            float64   `json:"width"`
	ReferenceOutside float64   `json:"reference_outside"`
	Features         int       `json:"features"`
}

// TestFloorDirect: the share of entries the RBF block evaluates directly is none on
// MAGIC with the median distance (docs/design.md, "Kernel blocks") and, at d = 784, a
// small part of Fashion-MNIST's: the criterion's constant (d + ⌈d/8⌉ + 12)·ε is 0.99·τ
// there, so only pairs close to each other and far from the mean are (0.2 % measured on
// a sample of 64,000 pairs; under the old constant (2d+8)·ε, 1.76·τ, it was 29–33 %).
func TestFloorDirect(t *testing.T) {
	magic, err := cli.Points("magic", 300)
	if err != nil {
		t.Fatal(err)
	}
	fashion := data.FashionMNISTSample().X
	for _, c := range []struct {
		name     string
		X        *mat.Dense
		min, max float64
	}{{"magic", magic, 0, 0}, {"fashion-mnist", fashion, 0, 0.02}} {
		sigma, err := kernel.DefaultBandwidth(c.X)
		if err != nil {
			t.Fatal(err)
		}
		fl := floor(c.X, sigma, 10, 0)
		if fl.direct < c.min || fl.direct > c.max || fl.timed != fl.blocks {
			t.Errorf("%s: %.3g of the entries direct (want %g to %g), %d of %d blocks timed", c.name, fl.direct, c.min, c.max, fl.timed, fl.blocks)
		}
		t.Logf("%s: %.3g of the entries evaluated directly", c.name, fl.direct)
	}
}

// TestPassBlocks: the tiles of a pass cover the upper triangle of the m×m matrix and
// the diagonal tiles exactly once — every pair (i, j), j ≥ i, once, and the pairs
// (i, j), j < i, of a diagonal tile once more — at sizes below one tile, at one tile,
// and of an even and an odd number of blocks; the rounds hold no block twice; and the
// floor's work counts them: m(m+1)/2 + Σ t(t−1)/2 kernel values, 2·d flops each.
func TestPassBlocks(t *testing.T) {
	for _, m := range []int{1, 255, 256, 2049, 5000} {
		seen := make([]uint8, m*m)
		bs, nb, rounds := passBlocks(m)
		tile := min(passTile(m), m)
		for r, lo := range rounds {
			hi := len(bs)
			if r+1 < len(rounds) {
				hi = rounds[r+1]
			}
			used := make(map[int]bool)
			for _, k := range bs[lo:hi] {
				for _, b := range []int{k.lo / tile, k.j0 / tile} {
					if used[b] && k.lo != k.j0 {
						t.Errorf("m = %d: round %d uses block %d twice", m, r, b)
					}
					used[b] = true
				}
			}
		}
		extra := 0
		for _, k := range bs {
			for i := k.lo; i < k.hi; i++ {
				for j := k.j0; j < k.j1; j++ {
					seen[i*m+j]++
				}
			}
			if k.lo == k.j0 {
				b := k.hi - k.lo
				extra += b * (b - 1) / 2
			}
		}
		if want := (m + tile - 1) / tile; nb != want || len(rounds) != want {
			t.Errorf("m = %d: %d blocks in %d rounds, want %d", m, nb, len(rounds), want)
		}
		for i := range m {
			for j := range m {
				want := uint8(0)
				if j >= i || i/tile == j/tile {
					want = 1
				}
				if seen[i*m+j] != want {
					t.Fatalf("m = %d: pair (%d, %d) computed %d times, want %d", m, i, j, seen[i*m+j], want)
				}
			}
		}
		var ft floorTimes
		ft.passWork(784, 50, bs)
		if values := float64(m*(m+1)/2 + extra); ft.values != values || ft.flopsDistance != 2*784*values {
			t.Errorf("m = %d: %g values, %g distance flops; want %g, %g", m, ft.values, ft.flopsDistance, values, 2*784*values)
		}
	}
}

// TestBitReversed: the order in which the floor times the blocks is a permutation of
// them that starts with the first and, for n a power of two, takes the middle second.
func TestBitReversed(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8, 100} {
		order := bitReversed(n)
		seen := make([]bool, n)
		for _, i := range order {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("n = %d: %v is not a permutation", n, order)
			}
			seen[i] = true
		}
		if len(order) != n || order[0] != 0 || n == 8 && order[1] != 4 {
			t.Errorf("n = %d: %v", n, order)
		}
	}
}
