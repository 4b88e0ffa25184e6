package ikpcabeam

import (
	"container/heap"
	"math"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/ikpca/ikpca/kernel"
)

// The landmark sample of a Nyström fit (FitNystrom, FitNystromSampled): the n points
// of least priority, drawn without ever grouping the points (docs/design.md, "Beyond
// one machine"). Each bundle keeps its own n least in a bounded heap (sampleFn) and
// emits them when it finishes; one Combine (smallestFn) keeps the n least of those
// lists. What reaches the Combine is one list of at most n points per bundle, not the
// points: a runner that does not lift combiners (portable Flink and Spark) gathers
// bundles × n points on one key, not all N.
func init() {
	beam.RegisterType(reflect.TypeFor[ranked]())
	register.DoFn2x1[Point, func([]ranked), error](&sampleFn{})
	register.Emitter1[[]ranked]()
	perBundle(&smallestFn{})
}

// ranked is a point's coordinates and its sampling priority.
type ranked struct {
	Priority uint64
	X        []float64
}

// lessRanked orders by priority, then by coordinates, so that the sample does not
// depend on the order points arrive in even for equal priorities: a total order up to
// equal points, which are interchangeable in a sample.
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

// greatest is a max-heap of ranked points by lessRanked: its root is the point a
// sample of its size would drop first.
type greatest []ranked

func (h greatest) Len() int           { return len(h) }
func (h greatest) Less(i, j int) bool { return lessRanked(h[j], h[i]) }
func (h greatest) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *greatest) Push(x any)        { *h = append(*h, x.(ranked)) }
func (h *greatest) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = ranked{}
	*h = old[:len(old)-1]
	return x
}

// sampleFn keeps a bundle's N points of least priority — pointHash with the seed — in
// a bounded heap, O(log N) a point and N points of memory, and emits them, sorted, when
// the bundle finishes: a partial sample per bundle, which smallestFn merges. It leaves
// out of the sample the points whose own kernel value k(x, x) is not finite (a
// polynomial or linear kernel at huge coordinates): as a landmark such a point would
// make the landmarks' kernel matrix non-finite, and the model, and with it the
// pipeline, fail. Among the others no landmarks' kernel value overflows for the
// positive semidefinite built-ins (|k(x, y)| ≤ √(k(x, x)·k(y, y)), Cauchy–Schwarz in
// the feature space); the point is still added to the model, which refuses it if need
// be (a dead letter). RBF and Laplacian values are at most 1: nothing is left out.
type sampleFn struct {
	N      int
	Seed   uint64
	Kernel kernel.Spec

	k    kernel.Kernel
	heap greatest
}

// Setup builds the kernel (any bandwidth: k(x, x) does not depend on it).
func (fn *sampleFn) Setup() error {
	k, err := kernel.New(withBandwidth(fn.Kernel, 1))
	fn.k = k
	return err
}

// StartBundle empties the heap.
func (fn *sampleFn) StartBundle(func([]ranked)) {
	clear(fn.heap)
	fn.heap = fn.heap[:0]
}

// ProcessElement ranks one point and keeps it if it is among the bundle's N least so
// far.
func (fn *sampleFn) ProcessElement(p Point, _ func([]ranked)) error {
	if fn.k == nil {
		if err := fn.Setup(); err != nil {
			return err
		}
	}
	if v := fn.k.Eval(p.X, p.X); math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	r := ranked{Priority: pointHash(p, fn.Seed), X: p.X}
	switch {
	case len(fn.heap) < fn.N:
		heap.Push(&fn.heap, r)
	case lessRanked(r, fn.heap[0]):
		fn.heap[0] = r
		heap.Fix(&fn.heap, 0)
	}
	return nil
}

// FinishBundle emits the bundle's sample, sorted by lessRanked; a bundle without a
// point emits nothing.
func (fn *sampleFn) FinishBundle(emit func([]ranked)) {
	if len(fn.heap) == 0 {
		return
	}
	out := slices.Clone(fn.heap)
	slices.SortFunc(out, compareRanked)
	emit(out)
	clear(fn.heap)
	fn.heap = fn.heap[:0]
}

// compareRanked is lessRanked as a comparison.
func compareRanked(a, b ranked) int {
	switch {
	case lessRanked(a, b):
		return -1
	case lessRanked(b, a):
		return 1
	}
	return 0
}

// smallestFn is the CombineFn that keeps the N least points, by lessRanked, of sorted
// samples: its inputs, accumulators and output are sorted lists of at most N points,
// merged in O(N) each.
type smallestFn struct{ N int }

// MergeAccumulators merges two sorted samples and keeps the N least.
func (fn *smallestFn) MergeAccumulators(a, b []ranked) []ranked {
	out := make([]ranked, 0, min(len(a)+len(b), fn.N))
	for len(out) < fn.N && (len(a) > 0 || len(b) > 0) {
		if len(b) == 0 || len(a) > 0 && !lessRanked(b[0], a[0]) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// sampleLandmarks draws the n points of sample (a PCollection<Point> of checked points) of least
// (pointHash with seed, coordinates) whose k(x, x) is finite, as a PCollection<[]ranked>
// of one sorted list — none if no point is sampled.
func sampleLandmarks(s beam.Scope, points beam.PCollection, n int, seed uint64, k kernel.Spec) beam.PCollection {
	s = s.Scope("sample")
	parts := beam.ParDo(s, &sampleFn{N: n, Seed: seed, Kernel: k}, points)
	return beam.Combine(s, &smallestFn{N: n}, parts)
}
