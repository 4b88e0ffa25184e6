#!/usr/bin/env bash
# The project's test command (README.md): everything CI checks, runnable on a fresh
# Debian machine with Go installed. It installs the OpenBLAS and scikit-learn packages
# when missing.
#
#   ./ci/test.sh          full run (about 25 minutes on 2 cores with warm Go caches, 33 with
#                         an empty build cache; each step prints when it starts)
#   ./ci/test.sh -quick   pure-Go tests in -short mode only
set -euo pipefail
cd "$(dirname "$0")/.."

quick=false
[[ "${1:-}" == "-quick" ]] && quick=true

export PATH="$PATH:/usr/local/go/bin:$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin"
step() { printf '\n=== %s (at %d s)\n' "$*" "$SECONDS"; }

step "toolchain: $(go version)"

if $quick; then
	step "pure-Go tests (-short)"
	go test -short ./...
	exit 0
fi

# OpenBLAS and LAPACKE for -tags openblas (docs/design.md, "Backends"); Debian's
# scikit-learn (1.2.1, with NumPy and SciPy; about 30 s to install) for the tracking
# study's comparison with KernelPCA, which cmd/ikpca/internal/study/tracking's TestSklearn runs
# through /usr/bin/python3 and skips without it; and Debian's Fashion-MNIST (30 MB of
# gzip-compressed IDX in /usr/share/datasets/fashion-mnist), which data's TestFashionMNIST
# reads whole and skips without it.
missing=()
for pkg in libopenblas-dev liblapacke-dev python3-sklearn dataset-fashion-mnist; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
	step "installing ${missing[*]}"
	sudo=""
	[[ $(id -u) -ne 0 ]] && sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [[ -n "$unformatted" ]]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

step "go vet (pure Go, openblas, CGO_ENABLED=0)"
go vet ./...
go vet -tags openblas ./...
CGO_ENABLED=0 go vet ./...

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Pure Go with cgo off: a machine with nothing but Go. Every file with cgo is also behind
# the openblas tag, so this compiles exactly the files of a default build with cgo on, and
# one run covers both. -timeout 30m: go test's default of 10 minutes per package is about
# three times what the longest package (kpca) takes on two idle cores; a slower or shared
# machine would fail on time alone.
#
# kpca and update, the longest packages, run whole once, with OpenBLAS below, and in
# -short mode here: the same tests at smaller sizes and fewer steps, so that every test
# still passes on the pure-Go BLAS, whose rounding differs. (update's whole run borders
# 1100 points one at a time, 2.5 minutes of pure-Go dgemm, 250 with -short.)
step "tests, pure Go, without cgo (a machine with nothing but Go)"
CGO_ENABLED=0 go build ./...
CGO_ENABLED=0 go test -count=1 -timeout 30m $(go list ./... | grep -v -e '/kpca$' -e '/update$')
CGO_ENABLED=0 go test -count=1 -timeout 30m -short ./kpca/ ./update/

# update is raced once, with OpenBLAS, below: its goroutines (the secular solver's
# workers) are the same in both backends.
step "tests, pure Go, race detector on the core packages"
go test -count=1 -race ./native/ ./internal/rbfrow/ ./secular/ ./kernel/ ./features/ ./sketch/
# kpca's own goroutines are the passes' tiles (Polish, Certify, KeepKernel) and the block
# steps' hold on the cores; its other tests reach goroutines only through native, kernel
# and update, raced in their own packages. So the race detector runs the tests of those
# (about a third of kpca's, which under it took 7 minutes whole).
go test -count=1 -race -short -run '^Test(Pass|TileRounds|Polish|Certify$|KeepKernel|Block|AddBatch|AddRows|TransformBlocks|Txn|Window$|Conformance)' ./kpca/
go test -count=1 -race -short ./nystrom/

step "tests, -tags openblas (also compares OpenBLAS with gonum's BLAS and LAPACK in one process)"
go test -count=1 -timeout 30m -tags openblas ./...

step "tests, -tags openblas, race detector on update"
go test -count=1 -race -tags openblas ./update/

# OpenBLAS's generic kernels, as a CPU newer than its OpenBLAS gets them (issue 28): set
# explicitly, OPENBLAS_CORETYPE is respected, nothing is switched, and every result must
# hold on them too (they round differently from the machine's own kernels).
step "tests, -tags openblas on OpenBLAS's Prescott kernels (OPENBLAS_CORETYPE=Prescott), core packages, -short"
OPENBLAS_CORETYPE=Prescott go test -count=1 -short -tags openblas ./native/ ./kernel/ ./update/ ./kpca/ ./cmd/ikpca/

# The Beam module is a module of its own (beam/go.mod: the Beam SDK's ~300 modules stay
# out of the core's go.mod, which the grep checks). Its tests run pipelines on the prism
# runner in the test process. Measured on the 2-core machine (2026-11-30): 3.4 minutes
# with warm module caches, about a minute of it the tests, and most of the rest compiling
# ikpcabeam three times (vet, tests, tests with OpenBLAS), 31 s each since its
# per-bundle DoFns are registered without generated wrappers (docs/design.md,
# "Registration"; 151 s each before); 7.3 minutes with an empty build cache (compiling
# the SDK's tree, gRPC and the cloud clients, 859 packages, once per cache).
step "Beam module: go vet, tests on prism (pure Go, -tags openblas); the core's go.mod has no Beam"
if grep -q 'apache/beam' go.mod; then
	echo "the core's go.mod requires the Beam SDK: it belongs in beam/go.mod only"; exit 1
fi
# With OpenBLAS the pipelines' package runs its tests; the command's and the
# measurement's tests, whose pipelines are the same, run in pure Go only (linking a test
# binary of the Beam SDK takes about a minute here). No file of the module has a build
# tag, and the core's API is the same under both tags (vetted above), so one go vet
# covers the module.
(cd beam && go vet ./... && go test -count=1 ./... && go test -count=1 -tags openblas ./ikpcabeam/)

# Pure Go with cgo off, as the tests above: the same files (every cgo file is behind the
# openblas tag), and their compiled packages are reused instead of built again with cgo.
step "benchmark smoke run (both backends)"
CGO_ENABLED=0 go test -run '^$' -bench . -benchtime=1x -short ./...
go test -run '^$' -bench . -benchtime=1x -short -tags openblas ./...

step "performance harness smoke run, -short (both backends)"
go run ./bench -short -csv "$tmp/bench-gonum.csv"
go run -tags openblas ./bench -short -csv "$tmp/bench-openblas.csv"

step "fuzz smoke runs (solver, removal, thin decompositions, sketch and its encoding, CSV, LIBSVM and IDX readers, Chin–Suter updates, kpca's models driven by arbitrary points, every model's encoding: kpca, linear PCA, Nyström and its sums, Chin–Suter, SKPCA, RNCA, KRQA and KHA, and the kernel codec they share; vectorised RBF rows; the chunked SVD of tall matrices; the sharded polish's states)"
# Budgets are execution counts, not durations: with a duration, Go 1.26's fuzz
# coordinator can report a spurious "context deadline exceeded" failure at the
# deadline (golang/go#75804, fixed in Go 1.27). A count has no deadline to race.
# Each target takes about 6 s on this machine type (2 cores), half of it the build: a smoke run that every
# target still runs and finds nothing quickly; the seeds run in the plain tests too.
# One line a target: its package, its name, its count of executions and its build tags
# (none: pure Go). FuzzFinish checks the vectorised RBF rows (C with AVX2, OpenBLAS
# build) against their Go loop; FuzzSVDLeftTall the chunked SVD (OpenBLAS's LAPACK in
# its chunks) against gonum's Dgesvd, about 30 ms an execution. The table is the loop's input, not go test's (/dev/null).
while read -r pkg target count tags; do
	go test -run '^$' -fuzz "^$target\$" -fuzztime "$count" $tags "$pkg" </dev/null
done <<'EOF'
./secular/          FuzzSolver           62500x
./update/           FuzzRemove           62500x
./update/           FuzzThin             62500x
./update/           FuzzBorderBlock      37500x
./update/           FuzzThinRankOne      37500x
./sketch/           FuzzFD               12500x
./sketch/           FuzzUnmarshalFD      187500x
./internal/table/   FuzzRead             50000x
./internal/table/   FuzzNextRows         50000x
./data/             FuzzParseLIBSVM      37500x
./data/             FuzzParseLIBSVMLine  37500x
./data/             FuzzReadIDX          37500x
./secular/          FuzzRestrict         25000x
./chinsuter/        FuzzAdd              5000x
./chinsuter/        FuzzLoadModel        100000x
./kpca/             FuzzUnmarshal        100000x
./kpca/             FuzzModel            12500x
./pca/              FuzzUnmarshal        100000x
./nystrom/          FuzzLoadModel        100000x
./stream/           FuzzLoadSKPCA        62500x
./stream/           FuzzUnmarshalRNCA    100000x
./stream/           FuzzUnmarshalKRQA    125000x
./stream/           FuzzUnmarshalKHA     125000x
./nystrom/          FuzzUnmarshalSums    50000x
./internal/kernelwire/ FuzzRead          250000x
./internal/rbfrow/  FuzzFinish           125000x  -tags openblas
./native/           FuzzSVDLeftTall      1000x    -tags openblas
EOF
# The Beam module's: the sharded polish's state decoder (its own module, run from there).
(cd beam && go test -run '^$' -fuzz '^FuzzState$' -fuzztime 100000x ./sharded/ </dev/null)

step "all checks passed"
