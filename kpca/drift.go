package kpca

import (
	"math"

	"github.com/ikpca/ikpca/internal/hugepage"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/ikpca/ikpca/internal/probe"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// Drift is a cheap estimate of how far the incremental decomposition has moved from an
// exact one, from one random probe vector x (deterministic for a given model size).
type Drift struct {
	// Orthogonality is ‖VᵀV·x − x‖/‖x‖: the loss of orthogonality of the stored
	// eigenvectors V. O(m·n) for n stored pairs.
	Orthogonality float64
	// Residual is ‖A·V·x − V·Λ·x‖/(‖Λ‖·‖x‖), with A the matrix the points define (K′ =
	// CKC or K) recomputed from the points: the backward error of the stored pairs as
	// eigenpairs of A. O(m²·d): one kernel matrix–vector product, evaluated a row at a
	// time without storing K. At rank r it measures how far the tracked pairs are from
	// eigenpairs of A — which the top r pairs of a batch decomposition are exactly, so
	// that Refresh brings it back to rounding — and, with Λ the tracked eigenvalues,
	// bounds their distance to eigenvalues of A: each λⱼ is within ‖(A − λⱼ)vⱼ‖ of one.
	// It is at most ErrorBound()/‖Λ‖ (A·V − V·Λ = (A − K̃)·V). A model with points but
	// no pair measures the share of its matrix no pair explains (Model.Drift).
	Residual float64
}

// Max returns the larger of the two measures.
func (d Drift) Max() float64 { return math.Max(d.Orthogonality, d.Residual) }

// Drift probes the accuracy of the decomposition — every pair the model tracks
// (Rank()), not only the Components it reports (see the type Drift). It does not change
// the model except for recording the result in Stats. A model of kernel.Precomputed has
// no kernel to measure the residual with: its Residual is NaN, not measured.
//
// A model that holds points but no pair claims that their matrix A is zero; its Residual
// is then ‖A·x‖/(‖x‖·m·maxᵢ|k(xᵢ, xᵢ)|), the share of the kernel's scale that no pair
// explains: rounding for a matrix that is zero (one point, centred), of order one for a
// model tracked at a rank that has lost every pair — as after the removal of a point
// whose kernel values dominated the others' (docs/design.md, "Removing a point") — so
// that Options.RefreshTolerance refreshes it.
func (md *Model) Drift() Drift { return md.driftOf(md.basis()) }

// driftOf is Drift of the decomposition b.
func (md *Model) driftOf(b basis) Drift {
	out := md.drift(b)
	md.stats.LastDrift = out
	return out
}

// drift is driftOf without recording it.
func (md *Model) drift(b basis) Drift {
	n := len(b.values)
	m := md.m
	if m == 0 {
		return Drift{}
	}
	if n == 0 {
		return md.driftWithoutPairs()
	}
	md.probe = hugepage.Grow(md.probe, n)
	md.probe2 = hugepage.Grow(md.probe2, m)
	md.probeMV = hugepage.Grow(md.probeMV, m)
	x, y := md.probe, md.probe2
	xx := probe.Fill(x, probe.Seed^uint64(n)*0xBF58476D1CE4E5B9)
	xn := math.Sqrt(xx)
	v := b.vecs
	vecN := func(d []float64) blas64.Vector { return blas64.Vector{N: n, Inc: 1, Data: d} }
	vecM := func(d []float64) blas64.Vector { return blas64.Vector{N: m, Inc: 1, Data: d} }

	// Orthogonality: y = V·x, then ‖Vᵀy − x‖/‖x‖.
	var out Drift
	out.Orthogonality = probe.Orthogonality(v, x, xx, y, make([]float64, n))

	// Residual: A·(V·x) against V·(Λ·x), which needs the kernel: a model of columns
	// reports NaN, not measured.
	if md.precomputed() {
		out.Residual = math.NaN()
		return out
	}
	ay := md.applyMatrix(y)
	lx := make([]float64, n)
	var big float64
	for i := range lx {
		lx[i] = b.values[i] * x[i]
		big = math.Max(big, math.Abs(b.values[i]))
	}
	vl := make([]float64, m)
	native.Gemv(blas.NoTrans, 1, v, vecN(lx), 0, vecM(vl))
	var rr float64
	for i := range vl {
		e := ay[i] - vl[i]
		rr += e * e
	}
	if big > 0 {
		out.Residual = math.Sqrt(rr) / (big * xn)
	}
	return out
}

// driftWithoutPairs is Drift for a model of m > 0 points and no pair: the residual of
// the claim A = 0, relative to m·max|k(xᵢ, xᵢ)| (≥ ‖K‖₂ for a positive semi-definite
// kernel; +Inf if that is zero and A·x is not).
func (md *Model) driftWithoutPairs() Drift {
	var out Drift
	if md.precomputed() {
		out.Residual = math.NaN()
		return out
	}
	m := md.m
	md.probe2 = hugepage.Grow(md.probe2, m)
	md.probeMV = hugepage.Grow(md.probeMV, m)
	y := md.probe2[:m]
	yy := probe.Fill(y, probe.Seed^uint64(m)*0xBF58476D1CE4E5B9)
	ay := md.applyMatrix(y)
	var scale float64
	for i := range m {
		x := md.point(i)
		scale = math.Max(scale, math.Abs(md.kern.Eval(x, x)))
	}
	if r := vec.Norm(ay); r > 0 {
		out.Residual = r / (math.Sqrt(yy) * float64(m) * scale) // +Inf for scale 0
	}
	return out
}

// applyMatrix returns A·y for the matrix the points define, K′ = CKC (centred) or K,
// for y in point coordinates, recomputing the kernel values a row at a time.
func (md *Model) applyMatrix(y []float64) []float64 {
	m := md.m
	centred := !md.opts.Uncentred
	z := make([]float64, m)
	copy(z, y)
	if centred {
		vec.SubtractMean(z)
	}
	kz := make([]float64, m)
	row := md.probeMV[:m]
	for i := range m {
		kernel.Column(row, md.kern, &md.view, md.point(i))
		var s float64
		for j, v := range row {
			s += v * z[j]
		}
		kz[i] = s
	}
	if centred {
		vec.SubtractMean(kz)
	}
	return kz
}

// Refresh recomputes the decomposition from the points with a batch eigensolver, and the
// row sums and total exactly: it removes any drift accumulated by the updates, at the
// cost of a batch decomposition (of the points in the window, for a window model). At
// rank r it takes the top r pairs of that decomposition and restarts the certificate
// from what they leave out; it forms the m×m kernel matrix, the one time a rank-r model
// holds O(m²) memory (topPairs). A zero Model is an error wrapping ErrArgument, and so
// is a model of more than 32,768 points (a kernel matrix of more than 2³⁰ values), and
// a model of kernel.Precomputed, which has no kernel to form the matrix from, wraps
// ErrNoKernel; on error the model is unchanged.
func (md *Model) Refresh() error {
	if err := md.ready(); err != nil {
		return err
	}
	if err := md.needKernel("Refresh"); err != nil {
		return err
	}
	return md.transact(scopeStep, md.refresh)
}

// refresh is Refresh's batch decomposition, which changes the model only if it
// succeeds.
func (md *Model) refresh() error {
	if err := md.decompose(); err != nil {
		return err
	}
	md.refreshed()
	return nil
}

// refreshed counts a refresh that succeeded.
func (md *Model) refreshed() {
	md.stats.Refreshes++
	md.since = 0
}

// maybeRefresh runs the drift control of Options.RefreshTolerance after a point is added.
func (md *Model) maybeRefresh() {
	if md.probeDue() && md.Drift().Max() > md.opts.RefreshTolerance {
		md.stats.RefreshErr = md.refresh()
	}
}

// probeDue counts a point added under drift control and reports whether the drift
// probe is due: every CheckEvery points (100 by default) with a RefreshTolerance.
func (md *Model) probeDue() bool {
	if md.opts.RefreshTolerance <= 0 {
		return false
	}
	every := md.opts.CheckEvery
	if every == 0 {
		every = 100
	}
	md.since++
	if md.since < every {
		return false
	}
	md.since = 0
	return true
}
