package ikpcabeam

import (
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/top"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
)

func init() {
	beam.RegisterType(reflect.TypeFor[ranked]())
	register.Function2x1(lessRanked)
	register.DoFn1x1[Point, ranked](&rankFn{})
	register.DoFn2x1[[]ranked, func([]byte), error](&prototypeFn{})
	register.DoFn4x1[Point, func(*[]byte) bool, func([]byte), func(DeadLetter), error](&foldFn{})
}

// NystromOptions configure FitNystrom.
type NystromOptions struct {
	// Dim is the dimension of the points.
	Dim int
	// Kernel is the kernel, a built-in one (kernel.New builds it).
	Kernel kernel.Spec
	// Landmarks, if not nil, are the model's landmarks, one per row, Dim columns.
	// Otherwise Rank landmarks are sampled from the points in a first stage: uniformly
	// without replacement, as the Rank points of least hash of (Seed, position,
	// coordinates) — the same sample on any runner and in any order (all the points if
	// there are fewer).
	Landmarks *mat.Dense
	Rank      int
	Seed      uint64
	// Tolerance is nystrom.Options.Tolerance: the relative cutoff of the landmarks'
	// kernel matrix (zero: r·2⁻⁵²).
	Tolerance float64
}

// FitNystrom fits Nyström kernel PCA (the kernel PCA of the Nyström-approximated
// kernel matrix, docs/design.md, "Beyond one machine") over a
// PCollection<Point>. The model accumulates sums that merge by addition, so the
// pipeline's model equals a single-process fit to rounding. With given landmarks it is
// Fit with an empty model on them; with sampled landmarks the points are first
// sampled, the empty model is built on the sample, and each bundle adds its points to
// a copy of it (a side input) before the copies merge (fit is then not used). The result is a
// PCollection<[]byte> with the model's encoding; points of another dimension or with a
// NaN or infinite coordinate are dead letters (with sampled landmarks, so are points
// whose kernel values are not finite). With sampled landmarks and no points the result
// is empty. Invalid options are an ErrArgument.
func FitNystrom(s beam.Scope, points beam.PCollection, opts NystromOptions, fit FitOptions) (model, dead beam.PCollection, err error) {
	fail := func(err error) (beam.PCollection, beam.PCollection, error) {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	if opts.Dim < 1 {
		return fail(fmt.Errorf("%w: dimension %d, want ≥ 1", ErrArgument, opts.Dim))
	}
	if _, err := kernel.New(opts.Kernel); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrArgument, err))
	}
	if opts.Landmarks == nil && opts.Rank < 1 {
		return fail(fmt.Errorf("%w: no landmarks and %d to sample", ErrArgument, opts.Rank))
	}
	if L := opts.Landmarks; L != nil {
		if r, c := L.Dims(); r == 0 || c != opts.Dim {
			return fail(fmt.Errorf("%w: %d×%d landmarks for points of dimension %d", ErrDimension, r, c, opts.Dim))
		}
		if !finiteMatrix(L) {
			return fail(fmt.Errorf("%w: a landmark has a NaN or infinite coordinate", ErrNonFinite))
		}
	}
	s = s.Scope("ikpcabeam.FitNystrom")
	if opts.Landmarks != nil {
		proto, err := newNystromModel(opts.Landmarks, opts)
		if err != nil {
			return fail(err)
		}
		return Fit(s, points, proto, fit)
	}
	good, dead := beam.ParDo2(s, &checkFn{Dim: opts.Dim}, points)
	sample := top.Smallest(s, beam.ParDo(s, &rankFn{Seed: opts.Seed}, good), opts.Rank, lessRanked)
	proto := beam.ParDo(s, &prototypeFn{Dim: opts.Dim, Kernel: opts.Kernel, Rank: opts.Rank, Seed: opts.Seed, Tolerance: opts.Tolerance}, sample)
	parts, refused := beam.ParDo2(s, &foldFn{}, good, beam.SideInput{Input: proto})
	return beam.Combine(s, &mergeFn{}, parts), beam.Flatten(s, dead, refused), nil
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

// ranked is a point's coordinates and its sampling priority.
type ranked struct {
	Priority uint64
	X        []float64
}

// lessRanked orders by priority, then by coordinates, so that the sample does not
// depend on the order points arrive in even for equal priorities.
func lessRanked(a, b ranked) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	for j := range min(len(a.X), len(b.X)) {
		if a.X[j] != b.X[j] {
			return a.X[j] < b.X[j]
		}
	}
	return len(a.X) < len(b.X)
}

// rankFn gives each point its priority, pointHash with the seed.
type rankFn struct{ Seed uint64 }

// ProcessElement ranks one point.
func (fn *rankFn) ProcessElement(p Point) ranked {
	return ranked{Priority: pointHash(p, fn.Seed), X: p.X}
}

// prototypeFn builds the empty model on the sampled landmarks.
type prototypeFn struct {
	Dim       int
	Kernel    kernel.Spec
	Rank      int
	Seed      uint64
	Tolerance float64
}

// ProcessElement emits the empty model's encoding.
func (fn *prototypeFn) ProcessElement(sample []ranked, emit func([]byte)) error {
	if len(sample) == 0 {
		return fmt.Errorf("%w: no points to sample landmarks from", ErrEmpty)
	}
	L := mat.NewDense(len(sample), fn.Dim, nil)
	for i, r := range sample {
		L.SetRow(i, r.X)
	}
	m, err := newNystromModel(L, NystromOptions{Dim: fn.Dim, Kernel: fn.Kernel, Landmarks: L, Rank: fn.Rank, Seed: fn.Seed, Tolerance: fn.Tolerance})
	if err != nil {
		return err
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	emit(b)
	return nil
}

// foldFn adds a bundle's points to a copy of the model of its side input and emits the
// copy's encoding when the bundle finishes.
type foldFn struct{ m Summary }

// StartBundle forgets the last bundle's model. (Beam requires the side input and the
// emitters here.)
func (fn *foldFn) StartBundle(_ func(*[]byte) bool, _ func([]byte), _ func(DeadLetter)) { fn.m = nil }

// ProcessElement adds one point; a point the model refuses (a kernel value that is not
// finite) is a dead letter.
func (fn *foldFn) ProcessElement(p Point, proto func(*[]byte) bool, _ func([]byte), dead func(DeadLetter)) error {
	if fn.m == nil {
		var b []byte
		if !proto(&b) {
			return fmt.Errorf("%w: no prototype model in the side input", ErrArgument)
		}
		m, err := DecodeSummary(b)
		if err != nil {
			return err
		}
		fn.m = m
	}
	if err := fn.m.Add(p.X); err != nil {
		dead(pointLetter(p, err.Error()))
	}
	return nil
}

// FinishBundle emits the bundle's model.
func (fn *foldFn) FinishBundle(_ func(*[]byte) bool, emit func([]byte), _ func(DeadLetter)) error {
	if fn.m == nil {
		return nil
	}
	b, err := fn.m.MarshalBinary()
	fn.m = nil
	if err != nil {
		return err
	}
	emit(b)
	return nil
}
