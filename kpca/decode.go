package kpca

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
	"gonum.org/v1/gonum/mat"
)

// encodedModel is an encoding's body, read: the store of the model — points, running
// sums, options and counters, in a Model without a decomposition — and the stored pairs
// (n eigenvalues, m×n eigenvectors row-major), which the type of the encoding's method
// takes as its decomposition (Model.setDecomposition, RankOneModel.setEigen).
type encodedModel struct {
	md           *Model
	values, vecs []float64
}

// decode reads an encoding's body of the method want, checked as UnmarshalBinary says:
// its header, the sizes and options the header gives against the data present, then the
// arrays.
func decode(p []byte, want method) (encodedModel, error) {
	h, p, err := decodeHeader(p)
	if err != nil {
		return encodedModel{}, err
	}
	meth, err := h.method()
	if err != nil {
		return encodedModel{}, err
	}
	if meth != want {
		// The one format holds both types, whose header names the method
		// (docs/design.md, "Two types, one store"): each type decodes only its own.
		return encodedModel{}, wrongMethod(meth)
	}
	opts, rank, k, err := h.model(p, meth)
	if err != nil {
		return encodedModel{}, err
	}
	// The points go straight into the model's buffer: a copy of them first, as large
	// as the encoding, made decoding a model of 70,000 images of d = 784 peak at three
	// times its size.
	md := &Model{kern: k, opts: opts, rank: rank, d: h.Dim}
	md.setOptions()
	md.reserveStore(h.Points)
	values, vecs, err := md.readArrays(p, h.Points, h.Order)
	if err != nil {
		return encodedModel{}, err
	}
	md.stats = Stats{Points: h.Points, Refreshes: h.Refreshes, Polishes: h.Polishes}
	md.since, md.sincePolish = h.Since, h.SincePolish
	return encodedModel{md: md, values: values, vecs: vecs}, nil
}

// method returns the method the header names.
func (h *encodingHeader) method() (method, error) {
	switch h.Method {
	case methodBordered.String():
		return methodBordered, nil
	case methodRankOne.String():
		return methodRankOne, nil
	}
	return 0, fmt.Errorf("%w: method %q", ErrEncoding, h.Method)
}

// decodeHeader reads the body's length-prefixed JSON header, exactly, and returns it
// with the data that follows.
func decodeHeader(p []byte) (*encodingHeader, []byte, error) {
	if len(p) < 4 {
		return nil, nil, fmt.Errorf("%w: a body of %d bytes", ErrEncoding, len(p))
	}
	hlen := binary.LittleEndian.Uint32(p)
	p = p[4:]
	if uint64(hlen) > uint64(len(p)) {
		return nil, nil, fmt.Errorf("%w: header length %d exceeds the body", ErrEncoding, hlen)
	}
	var h encodingHeader
	dec := json.NewDecoder(bytes.NewReader(p[:hlen]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, nil, fmt.Errorf("%w: header: %v", ErrEncoding, err)
	}
	if dec.InputOffset() != int64(hlen) {
		return nil, nil, fmt.Errorf("%w: %d bytes after the header's JSON", ErrEncoding, int64(hlen)-dec.InputOffset())
	}
	return &h, p[hlen:], nil
}

// model checks the header's sizes against the data p that follows it, before anything
// is computed from them or allocated, and returns the options, rank and kernel of the
// model it describes.
func (h *encodingHeader) model(p []byte, meth method) (Options, int, kernel.Kernel, error) {
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
		return Options{}, 0, nil, fmt.Errorf("%w: sizes %d points × %d, order %d, for %d bytes of data", ErrEncoding, m, d, n, len(p))
	}
	if columns && d != 0 {
		return Options{}, 0, nil, fmt.Errorf("%w: a model of kernel %q of dimension %d (a model of kernel columns has none)", ErrEncoding, h.Kernel.Name, d)
	}
	if _, err := kinds.Floats("a point", max(d, 1)); err != nil {
		return Options{}, 0, nil, fmt.Errorf("%w: dimension %d: %v", ErrEncoding, d, err)
	}
	if want := encodingFloats(m, d, n); len(p)%8 != 0 || have != want {
		return Options{}, 0, nil, fmt.Errorf("%w: %d bytes of data, want %d", ErrEncoding, len(p), 8*want)
	}
	opts, err := h.options()
	if err != nil {
		return Options{}, 0, nil, err
	}
	if opts.Window > 0 && m > opts.Window {
		return Options{}, 0, nil, fmt.Errorf("%w: %d points in a window of %d", ErrEncoding, m, opts.Window)
	}
	if meth == methodRankOne && (opts.Components != All || opts.Window != 0) {
		return Options{}, 0, nil, fmt.Errorf("%w: a RankOneModel of Components %d, Window %d (it keeps every pair, without a window)", ErrEncoding, opts.Components, opts.Window)
	}
	rank := opts.tracked()
	exact := m // the pairs of the exact model: K′'s m−1 of the bordered centred model
	if !opts.Uncentred && meth == methodBordered {
		exact = max(m-1, 0)
	}
	if rank > 0 && n > min(rank, exact) || rank == 0 && n != exact {
		return Options{}, 0, nil, fmt.Errorf("%w: order %d for %d points, %s, rank %d", ErrEncoding, n, m, meth, rank)
	}
	k, err := encodedKernel(h.Kernel)
	if err != nil {
		return Options{}, 0, nil, err
	}
	if kernel.IsPrecomputed(k) {
		if meth == methodRankOne {
			return Options{}, 0, nil, fmt.Errorf("%w: a RankOneModel of kernel columns (kernel.Precomputed)", ErrEncoding)
		}
		if err := checkPrecomputedOptions(opts); err != nil {
			return Options{}, 0, nil, fmt.Errorf("%w: %v", ErrEncoding, err)
		}
	}
	return opts, rank, k, nil
}

// readArrays reads the data p of a model of m points whose sizes decode checked — its
// points, then n eigenvalues, m×n eigenvectors, m row sums, the total, the trace and
// the certificate — into md, which reserveStore sized for them, and returns the
// eigenvalues and eigenvectors.
func (md *Model) readArrays(p []byte, m, n int) (values, vecs []float64, err error) {
	d := md.d
	r := wire.NewReader(p)
	if err := r.FloatsTo(md.x[:m*d], ErrEncoding, "points"); err != nil {
		return nil, nil, err
	}
	arrays, err := r.Arrays(ErrEncoding, wire.Array{What: "eigenvalues", Len: n}, wire.Array{What: "eigenvectors", Len: m * n},
		wire.Array{What: "row sums", Len: m}, wire.Array{What: "sums and certificate", Len: 2 + certificateFloats})
	if err != nil {
		return nil, nil, err
	}
	values, vecs, rowSum, sums := arrays[0], arrays[1], arrays[2], arrays[3]
	c := sums[2:]
	for _, v := range c {
		if v < 0 {
			return nil, nil, fmt.Errorf("%w: certificate %v", ErrEncoding, c)
		}
	}
	copy(md.rowSum, rowSum)
	md.total, md.self = sums[0], sums[1]
	md.cert = certificate{PosNorm: c[0], NegNorm: c[1], PosTrace: c[2], NegTrace: c[3], Slack: c[4], SumErr: c[5]}
	md.m = m
	md.setView()
	return values, vecs, nil
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
