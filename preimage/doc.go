// Package preimage maps kernel PCA scores back to the input space: pre-images, the
// points whose feature vectors are (nearly) a given element of the feature space, for
// kernel PCA's reconstructions and denoising (docs/design.md, "Pre-images").
//
//	inv, err := model.Inverse(k, 1.0)        // kpca.Model or nystrom.Model: a *KRR
//	err = inv.InverseTransform(&Xhat, scores) // scikit-learn's inverse_transform
//	err = model.PreImage(&Z, X, nil, k, preimage.Options{}) // Mika et al.'s fixed point
//
// Two methods:
//
//   - KRR, scikit-learn's learned pre-image map (KernelPCA(fit_inverse_transform=True),
//     after Bakır, Weston and Schölkopf, "Learning to find pre-images", NIPS 2004): a
//     kernel ridge regression from the n training scores to the n training points, with
//     the model's own kernel applied to the score vectors. FitKRR builds it from any
//     scores and points; kpca.Model.Inverse and nystrom.Model.Inverse from a model.
//     Fitting costs the n×n kernel matrix of the scores and its Cholesky factorisation,
//     O(n²) memory and O(n³/3) flops; a pre-image then costs n kernel values and 2·n·d
//     flops.
//   - FixedPoint, the fixed-point iteration of Mika, Schölkopf, Smola, Müller, Scholz
//     and Rätsch ("Kernel PCA and de-noising in feature spaces", NIPS 1999) for the
//     Gaussian kernel: the point z whose φ(z) is nearest to an expansion Σᵢ cᵢ·φ(pᵢ),
//     with the safeguards of Chin and Suter's reduced sets (package chinsuter, which
//     uses it too): the best point visited is kept, the iteration stops when its
//     denominator vanishes or a step leaves the finite numbers. kpca.Model.PreImage and
//     nystrom.Model.PreImage denoise points with it: each point projected on the top k
//     components, then its pre-image found. Each iteration costs n kernel values and
//     2·n·d flops.
//
// Every error of the package wraps one of its sentinels (ErrArgument, …), each of
// which wraps the ikpca kind of the same name.
package preimage

import "github.com/ikpca/ikpca/internal/check"

// kinds are the package's errors (exported below), and report bad arguments through them.
var kinds = check.NewKinds("preimage")

// Errors returned by the package, wrapped with details; test with errors.Is. Each wraps
// the ikpca kind of the same name: ErrArgument for a nil, zero-valued or invalid
// argument (a kernel kernel.Validate refuses, a negative ridge, a system singular to
// working precision), ErrDimension for matrices whose shapes disagree, ErrEmpty for a
// matrix without rows or columns, ErrNonFinite for a NaN or an infinity in the input, a
// kernel value or a result.
var (
	ErrDimension, ErrNonFinite, ErrEmpty, ErrArgument = kinds.Dimension, kinds.NonFinite, kinds.Empty, kinds.Argument
)
