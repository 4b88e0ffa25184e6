package pca

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/probe"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

// Encoding of a Model: the frame of every encoding of the module (magic "IKPCAPCA",
// version 1; internal/wire, docs/design.md "Encodings") around the body, integers and
// floats little-endian:
//
//	dim       uint64  d
//	options   uint64 Components (All as 2⁶⁴ − 1), uint64 Rank, uint64 Window
//	points    uint64 n, float64 W, float64 trace S
//	cert      6 float64: the rank-r certificate's sums (zero for the exact model)
//	mean      d float64
//	pairs     uint64 k (d for the exact model, at most Rank at rank r), then k
//	          float64 eigenvalues ascending and the d×k eigenvectors row-major
//	window    with a Window, the n points oldest first (n×d float64) and their n
//	          weights; nothing otherwise
//
// The decomposition is stored as it is held, so that a restored model continues bit
// for bit as the saved one would have.
const (
	magic   = "IKPCAPCA"
	version = 1
)

// format is the encoding's frame, its name in errors and its error kinds.
var format = wire.Format{Magic: magic, Version: version, What: "PCA model", Argument: ErrArgument, Encoding: ErrEncoding}

// body writes the encoding's body.
func (md *Model) body(f *wire.Fields) {
	o := md.opts
	f.U64(uint64(md.d))
	f.U64(uint64(int64(o.Components)))
	f.U64(uint64(o.Rank))
	f.U64(uint64(o.Window))
	f.U64(uint64(md.n))
	f.F64(md.w, md.trace)
	c := md.cert
	f.F64(c.PosNorm, c.NegNorm, c.PosTrace, c.NegTrace, c.Slack, c.SumErr)
	f.F64(md.mean...)
	values, g := md.stored()
	k := len(values)
	f.U64(uint64(k))
	f.F64(values...)
	for i := range md.d {
		if k > 0 {
			f.F64(g.Data[i*g.Stride : i*g.Stride+k]...)
		}
	}
	if o.Window > 0 {
		for i := range md.n {
			f.F64(md.point(i)...)
		}
		for i := range md.n {
			f.F64(md.winW[md.slot(i)])
		}
	}
}

// encode returns the body of md's encoding; a zero Model is an ErrArgument.
func (md *Model) encode() (wire.Body, error) {
	if err := md.ready(); err != nil {
		return wire.Body{}, err
	}
	return wire.Counted(md.body), nil
}

// MarshalBinary encodes the model — its options, mean, decomposition and, in a window,
// its points — in the format above. It implements encoding.BinaryMarshaler and leaves
// the model unchanged. A zero Model is an ErrArgument.
func (md *Model) MarshalBinary() ([]byte, error) { return format.Marshal(md.encode) }

// MarshalBinaryTo writes the encoding MarshalBinary returns to w, 64 KiB at a time,
// with the errors of ikpca.Persistent.
func (md *Model) MarshalBinaryTo(w io.Writer) (int, error) { return format.MarshalTo(w, md.encode) }

// UnmarshalBinaryFrom restores md from one encoding read from r, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (md *Model) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return format.UnmarshalFrom(r, md.UnmarshalBinary)
}

// UnmarshalBinary replaces md by the model encoded in data (by MarshalBinary); a zero
// Model may receive it. It implements encoding.BinaryUnmarshaler. Data that is not an
// encoded model, of another version, truncated, corrupted or with bytes left over,
// options New refuses, sizes the bytes present do not hold, a number that is not
// finite, or a state no points give — a negative weight or trace or eigenvalue beyond
// rounding, weight or a mean without points, eigenvectors that are not orthonormal, a
// window holding another number of points than n or a weight that is not positive, or a
// state that does not belong to what is stored — eigenvalues that do not sum to the
// trace (within the certificate at rank r), or a window's weight, mean, trace or pairs
// not those of its points, recomputed in O(n·d) a vector (docs/design.md, "Linear
// PCA") — gives an error wrapping ErrEncoding and leaves md unchanged.
func (md *Model) UnmarshalBinary(data []byte) error {
	got, err := wire.Decode(format, data, decode, func(got *Model, seed uint64) error {
		_, err := got.verify(seed)
		return err
	})
	if err != nil {
		return err
	}
	md.replace(got)
	return nil
}

// replace makes md the model src, field by field: an update.Sym or Thin must not be
// copied as a value (its solver's workers point into it), so the decompositions are
// copied with CopyFrom, and the rollback copies start afresh.
func (md *Model) replace(src *Model) {
	md.opts, md.d, md.n, md.w, md.trace, md.cert = src.opts, src.d, src.n, src.w, src.trace, src.cert
	md.mean, md.z, md.values, md.row = src.mean, src.z, src.values, src.row
	md.win, md.winW, md.head = src.win, src.winW, src.head
	md.exact, md.thin, md.saved = update.Sym{}, update.Thin{}, snapshot{}
	if src.opts.Rank > 0 {
		md.thin.CopyFrom(&src.thin)
		md.thin.Reserve(src.d, src.opts.Rank+1)
	} else {
		md.exact.CopyFrom(&src.exact)
		md.exact.Reserve(src.d)
	}
}

// decode reads the body of an encoded Model.
func decode(body []byte) (*Model, error) {
	r := wire.NewReader(body)
	md, n, err := decodeHeader(r)
	if err != nil {
		return nil, err
	}
	opts := md.opts
	scalars, err := r.Floats(8, ErrEncoding, "the weight, trace and certificate")
	if err != nil {
		return nil, err
	}
	w, trace := scalars[0], scalars[1]
	c := certificate{PosNorm: scalars[2], NegNorm: scalars[3], PosTrace: scalars[4], NegTrace: scalars[5], Slack: scalars[6], SumErr: scalars[7]}
	for _, v := range scalars[2:] {
		if v < 0 || opts.Rank == 0 && v != 0 {
			return nil, badEncoding("certificate %v", scalars[2:])
		}
	}
	dd := md.d
	if r.Len() < 8*dd+8 {
		return nil, badEncoding("truncated before the pairs")
	}
	mean, err := r.Floats(dd, ErrEncoding, "the mean")
	if err != nil {
		return nil, err
	}
	values, vectors, err := decodePairs(r, opts, dd)
	if err != nil {
		return nil, err
	}
	var pts, wts []float64
	if opts.Window > 0 {
		if pts, wts, err = decodeWindow(r, opts.Window, n, dd); err != nil {
			return nil, err
		}
	}
	if r.Len() != 0 {
		return nil, badEncoding("%d bytes left over", r.Len())
	}
	if err := checkState(values, mean, n, w, trace); err != nil {
		return nil, err
	}
	if kk := len(values); kk > 0 {
		if err := setPairs(md, values, mat.NewDense(dd, kk, vectors)); err != nil {
			return nil, badEncoding("%v", err)
		}
	}
	md.n, md.w, md.trace, md.cert = n, w, trace, c
	copy(md.mean, mean)
	md.win, md.winW = pts, wts
	return md, nil
}

// badEncoding returns an error wrapping ErrEncoding that says what was wrong.
func badEncoding(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrEncoding, fmt.Sprintf(format, args...))
}

// decodeHeader reads the fixed header of an encoding — dimension, options and point
// count — and returns an empty model of those options and the count n.
func decodeHeader(r *wire.Reader) (md *Model, n int, err error) {
	const fixed = 8*5 + 8*2 + 8*6
	if r.Len() < fixed {
		return nil, 0, badEncoding("%d bytes, want at least %d", r.Len(), fixed)
	}
	d := r.U64()
	comp := int64(r.U64())
	rank, window, n64 := r.U64(), r.U64(), r.U64()
	// Every size is bounded by the bytes present before anything is allocated: the mean
	// alone holds 8·d bytes, the window 8·n·(d+1).
	left := uint64(r.Len())
	if d < 1 || d > left/8 || rank > d || window > math.MaxInt32 || n64 > 1<<62 || comp < All || comp > int64(d) {
		return nil, 0, badEncoding("dimension %d, components %d, rank %d, window %d, %d points for %d bytes", d, comp, rank, window, n64, left)
	}
	opts := Options{Components: int(comp), Rank: int(rank), Window: int(window)}
	if err := opts.validate(int(d)); err != nil {
		return nil, 0, badEncoding("%v", err)
	}
	md, err = New(int(d), opts)
	if err != nil {
		return nil, 0, badEncoding("%v", err)
	}
	return md, int(n64), nil
}

// decodePairs reads the eigenpairs of a model of options opts and dimension d: their
// count k, bounded by the bytes left in r, the k eigenvalues and the d×k eigenvectors.
func decodePairs(r *wire.Reader, opts Options, d int) (values, vectors []float64, err error) {
	k := r.U64()
	if k > uint64(d) || uint64(r.Len())/8/uint64(d+1) < k {
		return nil, nil, badEncoding("%d pairs of dimension %d for %d bytes", k, d, r.Len())
	}
	kk := int(k)
	if opts.Rank == 0 && kk != d || opts.Rank > 0 && kk > opts.Rank {
		return nil, nil, badEncoding("%d pairs with rank %d and dimension %d", kk, opts.Rank, d)
	}
	if values, err = r.Floats(kk, ErrEncoding, "the eigenvalues"); err != nil {
		return nil, nil, err
	}
	if vectors, err = r.Floats(d*kk, ErrEncoding, "the eigenvectors"); err != nil {
		return nil, nil, err
	}
	return values, vectors, nil
}

// decodeWindow reads the n points of dimension d and their weights, all positive, of a
// window of the given size, which must be all the bytes left in r.
func decodeWindow(r *wire.Reader, window, n, d int) (pts, wts []float64, err error) {
	if n > window || r.Len() != 8*n*(d+1) {
		return nil, nil, fmt.Errorf("%w: a window of %d holding %d points in %d bytes", ErrEncoding, window, n, r.Len())
	}
	if pts, err = r.Floats(n*d, ErrEncoding, "the window's points"); err != nil {
		return nil, nil, err
	}
	if wts, err = r.Floats(n, ErrEncoding, "the window's weights"); err != nil {
		return nil, nil, err
	}
	for _, v := range wts {
		if !(v > 0) {
			return nil, nil, fmt.Errorf("%w: a window weight %g", ErrEncoding, v)
		}
	}
	return pts, wts, nil
}

// checkState checks the state an encoding describes: a model of n points of total
// weight w > 0 (none, zero mean and trace without points), and a positive
// semi-definite S up to rounding: an eigenvalue (values, ascending) or a trace below
// −1e-8 of the largest eigenvalue no stream leaves (Remove refuses such a downdate).
func checkState(values, mean []float64, n int, w, trace float64) error {
	var big float64
	for i, v := range values {
		big = math.Max(big, math.Abs(v))
		if i > 0 && v < values[i-1] {
			return fmt.Errorf("%w: eigenvalues not ascending", ErrEncoding)
		}
	}
	switch {
	case n == 0 && (w != 0 || trace != 0 || big != 0 || !allZero(mean)):
		return fmt.Errorf("%w: no points, but weight %g, trace %g, eigenvalues up to %g", ErrEncoding, w, trace, big)
	case n > 0 && !(w > 0):
		return fmt.Errorf("%w: %d points of weight %g", ErrEncoding, n, w)
	case trace < 0 || len(values) > 0 && values[0] < -negativeTolerance*big:
		return fmt.Errorf("%w: trace %g, or an eigenvalue below −1e-8 of the largest", ErrEncoding, trace)
	}
	return nil
}

// setPairs starts md's decomposition from the eigenpairs, checking their
// orthonormality (update's SetEigen).
func setPairs(md *Model, values []float64, vectors *mat.Dense) error {
	if md.opts.Rank > 0 {
		return md.thin.SetEigen(values, vectors)
	}
	return md.exact.SetEigen(values, vectors)
}

// allZero reports whether every entry of x is zero.
func allZero(x []float64) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

// verifyProbes is the number of random probes of an exact model's residual in verify,
// whose tolerances are check.SumsTolerance and check.PairsTolerance.
const verifyProbes = 2

// verify checks that a decoded model's state belongs to its points, after decode's
// structural checks. Every model: the trace identity, trace S − Σλ zero for the exact
// model (within check.PairsTolerance·Σ|λ| and check.SumsTolerance·trace S) and, at rank r, within
// the certificate's [−Σθ⁻, Σθ⁺] (certificate). A model with a Window stores its points,
// and its state is recomputed from them, O(n·d) for each vector: the weight W = Σwᵢ and
// the mean Σwᵢxᵢ/W within check.SumsTolerance of Σ|terms|, the trace Σwᵢ‖xᵢ − μ‖², and the
// pairs' residual ‖S·V·x − V·Λ·x‖ ≤ β·‖V·x‖ with S = Σwᵢ(xᵢ − μ)(xᵢ − μ)ᵀ, β =
// ErrorBound() + check.PairsTolerance·max|λ| + 4·n·ε·trace S (the rounding of the products
// with Z, S = ZᵀZ, Higham §3.5): for verifyProbes random x
// (seeded by seed) for the exact model, every pair on its own at rank r, whose Rayleigh
// quotient vᵀSv − λ must also lie within the certificate's [−‖N‖, ‖P‖]. A model without
// a window keeps no points: any mean and weight are those of some points, and only the
// trace identity binds its pairs. It returns the largest ratio of a deviation to its
// tolerance (at most 1 when the model passes), the margin the tests report.
func (md *Model) verify(seed uint64) (float64, error) {
	var margin check.Margin
	within := margin.Within
	values, g := md.stored()
	k := len(values)
	var sum, sumAbs, big float64
	for _, v := range values {
		sum += v
		sumAbs += math.Abs(v)
		big = math.Max(big, math.Abs(v))
	}
	c := md.cert
	// The trace identity against the running trace.
	trTol := check.PairsTolerance*sumAbs + check.SumsTolerance*md.trace + c.SumErr + float64(k)*c.Slack
	trE := md.trace - sum
	want := c.Nearest(trE) // the interval's nearest point
	if md.opts.Rank == 0 {
		want = 0
	}
	if !within(trE, want, trTol) {
		return margin.Worst, fmt.Errorf("%w: the eigenvalues sum to %g, the trace is %g", ErrEncoding, sum, md.trace)
	}
	if md.opts.Window == 0 || md.n == 0 {
		return margin.Worst, nil
	}
	win, err := md.verifyWindowSums(&margin, c)
	if err != nil || k == 0 {
		return margin.Worst, err
	}
	return margin.Worst, md.verifyWindowPairs(&margin, win, values, g, seed, big)
}

// windowSums are what verifyWindowSums recomputes from a window's points: Z, the
// weighted centred points (S = ZᵀZ, n×d), the trace of S, and the carry of the running
// mean's rounding into the running sums.
type windowSums struct {
	z         []float64
	tr, carry float64
}

// verifyWindowSums checks a window's weight, mean and trace against its points, within
// the rounding of the running sums (and the certificate c's), and returns the sums.
func (md *Model) verifyWindowSums(margin *check.Margin, c certificate) (windowSums, error) {
	within := margin.Within
	d, n := md.d, md.n
	var w float64
	for i := range n {
		w += md.winW[i]
	}
	if !within(md.w, w, check.SumsTolerance*w) {
		return windowSums{}, fmt.Errorf("%w: the weight %g is not that of the window's points, %g", ErrEncoding, md.w, w)
	}
	mu := make([]float64, d)
	abs := make([]float64, d)
	for i := range n {
		for j, v := range md.point(i) {
			mu[j] += md.winW[i] * v
			abs[j] += md.winW[i] * math.Abs(v)
		}
	}
	for j := range mu {
		mu[j] /= w
		if !within(md.mean[j], mu[j], check.SumsTolerance*abs[j]/w) {
			return windowSums{}, fmt.Errorf("%w: the mean's coordinate %d is %g, the window's points give %g", ErrEncoding, j, md.mean[j], mu[j])
		}
	}
	z := make([]float64, n*d) // √wᵢ·(xᵢ − μ): S = ZᵀZ
	var tr float64
	for i := range n {
		s := math.Sqrt(md.winW[i])
		for j, v := range md.point(i) {
			e := s * (v - mu[j])
			z[i*d+j] = e
			tr += e * e
		}
	}
	// An error δμ of the running mean puts 2·Σwᵢ(xᵢ − μ)ᵀδμ into the running trace and
	// up to 2·‖δμ‖·Σwᵢ‖xᵢ − μ‖ ≤ 2·‖δμ‖·√(W·trace S) into S (Cauchy–Schwarz): with the
	// mean's tolerance, carry. Points far from the origin against their spread (an
	// offset of 1e4 and a spread of 1e-2 measured a running trace 5e-12 off after
	// 2,000 steps of a window) need it.
	carry := 2 * check.SumsTolerance * vec.Norm(abs) / w * math.Sqrt(w*tr)
	if !within(md.trace, tr, check.SumsTolerance*tr+c.SumErr+carry) {
		return windowSums{}, fmt.Errorf("%w: the trace %g is not that of the window's points, %g", ErrEncoding, md.trace, tr)
	}
	return windowSums{z: z, tr: tr, carry: carry}, nil
}

// verifyWindowPairs checks the stored pairs (values, vectors g; the largest |value|
// big) against the window's points: residuals ‖SVx − VΛx‖ within the certificate and
// rounding for random probes x (exact) or each pair (at a rank, with its Rayleigh
// quotient within the certificate's interval).
func (md *Model) verifyWindowPairs(margin *check.Margin, win windowSums, values []float64, g blas64.General, seed uint64, big float64) error {
	within := margin.Within
	d, n, k := md.d, md.n, len(values)
	z, tr, carry := win.z, win.tr, win.carry
	below, above := md.errorRange()
	Z := blas64.General{Rows: n, Cols: d, Stride: d, Data: z}
	rnd := check.PairsTolerance*big + 4*float64(n)*vec.Roundoff*tr + carry
	beta := math.Max(below, above) + rnd
	tests := verifyProbes
	if md.opts.Rank > 0 {
		tests = k
	}
	x := make([]float64, k)
	y := make([]float64, d)  // V·x
	zy := make([]float64, n) // Z·V·x
	r := make([]float64, d)  // S·V·x − V·Λ·x
	for p := range tests {
		if md.opts.Rank > 0 {
			clear(x)
			x[p] = 1
		} else {
			probe.Fill(x, seed^uint64(p+1)*0x9E3779B97F4A7C15|1)
		}
		native.Gemv(blas.NoTrans, 1, g, blas64.Vector{N: k, Inc: 1, Data: x}, 0, blas64.Vector{N: d, Inc: 1, Data: y})
		native.Gemv(blas.NoTrans, 1, Z, blas64.Vector{N: d, Inc: 1, Data: y}, 0, blas64.Vector{N: n, Inc: 1, Data: zy})
		native.Gemv(blas.Trans, 1, Z, blas64.Vector{N: n, Inc: 1, Data: zy}, 0, blas64.Vector{N: d, Inc: 1, Data: r})
		rho := vec.Dot(zy, zy) // (Vx)ᵀS(Vx)
		for j := range x {
			x[j] *= values[j]
		}
		native.Gemv(blas.NoTrans, -1, g, blas64.Vector{N: k, Inc: 1, Data: x}, 1, blas64.Vector{N: d, Inc: 1, Data: r})
		if res := vec.Norm(r); !within(res, 0, beta*vec.Norm(y)) {
			return fmt.Errorf("%w: the eigenpairs are not those of the window's points: ‖SVx − VΛx‖ = %.3g > %.3g·‖Vx‖", ErrEncoding, res, beta)
		}
		if md.opts.Rank > 0 {
			// ρ − λ = vᵀEv = vᵀPv − vᵀNv lies within [−‖N‖, ‖P‖] (certificate).
			if e := rho - values[p]; !within(e, math.Max(-below, math.Min(e, above)), rnd) {
				return fmt.Errorf("%w: pair %d's eigenvalue %g against its Rayleigh quotient %g, beyond the certificate's [−%g, %g]",
					ErrEncoding, p, values[p], rho, below, above)
			}
		}
	}
	return nil
}
