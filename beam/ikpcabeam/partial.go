package ikpcabeam

import (
	"encoding"
	"fmt"

	"github.com/ikpca/ikpca/nystrom"
)

// partial is what a bundle's points add to the prototype of a fit, without the
// prototype: the sums of a Nyström model's points (nystrom.Sums), which name the
// feature map they were made with by its digest. Partials of one prototype merge with
// each other and add to the prototype, giving the model the partial models would give
// (docs/design.md, "Beyond one machine"). They are what a fit's folds emit for a
// model that has them (partialSummary), so that the merge decodes no feature map: a
// Nyström model's decoding verifies its map, O(r²·(d + r')), about a second at
// r = 2000 and d = 784, where a partial's checks its sums only, O(r'²), and it is
// about half the bytes.
type partial interface {
	// Len returns the number of points the partial holds.
	Len() int
	// merge adds o, a partial of the same prototype, leaving o unchanged; anything
	// else is an error and leaves the partial unchanged.
	merge(o partial) error
	encoding.BinaryMarshaler
}

// partialSummary is a Summary whose points travel as a partial.
type partialSummary interface {
	Summary
	// partialTo returns the partial of the model's points, in dst's storage when dst
	// is one of the model's kind (nil: allocated).
	partialTo(dst partial) (partial, error)
	// addPartial adds a partial of the model's prototype; anything else is an error
	// and leaves the model unchanged.
	addPartial(p partial) error
}

// The Nyström sums' encoding starts with nystrom's magic for Sums.
func init() {
	kinds = append(kinds, kind{name: "Nyström sums", magic: "IKPCANSU", partial: decodeNystromSums})
}

// nystromSums is a Nyström model's partial.
type nystromSums struct{ s nystrom.Sums }

// decodeNystromSums decodes nystrom.Sums; bytes they refuse are an ErrModel.
func decodeNystromSums(b []byte) (partial, error) {
	p := new(nystromSums)
	if err := p.s.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	return p, nil
}

// Len returns the number of points of the sums.
func (p *nystromSums) Len() int { return p.s.Len() }

// merge adds o's sums.
func (p *nystromSums) merge(o partial) error {
	t, ok := o.(*nystromSums)
	if !ok || t == nil {
		return fmt.Errorf("%w: merging Nyström sums with %T", ErrArgument, o)
	}
	return p.s.Merge(&t.s)
}

// MarshalBinary encodes the sums.
func (p *nystromSums) MarshalBinary() ([]byte, error) { return p.s.MarshalBinary() }

// partialTo writes the model's sums to dst when it is a *nystromSums, to new sums
// otherwise.
func (n *Nystrom) partialTo(dst partial) (partial, error) {
	p, ok := dst.(*nystromSums)
	if !ok || p == nil {
		p = new(nystromSums)
	}
	if err := n.Model.SumsTo(&p.s); err != nil {
		return nil, err
	}
	return p, nil
}

// addPartial adds sums of the model's feature map (nystrom.Model.AddSums).
func (n *Nystrom) addPartial(o partial) error {
	t, ok := o.(*nystromSums)
	if !ok || t == nil {
		return fmt.Errorf("%w: adding %T to a Nyström model", ErrArgument, o)
	}
	return n.Model.AddSums(&t.s)
}
