package kpca

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// ErrCheckpoint reports a checkpoint that cannot be read: not a checkpoint, an
// unsupported version, truncated, corrupted (checksum mismatch), or describing a model
// that cannot exist (sizes that disagree with the data, non-finite numbers, impossible
// parameters) even under a valid checksum.
var ErrCheckpoint = errors.New("kpca: bad checkpoint")

// Checkpoint format, version 1 (all integers and floats little-endian):
//
//	magic    8 bytes  "IKPCAMDL"
//	version  uint32   1
//	hlen     uint32   length of the header
//	header   hlen bytes of JSON: options, kernel Spec, sizes
//	points   m·d float64, row-major
//	values   n float64, the stored eigenvalues (ascending; n = order of the stored matrix)
//	vectors  n·n float64, the stored eigenvectors (columns), row-major
//	rowsums  m float64, K·1
//	total    float64, 1ᵀK1
//	sha256   32 bytes over everything above
//
// Floats are stored bit for bit, so that a loaded model continues exactly as the saved
// one would have.
const (
	checkpointMagic   = "IKPCAMDL"
	checkpointVersion = 1
)

type checkpointHeader struct {
	Mode             string      `json:"mode"`
	Method           string      `json:"method"`
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

// Save writes the model to w in the checkpoint format above. The kernel must describe
// itself (kernel.Specified: every built-in kernel and kernel.Func); a Func's function
// is not saved, only its name, and must be supplied again to Load. A nil w is an error
// wrapping ErrArgument.
func (md *Model) Save(w io.Writer) error {
	if isNil(w) {
		return fmt.Errorf("%w: nil writer", ErrArgument)
	}
	sk, ok := md.kern.(kernel.Specified)
	if !ok {
		return fmt.Errorf("%w: kernel %T cannot be described (implement kernel.Specified)", ErrArgument, md.kern)
	}
	n := md.sym.Len()
	h := checkpointHeader{
		Mode: md.opts.Mode.String(), Method: md.opts.Method.String(), Kernel: sk.Spec(),
		Points: md.m, Dim: md.d, Order: n,
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
	var b [8]byte
	put32 := func(v uint32) { binary.LittleEndian.PutUint32(b[:4], v); bw.Write(b[:4]) }
	putF := func(xs []float64) {
		for _, v := range xs {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			bw.Write(b[:])
		}
	}
	bw.WriteString(checkpointMagic)
	put32(checkpointVersion)
	put32(uint32(len(header)))
	bw.Write(header)
	putF(md.x[:md.m*md.d])
	putF(md.sym.Values(nil))
	if n > 0 {
		putF(md.sym.Vectors().(*mat.Dense).RawMatrix().Data[:n*n])
	}
	putF(md.rowSum[:md.m])
	putF([]float64{md.total})
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("kpca: writing checkpoint: %w", err)
	}
	if _, err := w.Write(sum.Sum(nil)); err != nil {
		return fmt.Errorf("kpca: writing checkpoint: %w", err)
	}
	return nil
}

// Load reads a model written by Save. custom supplies the kernel when the checkpoint's
// kernel is not a built-in one (a kernel.Func): it must describe itself with the same
// name. For a built-in kernel custom may be nil. A file that is not a checkpoint, of an
// unknown version, truncated or corrupted gives an error wrapping ErrCheckpoint, and so
// does a checksummed file that describes an impossible model: every size is checked
// against the length of the data before anything is allocated, and points, eigenvalues,
// eigenvectors, row sums, kernel parameters and options must be finite and valid. A nil
// r is an error wrapping ErrArgument.
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
	if len(raw) < len(checkpointMagic)+8+sha256.Size || string(raw[:len(checkpointMagic)]) != checkpointMagic {
		return nil, fmt.Errorf("%w: not an ikpca model checkpoint", ErrCheckpoint)
	}
	body, stored := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], stored) {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or corrupted)", ErrCheckpoint)
	}
	p := body[len(checkpointMagic):]
	if v := binary.LittleEndian.Uint32(p); v != checkpointVersion {
		return nil, fmt.Errorf("%w: version %d, this library reads version %d", ErrCheckpoint, v, checkpointVersion)
	}
	hlen := binary.LittleEndian.Uint32(p[4:])
	p = p[8:]
	if uint64(hlen) > uint64(len(p)) {
		return nil, fmt.Errorf("%w: header length %d exceeds the file", ErrCheckpoint, hlen)
	}
	var h checkpointHeader
	if err := json.Unmarshal(p[:hlen], &h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCheckpoint, err)
	}
	p = p[hlen:]
	// Bound every size by the data actually present before computing with it, so that
	// no product overflows and nothing is allocated for data that is not there: each of
	// m·d, n·n is at most the number of floats, hence their sum below is at most
	// 5·len(p)/8 + 1.
	m, d, n := h.Points, h.Dim, h.Order
	have := len(p) / 8
	if m < 1 || d < 1 || n < 0 || n > m || m > have || d > have/m || n > 0 && n > have/n {
		return nil, fmt.Errorf("%w: sizes %d points × %d, order %d, for %d bytes of data", ErrCheckpoint, m, d, n, len(p))
	}
	if want := m*d + n + n*n + m + 1; len(p)%8 != 0 || have != want {
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
	points, values, vectors, rowSum, total := floats("points", m*d), floats("eigenvalues", n), floats("eigenvectors", n*n), floats("row sums", m), floats("total", 1)[0]
	if bad != nil {
		return nil, bad
	}

	opts := Options{RefreshTolerance: h.RefreshTolerance, CheckEvery: h.CheckEvery,
		Update: update.Options{Workers: h.Workers, Serial: h.Serial, MaxIterations: h.MaxIterations}}
	if !(h.RefreshTolerance >= 0) || math.IsInf(h.RefreshTolerance, 0) || h.CheckEvery < 0 || h.Refreshes < 0 || h.Since < 0 {
		return nil, fmt.Errorf("%w: refresh tolerance %g, check every %d, refreshes %d, since %d", ErrCheckpoint,
			h.RefreshTolerance, h.CheckEvery, h.Refreshes, h.Since)
	}
	if err := opts.Update.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCheckpoint, err)
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
	wantOrder := m
	if opts.Mode == Centred && opts.Method == Bordered {
		wantOrder = m - 1
	}
	if n != wantOrder {
		return nil, fmt.Errorf("%w: order %d for %d points in %s/%s mode", ErrCheckpoint, n, m, h.Mode, h.Method)
	}
	k, err := checkpointKernel(h.Kernel, custom)
	if err != nil {
		return nil, err
	}

	md := &Model{kern: k, opts: opts, d: d}
	md.sym.SetOptions(opts.Update)
	md.backup.SetOptions(opts.Update)
	md.step.SetOptions(opts.Update)
	md.ensure(m)
	copy(md.x, points)
	copy(md.rowSum, rowSum)
	md.total = total
	md.m = m
	md.setView()
	if n > 0 {
		if err := md.sym.SetEigen(values, mat.NewDense(n, n, vectors)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCheckpoint, err)
		}
	}
	md.stats = Stats{Points: m, Refreshes: h.Refreshes}
	md.since = h.Since
	return md, nil
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
