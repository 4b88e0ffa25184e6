package ikpcabeam

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/ikpca/ikpca/stream"
)

// FitSKPCA fits streaming kernel PCA (stream.SKPCA's model, here SKPCA) of
// d-dimensional points over a PCollection<Point>: Fit with an empty SKPCA. The result
// is a PCollection<[]byte> with the model's encoding (DecodeSummary or DecodeModel read
// it); the points of another dimension or with a NaN or infinite coordinate are dead
// letters, and so are those the model refuses (coordinates so large that their random
// features are not finite), with its reason. Sketches merged in an order the runner chooses differ from a sketch of the
// same points in one process, within the certified bound: each estimates the
// eigenvalues of the features' ZᵀZ from below within its ErrorBound. Invalid options
// are an ErrArgument.
func FitSKPCA(s beam.Scope, points beam.PCollection, d int, opts stream.SKPCAOptions, fit FitOptions) (model, dead beam.PCollection, err error) {
	proto, err := NewSKPCA(d, opts)
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	return Fit(s.Scope("ikpcabeam.FitSKPCA"), points, proto, fit)
}
