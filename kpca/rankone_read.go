package kpca

import (
	"errors"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca"
	"github.com/ikpca/ikpca/internal/wire"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/update"
)

// The read side and the encoding of a RankOneModel: the store's (docs/design.md, "Two
// types, one store"), given the basis of its decomposition, which leaves out the trivial
// eigenvector a centred RankOneModel stores and never reports.

// Values returns the eigenvalues in descending order: the m of K (uncentred) or the
// m−1 of K′ other than its trivial zero along 1 (centred). dst follows Model.Values.
func (r *RankOneModel) Values(dst []float64) []float64 { return r.model().valuesOf(r.basis(), dst) }

// Components returns the number of eigenvalues Values reports: m uncentred, m−1 centred.
func (r *RankOneModel) Components() int { return r.model().componentsOf(r.pairs()) }

// ExplainedVariance returns each component's share of the total variance, as
// Model.ExplainedVariance does.
func (r *RankOneModel) ExplainedVariance(dst []float64) []float64 {
	return r.model().explainedOf(r.basis(), dst)
}

// VectorsTo stores the unit eigenvectors in the columns of dst, signed and shaped as by
// Model.VectorsTo.
func (r *RankOneModel) VectorsTo(dst *mat.Dense) { r.model().vectorsOf(r.basis(), dst) }

// Scores writes the training scores of the top k components to dst, as Model.Scores
// does, with its errors.
func (r *RankOneModel) Scores(dst *mat.Dense, k int) error {
	if err := r.ready(); err != nil {
		return err
	}
	return r.md.scoresOf(r.basis(), dst, k)
}

// Transform projects the rows of X onto the top k components, as Model.Transform does,
// with its errors (those of ikpca.Model.Transform).
func (r *RankOneModel) Transform(dst *mat.Dense, X mat.Matrix, k int) error {
	if err := r.ready(); err != nil {
		return err
	}
	return r.md.transformOf(r.basis(), dst, X, k)
}

// Points copies the points into the rows of dst, as Model.Points does.
func (r *RankOneModel) Points(dst *mat.Dense) { r.model().Points(dst) }

// Len returns the number of points.
func (r *RankOneModel) Len() int { return r.model().Len() }

// Dim returns the dimension of the points.
func (r *RankOneModel) Dim() int { return r.model().Dim() }

// Centred reports whether the model decomposes K′ = CKC (the default) rather than K.
func (r *RankOneModel) Centred() bool { return r.model().Centred() }

// Bytes returns the memory the model holds in its arrays, in bytes: O(m²).
func (r *RankOneModel) Bytes() int {
	return r.model().Bytes() + r.sym.Bytes() + r.saved.Bytes() + 8*(cap(r.ones)+cap(r.proj))
}

// Kernel returns the model's kernel.
func (r *RankOneModel) Kernel() kernel.Kernel { return r.model().Kernel() }

// Options returns the model's options.
func (r *RankOneModel) Options() Options { return r.model().Options() }

// Stats returns statistics of the model and its last step; Stats.Last is the last of the
// step's updates.
func (r *RankOneModel) Stats() Stats { return r.model().Stats() }

// UpdateStats appends to dst the statistics of each eigen-update of the last step, in
// order, and returns it: three uncentred and five centred, the expansion included (in
// which every old component deflates and no product is needed).
func (r *RankOneModel) UpdateStats(dst []update.Stats) []update.Stats {
	return r.model().UpdateStats(dst)
}

// MarshalBinaryTo writes the encoding of the model to w as Model.MarshalBinaryTo does,
// in Model's format: its header names the method "rank-one".
func (r *RankOneModel) MarshalBinaryTo(w io.Writer) (int, error) {
	return format.MarshalTo(w, r.body)
}

// MarshalBinary returns the encoding of the model (see MarshalBinaryTo).
func (r *RankOneModel) MarshalBinary() ([]byte, error) {
	return format.Marshal(r.body)
}

// body is the body of r's encoding: the store's, with the method "rank-one" and every
// stored pair, the trivial one included.
func (r *RankOneModel) body() (wire.Body, error) {
	if err := r.ready(); err != nil {
		return wire.Body{}, err
	}
	b := r.basis()
	b.skip = -1
	return r.md.bodyOf(methodRankOne, b)
}

// UnmarshalBinary restores the model from an encoding of a RankOneModel, replacing r
// entirely, with Model.UnmarshalBinary's checks. The encoding of a Model is an error
// wrapping ErrEncoding (decode it with Model). On error r is unchanged.
func (r *RankOneModel) UnmarshalBinary(data []byte) error {
	fresh, err := decodeChecked(data, decodeRankOne, func(r *RankOneModel) (*Model, basis) { return r.md, r.basis() })
	if err != nil {
		return err
	}
	// As Model.adopt: nothing of the old model stays.
	*r = RankOneModel{md: &Model{d: fresh.md.d, x: fresh.md.x, rowSum: fresh.md.rowSum}}
	r.md.copyStore(fresh.md, r.ensure)
	r.setOptions()
	r.sym.CopyFrom(&fresh.sym)
	return nil
}

// decodeRankOne is decode of a RankOneModel's encoding (see decodeModel).
func decodeRankOne(p []byte) (*RankOneModel, error) {
	dc, err := decode(p, methodRankOne)
	if err != nil {
		return nil, err
	}
	r := &RankOneModel{md: dc.md}
	r.setOptions()
	if err := r.setEigen(dc.values, dc.vecs); err != nil {
		return nil, err
	}
	return r, nil
}

// UnmarshalBinaryFrom reads one encoding from r and restores the model from it, as
// UnmarshalBinary does, returning the number of bytes read.
func (r *RankOneModel) UnmarshalBinaryFrom(rd io.Reader) (int, error) {
	return format.UnmarshalFrom(rd, r.UnmarshalBinary)
}

// methodError is the error of decoding an encoding of one type into the other: it
// wraps ErrEncoding, and UnmarshalFrom tells it from the others to decode the other type.
type methodError struct{ got method }

func (e methodError) Error() string {
	if e.got == methodRankOne {
		return ErrEncoding.Error() + ": a RankOne model: decode it with RankOneModel"
	}
	return ErrEncoding.Error() + ": a Model's encoding (method bordered): decode it with Model"
}

func (e methodError) Unwrap() error { return ErrEncoding }

// wrongMethod is the error of an encoding of the given method decoded into the other type.
func wrongMethod(got method) error { return methodError{got} }

// UnmarshalFrom reads one encoding from r, of a Model or a RankOneModel — whichever it
// holds — and returns that model (a *Model or a *RankOneModel) and the number of bytes
// read, as their UnmarshalBinaryFrom does, with its errors: a program that reads models
// it did not write need not know their type.
func UnmarshalFrom(r io.Reader) (ikpca.Incremental, int, error) {
	var out ikpca.Incremental
	n, err := format.UnmarshalFrom(r, func(data []byte) error {
		md := new(Model)
		err := md.UnmarshalBinary(data)
		if errors.As(err, new(methodError)) {
			ro := new(RankOneModel)
			if err = ro.UnmarshalBinary(data); err == nil {
				out = ro
			}
			return err
		}
		if err == nil {
			out = md
		}
		return err
	})
	return out, n, err
}
