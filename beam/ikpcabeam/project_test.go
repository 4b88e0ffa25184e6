package ikpcabeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/beam/internal/beamtest"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/wiretest"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/nystrom"
)

// checkpoint returns a kpca model of the rows of X with kernel k, and its checkpoint.
func checkpoint(t *testing.T, k kernel.Kernel, X *mat.Dense) (*kpca.Model, []byte) {
	t.Helper()
	m, err := kpca.Fit(k, X, kpca.Options{Components: kpca.All})
	if err != nil {
		t.Fatal(err)
	}
	return m, wiretest.Marshal(t, m)
}

// project runs Project of the points of the CSV files glob matches, and of extra
// points, with the model in file (or the bytes model if file is empty), and returns the
// scores and the dead letters.
func project(t *testing.T, dir, glob, file string, model []byte, extra []Point, opts ProjectOptions) (scores, dead map[string]record) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	points := readPoints(t, s, glob, 3)
	if len(extra) > 0 {
		points = beam.Flatten(s, points, beam.CreateList(s, extra))
	}
	var side beam.PCollection
	if file != "" {
		var err error
		if side, err = ReadModel(s, file); err != nil {
			t.Fatal(err)
		}
	} else {
		side = beam.Create(s, model)
	}
	sc, dl, err := Project(s, side, points, opts)
	if err != nil {
		t.Fatal(err)
	}
	sf, df := filepath.Join(dir, "scores"), filepath.Join(dir, "dead")
	if err := WriteScores(s, sf, sc); err != nil {
		t.Fatal(err)
	}
	if err := WriteDeadLetters(s, df, dl); err != nil {
		t.Fatal(err)
	}
	run(t, p)
	return readRecords(t, sf, true), readRecords(t, df, false)
}

// compareScores checks the pipeline's scores of the rows of X (written by pointFiles
// to the files of glob) against the model's Transform of all of them at once, to
// rounding: the two differ only in how the points are blocked, which can change the
// order of the sums in the kernel block's and the projection's products, an error of
// about m·ε relative to the largest score of a component (m the model's points, ≤ 1000
// here); 1e-10 is far above that and far below a wrong point, component or sign.
func compareScores(t *testing.T, m ikpca.Model, X *mat.Dense, k int, scores map[string]record, glob string) {
	t.Helper()
	var Y mat.Dense
	if err := m.Transform(&Y, X, k); err != nil {
		t.Fatal(err)
	}
	n, _ := X.Dims()
	big := make([]float64, k)
	for i := range n {
		for j := range k {
			big[j] = math.Max(big[j], math.Abs(Y.At(i, j)))
		}
	}
	// Where pointFiles put row i: file i mod 3, after the rows and bad lines before it.
	files, _ := filepath.Glob(glob)
	found := 0
	for _, f := range files {
		b := beamtest.ReadFile(t, f)
		off := int64(0)
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if line == "" {
				break
			}
			r, ok := scores[f+"@"+fmt.Sprint(off)]
			off += int64(len(line))
			if !ok {
				continue // a bad line
			}
			i := rowOf(X, strings.TrimSuffix(line, "\n"))
			if i < 0 {
				t.Fatalf("%s: line %q is no row", f, line)
			}
			found++
			if len(r.values) != k {
				t.Fatalf("%d scores, want %d", len(r.values), k)
			}
			for j := range k {
				if math.Abs(r.values[j]-Y.At(i, j)) > 1e-10*big[j] {
					t.Errorf("point %d, component %d: score %v, Transform %v", i, j, r.values[j], Y.At(i, j))
				}
			}
		}
	}
	if found != n {
		t.Errorf("scores of %d points, want %d", found, n)
	}
}

// rowOf returns the row of X that line (formatFloats of it) holds, or −1.
func rowOf(X *mat.Dense, line string) int {
	n, _ := X.Dims()
	for i := range n {
		if formatFloats(X.RawRowView(i)) == line {
			return i
		}
	}
	return -1
}

// TestProjectCheckpoint: a kpca checkpoint read from a file projects points as the
// model's own Transform does, to rounding, in blocks and in the remainder of a bundle;
// points it cannot project are dead letters.
func TestProjectCheckpoint(t *testing.T) {
	dir := beamtest.TempDir(t)
	m, b := checkpoint(t, kernel.RBF{Sigma: 1}, curve(80, 3, 1))
	file := filepath.Join(dir, "model.ikpca")
	beamtest.WriteFile(t, file, b)
	X := curve(250, 3, 2)
	glob, _ := pointFiles(t, dir, X, 3)
	bad := []Point{
		{Source: "made", Offset: 1, X: []float64{1, 2}},
		{Source: "made", Offset: 2, X: []float64{1, math.Inf(-1), 2}},
	}
	scores, dead := project(t, dir, glob, file, nil, bad, ProjectOptions{K: 4, Block: 7})
	compareScores(t, m, X, 4, scores, glob)
	if len(dead) != 2 || !strings.Contains(dead["made@1"].reason, "dimension") || !strings.Contains(dead["made@2"].reason, "Inf") {
		t.Errorf("dead letters %v", dead)
	}
}

// TestProjectSKPCA: an SKPCA encoding projects as its Transform does, all components
// when K is zero.
func TestProjectSKPCA(t *testing.T) {
	dir := beamtest.TempDir(t)
	m := filledSKPCA(t, curve(300, 3, 1))
	b := wiretest.Marshal(t, m)
	X := curve(120, 3, 2)
	glob, _ := pointFiles(t, dir, X, 2)
	scores, dead := project(t, dir, glob, "", b, nil, ProjectOptions{})
	compareScores(t, m, X, len(m.Values(nil)), scores, glob)
	if len(dead) != 0 {
		t.Errorf("dead letters %v", dead)
	}
}

// TestProjectNystrom: a Nyström KPCA model fitted in one process (nystrom.Model, 20
// landmarks, RBF), given as its encoding, projects points in the pipeline as its own
// Transform does, to rounding (compareScores), in blocks of 7 and in the remainder of a
// bundle — blocks of at least k points fold the map into the directions, smaller ones
// go through the features, the two alike to rounding; points it cannot project are dead
// letters.
func TestProjectNystrom(t *testing.T) {
	dir := beamtest.TempDir(t)
	train := curve(200, 3, 4)
	m, err := nystrom.New(kernel.RBF{Sigma: 1}, train.Slice(0, 20, 0, 3), nystrom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddBatch(train); err != nil {
		t.Fatal(err)
	}
	b := wiretest.Marshal(t, &Nystrom{m})
	X := curve(150, 3, 2)
	glob, _ := pointFiles(t, dir, X, 3)
	bad := []Point{{Source: "made", Offset: 1, X: []float64{1, 2}}}
	scores, dead := project(t, dir, glob, "", b, bad, ProjectOptions{K: 4, Block: 7})
	compareScores(t, m, X, 4, scores, glob)
	if len(dead) != 1 || !strings.Contains(dead["made@1"].reason, "dimension") {
		t.Errorf("dead letters %v", dead)
	}
}

// TestProjectBlockFallback: a block with a point whose kernel value overflows (a cubic
// kernel at 1e110) is projected point by point: that point is a dead letter, the
// others are scored.
func TestProjectBlockFallback(t *testing.T) {
	dir := beamtest.TempDir(t)
	m, b := checkpoint(t, kernel.Polynomial{Degree: 3, Gamma: 1, Coef0: 1}, curve(30, 3, 1))
	X := curve(20, 3, 2)
	glob, _ := pointFiles(t, dir, X, 1)
	huge := []Point{{Source: "made", Offset: 1, X: []float64{1e110, 1e110, 1e110}}}
	scores, dead := project(t, dir, glob, "", b, huge, ProjectOptions{K: 2, Block: 1000})
	compareScores(t, m, X, 2, scores, glob)
	if len(dead) != 1 || !strings.Contains(dead["made@1"].reason, "finite") {
		t.Errorf("dead letters %v", dead)
	}
}

// TestProjectArguments: negative options are ErrArgument errors at construction.
func TestProjectArguments(t *testing.T) {
	_, s := beam.NewPipelineWithRoot()
	points := beam.Create(s, Point{X: []float64{1}})
	model := beam.Create(s, []byte("x"))
	for _, o := range []ProjectOptions{{K: -1}, {Block: -1}} {
		if _, _, err := Project(s, model, points, o); !errors.Is(err, ErrArgument) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// TestDecodeModel: each kind decodes to its model, a checkpoint is no Summary, and
// other bytes are ErrModel errors.
func TestDecodeModel(t *testing.T) {
	m, b := checkpoint(t, kernel.RBF{Sigma: 1}, curve(20, 3, 1))
	got, err := DecodeModel(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != m.Len() || !vec.SameBits(got.Values(nil), m.Values(nil)) {
		t.Error("a checkpoint decoded to another model")
	}
	if _, err := DecodeSummary(b); !errors.Is(err, ErrModel) {
		t.Errorf("DecodeSummary of a checkpoint: %v", err)
	}
	for _, junk := range [][]byte{nil, []byte("IKPCAMD"), []byte("IKPCAMDL and then nothing"), []byte("some other file")} {
		if _, err := DecodeModel(junk); !errors.Is(err, ErrModel) {
			t.Errorf("DecodeModel(%q): %v", junk, err)
		}
	}
}

// sideInput returns a side-input iterator over one model's bytes (a copy, as a runner
// decodes the side input anew).
func sideInput(b []byte) func(*[]byte) bool {
	done := false
	return func(p *[]byte) bool {
		if done {
			return false
		}
		done = true
		*p = append([]byte(nil), b...)
		return true
	}
}

// TestProjectDecodesOnce: two projectFn instances of one process given the same model
// in 20 bundles each read its digest in every bundle, fetch its bytes once between
// them (the process's copy: fetchModel), decode them once each, and score every point
// of every bundle as the model's Transform does (to rounding: compareScores); given
// another model (another digest), they fetch and decode it once, and score with it.
// Before, every bundle read (and hashed) the model's bytes.
func TestProjectDecodesOnce(t *testing.T) {
	ctx := context.Background()
	fetched.Lock()
	fetched.digest, fetched.b = "", nil
	fetched.Unlock()
	m1, b1 := checkpoint(t, kernel.RBF{Sigma: 1}, curve(40, 3, 1))
	m2, b2 := checkpoint(t, kernel.RBF{Sigma: 2}, curve(40, 3, 1))
	X := curve(5, 3, 2)
	const k = 2
	fns := []*projectFn{{K: k, Block: 2}, {K: k, Block: 2}}
	dead := func(d DeadLetter) { t.Errorf("dead letter %+v", d) }
	reads := 0
	modelSide := func(b []byte) func(*[]byte) bool {
		read := sideInput(b)
		return func(p *[]byte) bool {
			reads++
			return read(p)
		}
	}
	bundle := func(fn *projectFn, m ikpca.Model, b []byte) {
		t.Helper()
		var Y mat.Dense
		if err := m.Transform(&Y, X, k); err != nil {
			t.Fatal(err)
		}
		// The tolerance of compareScores: the blocks change only the order of the sums.
		big := mat.Norm(&Y, math.Inf(1))
		got := 0
		emit := func(s Scores) {
			for j := range k {
				if math.Abs(s.Y[j]-Y.At(int(s.Offset), j)) > 1e-10*big {
					t.Errorf("point %d, component %d: score %v, Transform %v", s.Offset, j, s.Y[j], Y.At(int(s.Offset), j))
				}
			}
			got++
		}
		digest := func() func(*string) bool {
			done := false
			return func(s *string) bool {
				if done {
					return false
				}
				*s, done = modelDigest(b), true
				return true
			}
		}
		fn.StartBundle(ctx, digest(), modelSide(b), emit, dead)
		for i := range 5 {
			if err := fn.ProcessElement(ctx, Point{Source: "x", Offset: int64(i), X: X.RawRowView(i)}, digest(), modelSide(b), emit, dead); err != nil {
				t.Fatal(err)
			}
		}
		fn.FinishBundle(ctx, digest(), modelSide(b), emit, dead)
		if got != 5 {
			t.Errorf("%d scores in a bundle of 5 points", got)
		}
	}
	for range 20 {
		for _, fn := range fns {
			bundle(fn, m1, b1)
		}
	}
	for i, fn := range fns {
		if fn.decodes != 1 {
			t.Errorf("instance %d decoded the same model %d times in 20 bundles, want once", i, fn.decodes)
		}
	}
	// One fetch reads the element and finds no second one: two calls.
	if reads != 2 {
		t.Errorf("the model's side input read %d times in 40 bundles of two instances, want one fetch (2 calls)", reads)
	}
	for range 2 {
		for _, fn := range fns {
			bundle(fn, m2, b2)
		}
	}
	for i, fn := range fns {
		if fn.decodes != 2 {
			t.Errorf("instance %d: %d decodes after a second model in two bundles, want 2", i, fn.decodes)
		}
	}
	if reads != 4 {
		t.Errorf("the side inputs read %d times after a second model, want two fetches (4 calls)", reads)
	}
}

// TestProjectFetchesOnce: a projection of a new model, in a pipeline, fetches the
// model's bytes once in the process (the counter "model_fetches"), whatever the number
// of bundles. Before, no such counter was kept, and every bundle read the bytes.
func TestProjectFetchesOnce(t *testing.T) {
	dir := beamtest.TempDir(t)
	X := curve(3000, 3, 5)
	_, b := checkpoint(t, kernel.RBF{Sigma: 1.5}, curve(30, 3, 9))
	var points []Point
	for i := range 3000 {
		points = append(points, Point{Source: "p", Offset: int64(i), X: X.RawRowView(i)})
	}
	p, s := beam.NewPipelineWithRoot()
	var parts []beam.PCollection
	for i := 0; i < len(points); i += 500 {
		parts = append(parts, beam.CreateList(s, points[i:i+500]))
	}
	scores, _, err := Project(s, beam.Create(s, b), beam.Flatten(s, parts...), ProjectOptions{Block: 16})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteScores(s, filepath.Join(dir, "scores"), scores); err != nil {
		t.Fatal(err)
	}
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == "ikpca" {
			got[c.Name()] += c.Result()
		}
	}
	if got["points_projected"] != 3000 || got["model_fetches"] != 1 {
		t.Errorf("counters %v, want 3000 points projected and 1 model fetch", got)
	}
}
