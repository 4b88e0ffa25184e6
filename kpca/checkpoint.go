package kpca

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// ErrCheckpoint reports a checkpoint that cannot be read: not a checkpoint, an
// unsupported version, truncated, corrupted (checksum mismatch), or describing a model
// that cannot exist (sizes that disagree with the data, non-finite numbers, impossible
// parameters) even under a valid checksum.
var ErrCheckpoint = errors.New("kpca: bad checkpoint")

// Checkpoint format, version 3 (all integers and floats little-endian):
//
//	magic    8 bytes  "IKPCAMDL"
//	version  uint32   3
//	hlen     uint32   length of the header
//	header   hlen bytes of JSON: options (mode, method, rank, window, refresh, solver),
//	         kernel Spec, sizes (points m, dimension d, order n: the stored eigenpairs)
//	points   m·d float64, row-major, oldest first
//	values   n float64, the stored eigenvalues (ascending)
//	vectors  m·n float64, the stored eigenvectors in point coordinates (columns),
//	         row-major: of K′ (centred, orthogonal to 1) or K; for method RankOne of K or
//	         K′ with its trivial vector (n = m)
//	rowsums  m float64, K·1
//	total    float64, 1ᵀK1
//	trace    float64, Σ k(xᵢ, xᵢ)
//	bound    6 float64, the certificate of Options.Rank (see certificate)
//	sha256   32 bytes over everything above
//
// The kernel Spec is the JSON of kernel.Spec: Name, Sigma, Gamma, Degree, Coef0. Version
// 2 was version 3 with the Spec of its time, whose Scale and Offset were the
// polynomial's γ and c (now Gamma and Coef0), and which had no γ for RBF and Laplacian
// kernels; the version changed so that a reader of version 2 refuses a version 3 file
// rather than take a polynomial's γ for 0. Version 1 had neither rank nor window either,
// stored n·n vectors — for the centred bordered model in Helmert coordinates (n = m−1),
// the columns W of V = Q·W — and ended at the total. Load reads all three.
//
// Floats are stored bit for bit, so that a loaded model continues exactly as the saved
// one would have.
const (
	checkpointMagic   = "IKPCAMDL"
	checkpointVersion = 3
)

// legacySpec holds the fields of a version 1 or 2 header's kernel that kernel.Spec no
// longer has: the polynomial's γ and c, then named Scale and Offset.
type legacySpec struct {
	Kernel struct{ Scale, Offset float64 } `json:"kernel"`
}

type checkpointHeader struct {
	Mode             string      `json:"mode"`
	Method           string      `json:"method"`
	Rank             int         `json:"rank,omitempty"`
	Window           int         `json:"window,omitempty"`
	Block            int         `json:"block,omitempty"`
	Kernel           kernel.Spec `json:"kernel"`
	Points           int         `json:"points"`
	Dim              int         `json:"dim"`
	Order            int         `json:"order"`
	RefreshTolerance float64     `json:"refresh_tolerance"`
	CheckEvery       int         `json:"check_every"`
	Workers          int         `json:"workers"`
	Serial           int         `json:"serial"`
	MaxIterations    int         `json:"max_iterations"`
	Refreshes        int         `json:"refreshes"`
	Since            int         `json:"since"`
}

// certificateFloats is the number of floats of the certificate in a checkpoint.
const certificateFloats = 6

// Save writes the model to w in the checkpoint format above. The kernel must describe
// itself (kernel.Specified: every built-in kernel and kernel.Func); a Func's function
// is not saved, only its name, and must be supplied again to Load. A nil w is an error
// wrapping ErrArgument, a model without points (every point removed) one wrapping
// ErrEmpty.
func (md *Model) Save(w io.Writer) error {
	if isNil(w) {
		return fmt.Errorf("%w: nil writer", ErrArgument)
	}
	if md.m == 0 {
		return fmt.Errorf("%w: a model without points has nothing to save", ErrEmpty)
	}
	sk, ok := md.kern.(kernel.Specified)
	if !ok {
		return fmt.Errorf("%w: kernel %T cannot be described (implement kernel.Specified)", ErrArgument, md.kern)
	}
	b := md.basis()
	n := len(b.values)
	h := checkpointHeader{
		Mode: md.opts.Mode.String(), Method: md.opts.Method.String(), Rank: md.opts.Rank, Window: md.opts.Window, Block: md.opts.Block,
		Kernel: sk.Spec(), Points: md.m, Dim: md.d, Order: n,
		RefreshTolerance: md.opts.RefreshTolerance, CheckEvery: md.opts.CheckEvery,
		Workers: md.opts.Update.Workers, Serial: md.opts.Update.Serial, MaxIterations: md.opts.Update.MaxIterations,
		Refreshes: md.stats.Refreshes, Since: md.since,
	}
	header, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("kpca: checkpoint header: %w", err)
	}
	sum := sha256.New()
	bw := bufio.NewWriter(io.MultiWriter(w, sum))
	var buf [8]byte
	put32 := func(v uint32) { binary.LittleEndian.PutUint32(buf[:4], v); bw.Write(buf[:4]) }
	putF := func(xs ...float64) {
		for _, v := range xs {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			bw.Write(buf[:])
		}
	}
	bw.WriteString(checkpointMagic)
	put32(checkpointVersion)
	put32(uint32(len(header)))
	bw.Write(header)
	putF(md.x[:md.m*md.d]...)
	putF(b.values...)
	for i := range md.m {
		if n > 0 {
			putF(b.vecs.Data[i*b.vecs.Stride : i*b.vecs.Stride+n]...)
		}
	}
	putF(md.rowSum[:md.m]...)
	c := md.cert
	putF(md.total, md.self, c.posNorm, c.negNorm, c.posTrace, c.negTrace, c.slack, c.sumErr)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("kpca: writing checkpoint: %w", err)
	}
	if _, err := w.Write(sum.Sum(nil)); err != nil {
		return fmt.Errorf("kpca: writing checkpoint: %w", err)
	}
	return nil
}

// Load reads a model written by Save, in the current format, in version 2 or in
// version 1 (whose centred bordered models it converts from Helmert to point
// coordinates, V = Q·W, to rounding). custom supplies the kernel when the checkpoint's kernel is not a built-in
// one (a kernel.Func): it must describe itself with the same name. For a built-in
// kernel custom may be nil. A file that is not a checkpoint, of an unknown version,
// truncated or corrupted gives an error wrapping ErrCheckpoint, and so does a
// checksummed file that describes an impossible model: every size is checked against
// the length of the data before anything is allocated, and points, eigenvalues,
// eigenvectors (orthonormal, and orthogonal to 1 for a centred bordered model), row
// sums, kernel parameters and options must be finite and valid. A nil r is an error
// wrapping ErrArgument.
func Load(r io.Reader, custom kernel.Kernel) (*Model, error) {
	if isNil(r) {
		return nil, fmt.Errorf("%w: nil reader", ErrArgument)
	}
	if isNil(custom) {
		custom = nil
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: reading: %v", ErrCheckpoint, err)
	}
	version, p, err := wire.Open(raw, checkpointMagic, 4, ErrCheckpoint, "ikpca model checkpoint", 1, 2, checkpointVersion)
	if err != nil {
		return nil, err
	}
	hlen := binary.LittleEndian.Uint32(p)
	p = p[4:]
	if uint64(hlen) > uint64(len(p)) {
		return nil, fmt.Errorf("%w: header length %d exceeds the file", ErrCheckpoint, hlen)
	}
	var h checkpointHeader
	if err := json.Unmarshal(p[:hlen], &h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCheckpoint, err)
	}
	if version < 3 {
		var old legacySpec
		if err := json.Unmarshal(p[:hlen], &old); err != nil {
			return nil, fmt.Errorf("%w: header: %v", ErrCheckpoint, err)
		}
		h.Kernel.Gamma, h.Kernel.Coef0 = old.Kernel.Scale, old.Kernel.Offset
	}
	p = p[hlen:]
	// Bound every size by the data actually present before computing with it, so that
	// no product overflows and nothing is allocated for data that is not there: each of
	// m·d, m·n (n ≤ m) is at most the number of floats, hence their sum below is at most
	// 3·len(p)/8 + 9.
	m, d, n := h.Points, h.Dim, h.Order
	have := len(p) / 8
	if m < 1 || d < 1 || n < 0 || n > m || m > have || d > have/m || n > have/m {
		return nil, fmt.Errorf("%w: sizes %d points × %d, order %d, for %d bytes of data", ErrCheckpoint, m, d, n, len(p))
	}
	vectors, tail := m*n, 2+certificateFloats // v2, v3: m×n vectors, total, trace, certificate
	if version == 1 {
		vectors, tail = n*n, 1
		if h.Rank != 0 || h.Window != 0 {
			return nil, fmt.Errorf("%w: a version 1 checkpoint with rank %d, window %d", ErrCheckpoint, h.Rank, h.Window)
		}
	}
	if want := m*d + n + vectors + m + tail; len(p)%8 != 0 || have != want {
		return nil, fmt.Errorf("%w: %d bytes of data, want %d", ErrCheckpoint, len(p), 8*want)
	}
	var bad error
	floats := func(what string, k int) []float64 {
		out := make([]float64, k)
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(p))
			p = p[8:]
			if bad == nil && (math.IsNaN(out[i]) || math.IsInf(out[i], 0)) {
				bad = fmt.Errorf("%w: %s: entry %d is %g", ErrCheckpoint, what, i, out[i])
			}
		}
		return out
	}
	points, values, vecs, rowSum, rest := floats("points", m*d), floats("eigenvalues", n), floats("eigenvectors", vectors), floats("row sums", m), floats("sums", tail)
	if bad != nil {
		return nil, bad
	}

	opts := Options{Rank: h.Rank, Window: h.Window, Block: h.Block, RefreshTolerance: h.RefreshTolerance, CheckEvery: h.CheckEvery,
		Update: update.Options{Workers: h.Workers, Serial: h.Serial, MaxIterations: h.MaxIterations}}
	if !(h.RefreshTolerance >= 0) || math.IsInf(h.RefreshTolerance, 0) || h.CheckEvery < 0 || h.Refreshes < 0 || h.Since < 0 {
		return nil, fmt.Errorf("%w: refresh tolerance %g, check every %d, refreshes %d, since %d", ErrCheckpoint,
			h.RefreshTolerance, h.CheckEvery, h.Refreshes, h.Since)
	}
	switch h.Mode {
	case Centred.String():
	case Uncentred.String():
		opts.Mode = Uncentred
	default:
		return nil, fmt.Errorf("%w: mode %q", ErrCheckpoint, h.Mode)
	}
	switch h.Method {
	case Bordered.String():
	case RankOne.String():
		opts.Method = RankOne
	default:
		return nil, fmt.Errorf("%w: method %q", ErrCheckpoint, h.Method)
	}
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	if opts.Window > 0 && m > opts.Window {
		return nil, fmt.Errorf("%w: %d points in a window of %d", ErrCheckpoint, m, opts.Window)
	}
	exact := m
	if opts.Mode == Centred && opts.Method == Bordered {
		exact = m - 1
	}
	if opts.Rank > 0 && n > min(opts.Rank, exact) || opts.Rank == 0 && n != exact {
		return nil, fmt.Errorf("%w: order %d for %d points in %s/%s mode, rank %d", ErrCheckpoint, n, m, h.Mode, h.Method, opts.Rank)
	}
	var cert certificate
	var self float64
	if version == 1 {
		if opts.Mode == Centred && opts.Method == Bordered && n > 0 {
			vecs = helmertToPoints(vecs, m)
		}
	} else {
		self = rest[1]
		c := rest[2:]
		cert = certificate{posNorm: c[0], negNorm: c[1], posTrace: c[2], negTrace: c[3], slack: c[4], sumErr: c[5]}
		for _, v := range c {
			if v < 0 {
				return nil, fmt.Errorf("%w: certificate %v", ErrCheckpoint, c)
			}
		}
	}
	k, err := checkpointKernel(h.Kernel, custom)
	if err != nil {
		return nil, err
	}

	md := &Model{kern: k, opts: opts, d: d}
	md.setOptions()
	md.ensure(m)
	copy(md.x, points)
	copy(md.rowSum, rowSum)
	md.total, md.self, md.cert = rest[0], self, cert
	md.m = m
	md.setView()
	if version == 1 {
		for i := range m {
			md.self += k.Eval(md.point(i), md.point(i))
		}
		if math.IsNaN(md.self) || math.IsInf(md.self, 0) {
			return nil, fmt.Errorf("%w: the kernel's trace is %g", ErrCheckpoint, md.self)
		}
	}
	if err := md.setDecomposition(values, vecs); err != nil {
		return nil, err
	}
	md.stats = Stats{Points: m, Refreshes: h.Refreshes}
	md.since = h.Since
	return md, nil
}

// setDecomposition starts the decomposition of a loaded model from its eigenvalues and
// its m×n eigenvectors in point coordinates, checking that they are orthonormal and,
// for a centred bordered model, orthogonal to 1 (update.Thin.SetEigen's probe, and 1e-8
// relative here).
func (md *Model) setDecomposition(values, vecs []float64) error {
	m, n := md.m, len(values)
	if !md.bordered() {
		if err := md.sym.SetEigen(values, mat.NewDense(n, n, vecs)); err != nil {
			return fmt.Errorf("%w: %v", ErrCheckpoint, err)
		}
		return nil
	}
	if n == 0 {
		md.thin.Reset(m)
		return nil
	}
	if md.opts.Mode == Centred {
		for c := range n {
			var s float64
			for i := range m {
				s += vecs[i*n+c]
			}
			if !(math.Abs(s) <= 1e-8*math.Sqrt(float64(m))) {
				return fmt.Errorf("%w: eigenvector %d is not orthogonal to 1 (sum %g)", ErrCheckpoint, c, s)
			}
		}
	}
	if err := md.thin.SetEigen(values, mat.NewDense(m, n, vecs)); err != nil {
		return fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	return nil
}

// helmertToPoints converts the (m−1)×(m−1) eigenvectors W of a version-1 centred
// checkpoint, in Helmert coordinates, to point coordinates: V = Q·W, m×(m−1), a column
// at a time in O(m) (docs/design.md, "Helmert coordinates").
func helmertToPoints(w []float64, m int) []float64 {
	n := m - 1
	alpha := helmertAlpha(nil, m+1)
	v := make([]float64, m*n)
	wc, vc := make([]float64, n), make([]float64, m)
	for c := range n {
		for i := range n {
			wc[i] = w[i*n+c]
		}
		helmert(vc, wc, alpha)
		for i, x := range vc {
			v[i*n+c] = x
		}
	}
	return v
}

// checkpointKernel rebuilds the kernel of a checkpoint. A built-in kernel with invalid
// parameters (σ ≤ 0, degree < 1, …) is a bad checkpoint, not a custom kernel.
func checkpointKernel(spec kernel.Spec, custom kernel.Kernel) (kernel.Kernel, error) {
	if kernel.IsBuiltin(spec.Name) {
		k, err := kernel.New(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCheckpoint, err)
		}
		return k, nil
	}
	if custom == nil {
		return nil, fmt.Errorf("%w: the checkpoint's kernel %q is not built in: supply it to Load", ErrArgument, spec.Name)
	}
	sk, ok := custom.(kernel.Specified)
	if !ok || sk.Spec().Name != spec.Name {
		return nil, fmt.Errorf("%w: the supplied kernel does not describe itself as %q", ErrArgument, spec.Name)
	}
	if err := kernel.Validate(custom); err != nil {
		return nil, fmt.Errorf("kpca: %w", err)
	}
	return custom, nil
}
