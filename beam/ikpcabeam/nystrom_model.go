package ikpcabeam

import (
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/nystrom"
)

// The Nyström KPCA model is the core's nystrom.Model; its encoding starts with
// nystrom's encodingMagic.
func init() {
	newNystromModel = func(L *mat.Dense, opts NystromOptions) (Summary, error) {
		k, err := kernel.New(opts.Kernel)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrArgument, err)
		}
		m, err := nystrom.New(k, L, nystrom.Options{Tolerance: opts.Tolerance, Uncentred: opts.Uncentred})
		if err != nil {
			return nil, err
		}
		return &Nystrom{m}, nil
	}
	kinds = append(kinds, kind{name: "Nyström KPCA", magic: "IKPCANYS", summary: func() Summary { return new(Nystrom) }})
}

// newNystromModel returns an empty Nyström KPCA model on the landmarks, with the
// kernel and options of opts, as a Summary.
var newNystromModel func(landmarks *mat.Dense, opts NystromOptions) (Summary, error)

// Nystrom is Nyström kernel PCA, nystrom.Model (sums of the landmarks' feature map that
// merge by addition, with compensated summation), as a Summary, with the core's
// encoding. Everything but Merge, UnmarshalBinary and UnmarshalBinaryFrom is
// nystrom.Model's.
type Nystrom struct{ *nystrom.Model }

// Merge adds the sums of o, a *Nystrom on the same landmarks, kernel and options; o is
// unchanged. Anything else is an error (ErrArgument), and leaves n unchanged.
func (n *Nystrom) Merge(o Summary) error {
	t, ok := o.(*Nystrom)
	switch {
	case !ok || t == nil || t.Model == nil:
		return fmt.Errorf("%w: merging a Nyström model with %T", ErrArgument, o)
	case t.Model == n.Model:
		return fmt.Errorf("%w: merging a Nyström model with itself", ErrArgument)
	}
	return n.Model.Merge(t.Model)
}

// UnmarshalBinary replaces n by the model b encodes (nystrom.Model.UnmarshalBinary, a
// built-in kernel); bytes it refuses are an ErrModel, and leave n unchanged.
func (n *Nystrom) UnmarshalBinary(b []byte) error {
	var m nystrom.Model
	if err := m.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%w: %w", ErrModel, err)
	}
	n.Model = &m
	return nil
}

// UnmarshalBinaryFrom reads one encoding from r — exactly its bytes — and replaces n by
// the model it encodes (nystrom.Model.UnmarshalBinaryFrom), returning the number of
// bytes read; bytes it refuses, and a nil r, are an ErrModel, and leave n unchanged.
func (n *Nystrom) UnmarshalBinaryFrom(r io.Reader) (int, error) {
	var m nystrom.Model
	k, err := m.UnmarshalBinaryFrom(r)
	if err != nil {
		return k, fmt.Errorf("%w: %w", ErrModel, err)
	}
	n.Model = &m
	return k, nil
}
