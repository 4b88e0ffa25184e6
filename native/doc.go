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
// Building with -tags openblas but CGO_ENABLED=0 is a compile error on
// purpose, so that an OpenBLAS build never silently falls back to pure Go.
//
// Importing the package has no side effects. Call [Use] once (typically from
// main) to register the compiled-in backend with gonum's blas64 and lapack64
// registries, so that gonum/mat and everything built on it use it too.
// [EigenSymInPlace], [EigenSym] and [Gemm] always call the compiled-in backend
// directly, whether or not [Use] was called.
package native
