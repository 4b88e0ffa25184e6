package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"

	"github.com/ikpca/ikpca/features"
	"github.com/ikpca/ikpca/kernel"
)

// RFFResult is the convergence of random Fourier features to the Gaussian kernel: for
// each feature dimension D, the root-mean-square and the largest error of z(x)ᵀz(y)
// over all pairs of the points, averaged over seeds, for both forms; Slope is the
// least-squares exponent of the RMS error in D (−½ for the O(1/√D) rate).
type RFFResult struct {
	Dataset  string
	N, Seeds int
	Sigma    float64
	Dims     []int
	RMS, Max map[features.Form][]float64
	Slope    map[features.Form]float64
}

// RFFConvergence measures the kernel error of random Fourier features on n points of
// the data set for D = 2⁴ … 2^maxLog.
func RFFConvergence(ctx context.Context, dataset string, n, seeds, maxLog int, seed uint64) (*RFFResult, error) {
	X, _, err := loadStreaming(dataset, n, 1, seed)
	if err != nil {
		return nil, err
	}
	_, d := X.Dims()
	sigma, err := kernel.MedianDistance(X, n)
	if err != nil {
		return nil, err
	}
	G := kernel.Matrix(kernel.RBF{Sigma: sigma}, X)
	res := &RFFResult{Dataset: dataset, N: n, Seeds: seeds, Sigma: sigma,
		RMS: map[features.Form][]float64{}, Max: map[features.Form][]float64{}, Slope: map[features.Form]float64{}}
	for l := 4; l <= maxLog; l++ {
		res.Dims = append(res.Dims, 1<<l)
	}
	for _, form := range []features.Form{features.CosSin, features.RandomPhase} {
		for _, D := range res.Dims {
			var ss, worst float64
			for s := range seeds {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				r, err := features.NewRFF(d, features.RFFOptions{Dim: D, Sigma: sigma, Form: form, Seed: seed + uint64(s)})
				if err != nil {
					return nil, err
				}
				var Z, ZZ mat.Dense
				if err := r.Transform(&Z, X); err != nil {
					return nil, err
				}
				ZZ.Mul(&Z, Z.T())
				for i := range n {
					for j := i + 1; j < n; j++ {
						e := ZZ.At(i, j) - G.At(i, j)
						ss += e * e
						worst = math.Max(worst, math.Abs(e))
					}
				}
			}
			pairs := float64(n*(n-1)/2) * float64(seeds)
			res.RMS[form] = append(res.RMS[form], math.Sqrt(ss/pairs))
			res.Max[form] = append(res.Max[form], worst)
		}
		var sx, sy, sxx, sxy float64
		for i, D := range res.Dims {
			x, y := math.Log(float64(D)), math.Log(res.RMS[form][i])
			sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		}
		k := float64(len(res.Dims))
		res.Slope[form] = (k*sxy - sx*sy) / (k*sxx - sx*sx)
	}
	return res, nil
}

// WriteRFFCSV writes one row per form and dimension.
func WriteRFFCSV(w io.Writer, r *RFFResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"dataset", "n", "sigma", "form", "features", "rms_error", "max_error", "rms_times_sqrt_D"})
	for _, form := range []features.Form{features.CosSin, features.RandomPhase} {
		for i, D := range r.Dims {
			_ = cw.Write([]string{r.Dataset, strconv.Itoa(r.N), g6(r.Sigma), form.String(), strconv.Itoa(D),
				g6(r.RMS[form][i]), g6(r.Max[form][i]), g6(r.RMS[form][i] * math.Sqrt(float64(D)))})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteRFFMarkdown summarises the rates.
func WriteRFFMarkdown(w io.Writer, r *RFFResult) error {
	fmt.Fprintf(w, "### Random Fourier features on %s (%d points, σ = %.4g, %d seeds)\n\n", r.Dataset, r.N, r.Sigma, r.Seeds)
	fmt.Fprintf(w, "| form | RMS error at D = %d | at D = %d | fitted exponent (−0.5 is O(1/√D)) | RMS·√D at D = %d |\n|---|--:|--:|--:|--:|\n",
		r.Dims[0], r.Dims[len(r.Dims)-1], r.Dims[len(r.Dims)-1])
	last := len(r.Dims) - 1
	for _, form := range []features.Form{features.CosSin, features.RandomPhase} {
		fmt.Fprintf(w, "| %s | %.4g | %.4g | %.3f | %.3f |\n", form, r.RMS[form][0], r.RMS[form][last], r.Slope[form],
			r.RMS[form][last]*math.Sqrt(float64(r.Dims[last])))
	}
	fmt.Fprintln(w)
	return nil
}

// PlotRFF draws the RMS and largest errors against D on log–log axes.
func PlotRFF(w io.Writer, r *RFFResult) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Random Fourier features, %s: error of z(x)ᵀz(y)", r.Dataset)
	p.X.Label.Text = "D (features)"
	p.Y.Label.Text = "error against exp(−‖x−y‖²/2σ²)"
	logY(p)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	xs := make([]float64, len(r.Dims))
	ref := make([]float64, len(r.Dims))
	for i, D := range r.Dims {
		xs[i] = float64(D)
		ref[i] = r.RMS[features.CosSin][0] * math.Sqrt(float64(r.Dims[0])/float64(D))
	}
	for k, form := range []features.Form{features.CosSin, features.RandomPhase} {
		if err := addXY(p, xs, r.RMS[form], colours[k], nil, form.String()+" RMS"); err != nil {
			return err
		}
		if err := addXY(p, xs, r.Max[form], colours[k], dashed, form.String()+" max"); err != nil {
			return err
		}
	}
	if err := addXY(p, xs, ref, colours[2], dotted, "∝ 1/√D"); err != nil {
		return err
	}
	return save(w, p)
}
