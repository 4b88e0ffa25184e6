package kpca

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/check"
	"github.com/ikpca/ikpca/internal/probe"
	"github.com/ikpca/ikpca/internal/vec"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/native"
	"github.com/ikpca/ikpca/update"
)

// The encoding of a Model, version 4, in the frame of every model's encoding
// (internal/wire: magic "IKPCAMDL", version, body length, body, SHA-256), all integers
// and floats little-endian (docs/design.md, "Encodings"):
//
//	hlen     uint32   length of the header
//	header   hlen bytes of JSON (encodingHeader): the options (components, rank,
//	         uncentred, method, window, block, batch max, refresh, solver), the
//	         kernel.Spec, the sizes (points m ≥ 0, dimension d ≥ 1, or 0 for
//	         kernel.Precomputed, whose model holds no coordinates; order n: the
//	         stored eigenpairs) and the refresh counters
//	points   m·d float64, row-major, oldest first
//	values   n float64, the stored eigenvalues (ascending)
//	vectors  m·n float64, the stored eigenvectors in point coordinates (columns),
//	         row-major: of K′ (centred, orthogonal to 1) or K, every pair or the top
//	         Rank; for a RankOneModel of K or K′ with its trivial vector (n = m)
//	rowsums  m float64, K·1
//	total    float64, 1ᵀK1
//	trace    float64, Σ k(xᵢ, xᵢ)
//	bound    6 float64, the certificate of a tracked model (see certificate)
//
// Floats are stored bit for bit, and the header's in JSON's shortest form that reads
// back to the same float, so that a decoded model continues exactly as the saved one
// would have. Versions 1 to 3 (Save's checkpoints, with a Mode and no Components) are
// not read.
const (
	encodingMagic   = "IKPCAMDL"
	encodingVersion = 4
	encodingWhat    = "kpca model"
)

// encodingHeader is the JSON header of the encoding.
type encodingHeader struct {
	Components       int         `json:"components"`
	Rank             int         `json:"rank"`
	Uncentred        bool        `json:"uncentred"`
	Method           string      `json:"method"`
	Window           int         `json:"window"`
	Block            int         `json:"block"`
	BatchMax         int         `json:"batch_max"`
	RefreshTolerance float64     `json:"refresh_tolerance"`
	CheckEvery       int         `json:"check_every"`
	Workers          int         `json:"workers"`
	Serial           int         `json:"serial"`
	MaxIterations    int         `json:"max_iterations"`
	Kernel           kernel.Spec `json:"kernel"`
	Points           int         `json:"points"`
	Dim              int         `json:"dim"`
	Order            int         `json:"order"`
	Refreshes        int         `json:"refreshes"`
	Since            int         `json:"since"`
	// A tracked window's self-polish (Options.WindowPolish) and its counters, left out
	// when zero, as they are for every other model.
	PolishEvery  int `json:"polish_every,omitempty"`
	PolishPasses int `json:"polish_passes,omitempty"`
	Polishes     int `json:"polishes,omitempty"`
	SincePolish  int `json:"since_polish,omitempty"`
}

// certificateFloats is the number of floats of the certificate in an encoding.
const certificateFloats = 6

// encodingFloats returns the number of floats of the body of a model of m points of
// dimension d and n stored eigenpairs.
func encodingFloats(m, d, n int) int { return m*d + n + m*n + m + 2 + certificateFloats }

// header returns the encoding's header of md, or an error if its kernel cannot describe
// itself.
func (md *Model) header(n int) ([]byte, error) {
	sk, ok := md.kern.(kernel.Specified)
	if !ok {
		return nil, fmt.Errorf("%w: kernel %T cannot be described (implement kernel.Specified, or use a kernel.Func)", ErrArgument, md.kern)
	}
	o := md.opts
	h := encodingHeader{
		Components: o.Components, Rank: o.Rank, Uncentred: o.Uncentred, Method: o.method.String(),
		Window: o.Window, Block: o.Block, BatchMax: o.BatchMax,
		RefreshTolerance: o.RefreshTolerance, CheckEvery: o.CheckEvery,
		Workers: o.Update.Workers, Serial: o.Update.Serial, MaxIterations: o.Update.MaxIterations,
		Kernel: sk.Spec(), Points: md.m, Dim: md.d, Order: n,
		Refreshes: md.stats.Refreshes, Since: md.since,
		PolishEvery: o.WindowPolish.Every, PolishPasses: o.WindowPolish.Passes,
		Polishes: md.stats.Polishes, SincePolish: md.sincePolish,
	}
	b, err := json.Marshal(h)
	if err != nil {
		// A Spec holds a float json refuses (NaN): kernel.Validate refused it before.
		return nil, fmt.Errorf("%w: encoding the header: %v", ErrArgument, err)
	}
	return b, nil
}

// format is the encoding's frame, its name in errors and its error kinds.
var format = wire.Format{Magic: encodingMagic, Version: encodingVersion, What: encodingWhat,
	Argument: ErrArgument, Encoding: ErrEncoding}

// body returns the body of md's encoding, its length and its writer: a zero Model, or a
// kernel that cannot describe itself, is an ErrArgument.
func (md *Model) body() (wire.Body, error) {
	if err := md.ready(); err != nil {
		return wire.Body{}, err
	}
	b := md.basis()
	n := len(b.values)
	header, err := md.header(n)
	if err != nil {
		return wire.Body{}, err
	}
	length := 4 + uint64(len(header)) + 8*uint64(encodingFloats(md.m, md.d, n))
	return wire.Body{Len: length, Write: func(f *wire.Fields) {
		f.U32(uint32(len(header)))
		f.Bytes(header)
		f.F64(md.x[:md.m*md.d]...)
		f.F64(b.values...)
		for i := range md.m {
			if n > 0 {
				f.F64(b.vecs.Data[i*b.vecs.Stride : i*b.vecs.Stride+n]...)
			}
		}
		f.F64(md.rowSum[:md.m]...)
		c := md.cert
		f.F64(md.total, md.self, c.PosNorm, c.NegNorm, c.PosTrace, c.NegTrace, c.Slack, c.SumErr)
	}}, nil
}

// MarshalBinaryTo writes the encoding of the model to w (the format above) as it is
// produced, never holding it all in memory — an exact model of m points encodes
// O(m²) bytes — and returns the number of bytes written. The kernel must describe itself
// (kernel.Specified: every built-in kernel, and a kernel.Func, which the decoding
// program must have registered with kernel.Register). A nil w, a zero Model and a kernel
// that cannot describe itself are errors wrapping ErrArgument; an error of w is
// returned as it is, with the bytes written before it.
func (md *Model) MarshalBinaryTo(w io.Writer) (int, error) { return format.MarshalTo(w, md.body) }

// MarshalBinary returns the encoding of the model (see MarshalBinaryTo), which
// UnmarshalBinary restores bit for bit. It implements encoding.BinaryMarshaler.
func (md *Model) MarshalBinary() ([]byte, error) { return format.Marshal(md.body) }

// UnmarshalBinary restores the model from an encoding written by MarshalBinary or
// MarshalBinaryTo — exactly one, nothing before or after it — replacing md entirely:
// md may be a zero Model or any other. The model continues exactly as the saved one
// would have. Bytes that are not an encoded Model, of an unknown version, truncated or
// corrupted give an error wrapping ErrEncoding, and so does a checksummed encoding of a
// model that cannot exist: every size is checked against the length of the data before
// anything is allocated, and points, eigenvalues, eigenvectors (orthonormal, and
// orthogonal to 1 for a centred bordered model), row sums, kernel parameters and options
// must be finite and valid. The decomposition and the running sums must then belong to
// the points, within rounding: the row sums, total and trace are recomputed, and the
// stored pairs' residual ‖K′V·x − VΛ·x‖ measured for random x (every pair, at rank r),
// within the model's own ErrorBound at rank r (docs/design.md, "Encodings"). This costs one pass over
// the points, O(m²·d) — a few seconds at 20,000 points of d = 784 on two cores, as a
// pass of Polish — beside the O(m·(d + n)) of reading them; a model of
// kernel.Precomputed has no kernel to recompute with, and only its total and trace are
// checked against its row sums and eigenvalues. A kernel that is not built in must have
// been registered with kernel.Register under its name; if not, the error wraps
// ErrArgument. On error md is unchanged.
//
// The encoding of a RankOneModel is an error wrapping ErrEncoding (decode it with
// RankOneModel).
func (md *Model) UnmarshalBinary(data []byte) error { return md.unmarshal(data, methodBordered) }

// unmarshal is UnmarshalBinary of an encoding of the given method: the one format holds
// both types, whose header names the method (docs/design.md, "Two types, one store"),
// and each type decodes only its own, before the cost of verify.
func (md *Model) unmarshal(data []byte, want method) error {
	decodeWant := func(p []byte) (*Model, error) {
		got, err := decode(p)
		if err == nil && got.opts.method != want {
			return nil, wrongMethod(got.opts.method)
		}
		return got, err
	}
	fresh, err := wire.Decode(format, data, decodeWant, func(got *Model, seed uint64) error {
		_, err := got.verify(seed)
		return err
	})
	if err != nil {
		return err
	}
	// Nothing of the old model stays, not even its workspaces. The decoded model's
	// points and row sums are taken, not copied (CopyFrom then copies them onto
	// themselves): a large model is not held twice.
	*md = Model{}
	md.d, md.x, md.rowSum = fresh.d, fresh.x, fresh.rowSum
	md.CopyFrom(fresh)
	return nil
}

// UnmarshalBinaryFrom reads one encoding from r — exactly its bytes, so that several
// encodings can follow one another in a stream — and restores the model from it as
// UnmarshalBinary does, returning the number of bytes read. A nil r is an error
// wrapping ErrArgument; a stream that ends before the encoding does wraps ErrEncoding
// (and io.ErrUnexpectedEOF); another error of r is returned as it is. On error md is
// unchanged.
func (md *Model) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return format.UnmarshalFrom(r, md.UnmarshalBinary)
}

// decode returns the model of an encoding's body, checked as UnmarshalBinary says.
func decode(p []byte) (*Model, error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("%w: a body of %d bytes", ErrEncoding, len(p))
	}
	hlen := binary.LittleEndian.Uint32(p)
	p = p[4:]
	if uint64(hlen) > uint64(len(p)) {
		return nil, fmt.Errorf("%w: header length %d exceeds the body", ErrEncoding, hlen)
	}
	var h encodingHeader
	dec := json.NewDecoder(bytes.NewReader(p[:hlen]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrEncoding, err)
	}
	if dec.InputOffset() != int64(hlen) {
		return nil, fmt.Errorf("%w: %d bytes after the header's JSON", ErrEncoding, int64(hlen)-dec.InputOffset())
	}
	p = p[hlen:]
	// Bound every size by the data actually present before computing with it, so that
	// no product overflows and nothing is allocated for data that is not there: each of
	// m·d and m·n (n ≤ m) is at most the number of floats, hence their sum below is at
	// most 3·len(p)/8 + 8. A model without points has no data to bound its dimension:
	// check.MaxFloats does, as for New.
	m, d, n := h.Points, h.Dim, h.Order
	have := len(p) / 8
	// A model of kernel columns (kernel.Precomputed) has dimension 0, and only it.
	columns := strings.EqualFold(h.Kernel.Name, kernel.Precomputed{}.Spec().Name)
	if m < 0 || d < 1 && !(columns && d == 0) || n < 0 || n > m || m > have || m > 0 && (d > have/m || n > have/m) {
		return nil, fmt.Errorf("%w: sizes %d points × %d, order %d, for %d bytes of data", ErrEncoding, m, d, n, len(p))
	}
	if columns && d != 0 {
		return nil, fmt.Errorf("%w: a model of kernel %q of dimension %d (a model of kernel columns has none)", ErrEncoding, h.Kernel.Name, d)
	}
	if _, err := kinds.Floats("a point", max(d, 1)); err != nil {
		return nil, fmt.Errorf("%w: dimension %d: %v", ErrEncoding, d, err)
	}
	if want := encodingFloats(m, d, n); len(p)%8 != 0 || have != want {
		return nil, fmt.Errorf("%w: %d bytes of data, want %d", ErrEncoding, len(p), 8*want)
	}
	opts, err := h.options()
	if err != nil {
		return nil, err
	}
	if opts.Window > 0 && m > opts.Window {
		return nil, fmt.Errorf("%w: %d points in a window of %d", ErrEncoding, m, opts.Window)
	}
	rank := opts.tracked()
	exact := m // the pairs of the exact model: K′'s m−1 of the bordered centred model
	if !opts.Uncentred && opts.method == methodBordered {
		exact = max(m-1, 0)
	}
	if rank > 0 && n > min(rank, exact) || rank == 0 && n != exact {
		return nil, fmt.Errorf("%w: order %d for %d points, %s, rank %d", ErrEncoding, n, m, opts.method, rank)
	}
	k, err := encodedKernel(h.Kernel)
	if err != nil {
		return nil, err
	}
	if kernel.IsPrecomputed(k) {
		if err := checkPrecomputedOptions(opts); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrEncoding, err)
		}
	}

	// The points go straight into the model's buffer: a copy of them first, as large
	// as the encoding, made decoding a model of 70,000 images of d = 784 peak at three
	// times its size.
	md := &Model{kern: k, opts: opts, rank: rank, d: d}
	md.setOptions()
	md.ensure(m)
	r := wire.NewReader(p)
	if err := r.FloatsTo(md.x[:m*d], ErrEncoding, "points"); err != nil {
		return nil, err
	}
	arrays, err := r.Arrays(ErrEncoding, wire.Array{What: "eigenvalues", Len: n}, wire.Array{What: "eigenvectors", Len: m * n},
		wire.Array{What: "row sums", Len: m}, wire.Array{What: "sums and certificate", Len: 2 + certificateFloats})
	if err != nil {
		return nil, err
	}
	values, vecs, rowSum, sums := arrays[0], arrays[1], arrays[2], arrays[3]
	c := sums[2:]
	for _, v := range c {
		if v < 0 {
			return nil, fmt.Errorf("%w: certificate %v", ErrEncoding, c)
		}
	}
	copy(md.rowSum, rowSum)
	md.total, md.self = sums[0], sums[1]
	md.cert = certificate{PosNorm: c[0], NegNorm: c[1], PosTrace: c[2], NegTrace: c[3], Slack: c[4], SumErr: c[5]}
	md.m = m
	md.setView()
	if err := md.setDecomposition(values, vecs); err != nil {
		return nil, err
	}
	md.stats = Stats{Points: m, Refreshes: h.Refreshes, Polishes: h.Polishes}
	md.since, md.sincePolish = h.Since, h.SincePolish
	return md, nil
}

// options returns the options a header records, which must be valid and resolved (the
// Rank of Components k recorded, not zero).
func (h *encodingHeader) options() (Options, error) {
	o := Options{
		Components: h.Components, Rank: h.Rank, Uncentred: h.Uncentred, Window: h.Window, Block: h.Block,
		BatchMax: h.BatchMax, RefreshTolerance: h.RefreshTolerance, CheckEvery: h.CheckEvery,
		Update:       update.Options{Workers: h.Workers, Serial: h.Serial, MaxIterations: h.MaxIterations},
		WindowPolish: WindowPolish{Every: h.PolishEvery, Passes: h.PolishPasses},
	}
	switch h.Method {
	case methodBordered.String():
	case methodRankOne.String():
		o.method = methodRankOne
	default:
		return o, fmt.Errorf("%w: method %q", ErrEncoding, h.Method)
	}
	if o.Components != All && o.Rank == 0 || h.Refreshes < 0 || h.Since < 0 || math.IsInf(o.RefreshTolerance, 0) ||
		h.Polishes < 0 || h.SincePolish < 0 {
		return o, fmt.Errorf("%w: components %d, rank %d, refresh tolerance %g, refreshes %d, since %d, polishes %d, since polish %d",
			ErrEncoding, o.Components, o.Rank, o.RefreshTolerance, h.Refreshes, h.Since, h.Polishes, h.SincePolish)
	}
	v, err := o.validate()
	if err != nil {
		return o, fmt.Errorf("%w: options: %v", ErrEncoding, err)
	}
	return v, nil
}

// encodedKernel rebuilds the kernel of an encoding: a built-in kernel from its
// parameters, which must be valid (else the encoding describes no model: ErrEncoding),
// or the kernel.Func registered under its name (if none is, ErrArgument: the program
// must register it before decoding; a name no Func can have is ErrEncoding).
func encodedKernel(spec kernel.Spec) (kernel.Kernel, error) {
	k, err := kernel.New(spec)
	switch {
	case err == nil:
		return k, nil
	case kernel.IsBuiltin(spec.Name) || spec.Name == "" || !utf8.ValidString(spec.Name):
		return nil, fmt.Errorf("%w: kernel: %v", ErrEncoding, err)
	}
	return nil, fmt.Errorf("%w: the encoding's kernel %q is neither built in nor registered (kernel.Register it before decoding): %v",
		ErrArgument, spec.Name, err)
}

// setDecomposition starts the decomposition of a decoded model from its eigenvalues and
// its m×n eigenvectors in point coordinates, checking that they are orthonormal and,
// for a centred bordered model, orthogonal to 1 (update.Thin.SetEigen's probe, and 1e-8
// relative here).
func (md *Model) setDecomposition(values, vecs []float64) error {
	m, n := md.m, len(values)
	if md.paper != nil {
		return md.paper.setEigen(values, vecs)
	}
	if n == 0 {
		md.thin.Reset(m)
		return nil
	}
	if !md.opts.Uncentred {
		for c := range n {
			var s float64
			for i := range m {
				s += vecs[i*n+c]
			}
			if !(math.Abs(s) <= 1e-8*math.Sqrt(float64(m))) {
				return fmt.Errorf("%w: eigenvector %d is not orthogonal to 1 (sum %g)", ErrEncoding, c, s)
			}
		}
	}
	if err := md.thin.SetEigen(values, mat.NewDense(m, n, vecs)); err != nil {
		return fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	return nil
}

// verifyProbes is the number of random probes of the residual in verify: one bad pair j
// goes unseen only if every probe's entry xⱼ is near zero (uniform in [−½, ½): below
// 1e-2 of ½ with probability 1e-2 each). The tolerances are check.SumsTolerance and
// check.PairsTolerance.
const verifyProbes = 2

// verify checks that a decoded model's decomposition and running sums belong to its
// points (docs/design.md, "Encodings"), the check UnmarshalBinary makes after the
// structural ones: with Sᵢ = Σⱼ|k(xᵢ, xⱼ)| the row sums of the kernel values' magnitudes,
//
//   - the trace Σk(xᵢ, xᵢ) recomputed, within check.SumsTolerance·Σ|k(xᵢ, xᵢ)|;
//   - the row sums K·1, within check.SumsTolerance·Sᵢ each, and the total 1ᵀK1 within
//     check.SumsTolerance·ΣSᵢ (both also within the running sums' own rounding record, the
//     certificate's SumErr);
//   - for verifyProbes random x (seeded by seed), ‖K′·V·x − V·Λ·x‖ ≤ β·‖V·x‖, with
//     β = ErrorBound() (zero for the exact model) + check.PairsTolerance·max|λ| +
//     4·m·ε·max Sᵢ: since K′V − VΛ = (K′ − K̃)V, a tracked model's residual is at most
//     its documented bound; the last term is the rounding of the product K·(Vx)
//     (Higham §3.5: |fl(Ky) − Ky| ≤ γₘ·|K|·|y|, and ‖|K|‖₂ ≤ max Sᵢ) and of the stored
//     pairs, which is of the kernel values' scale, not of ‖K′‖: at a wide bandwidth the
//     entries are near 1 and ‖K′‖ far below;
//   - for the exact model, the trace identity Σλ = trace K′ (centred Σk(xᵢ, xᵢ) −
//     1ᵀK1/m), within check.PairsTolerance·Σ|λ| and the rounding of the sums.
//
// A model of kernel.Precomputed has no kernel to recompute anything from: only the
// total against the row sums and the trace identity are checked. A model without
// points has nothing to check. The cost is one pass over the points for
// verifyProbes + 1 vectors, O(m²·d) (kernel values in tiles, as Polish's passes: a pass
// over 20,000 Fashion-MNIST images takes 6 s on two cores), and O(m·n) for the probes.
// It returns the largest ratio of a deviation to its tolerance (at most 1 when the
// model passes), the margin the tests report.
func (md *Model) verify(seed uint64) (float64, error) {
	m := md.m
	if m == 0 {
		return 0, nil
	}
	var margin check.Margin
	within := margin.Within
	b := md.basis()
	n := len(b.values)
	var sumAbs, big float64
	for _, v := range b.values {
		sumAbs += math.Abs(v)
		big = math.Max(big, math.Abs(v))
	}
	rowSums := md.rowSum[:m]
	if md.precomputed() {
		var sum, abs float64
		for _, v := range rowSums {
			sum += v
			abs += math.Abs(v)
		}
		if !within(sum, md.total, check.SumsTolerance*abs+float64(m)*md.cert.SumErr) {
			return margin.Worst, fmt.Errorf("%w: the total %g is not the sum %g of the row sums", ErrEncoding, md.total, sum)
		}
		return margin.Worst, md.verifyTrace(b.values, sumAbs, within)
	}
	var diag, diagAbs float64
	for i := range m {
		v := md.kern.Eval(md.point(i), md.point(i))
		diag += v
		diagAbs += math.Abs(v)
	}
	// The certificate's SumErr is the running sums' own record of their rounding (of
	// Σk(xᵢ, xᵢ) + 1ᵀK1/m, method Bordered).
	if !within(md.self, diag, check.SumsTolerance*diagAbs+md.cert.SumErr) {
		return margin.Worst, fmt.Errorf("%w: the trace %g is not that of the points, %g", ErrEncoding, md.self, diag)
	}

	// One pass: K·(C·V·X) and K·1, with X the probes of the exact model (n×verifyProbes)
	// or, tracked, the identity: V itself, each pair checked on its own.
	tests := verifyProbes
	if md.rank > 0 {
		tests = n
	}
	X := mat.NewDense(max(n, 1), max(tests, 1), nil)
	x := make([]float64, n)
	for p := range tests {
		if md.rank > 0 {
			X.Set(p, p, 1)
			continue
		}
		probe.Fill(x, seed^uint64(p+1)*0x9E3779B97F4A7C15|1)
		for j, v := range x {
			X.Set(j, p, v)
		}
	}
	Q := mat.NewDense(m, tests+1, nil)
	vx := make([]float64, tests) // ‖V·x‖
	for p := range tests {
		y := Q.ColView(p).(*mat.VecDense)
		if n > 0 {
			xp := X.ColView(p).(*mat.VecDense).RawVector()
			xp.N = n
			native.Gemv(blas.NoTrans, 1, b.vecs, xp, 0, y.RawVector())
		}
		var yy float64 // ‖V·x‖, summed here: mat.Norm would reach gonum's BLAS registry
		for i := range m {
			yy += y.AtVec(i) * y.AtVec(i)
		}
		vx[p] = math.Sqrt(yy)
	}
	if !md.opts.Uncentred {
		centreColumns(Q.Slice(0, m, 0, tests).(*mat.Dense))
	}
	for i := range m {
		Q.Set(i, tests, 1)
	}
	var W mat.Dense
	pr := md.passer()
	pr.raw, pr.abs = true, make([]float64, m)
	err := pr.pass(context.Background(), &W, Q)
	pr.release()
	if err != nil {
		return margin.Worst, fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	var sum, maxS, sumS float64
	for i, r := range rowSums {
		got, s := W.At(i, tests), pr.abs[i]
		if !within(r, got, check.SumsTolerance*s) {
			return margin.Worst, fmt.Errorf("%w: row sum %d is %g, the points give %g", ErrEncoding, i, r, got)
		}
		sum += got
		maxS = math.Max(maxS, s)
		sumS += s
	}
	if !within(md.total, sum, check.SumsTolerance*sumS+float64(m)*md.cert.SumErr) {
		return margin.Worst, fmt.Errorf("%w: the total %g is not that of the points, %g", ErrEncoding, md.total, sum)
	}
	if err := md.verifyTrace(b.values, sumAbs, within); err != nil || n == 0 {
		return margin.Worst, err
	}
	rnd := check.PairsTolerance*big + 4*float64(m)*vec.Roundoff*maxS
	below, above := md.errorRange()
	beta := math.Max(below, above) + rnd
	if !md.opts.Uncentred {
		centreColumns(W.Slice(0, m, 0, tests).(*mat.Dense)) // K′·V·X
	}
	lx := make([]float64, n)
	ys := make([]float64, m)
	for p := range tests {
		x := X.RawMatrix()
		for j := range n {
			lx[j] = b.values[j] * x.Data[j*x.Stride+p]
		}
		for i := range m {
			ys[i] = W.At(i, p)
		}
		var rho float64 // (V·x)ᵀK′(V·x), tracked: the Rayleigh quotient of pair p
		if md.rank > 0 {
			for i := range m {
				rho += ys[i] * b.vecs.Data[i*b.vecs.Stride+p]
			}
		}
		native.Gemv(blas.NoTrans, -1, b.vecs, blas64.Vector{N: n, Inc: 1, Data: lx}, 1, blas64.Vector{N: m, Inc: 1, Data: ys})
		if res := vec.Norm(ys); !within(res, 0, beta*vx[p]) {
			return margin.Worst, fmt.Errorf("%w: the eigenpairs are not those of the points: ‖K′Vx − VΛx‖ = %.3g > %.3g·‖Vx‖",
				ErrEncoding, res, beta)
		}
		if md.rank > 0 {
			// ρ − λ = vᵀEv = vᵀPv − vᵀNv lies within [−‖N‖, ‖P‖] (certificate).
			d := rho - b.values[p]
			if !within(d, math.Max(-below, math.Min(d, above)), rnd) {
				return margin.Worst, fmt.Errorf("%w: pair %d's eigenvalue %g against its Rayleigh quotient %g, beyond the certificate's [−%g, %g]",
					ErrEncoding, p, b.values[p], rho, below, above)
			}
		}
	}
	return margin.Worst, nil
}

// verifyTrace checks the trace identity (verify), the sum of the eigenvalues'
// magnitudes sumAbs, through verify's within: trace E = trace K′ − Σλ is zero for the
// exact model and, for a tracked one, trace P − trace N with 0 ≤ trace P ≤ Σθ⁺ and
// 0 ≤ trace N ≤ Σθ⁻ (certificate): within [−Σθ⁻, Σθ⁺]. The tolerance is the rounding
// of the sums (check.SumsTolerance, the certificate's SumErr), of the pairs (check.PairsTolerance
// of Σ|λ|, and the deflations' slack, a step's rounding in each of the n values).
func (md *Model) verifyTrace(values []float64, sumAbs float64, within func(got, want, tol float64) bool) error {
	var sum float64
	for _, v := range values {
		sum += v
	}
	m := float64(md.m)
	c := md.cert
	trE := md.traceK() - sum
	tol := check.PairsTolerance*sumAbs + (check.SumsTolerance+4*m*vec.Roundoff)*(math.Abs(md.self)+math.Abs(md.total)/m) +
		c.SumErr + float64(len(values))*c.Slack
	// want is the nearest point of the interval: the deviation is the distance to it.
	want := c.Nearest(trE)
	if md.rank == 0 {
		want = 0
	}
	if !within(trE, want, tol) {
		return fmt.Errorf("%w: the eigenvalues sum to %g, the trace of the points' matrix is %g (the truncations dropped %g and %g)",
			ErrEncoding, sum, md.traceK(), c.PosTrace, -c.NegTrace)
	}
	return nil
}
