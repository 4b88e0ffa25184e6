// Package kaf provides kernel adaptive filters: linear adaptive filters (LMS, RLS and
// extended RLS) that run on any explicit feature map φ(x) — random Fourier, Taylor,
// Gaussian-quadrature or SPEED eigenfunction features from package features — and the
// classical dictionary-based kernel filters KLMS and QKLMS as baselines, with the
// Mackey–Glass series and time embedding used to compare them.
//
// A filter in feature space predicts y = wᵀφ and adapts w from the a-priori error
// e = d − wᵀφ; each Update is O(m) (LMS) or O(m²) (RLS, Ex-RLS) for m features and does
// not allocate.
//
// Every error wraps one of the package's sentinel errors (ErrDimension, ErrNonFinite,
// ErrEmpty, ErrArgument, ErrNotConverged), each of which wraps the ikpca kind of the
// same name: a vector of the wrong length is ErrDimension, a NaN or infinite value (or
// finite ones whose update would overflow) ErrNonFinite, a series too short ErrEmpty,
// an impossible option or an invalid kernel ErrArgument. A bad input leaves the filter
// or the feature map as it was.
package kaf
