// Package features provides explicit feature maps z: Rᵈ → Rᴰ whose inner products
// approximate a kernel, k(x, y) ≈ z(x)ᵀz(y), so that kernel methods can run as linear
// methods in Rᴰ: random Fourier features for the Gaussian kernel (Rahimi & Recht 2007)
// in the two usual forms. Taylor (Taylor-series polynomial features, Cotter, Keshet &
// Srebro 2011) and Quadrature (Gauss–Hermite quadrature features, Dao, De Sa & Ré 2017)
// approximate the same kernel from a truncated series and a quadrature rule instead.
//
// Every map takes the kernel it approximates first, a kernel.RBF given by its bandwidth
// σ or by scikit-learn's γ = 1/(2σ²) — NewRFF(kernel.RBF{Sigma: 1}, d, opts) — as every
// constructor of the module takes its kernel, and reports it (Kernel).
//
// A map is seeded and reproducible: the same options give the same map on every machine
// and backend (the frequencies come from math/rand/v2's PCG source). Points can be
// mapped one at a time (Map, allocation-free) or a batch at once (Transform, one
// matrix product through BLAS). Every error wraps one of the package's sentinels, each
// of which wraps the ikpca kind of the same name.
package features
