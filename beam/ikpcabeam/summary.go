package ikpcabeam

import (
	"bytes"
	"encoding"
	"fmt"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kpca"
)

// Summary is a model that is a mergeable summary of its points: two summaries of
// disjoint sets of points, made with the same options, merge into the summary of their
// union, and a summary encodes itself into bytes that decode to the same model. It is
// what a fit spread over workers needs (Fit): Add folds a bundle's points into a
// partial model, Merge merges the partial models in a CombineFn, and the encoding is
// how partial models and prototypes travel between workers, the CombineFn
// accumulator's coder and the fit's output.
type Summary interface {
	ikpca.Model
	// Add adds one point; a bad point is an error and leaves the model unchanged.
	Add(x []float64) error
	// Merge adds the points of o, a model of the same kind and options; o is
	// unchanged. Anything else is an error, and leaves the model unchanged.
	Merge(o Summary) error
	// Reset forgets the points, keeping the options, the kernel and what the model
	// derived from them (a Nyström model's landmarks and map, an SKPCA's features),
	// without allocating: a worker's partial model for its next bundle.
	Reset()
	// MarshalBinary encodes the model; UnmarshalBinary, on a zero value of the model's
	// type, decodes it. The encoding starts with 8 bytes that name its kind.
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// kind is an encoding of a model this package reads, known by its first bytes.
type kind struct {
	name  string
	magic string
	// summary returns a zero Summary to decode into, for a model that can be fitted
	// here; load decodes a model that can only be projected with.
	summary func() Summary
	load    func(b []byte) (ikpca.Model, error)
	// partial decodes a partial (the sums of a bundle's points, partial.go).
	partial func(b []byte) (partial, error)
}

// kinds are the encodings DecodeModel and DecodeSummary know (nystrom_model.go adds
// the Nyström KPCA model's).
var kinds = []kind{
	// The checkpoint of an incremental model, kpca.Model.MarshalBinary's encoding; its
	// magic is kpca's encodingMagic.
	{name: "kpca checkpoint", magic: "IKPCAMDL", load: loadCheckpoint},
	// stream.SKPCA's encoding; its magic is stream's skpcaMagic.
	{name: "SKPCA", magic: "IKPCASKP", summary: func() Summary { return new(SKPCA) }},
}

// kindOf returns the kind of an encoding.
func kindOf(b []byte) (kind, error) {
	for _, k := range kinds {
		if bytes.HasPrefix(b, []byte(k.magic)) {
			return k, nil
		}
	}
	head := b[:min(len(b), 8)]
	return kind{}, fmt.Errorf("%w: unknown kind of model (first bytes %q)", ErrModel, head)
}

// DecodeSummary decodes the encoding of a Summary (an SKPCA, a Nyström KPCA model).
// Bytes of another kind, or that do not decode, are an ErrModel.
func DecodeSummary(b []byte) (Summary, error) {
	k, err := kindOf(b)
	if err != nil {
		return nil, err
	}
	if k.summary == nil {
		return nil, fmt.Errorf("%w: a %s is not a mergeable model", ErrModel, k.name)
	}
	s := k.summary()
	if err := s.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return s, nil
}

// DecodeModel decodes any model this package knows — a Summary's encoding or a kpca
// checkpoint (of a model with a built-in kernel, or one registered with
// kernel.Register) — for projection. Bytes that do not decode are an ErrModel.
func DecodeModel(b []byte) (ikpca.Model, error) {
	k, err := kindOf(b)
	if err != nil {
		return nil, err
	}
	if k.load != nil {
		return k.load(b)
	}
	if k.summary == nil {
		return nil, fmt.Errorf("%w: a %s is not a model", ErrModel, k.name)
	}
	return DecodeSummary(b)
}

// loadCheckpoint reads a kpca checkpoint.
func loadCheckpoint(b []byte) (ikpca.Model, error) {
	m := new(kpca.Model)
	if err := m.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	return m, nil
}
