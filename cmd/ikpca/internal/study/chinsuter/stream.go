package chinsuter

import (
	"context"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/batch"
	"github.com/ikpca/ikpca/kernel"
)

// StreamRow is one checkpoint of the compressed model on a long stream.
type StreamRow struct {
	Chunk, N              int
	Sine1, Sine3          float64 // principal-angle sines of the top 1 and 3 axes to batch
	Lambda1Rel            float64 // |λ₁ − λ₁,batch|/λ₁,batch
	Orthogonality         float64 // ‖α′ᵀK′α′ − I‖₂ after the last compression
	Expansion, Bytes      int
	ResidualComponents    float64
	ResidualMean          float64
	SecondsPerPoint       float64
	BatchSecondsAtN       float64
	PreImagesBudget, Rank int
}

// longStream streams X to a compressed model in chunks of c and compares it with batch
// kernel PCA of the points so far every o.StreamEvery points.
func longStream(ctx context.Context, k kernel.Kernel, X *mat.Dense, c int, o Options) ([]StreamRow, error) {
	n := X.RawMatrix().Rows
	start := min(max(c, 2), n)
	md, err := chinsuter.Fit(k, X.Slice(0, start, 0, 2), chinsuter.Options{Components: o.Components,
		Compression: &chinsuter.Compression{PreImages: o.PreImages}})
	if err != nil {
		return nil, err
	}
	var rows []StreamRow
	next := o.StreamEvery
	var train time.Duration
	for i := start; i < n; i += c {
		t0 := time.Now()
		if err := md.AddBatch(X.Slice(i, min(i+c, n), 0, 2)); err != nil {
			return nil, err
		}
		train += time.Since(t0)
		if md.Len() < next && md.Len() < n {
			continue
		}
		next += o.StreamEvery
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		Xn := mat.DenseCopyOf(X.Slice(0, md.Len(), 0, 2))
		t0 = time.Now()
		vals, u, err := batch.KPCA(k, Xn)
		if err != nil {
			return nil, err
		}
		bt := time.Since(t0)
		got := md.Values(nil)
		st := md.Stats()
		row := StreamRow{Chunk: c, N: md.Len(), Lambda1Rel: math.Abs(got[0]-vals[0]) / vals[0],
			Orthogonality: st.Orthogonality, Expansion: md.Expansion(), Bytes: md.Bytes(),
			ResidualComponents: st.ResidualComponents, ResidualMean: st.ResidualMean,
			SecondsPerPoint: train.Seconds() / float64(md.Len()-start), BatchSecondsAtN: bt.Seconds(),
			PreImagesBudget: (o.Components + 1) * o.PreImages, Rank: md.Components()}
		pts, alpha, _ := md.Expansions()
		row.Sine1 = sineToBatch(pts, alpha, k, Xn, vals, u, 1)
		row.Sine3 = sineToBatch(pts, alpha, k, Xn, vals, u, min(3, md.Components()))
		rows = append(rows, row)
	}
	return rows, nil
}
