package ikpcabeam

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/ikpca/ikpca/beam/sharded"
	"github.com/ikpca/ikpca/kernel"
)

// PolishOptions are the options of Polish.
type PolishOptions struct {
	// Kernel is the kernel, with its parameters: a positive semi-definite built-in (RBF,
	// Laplacian, polynomial, linear, cosine), an RBF's or Laplacian's bandwidth given.
	Kernel kernel.Spec
	// Dim is the points' dimension; a point of another is a dead letter.
	Dim int
	// Uncentred polishes K rather than K′ = C·K·C (kpca.Options.Uncentred).
	Uncentred bool
	// Components is the number of leading pairs whose values, bounds and scores are
	// reported; Rank ≥ Components the width of the Krylov blocks and the pairs the
	// certificate covers (kpca.Options). Passes is the number of passes, 1 to
	// sharded.MaxPasses (kpca.Start.Passes).
	Components, Rank, Passes int
	// Seed seeds the random start, a row per point from its identity (sharded.StartRow).
	Seed uint64
	// Deterministic leaves out the random bound on the rest of the spectrum, two passes
	// of 30 test vectors (kpca's Certify's): the certificate is then the deterministic
	// one alone, which holds on every input but, where the spectrum decays slowly
	// (Fashion-MNIST's), bounds the rest of it by what the Krylov space did not capture
	// and certifies no gap (docs/design.md, "Polish and Certify over sharded points").
	Deterministic bool
	// Shards is the number of shards S, the kernel matrix's tiles S(S+1)/2.
	Shards int
	// Model also returns the polished model, a kpca checkpoint (Polished.Model): the
	// points and their rows of the Rank Ritz vectors are gathered on one worker, m·(Dim +
	// Rank) numbers in one grouping, where kpca.FitFrom takes the Ritz vectors as its
	// start for one pass — the Rayleigh–Ritz step on their span, which returns the same
	// pairs to rounding, and the running sums and certificate a model keeps — so that
	// the model continues in one process as any other (Add, Remove, Polish, Certify,
	// Transform). For points that fit in one process only; the pipeline's own outputs
	// never gather the points.
	Model bool
	// Work is a directory, on any filesystem Beam has, for the shards' point files; the
	// pipeline writes them in a new subdirectory of its own, which the caller removes
	// once the job is over (Polished.Work).
	Work string
}

// Polished is what Polish returns.
type Polished struct {
	// Scores holds the scores of every point on the leading Components.
	Scores beam.PCollection
	// Certificate holds one element, the JSON encoding of a PolishCertificate.
	Certificate beam.PCollection
	// Dead holds the points that could not be polished: of another dimension, with a
	// coordinate or k(x, x) that is not finite.
	Dead beam.PCollection
	// Model holds one element, the polished model's kpca checkpoint (kpca.Model's
	// MarshalBinary), if PolishOptions.Model asked for it; otherwise it is not valid.
	Model beam.PCollection
	// Work is the directory of the run's point files, which the caller removes when the
	// job is over.
	Work string
}

// PolishCertificate is a Polish's result and certificate: the leading values, intervals
// that hold the eigenvalues of the points' matrix K′ (or K) and bounds on the sines of
// the leading components (as kpca.Model.Certify's), and bounds on the error
// E = K′ − U·Θ·Uᵀ of the Rank Ritz pairs (as kpca.Model's ErrorBound). Every bound is
// deterministic — it holds on every input (docs/design.md, "Polish and Certify over
// sharded points") — but where the random tail bound (two passes of test vectors, as
// kpca's Certify makes them) was the tighter: then with probability 1 − Failure.
type PolishCertificate struct {
	Points  int         `json:"points"`
	Kernel  kernel.Spec `json:"kernel"`
	Centred bool        `json:"centred"`
	Rank    int         `json:"rank"`
	Passes  int         `json:"passes"`
	Values  []float64   `json:"values"`
	Lower   []float64   `json:"lower"`
	Upper   []float64   `json:"upper"`
	// Sine[j] bounds the sine of the largest angle between the span of the top j+1
	// components and that of the top j+1 eigenvectors: 1, which says nothing, where the
	// spectrum has no certified gap after j.
	Sine []float64 `json:"sine"`
	// Tail bounds the eigenvalues of K′ (or K) beyond the Rank pairs: λmax of its
	// compression to the complement of their span.
	Tail float64 `json:"tail"`
	// Failure is the probability, over the draw of the test vectors, that the bounds
	// that rest on the random tail bound fail (2⁻³⁰), or 0 where the certificate is
	// deterministic (PolishOptions.Deterministic, or the deterministic tail was the
	// smaller).
	Failure    float64 `json:"failure_probability"`
	Below      float64 `json:"error_below"` // ≥ −λmin(E)
	Above      float64 `json:"error_above"` // ≥ λmax(E)
	ErrorBound float64 `json:"error_bound"` // ≥ ‖E‖₂
	Trace      float64 `json:"trace"`       // tr K′ (or K)
}

// testVectors is the number of test vectors of the random tail bound: kpca's Certify's,
// for a failure probability of 2⁻³⁰.
const testVectors = 30

// checkPolish checks the options and returns the kernel and the run's options.
func checkPolish(o PolishOptions) (kernel.Kernel, sharded.Options, error) {
	k, err := kernel.New(o.Kernel)
	if err != nil {
		return nil, sharded.Options{}, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	so := sharded.Options{Centred: !o.Uncentred, Components: o.Components, Rank: o.Rank, Passes: o.Passes, Seed: o.Seed, TestVectors: testVectors}
	if o.Deterministic {
		so.TestVectors = 0
	}
	switch {
	case !kernel.PositiveSemiDefinite(k):
		return nil, so, fmt.Errorf("%w: Polish: kernel %v is not known to be positive semi-definite, and the certificate needs it", ErrArgument, k)
	case o.Dim < 1:
		return nil, so, fmt.Errorf("%w: Polish: dimension %d", ErrArgument, o.Dim)
	case o.Shards < 1 || o.Shards > 4096:
		return nil, so, fmt.Errorf("%w: Polish: %d shards (1 to 4096)", ErrArgument, o.Shards)
	case o.Work == "":
		return nil, so, fmt.Errorf("%w: Polish: no work directory", ErrArgument)
	}
	if _, err := sharded.Begin(so); err != nil {
		return nil, so, fmt.Errorf("%w: Polish: %w", ErrArgument, err)
	}
	return k, so, nil
}

// Polish returns the top Ritz pairs of the points' kernel matrix K′ (or K) on the block
// Krylov space of a random start, their certificate and the points' scores — kpca.FitFrom
// from the same start (sharded.StartRow), run over S shards of the points on the
// workers (docs/design.md, "Polish and Certify over sharded points"). The points are
// written once into shard files in a new directory under Work; each pass computes the
// S(S+1)/2 tiles K_IJ, I ≤ J, where their shards' points are read, each tile's
// products grouped by tile (the blocks of its two shards) and by shard (its parts of
// every tile); every other step is a ParDo over the S shards' states and one reduction of
// S small parts. The graph is fixed: per pass, the tiles' two groupings and four
// reductions. Every sum is taken in the order of the shards or of the tiles, so that
// the result does not depend on the runner's order and equals sharded.Run's in one
// process bit for bit.
//
// The options are checked at construction (ErrArgument). A point of another dimension,
// with a coordinate or k(x, x) that is not finite, is a dead letter. Fewer good points
// than Rank + 1 fail the pipeline.
func Polish(s beam.Scope, points beam.PCollection, o PolishOptions) (Polished, error) {
	return polish(s, beam.PCollection{}, points, o)
}

// PolishFrom is Polish from a model's subspace in place of a random one: model is a
// PCollection<[]byte> of one element, the encoding of any model DecodeModel reads (a
// tracked kpca checkpoint, a merged Nyström model, an SKPCA), whose scores of the
// points on its top min(Rank, its components) components — its eigenvectors lifted to
// the points — start the iteration, as kpca.Start.Vectors starts kpca.FitFrom's
// (sharded.NewStateFrom). The model's kernel need not be the Polish's: only the span
// matters. A good start needs fewer passes for the same accuracy (docs/design.md,
// "Polish and Certify over sharded points", Starting subspaces); the certificate holds
// whatever the start. Each worker fetches and decodes the model once (as Project does);
// a model of another dimension, or with fewer than Components components, fails the
// pipeline: check it first with DecodeModel where it is at hand.
func PolishFrom(s beam.Scope, model, points beam.PCollection, o PolishOptions) (Polished, error) {
	if !model.IsValid() {
		return Polished{}, fmt.Errorf("%w: PolishFrom: an invalid model PCollection", ErrArgument)
	}
	return polish(s, model, points, o)
}

// polish builds a Polish, from the model's subspace if model is valid.
func polish(s beam.Scope, model, points beam.PCollection, o PolishOptions) (Polished, error) {
	_, so, err := checkPolish(o)
	if err != nil {
		return Polished{}, err
	}
	pcs := []beam.PCollection{points}
	if model.IsValid() {
		pcs = append(pcs, model)
	}
	if err := checkGlobal("Polish", pcs...); err != nil {
		return Polished{}, err
	}
	s = s.Scope("Polish")
	work := o.Work + "/polish-" + newRun()
	good, dead := beam.ParDo2(s, &polishCheckFn{Dim: o.Dim, Kernel: o.Kernel}, points)
	names := beam.ParDo(s, &shardPointsFn{Dir: work, Shards: o.Shards}, good)
	side := beam.SideInput{Input: names}

	g0, err := encodeGlobal(mustBegin(so))
	if err != nil {
		return Polished{}, err
	}
	global := beam.Create(s, g0)
	ids := make([]int, o.Shards)
	for i := range ids {
		ids[i] = i
	}
	shardIDs := beam.Reshuffle(s, beam.CreateList(s, ids))
	p := polishRun{s: s, kernel: o.Kernel, dim: o.Dim, work: work, names: side}
	var states, parts beam.PCollection
	steps := sharded.Program(o.Passes)
	if so.TestVectors > 0 {
		steps = append(steps, sharded.TailProgram()...)
	}
	for _, step := range steps {
		switch step.Kind {
		case sharded.Start:
			start := startFn{Dir: work, Kernel: o.Kernel, Dim: o.Dim, Options: so}
			if model.IsValid() {
				digest := beam.ParDo(s, modelDigest, model)
				states, parts = beam.ParDo2(s, &startFromFn{Start: start}, shardIDs, side, beam.SideInput{Input: digest}, beam.SideInput{Input: model})
			} else {
				states, parts = beam.ParDo2(s, &start, shardIDs, side)
			}
		case sharded.Tiles:
			states = p.tiles(step, states, global)
			continue
		case sharded.OrthApply, sharded.TailProject:
			// No reduction: the state alone changes.
			states, _ = beam.ParDo2(s, &stepFn{Step: step}, states, beam.SideInput{Input: global})
			continue
		default:
			states, parts = beam.ParDo2(s, &stepFn{Step: step}, states, beam.SideInput{Input: global})
		}
		global = beam.ParDo(s, &reduceFn{Step: step}, beam.GroupByKey(s, beam.AddFixedKey(s, parts)), beam.SideInput{Input: global})
	}
	scores := beam.ParDo(s, &scoresFn{Dir: work, Dim: o.Dim}, states, beam.SideInput{Input: global}, side)
	cert := beam.ParDo(s, &certificateFn{Kernel: o.Kernel}, global)
	res := Polished{Scores: scores, Certificate: cert, Dead: dead, Work: work}
	if o.Model {
		rows := beam.ParDo(s, &ritzRowsFn{Dir: work, Dim: o.Dim}, states, side)
		res.Model = beam.ParDo(s, &polishedModelFn{Kernel: o.Kernel, Options: so}, beam.GroupByKey(s, beam.AddFixedKey(s, rows)))
	}
	return res, nil
}

// mustBegin is sharded.Begin of options checkPolish accepted.
func mustBegin(o sharded.Options) sharded.Global {
	g, err := sharded.Begin(o)
	if err != nil {
		panic(err)
	}
	return g
}

// polishRun is what the tile stages of a Polish share.
type polishRun struct {
	s      beam.Scope
	kernel kernel.Spec
	dim    int
	work   string
	names  beam.SideInput
}

// tiles is a pass's tile stage: each shard's block to the tiles it is in (grouped by
// tile: two blocks a tile, one on the diagonal), each tile's products where its two
// shards' points are read, and each shard's parts joined with its state (grouped by
// shard: its state and S parts) and summed in tile order into its Y.
func (p polishRun) tiles(step sharded.Step, states, global beam.PCollection) beam.PCollection {
	s := p.s
	blocks := beam.ParDo(s, &fanFn{Step: step}, states, beam.SideInput{Input: global})
	products := beam.ParDo(s, &tileFn{Dir: p.work, Kernel: p.kernel, Dim: p.dim}, beam.GroupByKey(s, blocks), p.names)
	keyed := beam.ParDo(s, keyState, states)
	return beam.ParDo(s, &sumTilesFn{}, beam.CoGroupByKey(s, keyed, products))
}

// certificateFn writes the final Global as a PolishCertificate, JSON.
type certificateFn struct {
	Kernel kernel.Spec
}

// ProcessElement encodes the certificate.
func (fn *certificateFn) ProcessElement(b []byte, emit func([]byte)) error {
	g, err := decodeGlobal(b)
	if err != nil {
		return err
	}
	values, lo, hi, sine, below, above := g.Bounds()
	for j, v := range sine {
		sine[j] = math.Min(v, 1) // JSON has no +Inf; a sine is at most 1
	}
	c := PolishCertificate{
		Points: g.M, Kernel: fn.Kernel, Centred: g.Options.Centred, Rank: g.Options.Rank, Passes: g.Options.Passes,
		Values: values, Lower: lo, Upper: hi, Sine: sine, Tail: g.Tail, Failure: g.Failure, Below: below, Above: above, ErrorBound: math.Max(below, above), Trace: g.TraceK(),
	}
	out, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	emit(append(out, '\n'))
	return nil
}
