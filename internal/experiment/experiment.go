// Package experiment reproduces the two experiments of Hallgren and Northrop,
// "Incremental kernel PCA and the Nyström method" (2018):
//
//   - Figure 1, Drift: the drift of the incremental mean-adjusted decomposition from the
//     matrix it decomposes, ‖K'ₘ − VΛVᵀ‖ after each added point, m = m0+1, …, mmax, for
//     one run in file order, the mean over random orders, and (for comparison) the
//     paper's own algorithm;
//   - Figure 2, Nystrom: the error ‖K − K̃ₘ‖ of the incremental Nyström approximation of
//     the kernel matrix of n points as landmarks are added.
//
// Both measure three norms: Frobenius, spectral and trace (nuclear). The command ikpca
// runs them ("experiment") and draws the figures (see Plot).
//
// It also runs the experiments of the streaming methods of package stream ("ikpca
// streaming"): the kernel-approximation comparison of SKPCA, RNCA, Nyström and the exact
// model (Streaming, after Ghashami, Perry & Phillips 2016), the online kernel PCA toy
// for KRQA and KHA (Toy), and the convergence rate of random Fourier features
// (RFFConvergence).
package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/native"
)

// Norms indexes the three norms of a series.
const (
	Frobenius = iota
	Spectral
	Trace
)

// NormNames are the names of the three norms, in index order.
var NormNames = [3]string{"Frobenius", "spectral", "trace"}

// Series holds one curve per norm.
type Series [3][]float64

// DriftOptions configure Drift.
type DriftOptions struct {
	Data   *mat.Dense    // the data set, one point per row
	Kernel kernel.Kernel // the kernel (the paper: RBF with the median distance)
	M0     int           // points in the starting batch decomposition (the paper: 20)
	MMax   int           // last model size
	Runs   int           // random orders averaged for the mean curve (the paper: 50)
	Seed   uint64        // seeds the random orders
	Paper  bool          // also run the paper's algorithm (kpca.RankOne), in file order
	// Progress, if set, is called after each model step with the steps done and the total.
	Progress func(done, total int)
}

// DriftResult holds the curves of Figure 1.
type DriftResult struct {
	M      []int  // model sizes m0+1, …, mmax
	Single Series // file order, bordered (this library)
	Mean   Series // mean over the random orders, bordered
	Paper  Series // file order, the paper's algorithm; nil curves if not run
}

// Drift runs Figure 1's experiment. It stops early with ctx's error when ctx is done.
func Drift(ctx context.Context, o DriftOptions) (*DriftResult, error) {
	if o.Data == nil || o.Kernel == nil {
		return nil, fmt.Errorf("experiment: data and kernel are required")
	}
	n, _ := o.Data.Dims()
	if o.M0 < 1 || o.MMax <= o.M0 || o.MMax > n {
		return nil, fmt.Errorf("experiment: need 1 ≤ m0 < mmax ≤ %d points, got m0 = %d, mmax = %d", n, o.M0, o.MMax)
	}
	if o.Runs < 0 {
		return nil, fmt.Errorf("experiment: negative number of runs")
	}
	steps := o.MMax - o.M0
	res := &DriftResult{M: make([]int, steps)}
	for i := range steps {
		res.M[i] = o.M0 + 1 + i
	}
	total := steps * (1 + o.Runs)
	if o.Paper {
		total += steps
	}
	done := 0
	tick := func() {
		done++
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
	identity := make([]int, n)
	for i := range identity {
		identity[i] = i
	}
	var err error
	if res.Single, err = driftRun(ctx, o, identity, kpca.Bordered, tick); err != nil {
		return nil, err
	}
	if o.Paper {
		if res.Paper, err = driftRun(ctx, o, identity, kpca.RankOne, tick); err != nil {
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0xD1B54A32D192ED03))
	for r := range o.Runs {
		s, err := driftRun(ctx, o, rng.Perm(n), kpca.Bordered, tick)
		if err != nil {
			return nil, err
		}
		for k := range 3 {
			if r == 0 {
				res.Mean[k] = make([]float64, steps)
			}
			for i, v := range s[k] {
				res.Mean[k][i] += v / float64(o.Runs)
			}
		}
	}
	return res, nil
}

// driftRun adds the points in the given order and measures the drift after each step.
func driftRun(ctx context.Context, o DriftOptions, order []int, method kpca.Method, tick func()) (Series, error) {
	_, d := o.Data.Dims()
	x := mat.NewDense(o.MMax, d, nil)
	for i := range o.MMax {
		x.SetRow(i, o.Data.RawRowView(order[i]))
	}
	model, err := kpca.New(o.Kernel, x.Slice(0, o.M0, 0, d), kpca.Options{Method: method})
	if err != nil {
		return Series{}, err
	}
	k := kernel.Matrix(o.Kernel, x) // the kernel matrix of all mmax points, read by blocks
	var out Series
	for m := o.M0 + 1; m <= o.MMax; m++ {
		if err := ctx.Err(); err != nil {
			return Series{}, err
		}
		if err := model.Add(x.RawRowView(m - 1)); err != nil {
			return Series{}, fmt.Errorf("experiment: point %d: %w", m, err)
		}
		norms, err := driftNorms(model, k, m)
		if err != nil {
			return Series{}, err
		}
		for i := range 3 {
			out[i] = append(out[i], norms[i])
		}
		tick()
	}
	return out, nil
}

// driftNorms returns the three norms of E = K'ₘ − V·Λ·Vᵀ for the model of the first m
// points, K'ₘ = C·Kₘ·C computed from the kernel matrix.
func driftNorms(model *kpca.Model, k *mat.SymDense, m int) ([3]float64, error) {
	var v mat.Dense
	model.VectorsTo(&v)
	values := model.Values(nil)
	rs := make([]float64, m)
	var total float64
	for i := range m {
		for j := range m {
			rs[i] += k.At(i, j)
		}
		total += rs[i]
	}
	fm := float64(m)
	var vl mat.Dense
	vl.CloneFrom(&v)
	for j, l := range values {
		col := vl.ColView(j).(*mat.VecDense)
		col.ScaleVec(l, col)
	}
	var rec mat.Dense
	rec.Mul(&vl, v.T())
	e := mat.NewSymDense(m, nil)
	var ss float64
	for i := range m {
		for j := i; j < m; j++ {
			kc := k.At(i, j) - rs[i]/fm - rs[j]/fm + total/(fm*fm)
			x := kc - rec.At(i, j)
			e.SetSym(i, j, x)
			if i == j {
				ss += x * x
			} else {
				ss += 2 * x * x
			}
		}
	}
	lambda, err := native.EigenSym(nil, nil, e)
	if err != nil {
		return [3]float64{}, err
	}
	var spec, tr float64
	for _, l := range lambda {
		spec = math.Max(spec, math.Abs(l))
		tr += math.Abs(l)
	}
	return [3]float64{math.Sqrt(ss), spec, tr}, nil
}

// NystromOptions configure Nystrom.
type NystromOptions struct {
	Data   *mat.Dense    // the n points whose kernel matrix is approximated (the paper: the first 1000)
	Kernel kernel.Kernel //
	MMax   int           // last number of landmarks
	Seed   uint64        // seeds the random landmark order
	// Progress, if set, is called after each landmark with the landmarks done and the total.
	Progress func(done, total int)
}

// NystromResult holds the curves of Figure 2.
type NystromResult struct {
	M      []int   // numbers of landmarks 1, …, mmax
	Errors Series  // ‖K − K̃ₘ‖
	Norm   float64 // ‖K‖_F, for relative errors
}

// Nystrom runs Figure 2's experiment. It stops early with ctx's error when ctx is done.
func Nystrom(ctx context.Context, o NystromOptions) (*NystromResult, error) {
	if o.Data == nil || o.Kernel == nil {
		return nil, fmt.Errorf("experiment: data and kernel are required")
	}
	n, _ := o.Data.Dims()
	if o.MMax < 1 || o.MMax > n {
		return nil, fmt.Errorf("experiment: need 1 ≤ mmax ≤ %d landmarks, got %d", n, o.MMax)
	}
	ny, err := kpca.NewNystrom(o.Kernel, o.Data, kpca.NystromOptions{Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	res := &NystromResult{}
	k := kernel.Matrix(o.Kernel, o.Data)
	res.Norm = mat.Norm(k, 2)
	for m := 1; m <= o.MMax; m++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := ny.Add(); err != nil {
			return nil, err
		}
		e, err := ny.Errors()
		if err != nil {
			return nil, err
		}
		res.M = append(res.M, m)
		res.Errors[Frobenius] = append(res.Errors[Frobenius], e.Frobenius)
		res.Errors[Spectral] = append(res.Errors[Spectral], e.Spectral)
		res.Errors[Trace] = append(res.Errors[Trace], e.Trace)
		if o.Progress != nil {
			o.Progress(m, o.MMax)
		}
	}
	return res, nil
}
