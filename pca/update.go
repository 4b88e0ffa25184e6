package pca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/native"
)

// negativeTolerance is the relative tolerance of the exact model's check after a
// removal: an eigenvalue of the downdated scatter matrix below −negativeTolerance·scale,
// scale = λmax(S) + |ρ|·‖x − μ‖², cannot come from rounding, and means the point was
// never added. The secular solver is backward stable — the computed eigenvalues are
// those of S + ρzzᵀ + F with ‖F‖ a small multiple of d·ε·scale (docs/design.md,
// "Deflation") — and the smallest eigenvalue after a removal was −4.8e-15·scale at worst
// in the removal streams of the package's tests (10,000 steps on MAGIC, the rank-deficient
// Fashion-MNIST sample, every point of a model removed). 1e-8 leaves six orders of
// margin, and still catches a point far from the span of the others, whose removal
// leaves a negative eigenvalue of order |ρ|·‖z⊥‖².
const negativeTolerance = 1e-8

// Add adds the point x (of dimension Dim()), of weight 1, and updates the decomposition:
// one rank-one update S' = S + (W/(W+1))·(x − μ)(x − μ)ᵀ (docs/design.md, "Linear
// PCA"). In a full window it first removes the oldest point. A point of another
// dimension is an error wrapping ErrDimension, a NaN or infinite coordinate
// ErrNonFinite, a solver that does not converge ErrNotConverged. On error the model is
// unchanged. Once the model has its size, Add allocates nothing.
func (md *Model) Add(x []float64) error { return md.AddWeighted(x, 1) }

// AddWeighted adds the point x with weight w > 0: the model is then that of the weighted
// points, μ = Σwᵢxᵢ/W and S = Σwᵢ(xᵢ − μ)(xᵢ − μ)ᵀ with W = Σwᵢ — stat.PC's weights,
// whose variances divide by W − 1 (VarsTo). A weight k is k copies of the point. The
// errors are Add's, and a weight that is not positive and finite, or that makes the
// total weight overflow, is an ErrArgument.
func (md *Model) AddWeighted(x []float64, w float64) error {
	if err := md.ready(); err != nil {
		return err
	}
	if err := kinds.Point(x, md.d); err != nil {
		return err
	}
	if !(w > 0) || math.IsInf(w, 1) {
		return fmt.Errorf("%w: weight %g, want a positive finite weight", ErrArgument, w)
	}
	// A window's slide is two updates, rolled back together from a copy of the state
	// (O(d²), beside the updates' O(d³)); a plain addition needs none: the update is
	// transactional, and the mean and counts change only after it.
	slides := md.opts.Window > 0 && md.n >= md.opts.Window
	if !slides {
		return md.step(x, w)
	}
	md.save(false)
	if err := md.step(x, w); err != nil {
		md.restore()
		return err
	}
	return nil
}

// step adds a validated point, sliding a full window; on error the caller restores.
func (md *Model) step(x []float64, w float64) error {
	win := md.opts.Window
	if win > 0 && md.n >= win {
		s := md.slot(0)
		if err := md.removePoint(md.win[s*md.d:(s+1)*md.d], md.winW[s]); err != nil {
			return err
		}
	}
	if err := md.addPoint(x, w); err != nil {
		return err
	}
	if win > 0 {
		md.keep(x, w)
	}
	return nil
}

// keep stores an added point in the window: appended while the window fills, in the
// oldest point's slot once it is full (that point was just removed).
func (md *Model) keep(x []float64, w float64) {
	if len(md.winW) < md.opts.Window {
		md.win = append(md.win, x...)
		md.winW = append(md.winW, w)
		return
	}
	s := md.head
	copy(md.win[s*md.d:(s+1)*md.d], x)
	md.winW[s] = w
	md.head = (md.head + 1) % len(md.winW)
}

// addPoint adds a validated point x of weight w (docs/design.md, "Linear PCA"): with
// W' = W + w and z = x − μ,
//
//	μ' = μ + (w/W')·z,   S' = S + (W·w/W')·z·zᵀ,
//
// one rank-one update. The first point sets the mean and leaves S zero.
func (md *Model) addPoint(x []float64, w float64) error {
	if md.n == 0 {
		copy(md.mean, x)
		md.n, md.w = 1, w
		return nil
	}
	w1 := md.w + w
	if math.IsInf(w1, 0) {
		return fmt.Errorf("%w: weight %g: the total weight %g + %g overflows", ErrArgument, w, md.w, w)
	}
	z := md.z
	for i, v := range x {
		z[i] = v - md.mean[i]
	}
	rho := md.w * (w / w1) // W·w/W′ ≤ W: no overflow for any finite weights
	if err := md.rankOne(rho, z); err != nil {
		return kinds.Wrap(err, "adding point %d", md.n)
	}
	f := w / w1
	for i, v := range z {
		md.mean[i] += f * v
	}
	md.n++
	md.w = w1
	return nil
}

// rankOne applies S ← S + ρ·z·zᵀ to the decomposition, and keeps the running trace and,
// at rank r, the certificate.
func (md *Model) rankOne(rho float64, z []float64) error {
	md.zv.SetRawVector(blas64.Vector{N: len(z), Inc: 1, Data: z})
	zz := vec.Dot(z, z)
	if !isFinite(rho * zz) {
		// Finite coordinates whose distance from the mean overflows (beyond 1e154):
		// the update and the trace would not be finite.
		return fmt.Errorf("%w: the point's squared distance from the mean, times %g, is %g", ErrNonFinite, rho, rho*zz)
	}
	if md.opts.Rank > 0 {
		if err := md.thin.RankOne(rho, &md.zv); err != nil {
			return err
		}
		stepCertificate(&md.cert, md.thin.Stats(), md.scale(rho, zz), md.trace)
	} else if err := md.exact.RankOne(rho, &md.zv); err != nil {
		return err
	}
	md.trace += rho * zz
	return nil
}

// scale returns the scale of an update S + ρzzᵀ, λmax(S) + |ρ|·‖z‖² (zz = ‖z‖²), before
// it: the size against which its rounding is measured.
func (md *Model) scale(rho, zz float64) float64 {
	return math.Abs(md.top()) + math.Abs(rho)*zz
}

// top returns the largest eigenvalue the decomposition holds (zero if none).
func (md *Model) top() float64 {
	if md.opts.Rank > 0 {
		_, k := md.thin.Dims()
		if k == 0 {
			return 0
		}
		return md.thin.Values(md.values[:k])[k-1]
	}
	return md.exact.Values(md.values)[md.d-1]
}

// Remove removes the point x, of weight 1, which the model must have been given: the
// exact downdate S' = S − (W/(W−1))·(x − μ)(x − μ)ᵀ, μ the mean before the removal
// (docs/design.md, "Linear PCA"), one rank-one update. The model keeps no points, so it
// cannot know whether x was added: removing a point that was not is the caller's error,
// and gives the model of no set of points. The exact model catches some such calls —
// those whose downdate leaves an eigenvalue below −1e-8 of the scale of the update,
// which rounding cannot explain — and refuses them with an ErrArgument; eigenvalues
// that rounding left slightly negative are reported as zero (Values). Removing the last
// point empties the model. A model without points is an ErrEmpty, a model with a Window
// (which removes its own points) an ErrArgument, and a point of another dimension or
// not finite the errors of Add. On error the model is unchanged. (kpca's Remove takes an
// index instead: a kernel model keeps its points, and removes the stored one; this model
// keeps only their mean and scatter, so the caller gives the point back.)
func (md *Model) Remove(x []float64) error { return md.RemoveWeighted(x, 1) }

// RemoveWeighted removes the point x added with weight w (AddWeighted): with W' = W − w,
// μ' = μ − (w/W')·(x − μ) and S' = S − (W·w/W')·(x − μ)(x − μ)ᵀ. Its errors are
// Remove's, and a weight that is not positive and finite, or that leaves the other
// points no weight (W − w ≤ 1e-12·W), is an ErrArgument.
func (md *Model) RemoveWeighted(x []float64, w float64) error {
	if err := md.ready(); err != nil {
		return err
	}
	if md.opts.Window > 0 {
		return fmt.Errorf("%w: Remove on a model with a Window, which removes its oldest point itself", ErrArgument)
	}
	if md.n == 0 {
		return fmt.Errorf("%w: Remove from a model without points", ErrEmpty)
	}
	if err := kinds.Point(x, md.d); err != nil {
		return err
	}
	if !(w > 0) || math.IsInf(w, 1) {
		return fmt.Errorf("%w: weight %g, want a positive finite weight", ErrArgument, w)
	}
	md.save(false)
	if err := md.removePoint(x, w); err != nil {
		md.restore()
		return err
	}
	return nil
}

// removePoint removes a validated point x of weight w (docs/design.md, "Linear PCA"):
// adding x to the model of the others — weight W' = W − w, mean μ' — gives this one, so
// μ = μ' + (w/W)·(x − μ'), whence x − μ' = (W/W')·(x − μ) and
//
//	μ' = μ − (w/W')·(x − μ),   S' = S − (W'·w/W)·(x − μ')(x − μ')ᵀ = S − (W·w/W')·(x − μ)(x − μ)ᵀ,
//
// one rank-one update with ρ = −W·w/W' and z = x − μ, the old mean. The last point
// leaves the empty model. On error the caller restores.
func (md *Model) removePoint(x []float64, w float64) error {
	if md.n == 1 {
		md.setEmpty()
		return nil
	}
	w1 := md.w - w
	if !(w1 > 1e-12*md.w) {
		return fmt.Errorf("%w: removing weight %g of the total %g leaves none for the other %d points", ErrArgument, w, md.w, md.n-1)
	}
	z := md.z
	for i, v := range x {
		z[i] = v - md.mean[i]
	}
	rho := -md.w * w / w1
	scale := md.scale(rho, vec.Dot(z, z))
	if err := md.rankOne(rho, z); err != nil {
		return kinds.Wrap(err, "removing a point")
	}
	if md.opts.Rank == 0 {
		// The downdated S is positive semi-definite if x was one of the points.
		if low := md.exact.Values(md.values)[0]; low < -negativeTolerance*scale {
			return fmt.Errorf("%w: removing the point leaves the scatter matrix an eigenvalue %g (scale %g): it was not added", ErrArgument, low, scale)
		}
	}
	f := w / w1
	for i, v := range z {
		md.mean[i] -= f * v
	}
	md.n--
	md.w = w1
	if md.trace < 0 {
		md.trace = 0 // a trace that rounding took below zero
	}
	return nil
}

// refactorAt is the smallest batch AddBatch adds to the exact model by one
// refactorisation rather than one rank-one update a row (docs/design.md, "Linear PCA"):
// a rank-one update costs at most one d×d×d product, 2d³ flops (less when directions
// deflate); a refactorisation forms S + X̄ᵀX̄ + ρδδᵀ (2d³ + 2bd² flops) and decomposes it
// (LAPACK dsyevd with vectors, about 9d³ by its flop count). Measured
// (BenchmarkAddBatch, Gaussian points, whose updates deflate nothing), a
// refactorisation of 16 rows cost as much as 4.8–6.8 rank-one updates with OpenBLAS and
// 6.9–9.1 in pure Go, at d = 100, 400 and 784. 8 takes the refactorisation when it is
// cheaper on either backend, and keeps the incremental path for small batches, where
// real data's deflation makes an update cheaper still.
const refactorAt = 8

// AddBatch adds the rows of X in order, all or nothing: a bad row anywhere in X is an
// error, and then none of the rows is added. To the exact model, without a window or
// within its Window, a batch of at least 8 rows is added by one refactorisation — the
// mean and scatter of the batch merged with the model's (S' = S + S_B +
// (W·b/(W + b))·δδᵀ, δ the difference of the means; docs/design.md, "Linear PCA") and
// one batch eigendecomposition of the d×d result — and a smaller one by a rank-one
// update a row, whichever costs fewer flops. At rank r, and once a window slides, the
// rows are added one at a time as Add adds them. A nil X is an error wrapping
// ErrArgument, one without rows ErrEmpty; the errors of a row are Add's.
func (md *Model) AddBatch(X mat.Matrix) error {
	if err := md.ready(); err != nil {
		return err
	}
	X, b, err := kinds.Points(X, md.d)
	if err != nil {
		return err
	}
	win := md.opts.Window
	md.save(win > 0)
	if md.opts.Rank == 0 && b >= refactorAt && (win == 0 || md.n+b <= win) {
		err = md.refactor(X, b)
		if err == nil && win > 0 {
			for i := range b {
				md.keep(mat.Row(md.row, i, X), 1)
			}
		}
	} else {
		for i := 0; i < b && err == nil; i++ {
			err = md.step(mat.Row(md.row, i, X), 1)
		}
	}
	if err != nil {
		md.restore()
		return err
	}
	return nil
}

// refactor adds the b validated rows of X to the exact model by one batch
// eigendecomposition (docs/design.md, "Linear PCA"): with μ_B and S_B the mean and
// scatter of the rows and δ = μ_B − μ, the points together have
//
//	μ' = μ + (b/W')·δ,   S' = S + S_B + (W·b/W')·δ·δᵀ,   W' = W + b,
//
// (the pairwise formula of Chan, Golub and LeVeque). S is formed again from its
// eigenpairs, U·diag(λ)·Uᵀ, which reproduces it to rounding. On error the caller
// restores.
func (md *Model) refactor(X mat.Matrix, b int) error {
	d := md.d
	fb := float64(b)
	muB, xc := centred(X, b, d)
	// A = U·diag(λ)·Uᵀ + X̄ᵀX̄ + ρ·δδᵀ.
	var a mat.Dense
	if md.n > 0 {
		var u mat.Dense
		md.exact.VectorsTo(&u)
		values := md.exact.Values(nil)
		var ul mat.Dense
		ul.CloneFrom(&u)
		for j, l := range values {
			for i := range d {
				ul.Set(i, j, ul.At(i, j)*l)
			}
		}
		native.Mul(&a, &ul, u.T())
	} else {
		a.ReuseAs(d, d)
	}
	var s mat.Dense
	native.Mul(&s, xc.T(), xc)
	a.Add(&a, &s)
	var trB float64
	for j := range d {
		trB += s.At(j, j)
	}
	var rho, dd float64
	delta := make([]float64, d)
	if md.n > 0 {
		rho = md.w * fb / (md.w + fb)
		for j := range d {
			delta[j] = muB[j] - md.mean[j]
			dd += delta[j] * delta[j]
		}
		for i := range d {
			for j := range d {
				a.Set(i, j, a.At(i, j)+rho*delta[i]*delta[j])
			}
		}
	}
	sym := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, 0.5*(a.At(i, j)+a.At(j, i)))
		}
	}
	if err := md.exact.Factorize(sym); err != nil {
		return kinds.Wrap(err, "refactorising the scatter matrix")
	}
	w1 := md.w + fb
	if md.n == 0 {
		copy(md.mean, muB)
	} else {
		f := fb / w1
		for j := range d {
			md.mean[j] += f * delta[j]
		}
	}
	md.trace += trB + rho*dd
	md.n += b
	md.w = w1
	return nil
}

// centred returns the mean of the b rows of X (d columns) and the rows less their mean,
// X̄: the block's own mean and scatter X̄ᵀX̄ that refactor adds to the model's.
func centred(X mat.Matrix, b, d int) ([]float64, *mat.Dense) {
	mu := make([]float64, d)
	xc := mat.NewDense(b, d, nil)
	for i := range b {
		mat.Row(xc.RawRowView(i), i, X)
	}
	vec.CentreColumns(xc.RawMatrix().Data, b, d, d, mu)
	return mu, xc
}
