package ikpcabeam

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
)

// TestNystromMatchesSingleProcess: the pipeline's Nyström KPCA model — on given
// landmarks, and on landmarks the pipeline samples; with σ given, and by the median
// heuristic on the landmarks; adding blocks of points (AddBatch) of the default size, of
// 7, and single points; centred and uncentred — equals nystrom.Model fed the same
// points in one process on the same landmarks. The sums are compensated, so merged and
// one-pass sums agree to a few ε relative, and the eigenvalues of the same r'×r' matrix to about r'·ε·λ₁: 1e-12·λ₁
// (the bound) is far above that. Scores of probe points are compared on the
// leading components whose gaps exceed 1e-6·λ₁, where an eigenvector moves by at most
// ε·λ₁/gap ≈ 1e-10 relative: 1e-8 relative to the largest score.
func TestNystromMatchesSingleProcess(t *testing.T) {
	dir := beamtest.TempDir(t)
	X := curve(600, 3, 3)
	P := curve(20, 3, 8)
	glob, _ := pointFiles(t, dir, X, 3)
	given := mat.DenseCopyOf(X.Slice(0, 20, 0, 3))
	for _, c := range []struct {
		L         *mat.Dense
		sigma     float64
		fit       FitOptions
		median    bool
		twice     bool // FitNystromSampled on two reads
		uncentred bool
	}{
		{L: given, sigma: 1, fit: FitOptions{}},
		{L: nil, sigma: 1, fit: FitOptions{}},
		{L: given, sigma: 0, fit: FitOptions{Block: 7}, median: true},
		{L: nil, sigma: 0, fit: FitOptions{Block: 7}, median: true},
		{L: given, sigma: 1, fit: FitOptions{Block: 1}},
		{L: nil, sigma: 1, fit: FitOptions{Block: 1}},
		{L: nil, sigma: 0, fit: FitOptions{}, median: true, twice: true},
		{L: given, sigma: 1, fit: FitOptions{}, uncentred: true},
		{L: nil, sigma: 1, fit: FitOptions{Block: 7}, uncentred: true},
	} {
		name := fmt.Sprintf("given %v, σ %v, %+v, two reads %v, uncentred %v", c.L != nil, c.sigma, c.fit, c.twice, c.uncentred)
		p, s := beam.NewPipelineWithRoot()
		opts := NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: c.sigma}, LandmarkPoints: c.L, Landmarks: 25, Seed: 4,
			Uncentred: c.uncentred}
		read := func() beam.PCollection { return readPoints(t, s, glob, 3) }
		model, _ := fitNystrom(t, s, read, c.twice, opts, c.fit)
		mf := writeModel(t, s, filepath.Join(dir, "model"), model)
		run(t, p)

		got := readModel(t, mf).(*Nystrom)
		var land mat.Dense
		got.Landmarks(&land)
		if r, _ := land.Dims(); c.L != nil && !mat.Equal(&land, c.L) || c.L == nil && r != 25 {
			t.Fatalf("%s: %d landmarks, or not the given ones", name, r)
		}
		// The median heuristic is a function of the landmarks alone: the same bits.
		sigma := c.sigma
		if c.median {
			var err error
			if sigma, err = kernel.DefaultBandwidth(&land); err != nil {
				t.Fatal(err)
			}
		}
		if spec := got.Kernel().(kernel.Specified).Spec(); spec.Name != "rbf" || spec.Sigma != sigma {
			t.Errorf("%s: kernel %+v, want rbf with σ = %v", name, spec, sigma)
		}
		single, err := nystrom.New(kernel.RBF{Sigma: sigma}, &land, nystrom.Options{Uncentred: c.uncentred})
		if err != nil {
			t.Fatal(err)
		}
		if err := single.AddBatch(X); err != nil {
			t.Fatal(err)
		}
		if got.Centred() != !c.uncentred {
			t.Errorf("%s: Centred %v", name, got.Centred())
		}
		if got.Len() != single.Len() {
			t.Errorf("%s: %d points, single process %d", name, got.Len(), single.Len())
		}
		a, b := got.Values(nil), single.Values(nil)
		if len(a) != len(b) {
			t.Fatalf("%s: %d values, single process %d", name, len(a), len(b))
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-12*b[0] {
				t.Errorf("%s: λ%d = %v, single process %v", name, i, a[i], b[i])
			}
		}
		k := 0
		for k < min(5, len(b)-1) && b[k]-b[k+1] > 1e-6*b[0] {
			k++
		}
		if k == 0 {
			t.Fatalf("%s: no separated component to compare scores on: %v", name, b)
		}
		var Y, Z mat.Dense
		if err := got.Transform(&Y, P, k); err != nil {
			t.Fatal(err)
		}
		if err := single.Transform(&Z, P, k); err != nil {
			t.Fatal(err)
		}
		big := mat.Norm(&Z, math.Inf(1))
		var diff mat.Dense
		diff.Sub(&Y, &Z)
		if d := mat.Norm(&diff, math.Inf(1)); d > 1e-8*big {
			t.Errorf("%s: scores on %d components differ by %v (largest %v)", name, k, d, big)
		}
	}
}

// TestNystromOptions: bad options are errors of the right kind at construction.
func TestNystromOptions(t *testing.T) {
	withDouble(t, false)
	_, s := beam.NewPipelineWithRoot()
	points := beam.Create(s, Point{X: []float64{1, 2}})
	rbf := kernel.Spec{Name: "rbf", Sigma: 1}
	for _, c := range []struct {
		opts NystromOptions
		err  error
	}{
		{NystromOptions{Kernel: rbf, Landmarks: 2}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "nope"}, Landmarks: 2}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "rbf", Sigma: -1}, Landmarks: 2}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: rbf}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: rbf, LandmarkPoints: mat.NewDense(2, 3, nil)}, ErrDimension},
		{NystromOptions{Dim: 2, Kernel: rbf, LandmarkPoints: mat.NewDense(1, 2, []float64{1, math.NaN()})}, ErrNonFinite},
		// The median heuristic on one landmark, or on landmarks that coincide.
		{NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "rbf"}, LandmarkPoints: mat.NewDense(1, 2, []float64{1, 2})}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "laplacian"}, LandmarkPoints: mat.NewDense(3, 2, []float64{1, 2, 1, 2, 1, 2})}, ErrArgument},
		// A polynomial kernel has no bandwidth to take.
		{NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "polynomial"}, Landmarks: 2}, ErrArgument},
	} {
		if _, _, err := FitNystrom(s, points, c.opts, FitOptions{}); !errors.Is(err, c.err) {
			t.Errorf("%+v: error %v, want %v", c.opts, err, c.err)
		}
	}
	if _, _, err := FitNystrom(s, points, NystromOptions{Dim: 2, Kernel: rbf, Landmarks: 2}, FitOptions{Block: -1}); !errors.Is(err, ErrArgument) {
		t.Errorf("block −1: error %v, want ErrArgument", err)
	}
	for _, c := range []struct {
		opts NystromOptions
		fit  FitOptions
	}{
		{NystromOptions{Dim: 2, Kernel: rbf, LandmarkPoints: mat.NewDense(1, 2, []float64{1, 2})}, FitOptions{}},
		{NystromOptions{Dim: 2, Kernel: rbf}, FitOptions{}},
		{NystromOptions{Dim: 0, Kernel: rbf, Landmarks: 2}, FitOptions{}},
		{NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "polynomial"}, Landmarks: 2}, FitOptions{}},
		{NystromOptions{Dim: 2, Kernel: rbf, Landmarks: 2}, FitOptions{Block: -1}},
	} {
		if _, _, err := FitNystromSampled(s, points, points, c.opts, c.fit); !errors.Is(err, ErrArgument) {
			t.Errorf("FitNystromSampled %+v, %+v: error %v, want ErrArgument", c.opts, c.fit, err)
		}
	}
	// Valid: the median heuristic is accepted without landmarks to take it on yet.
	if _, _, err := FitNystrom(s, points, NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "RBF"}, Landmarks: 2}, FitOptions{}); err != nil {
		t.Errorf("the median heuristic on sampled landmarks: %v", err)
	}
}

// TestNystromPipeline checks FitNystrom's stages — the sample or the given landmarks,
// the prototype built on them, the per-bundle folds of a side input and their merge —
// with a stand-in for the model whose result is known exactly: sums that merge by
// addition. It does not test the Nyström model (TestNystromMatchesSingleProcess does),
// only that the pipeline hands it every point once, merges its parts and builds it on
// the right landmarks, and that a point it refuses is a dead letter, its block's other
// points added; and, for a stand-in that adds blocks (AddBatch), that the points come
// in blocks of at most FitOptions.Block — the memory of a fold — and more than one at a
// time.
func TestNystromPipeline(t *testing.T) {
	dir := beamtest.TempDir(t)
	X := curve(400, 3, 3)
	glob, _ := pointFiles(t, dir, X, 3)
	const rank, seed, block = 5, 11, 16
	huge := []float64{1e300, 0, 0}
	given := mat.DenseCopyOf(X.Slice(0, 2, 0, 3))
	for _, batched := range []bool{false, true} {
		withDouble(t, batched)
		for _, c := range []struct {
			L     *mat.Dense
			twice bool // FitNystromSampled on two reads
		}{{nil, false}, {given, false}, {nil, true}} {
			L := c.L
			name := fmt.Sprintf("batched %v, landmarks %v, two reads %v", batched, L != nil, c.twice)
			p, s := beam.NewPipelineWithRoot()
			read := func() beam.PCollection {
				points := readPoints(t, s, glob, 3)
				// A point the model refuses: a dead letter of a fold, once. And a
				// point of another
				// dimension: a dead letter of the check, once.
				return beam.Flatten(s, points, beam.Create(s, Point{Source: "made", X: huge}, Point{Source: "short", X: []float64{1}}))
			}
			opts := NystromOptions{Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, LandmarkPoints: L, Landmarks: rank, Seed: seed}
			fit := FitOptions{Block: block}
			model, dead := fitNystrom(t, s, read, c.twice, opts, fit)
			mf, df := writeFit(t, s, dir, model, dead)
			run(t, p)

			var m *sums
			switch got := readModel(t, mf).(type) {
			case *sums:
				m = got
			case *batchSums:
				m = &got.sums
				if got.MaxBatch < 2 || got.MaxBatch > block {
					t.Errorf("%s: blocks of up to %d points, want 2 to %d", name, got.MaxBatch, block)
				}
			}
			if m == nil || batched != (m.Kind == batchSumsMagic) {
				t.Fatalf("%s: model %T of kind %q", name, m, m.Kind)
			}
			if m.N != 400 {
				t.Errorf("%s: %d points, want 400", name, m.N)
			}
			for j := range 3 {
				want := mat.Sum(X.ColView(j))
				if math.Abs(m.Sum[j]-want) > 1e-12*float64(m.N) {
					t.Errorf("%s: Σx[%d] = %v, want %v", name, j, m.Sum[j], want)
				}
			}
			dl := readRecords(t, df, false)
			if len(dl) != 2 || !strings.Contains(dl["made@0"].reason, "refuses") || !strings.Contains(dl["short@0"].reason, "dimension") {
				t.Errorf("%s: dead letters %v, want the huge point and the short one", name, dl)
			}
			if L == nil {
				// The sample: the rank points of least hash, whatever the order.
				want := sampleOf(t, glob, X, ranked{Priority: pointHash(Point{Source: "made", X: huge}, seed), X: huge}, rank, seed)
				if !slices.EqualFunc(m.Landmarks, want, slices.Equal) {
					t.Errorf("%s: landmarks %v, want %v", name, m.Landmarks, want)
				}
			} else if len(m.Landmarks) != 2 || !slices.Equal(m.Landmarks[1], given.RawRowView(1)) {
				t.Errorf("%s: landmarks %v, want the given ones", name, m.Landmarks)
			}
		}
	}
}

// sampleOf returns the sample FitNystrom should draw from the points pointFiles wrote
// and one more: the rank points of least (pointHash, coordinates), in that order.
func sampleOf(t *testing.T, glob string, X *mat.Dense, more ranked, rank int, seed uint64) [][]float64 {
	t.Helper()
	files, _ := filepath.Glob(glob)
	all := []ranked{more}
	for _, f := range files {
		b := beamtest.ReadFile(t, f)
		off, line := int64(0), int64(1)
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if i := rowOf(X, strings.TrimSuffix(l, "\n")); i >= 0 {
				p := Point{Source: f, Offset: off, Line: line, X: X.RawRowView(i)}
				all = append(all, ranked{Priority: pointHash(p, seed), X: p.X})
			}
			off += int64(len(l))
			line++
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		if a.Priority != b.Priority {
			return cmp.Compare(a.Priority, b.Priority)
		}
		return slices.Compare(a.X, b.X)
	})
	var out [][]float64
	for _, r := range all[:rank] {
		out = append(out, r.X)
	}
	return out
}

// withDouble sets newNystromModel to the sums stand-in for the test: one that adds
// blocks (batchSums) if batched.
func withDouble(t *testing.T, batched bool) {
	saved := newNystromModel
	newNystromModel = func(L *mat.Dense, opts NystromOptions) (Summary, error) {
		r, d := L.Dims()
		m := sums{D: d, Sum: make([]float64, d), Kind: sumsMagic}
		for i := range r {
			m.Landmarks = append(m.Landmarks, append([]float64(nil), L.RawRowView(i)...))
		}
		if batched {
			m.Kind = batchSumsMagic
			return &batchSums{sums: m}, nil
		}
		return &m, nil
	}
	t.Cleanup(func() { newNystromModel = saved })
}

func init() {
	kinds = append(kinds,
		kind{name: "sums (test)", magic: sumsMagic, summary: func() Summary { return new(sums) }},
		kind{name: "batched sums (test)", magic: batchSumsMagic, summary: func() Summary { return new(batchSums) }})
}

// sums is the tests' stand-in for a Nyström model: its landmarks, the number of points
// and their sum, which merge by addition. Its encoding is JSON after a magic, its Kind.
// It refuses points beyond 1e200, as a model refuses a point whose kernel value is not
// finite. Its ikpca.Model methods are placeholders.
type sums struct {
	Kind      string
	D         int
	Landmarks [][]float64
	N         int
	Sum       []float64
}

const sumsMagic, batchSumsMagic = "TESTSUMS", "TESTBSUM"

func (m *sums) check(x []float64) error {
	if len(x) != m.D {
		return fmt.Errorf("%w: dimension", ErrDimension)
	}
	for _, v := range x {
		if math.Abs(v) > 1e200 {
			return fmt.Errorf("%w: the model refuses %v", ErrNonFinite, v)
		}
	}
	return nil
}

func (m *sums) Add(x []float64) error {
	if err := m.check(x); err != nil {
		return err
	}
	for j, v := range x {
		m.Sum[j] += v
	}
	m.N++
	return nil
}

func (m *sums) Reset() {
	m.N = 0
	clear(m.Sum)
}

func (m *batchSums) Reset() {
	m.sums.Reset()
	m.MaxBatch = 0
}

func (m *sums) Merge(o Summary) error {
	t, ok := o.(*sums)
	if !ok {
		return fmt.Errorf("%w: cannot merge", ErrArgument)
	}
	return m.merge(t)
}

func (m *sums) merge(t *sums) error {
	if t.D != m.D || t.Kind != m.Kind || !slices.EqualFunc(t.Landmarks, m.Landmarks, slices.Equal) {
		return fmt.Errorf("%w: cannot merge", ErrArgument)
	}
	for j, v := range t.Sum {
		m.Sum[j] += v
	}
	m.N += t.N
	return nil
}

func (m *sums) MarshalBinary() ([]byte, error) {
	b, err := json.Marshal(m)
	return append([]byte(m.Kind), b...), err
}

func (m *sums) UnmarshalBinary(b []byte) error {
	return json.Unmarshal(b[len(sumsMagic):], m)
}

func (m *sums) Values(dst []float64) []float64                      { return nil }
func (m *sums) Transform(dst *mat.Dense, X mat.Matrix, k int) error { return ErrEmpty }
func (m *sums) Len() int                                            { return m.N }
func (m *sums) Dim() int                                            { return m.D }
func (m *sums) Centred() bool                                       { return true }
func (m *sums) Bytes() int                                          { return 8 * len(m.Sum) }

// batchSums is sums that adds blocks, all or nothing, and records the largest block it
// was given.
type batchSums struct {
	sums
	MaxBatch int
}

func (m *batchSums) AddBatch(X mat.Matrix) error {
	r, _ := X.Dims()
	for i := range r {
		if err := m.check(mat.Row(nil, i, X)); err != nil {
			return err
		}
	}
	for i := range r {
		if err := m.sums.Add(mat.Row(nil, i, X)); err != nil {
			return err
		}
	}
	m.MaxBatch = max(m.MaxBatch, r)
	return nil
}

func (m *batchSums) Merge(o Summary) error {
	t, ok := o.(*batchSums)
	if !ok {
		return fmt.Errorf("%w: cannot merge", ErrArgument)
	}
	if err := m.merge(&t.sums); err != nil {
		return err
	}
	m.MaxBatch = max(m.MaxBatch, t.MaxBatch)
	return nil
}

func (m *batchSums) MarshalBinary() ([]byte, error) {
	b, err := json.Marshal(m)
	return append([]byte(m.Kind), b...), err
}

func (m *batchSums) UnmarshalBinary(b []byte) error {
	return json.Unmarshal(b[len(batchSumsMagic):], m)
}

// TestMedianBandwidth: an RBF or Laplacian kernel given neither σ nor γ takes the median
// heuristic; one given either keeps it as given, γ included.
func TestMedianBandwidth(t *testing.T) {
	for _, c := range []struct {
		spec kernel.Spec
		want bool
	}{
		{kernel.Spec{Name: "rbf"}, true},
		{kernel.Spec{Name: "Laplacian"}, true},
		{kernel.Spec{Name: "rbf", Sigma: 2}, false},
		{kernel.Spec{Name: "rbf", Gamma: 0.5}, false},
		{kernel.Spec{Name: "laplacian", Gamma: 0.5}, false},
		{kernel.Spec{Name: "polynomial", Degree: 2, Gamma: 1}, false},
	} {
		if got := medianBandwidth(c.spec); got != c.want {
			t.Errorf("medianBandwidth(%+v) = %v, want %v", c.spec, got, c.want)
		}
		got := withBandwidth(c.spec, 3)
		want := c.spec
		if c.want {
			want.Sigma = 3
		}
		if got != want {
			t.Errorf("withBandwidth(%+v, 3) = %+v, want %+v", c.spec, got, want)
		}
	}
}

// TestNystromUnmarshalBinaryFrom: a zero Nystrom reads one model from a stream of two —
// exactly its bytes — and becomes it; a nil reader and a truncated stream are ErrModel
// errors that leave it as it was, without panicking.
func TestNystromUnmarshalBinaryFrom(t *testing.T) {
	X := curve(60, 3, 5)
	m, err := nystrom.Fit(kernel.RBF{Sigma: 1}, X, nystrom.Options{Landmarks: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := wiretest.Marshal(t, m)
	var n Nystrom
	for _, bad := range []io.Reader{nil, bytes.NewReader(b[:len(b)/2])} {
		if _, err := n.UnmarshalBinaryFrom(bad); !errors.Is(err, ErrModel) || n.Model != nil {
			t.Errorf("UnmarshalBinaryFrom of a bad stream: %v, model %v", err, n.Model)
		}
	}
	stream := bytes.NewReader(append(append([]byte(nil), b...), b...))
	if k, err := n.UnmarshalBinaryFrom(stream); err != nil || k != len(b) || stream.Len() != len(b) {
		t.Fatalf("UnmarshalBinaryFrom: %d bytes of %d, %v, %d left", k, len(b), err, stream.Len())
	}
	if !slices.Equal(n.Values(nil), m.Values(nil)) || n.Len() != m.Len() {
		t.Error("the model read from a stream differs from the one written")
	}
}
