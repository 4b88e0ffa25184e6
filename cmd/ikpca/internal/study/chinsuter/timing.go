package chinsuter

import (
	"context"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/chinsuter"
	"github.com/ikpca/ikpca/cmd/ikpca/internal/batch"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/stream"
)

// toyModels are the trained models of one toy size, for the accuracy and the
// projections.
type toyModels struct {
	batchValues []float64
	batchU      *mat.Dense
	cs          *chinsuter.Model
	kha         *stream.KHA
	exact       *chinsuter.Model // nil above ExactMax
}

// trainToy trains every method on X and returns the training times in seconds. On an
// error it returns the models trained so far.
func trainToy(ctx context.Context, k kernel.Kernel, X *mat.Dense, o Options) (map[string]float64, toyModels, error) {
	n := X.RawMatrix().Rows
	times := map[string]float64{}
	var models toyModels

	// Batch kernel PCA: kernel matrix, centring, eigendecomposition with vectors.
	start := time.Now()
	vals, u, err := batch.KPCA(k, X)
	if err != nil {
		return nil, models, err
	}
	times[methodBatch] = time.Since(start).Seconds()
	models.batchValues, models.batchU = vals, u
	if err := ctx.Err(); err != nil {
		return nil, models, err
	}

	cs, seconds, err := trainCompressed(k, X, o)
	if err != nil {
		return nil, models, err
	}
	times[methodCS] = seconds
	models.cs = cs
	if err := ctx.Err(); err != nil {
		return nil, models, err
	}

	kha, seconds, err := trainKHA(ctx, k, X, o)
	if err != nil {
		return nil, models, err
	}
	times[methodKHA] = seconds
	models.kha = kha

	if n <= o.ExactMax {
		ours, err := trainOurs(ctx, k, X)
		if err != nil {
			return nil, models, err
		}
		times[methodOurs] = ours
		ex, seconds, err := trainCSExact(ctx, k, X)
		if err != nil {
			return nil, models, err
		}
		times[methodCSExact] = seconds
		models.exact = ex
	}
	return times, models, nil
}

// trainCompressed trains Chin–Suter's compressed model on X, a batch start on the first
// chunk and then chunks of o.Chunk, and returns it with its training time in seconds.
func trainCompressed(k kernel.Kernel, X *mat.Dense, o Options) (*chinsuter.Model, float64, error) {
	n := X.RawMatrix().Rows
	start := time.Now()
	c0 := min(o.Chunk, n)
	cs, err := chinsuter.Fit(k, X.Slice(0, max(c0, 2), 0, 2), chinsuter.Options{Components: o.Components,
		Compression: &chinsuter.Compression{PreImages: o.PreImages}})
	if err != nil {
		return nil, 0, err
	}
	for i := max(c0, 2); i < n; i += o.Chunk {
		if err := cs.AddBatch(X.Slice(i, min(i+o.Chunk, n), 0, 2)); err != nil {
			return nil, 0, err
		}
	}
	return cs, time.Since(start).Seconds(), nil
}

// trainKHA trains the kernel Hebbian baseline on X, the points and then the further
// passes, and returns it with its training time in seconds.
func trainKHA(ctx context.Context, k kernel.Kernel, X *mat.Dense, o Options) (*stream.KHA, float64, error) {
	start := time.Now()
	kha, err := stream.NewKHA(k, 2, stream.KHAOptions{Components: o.Components, Rate: o.KHARate, Seed: o.Seed})
	if err != nil {
		return nil, 0, err
	}
	if err := addEach(ctx, X, 0, kha.Add); err != nil {
		return nil, 0, err
	}
	for range o.KHAPasses - 1 {
		if err := kha.Pass(); err != nil {
			return nil, 0, err
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
	}
	return kha, time.Since(start).Seconds(), nil
}

// trainOurs trains our exact incremental model on X, one point at a time from two
// points, and returns its training time in seconds; the model itself is not kept, as
// the accuracy is measured on Chin–Suter's exact form.
func trainOurs(ctx context.Context, k kernel.Kernel, X *mat.Dense) (float64, error) {
	start := time.Now()
	md, err := kpca.Fit(k, X.Slice(0, 2, 0, 2), kpca.Options{Components: kpca.All})
	if err != nil {
		return 0, err
	}
	if err := addEach(ctx, X, 2, md.Add); err != nil {
		return 0, err
	}
	return time.Since(start).Seconds(), nil
}

// trainCSExact trains Chin–Suter's exact (uncompressed) model on X, one point at a time
// from two points, and returns it with its training time in seconds.
func trainCSExact(ctx context.Context, k kernel.Kernel, X *mat.Dense) (*chinsuter.Model, float64, error) {
	start := time.Now()
	ex, err := chinsuter.Fit(k, X.Slice(0, 2, 0, 2), chinsuter.Options{})
	if err != nil {
		return nil, 0, err
	}
	if err := addEach(ctx, X, 2, ex.Add); err != nil {
		return nil, 0, err
	}
	return ex, time.Since(start).Seconds(), nil
}

// addEach adds the rows of X from row `from` on, one at a time, checking ctx every 64.
func addEach(ctx context.Context, X *mat.Dense, from int, add func([]float64) error) error {
	n := X.RawMatrix().Rows
	for i := from; i < n; i++ {
		if err := add(X.RawRowView(i)); err != nil {
			return err
		}
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}
