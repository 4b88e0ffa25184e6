package ikpcabeam

import "gonum.org/v1/gonum/mat"

// newNystromModel returns an empty Nyström KPCA model on the landmarks, with the
// kernel and options of opts, as a Summary; nil until the core module has the model
// (issue 14 §1), and FitNystrom then returns ErrNystromUnavailable.
//
// TODO(issue 14 §1): once the core's mergeable Nyström model exists, this file is all
// that changes:
//
//   - set newNystromModel to a function that builds the core's model on the landmarks
//     (kernel.New(opts.Kernel), the model's own options) and wraps it in an adapter
//     type whose Merge(o Summary) asserts o to the adapter and calls the core's Merge,
//     and whose Add, MarshalBinary, UnmarshalBinary and ikpca.Model methods are the
//     core model's;
//   - add the model's encoding to kinds, in an init function here:
//     kinds = append(kinds, kind{name: "Nyström KPCA", magic: <its magic>,
//     summary: func() Summary { return new(<adapter>) }});
//   - remove the t.Skip in TestNystromMatchesSingleProcess.
var newNystromModel func(landmarks *mat.Dense, opts NystromOptions) (Summary, error)
