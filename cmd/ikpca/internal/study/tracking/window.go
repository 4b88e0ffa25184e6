package tracking

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/cmd/ikpca/internal/study"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

// WindowOptions configure Window: MAGIC's two classes one after the other, and how far
// the top subspace of a sliding window and of a growing model are from a batch kernel
// PCA of the recent points.
type WindowOptions struct {
	// PerClass points of each class (0: 1500): PerClass "g" rows, then PerClass "h".
	PerClass int
	// Size is the window w (0: 500), also the number of recent points of the batch
	// reference.
	Size int
	// WindowRank, if positive, adds a rank-r window model; Rank, if positive, a growing
	// rank-r model; Exact a growing exact model.
	WindowRank, Rank int
	Exact            bool
	// Components is the dimension of the subspaces compared (0: 5).
	Components int
	// Every is the number of points between measurements (0: 25); M0 the batch start of
	// every model (0: the larger of 50 and the ranks plus one), at most Size.
	Every, M0 int
	Seed      uint64
	// Progress, if set, is called after each measurement.
	Progress func(done, total int)
}

// Window models, as the table names them.
const (
	ModelWindow     = "window"
	ModelWindowRank = "window, rank r"
	ModelGrowing    = "growing, exact"
	ModelGrowRank   = "growing, rank r"
)

// WindowPoint is one measurement: after Points points, the sine of the largest principal
// angle, in feature space, between each model's top subspace and that of a batch kernel
// PCA of the last min(Points, Size) points.
type WindowPoint struct {
	Points int
	Sines  map[string]float64
	// Gap is the batch's (λₖ − λₖ₊₁)/λ₁, k = Components: how well determined its top-k
	// subspace is.
	Gap float64
}

// WindowResult is the window experiment.
type WindowResult struct {
	Options WindowOptions
	Sigma   float64
	Models  []string // the models, in table order
	Labels  map[string]string
	Points  []WindowPoint
}

// Window runs the experiment. It stops early with ctx's error when ctx is done; options
// it cannot run with are errors wrapping study.ErrOptions.
func Window(ctx context.Context, o WindowOptions) (*WindowResult, error) {
	if err := o.prepare(); err != nil {
		return nil, err
	}
	c := o.Components
	X, err := classStream(o.PerClass, o.Seed)
	if err != nil {
		return nil, err
	}
	n, d := X.Dims()
	sigma, err := kernel.DefaultBandwidth(X)
	if err != nil {
		return nil, err
	}
	kern := kernel.RBF{Sigma: sigma}
	res := &WindowResult{Options: o, Sigma: sigma, Labels: map[string]string{}}
	models := map[string]*kpca.Model{}
	add := func(name, label string, opts kpca.Options) error {
		md, err := kpca.Fit(kern, X.Slice(0, o.M0, 0, d), opts)
		if err != nil {
			return err
		}
		models[name] = md
		res.Models = append(res.Models, name)
		res.Labels[name] = label
		return nil
	}
	if err := add(ModelWindow, fmt.Sprintf("window, w = %d", o.Size), kpca.Options{Components: kpca.All, Window: o.Size}); err != nil {
		return nil, err
	}
	if o.WindowRank > 0 {
		if err := add(ModelWindowRank, fmt.Sprintf("window, w = %d, rank %d", o.Size, o.WindowRank), kpca.Options{Window: o.Size, Components: o.WindowRank, Rank: o.WindowRank}); err != nil {
			return nil, err
		}
	}
	if o.Exact {
		if err := add(ModelGrowing, "growing, exact", kpca.Options{Components: kpca.All}); err != nil {
			return nil, err
		}
	}
	if o.Rank > 0 {
		if err := add(ModelGrowRank, fmt.Sprintf("growing, rank %d", o.Rank), kpca.Options{Components: o.Rank, Rank: o.Rank}); err != nil {
			return nil, err
		}
	}

	total := (n-o.M0)/o.Every + 1
	var scratch sineScratch
	for t := o.M0; t <= n; t++ {
		if t > o.M0 {
			for _, name := range res.Models {
				if err := models[name].Add(X.RawRowView(t - 1)); err != nil {
					return nil, fmt.Errorf("tracking: %s, point %d: %w", name, t, err)
				}
			}
		}
		if (t-o.M0)%o.Every != 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		R := X.Slice(max(0, t-o.Size), t, 0, d).(*mat.Dense)
		asc, Yc, err := recentBatch(kern, R, c)
		if err != nil {
			return nil, err
		}
		pt := WindowPoint{Points: t, Sines: map[string]float64{}, Gap: (asc[1] - asc[0]) / asc[c]}
		for _, name := range res.Models {
			if pt.Sines[name], err = featureSine(models[name], R, Yc, &scratch); err != nil {
				return nil, err
			}
		}
		res.Points = append(res.Points, pt)
		if o.Progress != nil {
			o.Progress(len(res.Points), total)
		}
	}
	return res, nil
}

// recentBatch returns the batch kernel PCA of the recent points R: the top c+1
// eigenvalues of their centred kernel matrix, ascending, and the top c eigenvectors,
// descending, scaled by 1/√λ (the coefficients of unit feature-space directions).
func recentBatch(kern kernel.Kernel, R *mat.Dense, c int) ([]float64, *mat.Dense, error) {
	w, _ := R.Dims()
	Kc := kernel.Centre(kernel.Matrix(kern, R))
	var Y mat.Dense
	asc, err := native.EigenSymTop(nil, &Y, Kc, c+1)
	if err != nil {
		return nil, nil, err
	}
	Yc := mat.NewDense(w, c, nil)
	for j := range c { // descending
		mu := asc[c-j]
		for i := range w {
			Yc.Set(i, j, Y.At(i, c-j)/math.Sqrt(mu))
		}
	}
	return asc, Yc, nil
}

// sineScratch holds featureSine's matrices between calls.
type sineScratch struct{ S, P, T, U mat.Dense }

// featureSine returns the sine of the largest principal angle, in feature space, between
// the model's top c axes vⱼ = Σᵢ uᵢⱼφ̃(pᵢ)/√λⱼ (pᵢ its points) and the batch's unit axes
// wₗ = Σᵢ yᵢₗ(φ(xᵢ) − μ)/√μₗ over the recent points xᵢ (R), given Yc, the batch's
// eigenvectors divided by √μₗ.
//
// With S the model's scores ⟨vⱼ, φ(xᵢ) − μ_model⟩ of the recent points (Transform), and
// since each yₗ sums to zero so that the means drop out, ⟨vⱼ, wₗ⟩ = (SᵀYc)ⱼₗ = Cⱼₗ. The
// model's axes are orthonormal for an exact model, and nearly so at rank r (K̃'s
// eigenvectors are not quite K′'s): their Gram matrix is G = TᵀUΛ^−½ with T the scores
// of the model's own points (T = K′UΛ^−½) and U its eigenvectors, so with G = LLᵀ the
// cosines of the principal angles are the singular values of L⁻¹C. The sine is
// √(1 − cos²), so that angles below about 1e-8 (√ε) are not resolved.
func featureSine(md *kpca.Model, R, Yc *mat.Dense, s *sineScratch) (float64, error) {
	_, c := Yc.Dims()
	s.S.Reset()
	if err := md.Transform(&s.S, R, c); err != nil {
		return 0, err
	}
	C := mat.NewDense(c, c, nil)
	native.Gemm(blas.Trans, blas.NoTrans, 1, s.S.RawMatrix(), Yc.RawMatrix(), 0, C.RawMatrix())

	s.P.Reset()
	md.Points(&s.P)
	s.T.Reset()
	if err := md.Transform(&s.T, &s.P, c); err != nil {
		return 0, err
	}
	s.U.Reset()
	md.VectorsTo(&s.U)
	m, _ := s.U.Dims()
	vals := md.Values(nil)
	G := mat.NewDense(c, c, nil)
	native.Gemm(blas.Trans, blas.NoTrans, 1, s.T.RawMatrix(), mat.DenseCopyOf(s.U.Slice(0, m, 0, c)).RawMatrix(), 0, G.RawMatrix())
	g := mat.NewSymDense(c, nil)
	for i := range c {
		for j := i; j < c; j++ {
			g.SetSym(i, j, (G.At(i, j)/math.Sqrt(vals[j])+G.At(j, i)/math.Sqrt(vals[i]))/2)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(g) {
		return math.NaN(), nil
	}
	var L mat.TriDense
	chol.LTo(&L)
	var LC mat.Dense
	if err := LC.Solve(&L, C); err != nil {
		return math.NaN(), nil
	}
	var svd mat.SVD
	if !svd.Factorize(&LC, mat.SVDNone) {
		return math.NaN(), nil
	}
	sv := svd.Values(nil)
	cos := math.Min(sv[c-1], 1)
	return math.Sqrt(math.Max(1-cos*cos, 0)), nil
}

// prepare sets the defaults of o and checks it, MAGIC's classes included.
func (o *WindowOptions) prepare() error {
	if o.PerClass == 0 {
		o.PerClass = 1500
	}
	if o.Size == 0 {
		o.Size = 500
	}
	if o.Components == 0 {
		o.Components = 5
	}
	if o.Every == 0 {
		o.Every = 25
	}
	if o.M0 == 0 {
		o.M0 = min(max(50, o.Rank+1, o.WindowRank+1), o.Size)
	}
	if g, h := classSizes(); o.PerClass < 1 || o.PerClass > min(g, h) {
		return fmt.Errorf("%w: %d points of each MAGIC class (it has %d and %d)", study.ErrOptions, o.PerClass, g, h)
	}
	c := o.Components
	switch {
	case o.Size < 2 || o.Size > 2*o.PerClass:
		return fmt.Errorf("%w: a window of %d points on a stream of %d", study.ErrOptions, o.Size, 2*o.PerClass)
	case c < 1 || c+1 >= o.Size || o.Every < 1:
		return fmt.Errorf("%w: %d components of windows of %d points, every %d points", study.ErrOptions, c, o.Size, o.Every)
	case o.M0 > o.Size || o.M0 <= max(o.Rank, o.WindowRank, c) || o.WindowRank >= o.Size:
		return fmt.Errorf("%w: a batch start of %d points for ranks %d and %d, %d components and a window of %d",
			study.ErrOptions, o.M0, o.WindowRank, o.Rank, c, o.Size)
	case o.WindowRank > 0 && o.WindowRank < c || o.Rank > 0 && o.Rank < c:
		return fmt.Errorf("%w: ranks %d and %d below the %d components compared", study.ErrOptions, o.WindowRank, o.Rank, c)
	}
	return nil
}
