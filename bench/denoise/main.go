// Command denoise is the image-denoising study of docs/denoising.md: scikit-learn's
// example "Image denoising using kernel PCA" (USPS digits, after Bakır, Weston and
// Schölkopf 2004) on Fashion-MNIST, with ikpca's pre-images.
//
// The first -train images of Fashion-MNIST's training part and the -test following ones
// (Debian's dataset-fashion-mnist, read by data.FashionMNIST; pixels in [0, 1], 784 of
// them) get Gaussian noise of standard deviation -noise (math/rand/v2, PCG seeded by
// -seed). As in scikit-learn's example, every model is fitted to the noisy training
// images, and the noisy test images are denoised:
//
//   - kPCA, KRR: kpca.Fit(RBF{Gamma: -gamma}, Components -k), then Transform and the
//     learned pre-image map of Inverse(-k, -alpha) — KernelPCA(n_components=k,
//     kernel="rbf", gamma, fit_inverse_transform=True, alpha).inverse_transform(
//     transform(X)), the example's method;
//   - kPCA, fixed point: PreImage with the top -kfp components (Mika et al. 1999),
//     started from the noisy image, and again started from the KRR pre-image;
//   - PCA: linear PCA of -pca components (gonum's stat.PC on the noisy training
//     images), the projection onto them with the mean added back (scikit-learn's
//     PCA.inverse_transform(transform(X))).
//
// It prints a Markdown table of the mean squared error of each against the clean test
// images (the noisy images' own first), and with -png writes a grid of the first -show
// test images, one row each: noisy, kPCA (KRR), kPCA (fixed point), PCA, clean.
//
// scikit-learn's example takes 1000 training and 100 test images, noise 0.25, 32 PCA
// components, and KernelPCA(n_components=400, gamma=1e-3, alpha=5e-3) for USPS's 256
// pixels. The defaults keep all of it but γ, and add the fixed point's k: γ = 3e-3,
// α = 5e-3 and -kfp 128 were chosen on the 100 validation images between the training
// and the test ones (-skip 0 denoises those; docs/denoising.md gives the search). Run
// from the repository root (about 10 s with OpenBLAS on two cores):
//
//	go run -tags openblas ./bench/denoise -png docs/denoising.png
//	go run ./bench/denoise -sample -train 800 # the embedded 1000-image sample instead
//
// Without Debian's files the program fails with an install hint (sudo apt-get install
// dataset-fashion-mnist); -sample uses data.FashionMNISTSample, its first -train images
// for training and, after -skip, the next -test for testing.
package main

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ikpca/ikpca/bench/internal/cli"
	"github.com/ikpca/ikpca/data"
	"github.com/ikpca/ikpca/kernel"
	"github.com/ikpca/ikpca/kpca"
	"github.com/ikpca/ikpca/preimage"
)

// config is the command line.
type config struct {
	train, skip, test, k, kfp, pca, show int
	noise, gamma, alpha                  float64
	seed                                 uint64
	sample                               bool
	png                                  string
}

func main() {
	cli.Main("denoise", 1, func(args []string) (config, error) { return parse(args, os.Stderr) },
		func(cfg config) error { return run(cfg, os.Stdout, os.Stderr) })
}

func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("denoise", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.IntVar(&cfg.train, "train", 1000, "training images")
	fs.IntVar(&cfg.test, "test", 100, "test images, denoised")
	fs.IntVar(&cfg.skip, "skip", 100, "images skipped between the training and the test ones (the validation images of a parameter search)")
	fs.IntVar(&cfg.k, "k", 400, "kernel PCA components of the KRR pre-images (scikit-learn's n_components)")
	fs.IntVar(&cfg.kfp, "kfp", 128, "kernel PCA components of the fixed-point pre-images")
	fs.IntVar(&cfg.pca, "pca", 32, "linear PCA components")
	fs.IntVar(&cfg.show, "show", 10, "test images in the PNG grid")
	fs.Float64Var(&cfg.noise, "noise", 0.25, "standard deviation of the Gaussian noise")
	fs.Float64Var(&cfg.gamma, "gamma", 3e-3, "RBF γ")
	fs.Float64Var(&cfg.alpha, "alpha", 5e-3, "ridge α of the learned pre-image map")
	fs.Uint64Var(&cfg.seed, "seed", 0, "seed of the noise")
	fs.BoolVar(&cfg.sample, "sample", false, "use the embedded 1000-image sample (data.FashionMNISTSample)")
	fs.StringVar(&cfg.png, "png", "", "write the grid of images to this PNG file")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case cfg.train < 2 || cfg.test < 1 || cfg.skip < 0:
		return cfg, errors.New("need -train ≥ 2, -test ≥ 1 and -skip ≥ 0")
	case cfg.sample && cfg.train+cfg.skip+cfg.test > 1000:
		return cfg, fmt.Errorf("-sample has 1000 images, -train %d, -skip %d and -test %d ask for more", cfg.train, cfg.skip, cfg.test)
	case cfg.k < 1 || cfg.k >= cfg.train || cfg.kfp < 1 || cfg.kfp >= cfg.train:
		return cfg, fmt.Errorf("need 1 ≤ -k, -kfp < -train (%d)", cfg.train)
	case cfg.pca < 1 || cfg.pca > min(cfg.train, 784):
		return cfg, errors.New("need 1 ≤ -pca ≤ min(-train, 784)")
	case cfg.show < 1 || cfg.show > cfg.test:
		return cfg, errors.New("need 1 ≤ -show ≤ -test")
	case !(cfg.noise >= 0) || !(cfg.gamma > 0) || !(cfg.alpha >= 0):
		return cfg, errors.New("need -noise ≥ 0, -gamma > 0, -alpha ≥ 0")
	}
	return cfg, nil
}

// images returns the clean training and test images.
func images(cfg config) (train, test *mat.Dense, err error) {
	var ds data.Dataset
	if cfg.sample {
		ds = data.FashionMNISTSample()
	} else if ds, err = data.FashionMNIST("", cfg.train+cfg.skip+cfg.test); err != nil {
		return nil, nil, err
	}
	_, d := ds.X.Dims()
	from := cfg.train + cfg.skip
	train = mat.DenseCopyOf(ds.X.Slice(0, cfg.train, 0, d))
	test = mat.DenseCopyOf(ds.X.Slice(from, from+cfg.test, 0, d))
	return train, test, nil
}

// noisy returns X plus independent N(0, σ²) noise.
func noisy(X *mat.Dense, sigma float64, rng *rand.Rand) *mat.Dense {
	out := mat.DenseCopyOf(X)
	raw := out.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j := range row {
			row[j] += sigma * rng.NormFloat64()
		}
	}
	return out
}

// mse returns the mean of (a − b)² over every entry.
func mse(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	var s float64
	for i := range r {
		for j := range c {
			d := a.At(i, j) - b.At(i, j)
			s += d * d
		}
	}
	return s / float64(r*c)
}

// result is one method's denoised test images.
type result struct {
	name string
	X    *mat.Dense
	took time.Duration
}

// denoise runs every method and returns their results, the noisy test images first.
func denoise(cfg config, train, test *mat.Dense, log io.Writer) ([]result, error) {
	rng := rand.New(rand.NewPCG(cfg.seed, 0x5eed))
	ntrain, ntest := noisy(train, cfg.noise, rng), noisy(test, cfg.noise, rng)
	out := []result{{name: "noisy", X: ntest}}

	start := time.Now()
	md, err := kpca.Fit(kernel.RBF{Gamma: cfg.gamma}, ntrain, kpca.Options{Components: max(cfg.k, cfg.kfp)})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "kernel PCA of %d images: %v\n", cfg.train, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	inv, err := md.Inverse(cfg.k, cfg.alpha)
	if err != nil {
		return nil, err
	}
	var Y, krr mat.Dense
	if err := md.Transform(&Y, ntest, cfg.k); err != nil {
		return nil, err
	}
	if err := inv.InverseTransform(&krr, &Y); err != nil {
		return nil, err
	}
	out = append(out, result{name: fmt.Sprintf("kernel PCA, KRR pre-image (k = %d, α = %g)", cfg.k, cfg.alpha), X: &krr, took: time.Since(start)})

	start = time.Now()
	var fp mat.Dense
	if err := md.PreImage(&fp, ntest, nil, cfg.kfp, preimage.Options{}); err != nil {
		return nil, err
	}
	out = append(out, result{name: fmt.Sprintf("kernel PCA, fixed point from the noisy image (k = %d)", cfg.kfp), X: &fp, took: time.Since(start)})
	start = time.Now()
	var fpk mat.Dense
	if err := md.PreImage(&fpk, ntest, &krr, cfg.kfp, preimage.Options{}); err != nil {
		return nil, err
	}
	out = append(out, result{name: fmt.Sprintf("kernel PCA, fixed point from the KRR pre-image (k = %d)", cfg.kfp), X: &fpk, took: time.Since(start)})

	start = time.Now()
	lin, err := linearPCA(ntrain, ntest, cfg.pca)
	if err != nil {
		return nil, err
	}
	out = append(out, result{name: fmt.Sprintf("linear PCA (%d components)", cfg.pca), X: lin, took: time.Since(start)})
	return out, nil
}

// linearPCA fits PCA to the rows of train (gonum's stat.PC: the SVD of the centred
// data) and returns the rows of test projected onto the top k components, the mean
// added back: x̂ = μ + V_k·V_kᵀ·(x − μ).
func linearPCA(train, test *mat.Dense, k int) (*mat.Dense, error) {
	var pc stat.PC
	if !pc.PrincipalComponents(train, nil) {
		return nil, errors.New("linear PCA: the SVD did not converge")
	}
	var V mat.Dense
	pc.VectorsTo(&V)
	n, d := test.Dims()
	Vk := V.Slice(0, d, 0, k)
	mean := make([]float64, d)
	for j := range d {
		mean[j] = stat.Mean(mat.Col(nil, j, train), nil)
	}
	C := mat.DenseCopyOf(test)
	for i := range n {
		row := C.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
	var S, R mat.Dense
	S.Mul(C, Vk)
	R.Mul(&S, Vk.T())
	for i := range n {
		row := R.RawRowView(i)
		for j := range row {
			row[j] += mean[j]
		}
	}
	return &R, nil
}

func run(cfg config, stdout, log io.Writer) error {
	train, test, err := images(cfg)
	if err != nil {
		return err
	}
	res, err := denoise(cfg, train, test, log)
	if err != nil {
		return err
	}
	source := "Fashion-MNIST, training images"
	if cfg.sample {
		source = "the embedded Fashion-MNIST sample (test images)"
	}
	fmt.Fprintf(stdout, "%s: the first %d for training, %d after the next %d denoised; noise σ = %g (seed %d); RBF γ = %.3g\n\n",
		source, cfg.train, cfg.test, cfg.skip, cfg.noise, cfg.seed, cfg.gamma)
	fmt.Fprintln(stdout, "| images | MSE against the clean images | time |")
	fmt.Fprintln(stdout, "| --- | ---: | ---: |")
	for _, r := range res {
		t := "—"
		if r.took > 0 {
			t = r.took.Round(time.Millisecond).String()
		}
		fmt.Fprintf(stdout, "| %s | %.4f | %s |\n", r.name, mse(r.X, test), t)
	}
	if cfg.png == "" {
		return nil
	}
	rows := []*mat.Dense{res[0].X, res[1].X, res[2].X, res[len(res)-1].X, test}
	f, err := os.Create(cfg.png)
	if err != nil {
		return err
	}
	if err := png.Encode(f, grid(rows, cfg.show)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// grid draws the first n images of each matrix (28×28 pixels, values clipped to
// [0, 1], dark ink on white as the example's "Greys" colour map) in a row of its own,
// each pixel 2×2, with a 4-pixel white margin between images.
func grid(rows []*mat.Dense, n int) *image.Gray {
	const side, scale, gap = 28, 2, 4
	cell := side*scale + gap
	img := image.NewGray(image.Rect(0, 0, n*cell+gap, len(rows)*cell+gap))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for r, X := range rows {
		for c := range n {
			px := X.RawRowView(c)
			for y := range side {
				for x := range side {
					v := math.Min(math.Max(px[y*side+x], 0), 1)
					g := color.Gray{Y: uint8(math.Round(255 * (1 - v)))}
					for dy := range scale {
						for dx := range scale {
							img.SetGray(gap+c*cell+x*scale+dx, gap+r*cell+y*scale+dy, g)
						}
					}
				}
			}
		}
	}
	return img
}
