package main

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/synth"
	"github.com/ikpca/ikpca/internal/yardstick"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

// An op is one operation of the table, prepared at size m by build. batch names the op
// whose time it is compared with: the batch eigendecomposition of the same kind of
// matrix.
type op struct {
	id    string // identifier for -ops and the CSV
	name  string // label in the tables
	data  string // "random" or "MAGIC"
	batch string // id of the batch op it is compared with; "" for the batch ops
	build func(m int, in *inputs) (runner, error)
}

// inputs are the data shared by the ops: the MAGIC points, the kernel (RBF with the
// median heuristic, fixed for all sizes so that the sizes are comparable) and the number
// of distinct inputs a runner cycles through (one per repetition).
type inputs struct {
	magic *mat.Dense
	kern  kernel.Kernel
	reps  int
}

// batchName is the batch eigensolver of the backend.
func batchName() string {
	if native.Compiled == "openblas" {
		return "batch dsyevd"
	}
	return "batch Dsyev (gonum)"
}

// ops lists the operations in table order.
func ops() []op {
	kp := func(uncentred, paper bool) func(int, *inputs) (runner, error) {
		return func(m int, in *inputs) (runner, error) {
			opts := kpca.Options{Components: kpca.All, Uncentred: uncentred}
			if paper {
				return newStepRunner(m, in, opts, kpca.FitRankOne, true)
			}
			return newStepRunner(m, in, opts, kpca.Fit, false)
		}
	}
	return []op{
		{id: "dgemm", name: "dgemm m×m×m (yardstick)", data: "random", batch: "batch-random", build: newDgemmRunner},
		{id: "border", name: "update.Sym.Border", data: "random", batch: "batch-random",
			build: func(m int, in *inputs) (runner, error) { return newSymRunner(m, in, true) }},
		{id: "rankone", name: "update.Sym.RankOne", data: "random", batch: "batch-random",
			build: func(m int, in *inputs) (runner, error) { return newSymRunner(m, in, false) }},
		{id: "remove", name: "update.Sym.Remove", data: "random", batch: "batch-random", build: newRemoveRunner},
		{id: "centred-bordered", name: "kpca mean-adjusted, bordered", data: "MAGIC", batch: "batch-magic",
			build: kp(false, false)},
		{id: "centred-paper", name: "kpca mean-adjusted, paper (4 updates)", data: "MAGIC", batch: "batch-magic",
			build: kp(false, true)},
		{id: "uncentred-bordered", name: "kpca uncentred, bordered", data: "MAGIC", batch: "batch-magic",
			build: kp(true, false)},
		{id: "uncentred-paper", name: "kpca uncentred, paper (2 updates)", data: "MAGIC", batch: "batch-magic",
			build: kp(true, true)},
		{id: "centred-remove", name: "kpca mean-adjusted, Remove", data: "MAGIC", batch: "batch-magic",
			build: func(m int, in *inputs) (runner, error) { return newKpcaRemoveRunner(m, in) }},
		{id: "centred-window", name: "kpca mean-adjusted, window step (add + remove)", data: "MAGIC", batch: "batch-magic",
			build: func(m int, in *inputs) (runner, error) {
				return newStepRunner(m, in, kpca.Options{Components: kpca.All, Window: m}, kpca.Fit, false)
			}},
		{id: "batch-random", name: batchName() + ", random", data: "random", build: newRandomBatch},
		{id: "batch-magic", name: batchName() + ", MAGIC kernel", data: "MAGIC", build: newMagicBatch},
	}
}

// dgemmRunner times a second, independent dgemm of order m: its ratio to the paired
// yardstick shows how well the pairing cancels the machine's drift (ideally 1).
type dgemmRunner struct{ stick *yardstick.Stick }

func newDgemmRunner(m int, _ *inputs) (runner, error) {
	return &dgemmRunner{yardstick.New(m)}, nil
}

func (r *dgemmRunner) reset(int)          {}
func (r *dgemmRunner) step(int) error     { r.stick.Dgemm(); return nil }
func (r *dgemmRunner) detail() (d detail) { return }

// symRunner times update.Sym.Border (order m to m+1) or update.Sym.RankOne (order m,
// ρ = ±0.7 alternately) on the decomposition of a random symmetric matrix: random
// orthogonal eigenvectors, eigenvalues uniform in [−1, 1], so that nothing deflates —
// the worst case.
type symRunner struct {
	base, work update.Sym
	vecs       []*mat.VecDense
	border     bool
}

// randomEigen sets s to the decomposition of a random symmetric matrix of order n, drawn
// from rng: eigenvalues uniform in [−1, 1], then random orthogonal eigenvectors.
func randomEigen(s *update.Sym, n int, rng *rand.Rand) error {
	values := make([]float64, n)
	for i := range values {
		values[i] = 2*rng.Float64() - 1
	}
	return s.SetEigen(values, synth.RandomOrthogonal(n, rng))
}

func newSymRunner(m int, in *inputs, border bool) (runner, error) {
	rng := rand.New(rand.NewPCG(uint64(m), 11))
	r := &symRunner{border: border}
	if err := randomEigen(&r.base, m, rng); err != nil {
		return nil, err
	}
	r.work.Reserve(m + 1)
	r.vecs = make([]*mat.VecDense, max(in.reps, 1))
	for i := range r.vecs {
		v := make([]float64, m)
		for j := range v {
			v[j] = rng.NormFloat64() / 4
		}
		r.vecs[i] = mat.NewVecDense(m, v)
	}
	return r, nil
}

func (r *symRunner) reset(int) { r.work.CopyFrom(&r.base) }

func (r *symRunner) step(rep int) error {
	v := r.vecs[rep%len(r.vecs)]
	if r.border {
		return r.work.Border(v, 0.3)
	}
	rho := 0.7
	if rep%2 == 1 {
		rho = -rho
	}
	return r.work.RankOne(rho, v)
}

func (r *symRunner) detail() detail {
	st := r.work.Stats()
	return detail{deflated: st.Deflated, updates: 1, secular: st.Secular,
		project: st.Project, solve: st.Solve, assemble: st.Assemble}
}

// removeRunner times update.Sym.Remove (order m+1 to m) on the decomposition of a random
// symmetric matrix (as symRunner's), removing a different row each repetition.
type removeRunner struct {
	base, work update.Sym
	n          int
}

func newRemoveRunner(m int, _ *inputs) (runner, error) {
	n := m + 1
	rng := rand.New(rand.NewPCG(uint64(n), 13))
	r := &removeRunner{n: n}
	if err := randomEigen(&r.base, n, rng); err != nil {
		return nil, err
	}
	r.work.Reserve(n)
	return r, nil
}

func (r *removeRunner) reset(int)          { r.work.CopyFrom(&r.base) }
func (r *removeRunner) step(rep int) error { return r.work.Remove((rep * 7919) % r.n) }

func (r *removeRunner) detail() detail {
	st := r.work.Stats()
	return detail{deflated: st.Deflated, updates: 1, secular: st.Secular,
		project: st.Project, solve: st.Solve, assemble: st.Assemble}
}

// kpcaRemoveRunner times kpca.Model.Remove on a model of the first m+1 MAGIC points,
// removing a different point each repetition.
type kpcaRemoveRunner struct {
	base *kpca.Model
	work kpca.Model
}

func newKpcaRemoveRunner(m int, in *inputs) (runner, error) {
	_, d := in.magic.Dims()
	base, err := kpca.Fit(in.kern, in.magic.Slice(0, m+1, 0, d), kpca.Options{Components: kpca.All})
	if err != nil {
		return nil, err
	}
	r := &kpcaRemoveRunner{base: base}
	r.work.CopyFrom(base)
	return r, nil
}

func (r *kpcaRemoveRunner) reset(int) { r.work.CopyFrom(r.base) }
func (r *kpcaRemoveRunner) step(rep int) error {
	return r.work.Remove((rep * 7919) % r.base.Len())
}

func (r *kpcaRemoveRunner) detail() detail {
	st := r.work.Stats().Last
	return detail{deflated: st.Deflated, updates: 1, secular: st.Secular,
		project: st.Project, solve: st.Solve, assemble: st.Assemble}
}

// kpcaRunner times kpca.Model.Add, or kpca.RankOneModel.Add (paper), on a model of the
// first m MAGIC points; repetition i adds point m+i, so that the table averages over
// several real points.
type kpcaRunner struct {
	restore func()                                  // the working model back to the base
	add     func(x []float64) error                 // the step
	updates func(dst []update.Stats) []update.Stats // the step's eigen-updates
	next    *mat.Dense
	paper   bool
	stats   []update.Stats
}

// magicSteps returns the first m MAGIC points and the points the steps add.
func magicSteps(m int, in *inputs) (first, next *mat.Dense, err error) {
	rows, d := in.magic.Dims()
	reps := max(in.reps, 1)
	if m+reps > rows {
		return nil, nil, fmt.Errorf("m = %d: MAGIC has %d points, %d more are needed for the steps", m, rows, reps)
	}
	return in.magic.Slice(0, m, 0, d).(*mat.Dense), in.magic.Slice(m, m+reps, 0, d).(*mat.Dense), nil
}

// newStepRunner returns the runner of the steps of a model of the first m MAGIC points,
// fitted by fit: kpca.Fit, or kpca.FitRankOne for the paper's method (paper).
func newStepRunner[M any, P stepModel[M]](m int, in *inputs, opts kpca.Options,
	fit func(kernel.Kernel, mat.Matrix, kpca.Options) (P, error), paper bool) (runner, error) {
	first, next, err := magicSteps(m, in)
	if err != nil {
		return nil, err
	}
	base, err := fit(in.kern, first, opts)
	if err != nil {
		return nil, err
	}
	return stepRunner(base, next, m, paper), nil
}

// stepModel is what a kpcaRunner asks of a *kpca.Model or a *kpca.RankOneModel.
type stepModel[M any] interface {
	*M
	CopyFrom(src *M) error
	Reserve(n int) error
	Add(x []float64) error
	UpdateStats(dst []update.Stats) []update.Stats
}

// stepRunner returns the runner of the steps of a working copy of base, of m points.
func stepRunner[M any, P stepModel[M]](base P, next *mat.Dense, m int, paper bool) *kpcaRunner {
	work := P(new(M))
	r := &kpcaRunner{restore: func() { work.CopyFrom(base) }, add: work.Add, updates: work.UpdateStats,
		next: next, paper: paper, stats: make([]update.Stats, 0, 8)}
	r.restore()
	work.Reserve(m + 1)
	return r
}

func (r *kpcaRunner) reset(int) { r.restore() }

func (r *kpcaRunner) step(rep int) error {
	rows, _ := r.next.Dims()
	return r.add(r.next.RawRowView(rep % rows))
}

// detail sums the step's eigen-updates. For the paper's method it leaves out the
// expansion (its only bordering update), in which every old component deflates
// trivially and no product is formed: updates then counts the m×m×m products.
func (r *kpcaRunner) detail() detail {
	r.stats = r.updates(r.stats[:0])
	var d detail
	for _, st := range r.stats {
		if r.paper && st.Op == "border" {
			d.project += st.Project
			d.solve += st.Solve
			d.assemble += st.Assemble
			continue
		}
		d.updates++
		d.deflated += st.Deflated
		d.secular += st.Secular
		d.project += st.Project
		d.solve += st.Solve
		d.assemble += st.Assemble
	}
	return d
}

// batchRunner times a batch eigendecomposition (values and vectors) of a fixed symmetric
// matrix of order m+1 — the recompute-from-scratch alternative to a step that brings a
// model to m+1 points. Forming the matrix is not timed: a batch job can keep the kernel
// matrix up to date in O(m·d) per point.
type batchRunner struct {
	n         int
	a, buf, w []float64
}

func newBatch(a []float64, n int) *batchRunner {
	return &batchRunner{n: n, a: a, buf: make([]float64, n*n), w: make([]float64, n)}
}

func (r *batchRunner) reset(int)          { copy(r.buf, r.a) }
func (r *batchRunner) step(int) error     { return native.EigenSymInPlace(r.n, r.buf, r.n, r.w, true) }
func (r *batchRunner) detail() (d detail) { return }

// newRandomBatch: a random symmetric matrix (entries standard normal).
func newRandomBatch(m int, _ *inputs) (runner, error) {
	n := m + 1
	rng := rand.New(rand.NewPCG(uint64(n), 12))
	a := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			v := rng.NormFloat64()
			a[i*n+j], a[j*n+i] = v, v
		}
	}
	return newBatch(a, n), nil
}

// newMagicBatch: the mean-adjusted kernel matrix CKC of the first m+1 MAGIC points, the
// matrix a batch kernel PCA decomposes. Its spectrum decays fast, which lets dsyevd's
// divide and conquer deflate too: this is the fair baseline for the kpca rows.
func newMagicBatch(m int, in *inputs) (runner, error) {
	n := m + 1
	rows, d := in.magic.Dims()
	if n > rows {
		return nil, fmt.Errorf("m = %d: MAGIC has %d points", m, rows)
	}
	K := kernel.Centre(kernel.Matrix(in.kern, in.magic.Slice(0, n, 0, d).(*mat.Dense)))
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			a[i*n+j] = K.At(i, j)
		}
	}
	return newBatch(a, n), nil
}
