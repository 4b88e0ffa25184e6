// Package features provides explicit feature maps z: Rᵈ → Rᴰ whose inner products
// approximate a kernel, k(x, y) ≈ z(x)ᵀz(y), so that kernel methods can run as linear
// methods in Rᴰ: random Fourier features for the Gaussian kernel (Rahimi & Recht 2007)
// in the two usual forms. Taylor (Taylor-series polynomial features, Cotter, Keshet &
// Srebro 2011) and Quadrature (Gauss–Hermite quadrature features, Dao, De Sa & Ré 2017)
// approximate the same kernel from a truncated series and a quadrature rule instead.
//
// A map is seeded and reproducible: the same options give the same map on every machine
// and backend (the frequencies come from math/rand/v2's PCG source). Points can be
// mapped one at a time (Map, allocation-free) or a batch at once (Transform, one
// matrix product through BLAS).
package features
