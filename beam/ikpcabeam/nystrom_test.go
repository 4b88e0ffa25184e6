package ikpcabeam

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
)

// TestNystromMatchesSingleProcess: the pipeline's Nyström KPCA model — on given
// landmarks, and on landmarks the pipeline samples — equals nystrom.Model fed the same
// points in one process on the same landmarks. The sums are compensated, so merged and
// one-pass sums agree to a few ε relative, and the eigenvalues of the same r'×r' matrix
// to about r'·ε·λ₁: 1e-12·λ₁ (the bound) is far above that. Scores of probe
// points are compared on the leading components whose gaps exceed 1e-6·λ₁, where an
// eigenvector moves by at most ε·λ₁/gap ≈ 1e-10 relative: 1e-8 relative to the
// largest score.
func TestNystromMatchesSingleProcess(t *testing.T) {
	dir := t.TempDir()
	X := curve(600, 3, 3)
	P := curve(20, 3, 8)
	glob, _ := pointFiles(t, dir, X, 3)
	rbf := kernel.Spec{Name: "rbf", Sigma: 1}
	for _, L := range []*mat.Dense{mat.DenseCopyOf(X.Slice(0, 20, 0, 3)), nil} {
		p, s := beam.NewPipelineWithRoot()
		points, _, err := ReadCSV(s, glob, CSVOptions{Dim: 3})
		if err != nil {
			t.Fatal(err)
		}
		model, _, err := FitNystrom(s, points, NystromOptions{Dim: 3, Kernel: rbf, Landmarks: L, Rank: 25, Seed: 4}, FitOptions{Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		mf := filepath.Join(dir, "model")
		if err := WriteModel(s, mf, model); err != nil {
			t.Fatal(err)
		}
		run(t, p)

		got := readModel(t, mf).(*Nystrom)
		var land mat.Dense
		got.Landmarks(&land)
		if r, _ := land.Dims(); L != nil && !mat.Equal(&land, L) || L == nil && r != 25 {
			t.Fatalf("given %v: %d landmarks, or not the given ones", L != nil, r)
		}
		single, err := nystrom.New(kernel.RBF{Sigma: 1}, &land, nystrom.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := single.AddBatch(X); err != nil {
			t.Fatal(err)
		}
		if got.Len() != single.Len() {
			t.Errorf("given %v: %d points, single process %d", L != nil, got.Len(), single.Len())
		}
		a, b := got.Values(nil), single.Values(nil)
		if len(a) != len(b) {
			t.Fatalf("given %v: %d values, single process %d", L != nil, len(a), len(b))
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-12*b[0] {
				t.Errorf("given %v: λ%d = %v, single process %v", L != nil, i, a[i], b[i])
			}
		}
		k := 0
		for k < min(5, len(b)-1) && b[k]-b[k+1] > 1e-6*b[0] {
			k++
		}
		if k == 0 {
			t.Fatalf("given %v: no separated component to compare scores on: %v", L != nil, b)
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
			t.Errorf("given %v: scores on %d components differ by %v (largest %v)", L != nil, k, d, big)
		}
	}
}

// TestNystromOptions: bad options are errors of the right kind at construction.
func TestNystromOptions(t *testing.T) {
	withDouble(t)
	_, s := beam.NewPipelineWithRoot()
	points := beam.Create(s, Point{X: []float64{1, 2}})
	rbf := kernel.Spec{Name: "rbf", Sigma: 1}
	for _, c := range []struct {
		opts NystromOptions
		err  error
	}{
		{NystromOptions{Kernel: rbf, Rank: 2}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "nope"}, Rank: 2}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: kernel.Spec{Name: "rbf", Sigma: -1}, Rank: 2}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: rbf}, ErrArgument},
		{NystromOptions{Dim: 2, Kernel: rbf, Landmarks: mat.NewDense(2, 3, nil)}, ErrDimension},
		{NystromOptions{Dim: 2, Kernel: rbf, Landmarks: mat.NewDense(1, 2, []float64{1, math.NaN()})}, ErrNonFinite},
	} {
		if _, _, err := FitNystrom(s, points, c.opts, FitOptions{}); !errors.Is(err, c.err) {
			t.Errorf("%+v: error %v, want %v", c.opts, err, c.err)
		}
	}
}

// TestNystromPipeline checks FitNystrom's stages — the sample, the prototype built on
// it, the per-bundle folds of a side input and their merge, and the CombineFn with
// given landmarks — with a stand-in for the model whose result is known exactly: sums
// that merge by addition. It does not test the Nyström model, which does not exist yet
// (TestNystromMatchesSingleProcess will), only that the pipeline hands it every point
// once, merges its parts and builds it on the right landmarks.
func TestNystromPipeline(t *testing.T) {
	withDouble(t)
	dir := t.TempDir()
	X := curve(400, 3, 3)
	glob, _ := pointFiles(t, dir, X, 3)
	const rank, seed = 5, 11
	huge := []float64{1e300, 0, 0}
	given := mat.DenseCopyOf(X.Slice(0, 2, 0, 3))
	for _, L := range []*mat.Dense{nil, given} {
		p, s := beam.NewPipelineWithRoot()
		points, _, err := ReadCSV(s, glob, CSVOptions{Dim: 3})
		if err != nil {
			t.Fatal(err)
		}
		if L == nil {
			// A point the model refuses: a dead letter of a fold. (The CombineFn of
			// given landmarks has no output for it.)
			points = beam.Flatten(s, points, beam.Create(s, Point{Source: "made", X: huge}))
		}
		model, dead, err := FitNystrom(s, points, NystromOptions{
			Dim: 3, Kernel: kernel.Spec{Name: "rbf", Sigma: 1}, Landmarks: L, Rank: rank, Seed: seed,
		}, FitOptions{Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		mf, df := filepath.Join(dir, "model"), filepath.Join(dir, "dead")
		if err := WriteModel(s, mf, model); err != nil {
			t.Fatal(err)
		}
		if err := WriteDeadLetters(s, df, dead); err != nil {
			t.Fatal(err)
		}
		run(t, p)

		m := readModel(t, mf).(*sums)
		if m.N != 400 {
			t.Errorf("landmarks %v: %d points, want 400", L != nil, m.N)
		}
		for j := range 3 {
			want := mat.Sum(X.ColView(j))
			if math.Abs(m.Sum[j]-want) > 1e-12*float64(m.N) {
				t.Errorf("landmarks %v: Σx[%d] = %v, want %v", L != nil, j, m.Sum[j], want)
			}
		}
		dl := readRecords(t, df, false)
		if L == nil {
			if len(dl) != 1 || !strings.Contains(dl["made@0"].reason, "refuses") {
				t.Errorf("dead letters %v, want the huge point", dl)
			}
			// The sample: the rank points of least hash, whatever the order.
			want := sampleOf(t, glob, X, ranked{Priority: pointHash(Point{Source: "made", X: huge}, seed), X: huge}, rank, seed)
			if !slices.EqualFunc(m.Landmarks, want, slices.Equal) {
				t.Errorf("landmarks %v, want %v", m.Landmarks, want)
			}
		} else if len(m.Landmarks) != 2 || !slices.Equal(m.Landmarks[1], given.RawRowView(1)) {
			t.Errorf("landmarks %v, want the given ones", m.Landmarks)
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
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
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

// withDouble sets newNystromModel to the sums stand-in for the test.
func withDouble(t *testing.T) {
	saved := newNystromModel
	newNystromModel = func(L *mat.Dense, opts NystromOptions) (Summary, error) {
		r, d := L.Dims()
		m := &sums{D: d, Sum: make([]float64, d)}
		for i := range r {
			m.Landmarks = append(m.Landmarks, append([]float64(nil), L.RawRowView(i)...))
		}
		return m, nil
	}
	t.Cleanup(func() { newNystromModel = saved })
}

func init() {
	kinds = append(kinds, kind{name: "sums (test)", magic: sumsMagic, summary: func() Summary { return new(sums) }})
}

// sums is the tests' stand-in for a Nyström model: its landmarks, the number of points
// and their sum, which merge by addition. Its encoding is JSON after a magic. It
// refuses points beyond 1e200, as a model refuses a point whose kernel value is not
// finite. Its ikpca.Model methods are placeholders.
type sums struct {
	D         int
	Landmarks [][]float64
	N         int
	Sum       []float64
}

const sumsMagic = "TESTSUMS"

func (m *sums) Add(x []float64) error {
	if len(x) != m.D {
		return fmt.Errorf("%w: dimension", ErrDimension)
	}
	for _, v := range x {
		if math.Abs(v) > 1e200 {
			return fmt.Errorf("%w: the model refuses %v", ErrNonFinite, v)
		}
	}
	for j, v := range x {
		m.Sum[j] += v
	}
	m.N++
	return nil
}

func (m *sums) Merge(o Summary) error {
	t, ok := o.(*sums)
	if !ok || t.D != m.D || !slices.EqualFunc(t.Landmarks, m.Landmarks, slices.Equal) {
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
	return append([]byte(sumsMagic), b...), err
}

func (m *sums) UnmarshalBinary(b []byte) error {
	return json.Unmarshal(b[len(sumsMagic):], m)
}

func (m *sums) Values(dst []float64) []float64                      { return nil }
func (m *sums) Transform(dst *mat.Dense, X mat.Matrix, k int) error { return ErrEmpty }
func (m *sums) Len() int                                            { return m.N }
func (m *sums) Dim() int                                            { return m.D }
func (m *sums) Bytes() int                                          { return 8 * len(m.Sum) }
