// Package native selects and exposes the dense linear-algebra backend used by
// the library: OpenBLAS (plus LAPACK/LAPACKE) through cgo, or gonum's pure-Go
// BLAS and LAPACK.
//
// The backend is chosen at build time:
//
//   - default build (no tags, or CGO_ENABLED=0): gonum's pure-Go
//     implementations (gonum.org/v1/gonum/blas/gonum and
//     gonum.org/v1/gonum/lapack/gonum);
//   - -tags openblas with cgo enabled: OpenBLAS through
//     gonum.org/v1/netlib. The package links with -llapacke -lopenblas by
//     itself, so no CGO_LDFLAGS are needed (Debian: install libopenblas-dev
//     and liblapacke-dev).
//
// Because go mod tidy considers every build tag, a pure-Go program that imports the
// library still gets gonum.org/v1/netlib as an indirect requirement in its go.mod. That
// is a requirement line only: without the tag no file of netlib is compiled or linked,
// and the build needs no cgo.
//
// Building with -tags openblas but CGO_ENABLED=0 is a compile error on
// purpose, so that an OpenBLAS build never silently falls back to pure Go.
//
// The library calls the compiled-in backend directly, through this package: the
// BLAS routines its hot paths need ([Gemm], [Gemv], [Ger], [Symv], [Syr], [Syrk] in
// blas64's idiom, and [Mul] in place of (*mat.Dense).Mul), an SVD ([Gesvd], [SVDLeft]),
// linear solvers by Cholesky and by LU ([Posv], [Gesv], for pre-images), a symmetric
// eigensolver ([EigenSym], [EigenSymInPlace]) and a partial one for the
// largest r eigenpairs only ([EigenSymTop], [EigenSymTopInPlace]). They need no call
// first: a program built with -tags openblas runs every update on OpenBLAS. The first
// call into OpenBLAS makes its idle threads sleep at once (OPENBLAS_THREAD_TIMEOUT, see
// [Use]) unless the environment says otherwise.
//
// Before that first call the package checks the kernels ("core") OpenBLAS chose for the
// CPU, and if they are below what the CPU runs — as an OpenBLAS older than the CPU
// chooses — switches to the best ones it runs, keeping them only if they agree with
// gonum's pure-Go code to rounding and are faster. OPENBLAS_CORETYPE, when set, is left
// alone; [CoreEnv] turns the switch off or asks for a core. [Core] reports the outcome,
// and [Info.String] includes it.
//
// Importing the package has no side effects. [Use] registers the compiled-in backend
// with gonum's blas64 and lapack64 registries, for the rest of a program's gonum code
// (gonum/mat, stat, optimize...), which otherwise runs on gonum's pure-Go BLAS and
// LAPACK even in the openblas build. The library itself does not need it.
package native
