package ikpcabeam

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

func init() {
	perBundle(&prototypeFn{}, &landmarksFn{})
	register.Iter1[[]ranked]()
	register.Iter1[Point]()
}

// NystromOptions configure FitNystrom.
type NystromOptions struct {
	// Dim is the dimension of the points.
	Dim int
	// Kernel is the kernel, a built-in one (kernel.New builds it). An RBF or Laplacian
	// kernel with neither Sigma nor Gamma takes the median heuristic on the landmarks:
	// σ = kernel.DefaultBandwidth(landmarks), the median distance between them (of
	// kernel.BandwidthSample of them at most), given or sampled — a uniform sample of
	// the points, whose median distance estimates theirs. The model's kernel says which σ
	// it took.
	Kernel kernel.Spec
	// LandmarkPoints, if not nil, are the model's landmarks, one per row, Dim columns.
	// They go into the pipeline's graph, 8·r·Dim bytes, and FitNystrom refuses more
	// than 4 MiB (an ErrArgument: Dataflow refuses graphs above 10 MB); larger
	// landmarks are read in the pipeline (FitNystromOn).
	LandmarkPoints *mat.Dense
	// Landmarks is the number r of landmarks sampled from the points in a first stage
	// when LandmarkPoints is nil (nystrom.Options.Landmarks): uniformly without
	// replacement, as the Landmarks points of least hash of (Seed, byte offset in the
	// decompressed text of their file, coordinates) — the same sample on any runner, in
	// any order and however the runner splits the files (the line number, which a split
	// leaves unknown, is not hashed), and from the same records wherever their files lie,
	// whatever their names and whether or not they are gzipped (the file's name is not
	// hashed);
	// all the points if there are fewer — among the points whose own kernel value
	// k(x, x) is finite.
	Landmarks int
	// Seed seeds the sample's hash.
	Seed uint64
	// Tolerance is nystrom.Options.Tolerance: the relative cutoff of the landmarks'
	// kernel matrix (zero: r·2⁻⁵²).
	Tolerance float64
	// Uncentred is nystrom.Options.Uncentred: the kernel PCA of the uncentred features
	// (Σφφᵀ) rather than the centred default.
	Uncentred bool
}

// FitNystrom fits Nyström kernel PCA (the kernel PCA of the Nyström-approximated
// kernel matrix, docs/design.md, "Beyond one machine") over a PCollection<Point>. The
// model accumulates sums that merge by addition, so the pipeline's model equals a
// single-process fit to rounding. The empty model is built on a worker, on the given
// landmarks or on a sample of the points drawn in a first stage, and is a side input:
// the pipeline's graph holds the given landmarks, not the model (r·d numbers, not
// r·d + r·r′ + r′²; FitNystromOn takes the landmarks from the pipeline, and the graph
// holds neither). As in Fit, each bundle adds its points to a copy of it in a plain
// ParDo, in blocks of fit.Block (AddBatch: a kernel block, a dgemm and a dsyrk per 64
// points), and one Combine merges the copies. The result is a PCollection<[]byte> with
// the model's encoding; points of another dimension or with a NaN or infinite
// coordinate are dead letters, and so are the points the model refuses (a kernel value
// that is not finite, features whose sums would overflow), with its reason: a block it
// refuses is added point by point. A fit that no valid point reaches fails the
// pipeline with ErrNoPoints, with given landmarks as with sampled ones. Landmarks without a median distance (with the median
// heuristic), and landmarks the model cannot be built on (a kernel matrix without an
// eigenvalue above the tolerance), fail the pipeline too. Invalid options, and given
// landmarks of the wrong dimension, not finite or without a median distance, are
// errors at construction (ErrArgument, ErrDimension, ErrNonFinite). With sampled
// landmarks a runner keeps the points until the sample is drawn: FitNystromSampled, on
// two reads of the data, does not.
func FitNystrom(s beam.Scope, points beam.PCollection, opts NystromOptions, fit FitOptions) (model, dead beam.PCollection, err error) {
	fail := func(err error) (beam.PCollection, beam.PCollection, error) {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	if opts, fit, err = checkNystrom(opts, fit); err != nil {
		return fail(err)
	}
	if err := checkGlobal("FitNystrom", points); err != nil {
		return fail(err)
	}
	if opts.LandmarkPoints == nil && opts.Landmarks < 1 {
		return fail(fmt.Errorf("%w: no landmarks and %d to sample", ErrArgument, opts.Landmarks))
	}
	if L := opts.LandmarkPoints; L != nil {
		if r, c := L.Dims(); r == 0 || c != opts.Dim {
			return fail(fmt.Errorf("%w: %d×%d landmarks for points of dimension %d", ErrDimension, r, c, opts.Dim))
		}
		if !finiteMatrix(L) {
			return fail(fmt.Errorf("%w: a landmark has a NaN or infinite coordinate", ErrNonFinite))
		}
		if _, err = landmarkBandwidth(opts.Kernel, L); err != nil {
			return fail(fmt.Errorf("%w: %w", ErrArgument, err))
		}
		if r, c := L.Dims(); 8*r*c > maxGraphBytes {
			return fail(fmt.Errorf("%w: %d×%d landmarks take %d bytes in the pipeline's graph, above its limit of %d: read them in the pipeline (FitNystromOn)", ErrArgument, r, c, 8*r*c, maxGraphBytes))
		}
		// The landmarks, r·d numbers, are in the graph, each with its row as its offset
		// so that fitGiven keeps their order; the empty model on them, with its r·r′
		// feature map, is built on a worker.
		s = s.Scope("ikpcabeam.FitNystrom")
		r, _ := L.Dims()
		rows := make([]Point, r)
		for i := range rows {
			rows[i] = Point{Offset: int64(i), X: L.RawRowView(i)}
		}
		return fitGiven(s, beam.CreateList(s, rows), points, opts, fit)
	}
	s = s.Scope("ikpcabeam.FitNystrom")
	good, dead := beam.ParDo2(s, &checkFn{Dim: opts.Dim}, points)
	return fitSampled(s, good, good, dead, opts, fit)
}

// FitNystromOn is FitNystrom on the landmarks of a PCollection<Point>, read in the
// pipeline (ReadCSV, ReadLIBSVM) rather than held in its graph as
// opts.LandmarkPoints are, which must be nil; opts.Landmarks is not used. A runner
// limits the graph (Dataflow to 10 MB), and r landmarks of dimension d take 8·r·d
// bytes in it: 12.5 MB at r = 2000, d = 784. The landmarks are ordered by file, byte
// offset and line, then coordinates — the order of a file's lines, whatever order the
// runner gives them in — so that the model is FitNystrom's on the same landmarks as
// rows of LandmarkPoints in that order. The σ of the median heuristic is taken on a
// worker, from the landmarks (kernel.DefaultBandwidth). A landmark of another
// dimension or with a NaN or infinite coordinate is a dead letter, like a bad point,
// and the model is built on the others (its Landmarks say which it took); no landmark
// at all fails the pipeline with ErrNoLandmarks, and landmarks without a median
// distance or on which the model cannot be built fail it as in FitNystrom.
func FitNystromOn(s beam.Scope, landmarks, points beam.PCollection, opts NystromOptions, fit FitOptions) (model, dead beam.PCollection, err error) {
	if opts.LandmarkPoints != nil {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: landmarks both in the options and in a PCollection", ErrArgument)
	}
	opts.Landmarks = 0
	if opts, fit, err = checkNystrom(opts, fit); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	if err := checkGlobal("FitNystromOn", landmarks, points); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	s = s.Scope("ikpcabeam.FitNystromOn")
	valid, badLandmarks := beam.ParDo2(s, &checkFn{Dim: opts.Dim}, landmarks)
	model, dead, err = fitGiven(s, valid, points, opts, fit)
	return model, beam.Flatten(s, badLandmarks, dead), err
}

// fitGiven builds the empty model on the checked landmarks (a PCollection<Point>, in
// any order) on a worker (landmarksFn), checks the points and folds the good ones into
// copies of the model, one per bundle, which it merges (fold).
func fitGiven(s beam.Scope, landmarks, points beam.PCollection, opts NystromOptions, fit FitOptions) (model, dead beam.PCollection, err error) {
	good, dead := beam.ParDo2(s, &checkFn{Dim: opts.Dim}, points)
	proto := beam.ParDo(s, &landmarksFn{Proto: *newPrototypeFn(opts)}, beam.Impulse(s), beam.SideInput{Input: landmarks})
	model, refused := fold(s, proto, good, 0, fit)
	return model, beam.Flatten(s, dead, refused), nil
}

// FitNystromSampled is FitNystrom with sampled landmarks (opts.LandmarkPoints must be nil),
// drawn from sample, and the model fitted to points: two reads of the same data, as
// the same PCollection<Point>s. FitNystrom's points feed both the sample and, once it
// is drawn, the fit, so that a runner must keep them meanwhile — in memory on prism,
// a few kB a point — where a second read costs only its reading and keeps the memory
// of the fit independent of the number of points (docs/design.md, "Beyond one
// machine"). The sample's bad points are not sampled, and are not dead letters here:
// the same points in points are. The results are FitNystrom's on points when sample
// holds the same points, in any order.
func FitNystromSampled(s beam.Scope, sample, points beam.PCollection, opts NystromOptions, fit FitOptions) (model, dead beam.PCollection, err error) {
	if opts.LandmarkPoints != nil {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: given landmarks and a sample to draw them from", ErrArgument)
	}
	if opts, fit, err = checkNystrom(opts, fit); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	if opts.Landmarks < 1 {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: %d landmarks to sample", ErrArgument, opts.Landmarks)
	}
	if err := checkGlobal("FitNystromSampled", sample, points); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	s = s.Scope("ikpcabeam.FitNystromSampled")
	valid, _ := beam.ParDo2(s, &checkFn{Dim: opts.Dim}, sample)
	good, dead := beam.ParDo2(s, &checkFn{Dim: opts.Dim}, points)
	return fitSampled(s, valid, good, dead, opts, fit)
}

// fitSampled builds the empty model on opts.Landmarks landmarks sampled from the
// checked points sample and folds the checked points good into copies of it, one per
// bundle, which it merges (fold); dead are the dead letters so far.
func fitSampled(s beam.Scope, sample, good, dead beam.PCollection, opts NystromOptions, fit FitOptions) (beam.PCollection, beam.PCollection, error) {
	drawn := sampleLandmarks(s, sample, opts.Landmarks, opts.Seed, opts.Kernel)
	proto := beam.ParDo(s, newPrototypeFn(opts), beam.Impulse(s), beam.SideInput{Input: drawn})
	model, refused := fold(s, proto, good, 0, fit)
	return model, beam.Flatten(s, dead, refused), nil
}

// checkNystrom checks the options of FitNystrom but for the landmarks, and sets the
// default block.
func checkNystrom(opts NystromOptions, fit FitOptions) (NystromOptions, FitOptions, error) {
	if opts.Dim < 1 {
		return opts, fit, fmt.Errorf("%w: dimension %d, want ≥ 1", ErrArgument, opts.Dim)
	}
	if _, err := kernel.New(withBandwidth(opts.Kernel, 1)); err != nil {
		return opts, fit, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	var err error
	if fit, err = checkFit(fit); err != nil {
		return opts, fit, err
	}
	return opts, fit, nil
}

// medianBandwidth reports a kernel whose bandwidth is the median heuristic on the
// landmarks: an RBF or Laplacian kernel with neither Sigma nor Gamma.
func medianBandwidth(k kernel.Spec) bool {
	return k.Sigma == 0 && k.Gamma == 0 && (strings.EqualFold(k.Name, "rbf") || strings.EqualFold(k.Name, "laplacian"))
}

// withBandwidth returns k with the bandwidth sigma if it takes the median heuristic.
func withBandwidth(k kernel.Spec, sigma float64) kernel.Spec {
	if medianBandwidth(k) {
		k.Sigma = sigma
	}
	return k
}

// landmarkBandwidth returns k with, if it takes the median heuristic, its bandwidth:
// kernel.DefaultBandwidth of the landmarks L, an error if they have none (fewer than
// two landmarks, or more than half of their pairs coincide).
func landmarkBandwidth(k kernel.Spec, L *mat.Dense) (kernel.Spec, error) {
	if !medianBandwidth(k) {
		return k, nil
	}
	sigma, err := kernel.DefaultBandwidth(L)
	if err != nil {
		return k, fmt.Errorf("the median heuristic on the landmarks: %w", err)
	}
	return withBandwidth(k, sigma), nil
}

// finiteMatrix reports a matrix without NaN or infinite entries.
func finiteMatrix(a mat.Matrix) bool {
	r, c := a.Dims()
	for i := range r {
		for j := range c {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// prototypeFn builds the empty model on the landmarks of its side input, the sample
// (a PCollection<[]ranked> of one element, or none if no point was sampled), and emits
// its encoding (given landmarks: landmarksFn). Its main input is an impulse, so that it
// runs, and fails, when the sample is empty.
type prototypeFn struct {
	Dim       int
	Kernel    kernel.Spec
	Landmarks int
	Seed      uint64
	Tolerance float64
	Uncentred bool
}

// newPrototypeFn returns the prototypeFn of the options.
func newPrototypeFn(opts NystromOptions) *prototypeFn {
	return &prototypeFn{Dim: opts.Dim, Kernel: opts.Kernel, Landmarks: opts.Landmarks, Seed: opts.Seed,
		Tolerance: opts.Tolerance, Uncentred: opts.Uncentred}
}

// ProcessElement emits the empty model's encoding; without landmarks — no valid point
// reached the sample — failedPrototype of ErrNoPoints, and where the model cannot be
// built failedPrototype of the reason, on which the folds and the merge fail the
// pipeline (fit.go, prototypeError).
func (fn *prototypeFn) ProcessElement(_ []byte, landmarks func(*[]ranked) bool, emit func([]byte)) {
	var sample, part []ranked
	for landmarks(&part) {
		sample = append(sample, part...)
	}
	if len(sample) == 0 {
		emit(failedPrototype(fmt.Errorf("%w: no landmarks to sample", ErrNoPoints)))
		return
	}
	L := mat.NewDense(len(sample), fn.Dim, nil)
	for i, r := range sample {
		L.SetRow(i, r.X)
	}
	emit(fn.encode(L))
}

// encode returns the encoding of the empty model on the landmarks L, with the median
// heuristic's σ taken on them if the kernel asks for it, or failedPrototype of the
// reason it cannot be built.
func (fn *prototypeFn) encode(L *mat.Dense) []byte {
	k, err := landmarkBandwidth(fn.Kernel, L)
	if err != nil {
		return failedPrototype(fmt.Errorf("%w: %w", ErrArgument, err))
	}
	m, err := newNystromModel(L, NystromOptions{Dim: fn.Dim, Kernel: k, LandmarkPoints: L, Landmarks: fn.Landmarks, Seed: fn.Seed,
		Tolerance: fn.Tolerance, Uncentred: fn.Uncentred})
	if err != nil {
		return failedPrototype(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return failedPrototype(err)
	}
	return b
}

// landmarksFn builds the empty model on the given landmarks of its side input, a
// PCollection<Point> of checked points in any order, and emits its encoding (as
// prototypeFn, whose options it holds). It orders the landmarks by place — file, byte
// offset, line — and then by coordinates, a total order up to equal points, so that
// the model does not depend on the order the runner gives them in: a file's landmarks
// in the order of its lines, FitNystrom's LandmarkPoints (their row as the offset) in
// the order of their rows. Its main input is an impulse, so that it runs when there
// is no landmark; then it emits failedPrototype of ErrNoLandmarks, on which the folds
// and the merge fail (fit.go, prototypeError).
type landmarksFn struct {
	Proto prototypeFn
}

// ProcessElement emits the empty model's encoding.
func (fn *landmarksFn) ProcessElement(_ []byte, landmarks func(*Point) bool, emit func([]byte)) {
	var given []Point
	var p Point
	for landmarks(&p) {
		given = append(given, p)
	}
	if len(given) == 0 {
		emit(failedPrototype(ErrNoLandmarks))
		return
	}
	slices.SortFunc(given, comparePlace)
	L := mat.NewDense(len(given), fn.Proto.Dim, nil)
	for i, p := range given {
		L.SetRow(i, p.X)
	}
	emit(fn.Proto.encode(L))
}

// comparePlace orders points by file, byte offset and line, then by coordinates.
func comparePlace(a, b Point) int {
	if c := cmp.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Offset, b.Offset); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	if c := slices.Compare(a.X, b.X); c != 0 {
		return c
	}
	return cmp.Compare(len(a.X), len(b.X))
}
