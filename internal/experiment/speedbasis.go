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

	"github.com/ikpca/ikpca/kaf"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
)

// SPEEDBasisResult holds the SPEED paper's Figures 2 and 3 on Mackey–Glass inputs: the
// relative Gram-matrix reconstruction error ‖K − V_mΛ_mV_mᵀ‖_F/‖K‖_F of the eigenmap
// against the number m of eigenfunctions, and, as iSPEED grows its dictionary from Seed
// samples one bordered update at a time, the largest principal angle between its m
// leading eigenvectors and those of a batch eigendecomposition of the same dictionary.
type SPEEDBasisResult struct {
	N, M       int
	Components []int
	GramError  []float64
	Sizes      []int
	Angle      []float64 // radians
}

// SPEEDBasis computes both for n embedded Mackey–Glass inputs (order 7), m eigenfunctions,
// checking the angle every `every` samples.
func SPEEDBasis(ctx context.Context, n, m, seed, every int, sigma float64) (*SPEEDBasisResult, error) {
	series, err := mackeyGlassData(n + 7 + 100)
	if err != nil {
		return nil, err
	}
	X, _, err := kaf.Embed(series, 7, 1)
	if err != nil {
		return nil, err
	}
	X = X.Slice(0, n, 0, 7).(*mat.Dense)
	k := kernel.RBF{Sigma: sigma}
	md, err := kpca.New(k, X, kpca.Options{Mode: kpca.Uncentred})
	if err != nil {
		return nil, err
	}
	vals := md.Values(nil)
	var total float64
	for _, v := range vals {
		total += v * v
	}
	res := &SPEEDBasisResult{N: n, M: m}
	tail := total
	for c := 1; c <= min(200, n); c++ {
		tail -= vals[c-1] * vals[c-1]
		res.Components = append(res.Components, c)
		res.GramError = append(res.GramError, math.Sqrt(math.Max(tail, 0)/total))
	}
	s, err := kaf.NewSPEED(k, X.Slice(0, seed, 0, 7), kaf.SPEEDOptions{Components: m})
	if err != nil {
		return nil, err
	}
	for i := seed; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := s.Grow(X.RawRowView(i), nil); err != nil {
			return nil, err
		}
		size := i + 1
		if size%every != 0 && size != n {
			continue
		}
		batch, err := kpca.New(k, X.Slice(0, size, 0, 7), kpca.Options{Mode: kpca.Uncentred})
		if err != nil {
			return nil, err
		}
		var vb, vi mat.Dense
		batch.VectorsTo(&vb)
		var psi mat.Dense
		s.Basis(&psi) // Λ^{-½}Vᵀ: rows are scaled eigenvectors
		vi.CloneFrom(psi.T())
		for j, v := range s.Values(nil) {
			col := vi.ColView(j).(*mat.VecDense)
			col.ScaleVec(math.Sqrt(v), col)
		}
		res.Sizes = append(res.Sizes, size)
		res.Angle = append(res.Angle, largestAngle(vb.Slice(0, size, 0, m), &vi))
	}
	return res, nil
}

// largestAngle returns the largest principal angle between the column spaces of two
// matrices with orthonormal columns: asin of the largest singular value of (I − AAᵀ)B,
// which unlike acos(σ_min(AᵀB)) keeps its accuracy for tiny angles.
func largestAngle(a, b mat.Matrix) float64 {
	var atb, proj, r mat.Dense
	atb.Mul(a.T(), b)
	proj.Mul(a, &atb)
	r.Sub(b, &proj)
	var svd mat.SVD
	if !svd.Factorize(&r, mat.SVDNone) {
		return math.NaN()
	}
	v := svd.Values(nil)
	return math.Asin(math.Min(v[0], 1))
}

// WriteSPEEDBasisCSV writes both curves (two blocks, told apart by the "figure" column).
func WriteSPEEDBasisCSV(w io.Writer, r *SPEEDBasisResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"figure", "x", "value"})
	for i, c := range r.Components {
		_ = cw.Write([]string{"gram_error_vs_components", strconv.Itoa(c), g6(r.GramError[i])})
	}
	for i, s := range r.Sizes {
		_ = cw.Write([]string{"largest_principal_angle_vs_dictionary", strconv.Itoa(s), g6(r.Angle[i])})
	}
	cw.Flush()
	return cw.Error()
}

// PlotSPEEDBasis draws Figure 2 (which = "gram") or Figure 3 ("angle") to w as a PNG.
func PlotSPEEDBasis(w io.Writer, r *SPEEDBasisResult, which string) error {
	p := plot.New()
	logY(p)
	switch which {
	case "gram":
		p.Title.Text = fmt.Sprintf("Gram matrix reconstruction by the eigenmap (n = %d)", r.N)
		p.X.Label.Text = "eigenfunctions m"
		p.Y.Label.Text = "‖K − K_m‖_F / ‖K‖_F"
		if err := addLine(p, r.Components, r.GramError, colours[0], nil, "SPEED"); err != nil {
			return err
		}
	case "angle":
		p.Title.Text = fmt.Sprintf("iSPEED against batch SPEED, m = %d", r.M)
		p.X.Label.Text = "dictionary size"
		p.Y.Label.Text = "largest principal angle (rad)"
		if err := addLine(p, r.Sizes, r.Angle, colours[1], nil, "iSPEED vs batch"); err != nil {
			return err
		}
	default:
		return fmt.Errorf("experiment: unknown figure %q", which)
	}
	return save(w, p)
}
