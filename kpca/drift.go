package kpca

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
)

// Drift is a cheap estimate of how far the incremental decomposition has moved from an
// exact one, from one random probe vector x (deterministic for a given model size).
type Drift struct {
	// Orthogonality is ‖VᵀV·x − x‖/‖x‖: the loss of orthogonality of the stored
	// eigenvectors V. O(m²).
	Orthogonality float64
	// Residual is ‖A·V·x − V·Λ·x‖/(‖Λ‖·‖x‖), with A the matrix the points define
	// (QᵀKQ, K or CKC) recomputed from the points: the backward error of the stored
	// decomposition. O(m²·d): one kernel matrix–vector product, evaluated a row at a
	// time without storing K.
	Residual float64
}

// Max returns the larger of the two measures.
func (d Drift) Max() float64 { return math.Max(d.Orthogonality, d.Residual) }

// Drift probes the accuracy of the decomposition (see the type Drift). It does not
// change the model except for recording the result in Stats.
func (md *Model) Drift() Drift {
	n := md.sym.Len()
	if n == 0 {
		return Drift{}
	}
	m := md.m
	md.probe = grow(md.probe, n)
	md.probe2 = grow(md.probe2, n)
	md.probeMV = grow(md.probeMV, max(m, n))
	x, y := md.probe, md.probe2
	state := uint64(0x9E3779B97F4A7C15) ^ uint64(n)*0xBF58476D1CE4E5B9
	var xx float64
	for i := range x {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		x[i] = float64(state>>11)/(1<<53) - 0.5
		xx += x[i] * x[i]
	}
	xn := math.Sqrt(xx)
	v := md.sym.Vectors().(*mat.Dense).RawMatrix()
	values := md.sym.Values(nil)
	gen := func(d []float64) blas64.Vector { return blas64.Vector{N: n, Inc: 1, Data: d} }

	// Orthogonality: y = V·x, then ‖Vᵀy − x‖.
	native.Gemv(blas.NoTrans, 1, v, gen(x), 0, gen(y))
	r := make([]float64, n)
	native.Gemv(blas.Trans, 1, v, gen(y), 0, gen(r))
	var rr float64
	for i := range r {
		e := r[i] - x[i]
		rr += e * e
	}
	var out Drift
	out.Orthogonality = math.Sqrt(rr) / xn

	// Residual: A·(V·x) against V·(Λ·x).
	ay := md.applyMatrix(y)
	lx := make([]float64, n)
	var big float64
	for i := range lx {
		lx[i] = values[i] * x[i]
		big = math.Max(big, math.Abs(values[i]))
	}
	native.Gemv(blas.NoTrans, 1, v, gen(lx), 0, gen(r))
	rr = 0
	for i := range r {
		e := ay[i] - r[i]
		rr += e * e
	}
	if big > 0 {
		out.Residual = math.Sqrt(rr) / (big * xn)
	}
	md.stats.LastDrift = out
	return out
}

// applyMatrix returns A·y for the matrix the decomposition represents, recomputing the
// kernel values from the points a row at a time.
func (md *Model) applyMatrix(y []float64) []float64 {
	m := md.m
	fm := float64(m)
	z := make([]float64, m) // y in point coordinates
	switch {
	case md.opts.Mode == Centred && md.opts.Method == Bordered:
		helmert(z, y, md.alpha)
	case md.opts.Mode == Centred:
		var mean float64
		for _, v := range y {
			mean += v
		}
		mean /= fm
		for i := range z {
			z[i] = y[i] - mean
		}
	default:
		copy(z, y)
	}
	kz := make([]float64, m)
	row := md.probeMV[:m]
	raw := md.view.RawMatrix()
	for i := range m {
		kernel.Column(row, md.kern, &md.view, raw.Data[i*raw.Stride:i*raw.Stride+md.d])
		var s float64
		for j, v := range row {
			s += v * z[j]
		}
		kz[i] = s
	}
	switch {
	case md.opts.Mode == Centred && md.opts.Method == Bordered:
		out := make([]float64, m-1)
		helmertT(out, kz, md.alpha)
		return out
	case md.opts.Mode == Centred:
		var mean float64
		for _, v := range kz {
			mean += v
		}
		mean /= fm
		for i := range kz {
			kz[i] -= mean
		}
	}
	return kz
}

// Refresh recomputes the decomposition from the points with a batch eigensolver, and the
// row sums and total exactly: it removes any drift accumulated by the updates, at the
// cost of a batch decomposition. On error the model is unchanged.
func (md *Model) Refresh() error {
	if err := md.decompose(); err != nil {
		return err
	}
	md.stats.Refreshes++
	md.since = 0
	return nil
}

// maybeRefresh runs the drift control of Options.RefreshTolerance after a point is added.
func (md *Model) maybeRefresh() {
	tol := md.opts.RefreshTolerance
	if tol <= 0 {
		return
	}
	every := md.opts.CheckEvery
	if every == 0 {
		every = 100
	}
	md.since++
	if md.since < every {
		return
	}
	md.since = 0
	if md.Drift().Max() > tol {
		md.stats.RefreshErr = md.Refresh()
	}
}

func grow(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n, n+n/4+16)
	}
	return x[:n]
}
