package ikpcabeam

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/stream"
)

// FitSKPCA fits streaming kernel PCA (stream.SKPCA's model, here SKPCA) of
// d-dimensional points with the Gaussian kernel k (a kernel.RBF) over a
// PCollection<Point>: Fit with an empty SKPCA, centred in feature space unless
// opts.Uncentred. The result is a PCollection<[]byte> with the model's encoding
// (DecodeSummary or DecodeModel read it); the points of another dimension or with a NaN
// or infinite coordinate are dead letters, and so are those the model refuses
// (coordinates so large that their random features are not finite), with its reason.
// Sketches merged in an order the runner chooses differ from a sketch of the same
// points in one process, within the certified bound: each estimates the eigenvalues of
// the features' covariance ZᵀZ − n·z̄z̄ᵀ (uncentred, ZᵀZ) from below within its
// ErrorBound. Another kernel than a kernel.RBF, and invalid options, are an
// ErrArgument. The empty model, whose random features take 8·D·d bytes (12.5 MB at
// D = 2000, d = 784), is built on a worker from the options, not held in the
// pipeline's graph (docs/design.md, "Beyond one machine").
func FitSKPCA(s beam.Scope, points beam.PCollection, k kernel.Kernel, d int, opts stream.SKPCAOptions, fit FitOptions) (model, dead beam.PCollection, err error) {
	if err := checkGlobal("FitSKPCA", points); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	// Built here too, to refuse what cannot be built at construction.
	proto, err := NewSKPCA(k, d, opts)
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	if fit, err = checkFit(fit); err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	rbf, ok := proto.Kernel().(kernel.RBF)
	if !ok {
		return beam.PCollection{}, beam.PCollection{}, fmt.Errorf("%w: SKPCA with a %T kernel", ErrArgument, proto.Kernel())
	}
	s = s.Scope("ikpcabeam.FitSKPCA")
	b := beam.ParDo(s, &skpcaPrototypeFn{Sigma: rbf.Sigma, Gamma: rbf.Gamma, Dim: d, Options: opts}, beam.Impulse(s))
	return fitOn(s, points, b, d, 0, fit)
}

func init() {
	perBundle(&skpcaPrototypeFn{})
}

// skpcaPrototypeFn builds the empty SKPCA of its options on a worker and emits its
// encoding, or failedPrototype of the reason it cannot be built (fit.go,
// prototypeError). Its main input is an impulse.
type skpcaPrototypeFn struct {
	Sigma, Gamma float64
	Dim          int
	Options      stream.SKPCAOptions
}

// ProcessElement emits the prototype.
func (fn *skpcaPrototypeFn) ProcessElement(_ []byte, emit func([]byte)) {
	m, err := NewSKPCA(kernel.RBF{Sigma: fn.Sigma, Gamma: fn.Gamma}, fn.Dim, fn.Options)
	if err != nil {
		emit(failedPrototype(err))
		return
	}
	b, err := m.MarshalBinary()
	if err != nil {
		emit(failedPrototype(err))
		return
	}
	emit(b)
}
