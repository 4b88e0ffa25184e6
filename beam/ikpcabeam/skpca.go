package ikpcabeam

import (
	"fmt"

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

// NewSKPCA returns an empty model of d-dimensional points. Invalid options are an
// ErrArgument.
func NewSKPCA(d int, opts stream.SKPCAOptions) (*SKPCA, error) {
	m, err := stream.NewSKPCA(d, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArgument, err)
	}
	return &SKPCA{m}, nil
}

// Merge adds the points of o, an *SKPCA of the same dimension and options (the same
// feature map) that summarises other points; o is unchanged. Anything else, s itself
// included, is an ErrArgument and leaves s unchanged. Sketches merged in any order
// keep the certified bound: ErrorBound bounds ‖ZᵀZ − BᵀB‖₂ for all the points.
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
// bytes it refuses are an ErrModel, and leave s unchanged.
func (s *SKPCA) UnmarshalBinary(b []byte) error {
	var m stream.SKPCA
	if err := m.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%w: %w", ErrModel, err)
	}
	s.SKPCA = &m
	return nil
}
