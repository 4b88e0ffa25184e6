package ikpcabeam

import (
	"errors"
	"fmt"
	"io"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/stream"
)

// SKPCA is streaming kernel PCA, stream.SKPCA (random Fourier features sketched by
// Frequent Directions), as a Summary: it merges with another SKPCA of the same options
// and carries the core's own encoding (stream.SKPCA.MarshalBinary), so that Beam can
// ship it between workers and a fitted model is a file the core reads. Everything but
// Merge and UnmarshalBinary is stream.SKPCA's.
//
// Make one with NewSKPCA, or decode one (DecodeSummary, or UnmarshalBinary into a zero
// SKPCA). Not safe for concurrent use.
type SKPCA struct{ *stream.SKPCA }

// NewSKPCA returns an empty model of d-dimensional points with the Gaussian kernel k (a
// kernel.RBF, as stream.NewSKPCA takes). Any other kernel, and invalid options, are an
// ErrArgument.
func NewSKPCA(k kernel.Kernel, d int, opts stream.SKPCAOptions) (*SKPCA, error) {
	m, err := stream.NewSKPCA(k, d, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	return &SKPCA{m}, nil
}

// Merge adds the points of o, an *SKPCA of the same kernel, dimension and options (the
// same feature map, the same centring) that summarises other points; o is unchanged.
// Anything else, s itself included, is an ErrArgument and leaves s unchanged. Sketches
// merged in any order keep the certified bound: ErrorBound bounds ‖ZᵀZ − BᵀB‖₂ for all
// the points, and so the error of the (centred) covariance the model decomposes.
func (s *SKPCA) Merge(o Summary) error {
	t, ok := o.(*SKPCA)
	switch {
	case !ok || t == nil || t.SKPCA == nil:
		return fmt.Errorf("%w: merging an SKPCA model with %T", ErrArgument, o)
	case t.SKPCA == s.SKPCA:
		return fmt.Errorf("%w: merging an SKPCA model with itself", ErrArgument)
	}
	if err := s.SKPCA.Merge(t.SKPCA); err != nil {
		return fmt.Errorf("%w: %w", ErrArgument, err)
	}
	return nil
}

// UnmarshalBinary replaces s by the model b encodes (stream.SKPCA.UnmarshalBinary);
// bytes it refuses are an ErrModel (wrapping stream.ErrEncoding, so ikpca.ErrEncoding
// too), and leave s unchanged.
func (s *SKPCA) UnmarshalBinary(b []byte) error {
	var m stream.SKPCA
	if err := m.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%w: %w", ErrModel, err)
	}
	s.SKPCA = &m
	return nil
}

// UnmarshalBinaryFrom reads one encoding from r — exactly its bytes — and replaces s by
// the model it encodes (stream.SKPCA.UnmarshalBinaryFrom), returning the number of bytes
// read; a zero SKPCA may receive it. A nil r is an ErrArgument; bytes that are not an
// SKPCA model are an ErrModel (wrapping ikpca.ErrEncoding); r's own errors are returned
// as they are. On error s is unchanged.
func (s *SKPCA) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	var m stream.SKPCA
	n, err := m.UnmarshalBinaryFrom(r)
	switch {
	case errors.Is(err, ikpca.ErrEncoding):
		return n, fmt.Errorf("%w: %w", ErrModel, err)
	case errors.Is(err, ikpca.ErrArgument):
		return n, fmt.Errorf("%w: %w", ErrArgument, err)
	case err != nil:
		return n, err
	}
	s.SKPCA = &m
	return n, nil
}

// MarshalBinaryTo writes the model's encoding to w (stream.SKPCA.MarshalBinaryTo) and
// returns the number of bytes written. A nil w, or a zero SKPCA, is an ErrArgument.
func (s *SKPCA) MarshalBinaryTo(w io.Writer) (int, error) {
	if s.SKPCA == nil {
		return 0, fmt.Errorf("%w: a zero SKPCA (make one with NewSKPCA, or decode one)", ErrArgument)
	}
	n, err := s.SKPCA.MarshalBinaryTo(w)
	if errors.Is(err, ikpca.ErrArgument) {
		return n, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	return n, err
}
