package kpca

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
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
func (md *Model) header(meth method, n int) ([]byte, error) {
	sk, ok := md.kern.(kernel.Specified)
	if !ok {
		return nil, fmt.Errorf("%w: kernel %T cannot be described (implement kernel.Specified, or use a kernel.Func)", ErrArgument, md.kern)
	}
	o := md.opts
	h := encodingHeader{
		Components: o.Components, Rank: o.Rank, Uncentred: o.Uncentred, Method: meth.String(),
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
	return md.bodyOf(methodBordered, md.basis())
}

// bodyOf is the body of the encoding of md's store and the decomposition b, of the
// given method (its header's "method").
func (md *Model) bodyOf(meth method, b basis) (wire.Body, error) {
	n := len(b.values)
	header, err := md.header(meth, n)
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

// MarshalBinaryTo writes the encoding MarshalBinary returns to w as it is produced —
// an exact model of m points encodes O(m²) bytes — with the errors of ikpca.Persistent
// (an error of w comes with the bytes written before it).
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
func (md *Model) UnmarshalBinary(data []byte) error {
	fresh, err := decodeChecked(data, decodeModel, func(md *Model) (*Model, basis) { return md, md.basis() })
	if err != nil {
		return err
	}
	md.adopt(fresh)
	return nil
}

// decodeModel is decode of a Model's encoding, its decomposition set from its pairs.
func decodeModel(p []byte) (*Model, error) {
	dc, err := decode(p, methodBordered)
	if err != nil {
		return nil, err
	}
	if err := dc.md.setDecomposition(dc.values, dc.vecs); err != nil {
		return nil, err
	}
	return dc.md, nil
}

// decodeChecked decodes data, the encoding of a model of either type, by decode, then
// checks the model against its points (verify) — its store and decomposition, which
// parts returns — before it is returned.
func decodeChecked[T any](data []byte, decode func([]byte) (T, error), parts func(T) (*Model, basis)) (T, error) {
	return wire.Decode(format, data, decode, func(got T, seed uint64) error {
		md, b := parts(got)
		_, err := md.verify(seed, b)
		return err
	})
}

// adopt makes md the decoded model fresh. Nothing of the old model stays, not even its
// workspaces. The decoded model's points and row sums are taken, not copied (CopyFrom
// then copies them onto themselves): a large model is not held twice.
func (md *Model) adopt(fresh *Model) {
	*md = Model{}
	md.d, md.x, md.rowSum = fresh.d, fresh.x, fresh.rowSum
	md.CopyFrom(fresh)
}

// UnmarshalBinaryFrom restores md from one encoding read from r, as UnmarshalBinary
// does, with the errors of ikpca.Persistent, and returns the number of bytes read.
func (md *Model) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	return format.UnmarshalFrom(r, md.UnmarshalBinary)
}
