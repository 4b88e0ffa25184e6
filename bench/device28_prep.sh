#!/usr/bin/env bash
# Packs what bench/device28.sh needs on a lent machine that has no Go, no OpenBLAS and no
# data sets (the run tool's nvidia-h200: 16 cores, Python with scikit-learn) into
# .device28/device28.tar.xz, about 25 MB, ignored by git: name .device28 in the run
# tool's carry. The archive holds
#   ikpca   the command, built here with -tags openblas;
#   lib/    the shared libraries it links that such a machine lacks, as this one has them
#           (Debian 12: OpenBLAS 0.3.21, pthreads, DYNAMIC_ARCH; LAPACKE 3.11; gfortran):
#           the OpenBLAS whose choice of kernels on a newer CPU issue 28 is about;
#   data/   MAGIC's 19,020 points and the first 20,000 Fashion-MNIST images as CSV (as
#           bench/points writes them, in the order bench/phases.sh and the docs' tables
#           use), each with its bandwidth σ (NAME.sigma), and the σ of the first 10,000
#           images (fashion-10000.sigma), whose rows device28.sh cuts from the 20,000.
# Needs Go, libopenblas-dev, liblapacke-dev, Debian's dataset-fashion-mnist and the data
# in ../shared/data (bench/points). Takes about two minutes, most of it xz.
set -euo pipefail
cd "$(dirname "$0")/.."
d=.device28
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -tags openblas -o "$tmp/ikpca" ./cmd/ikpca
go build -o "$tmp/points" ./bench/points
mkdir "$tmp/lib" "$tmp/data"
# The libraries ldd resolves outside the C library and the compiler's runtime, which
# every Linux has (libmvec, the vector exponential, comes with the C library).
ldd "$tmp/ikpca" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
	grep -E '/lib(openblas|lapacke|lapack|blas|tmglib|gfortran|quadmath)\.' |
	while read -r lib; do cp -L "$lib" "$tmp/lib/"; done
"$tmp/points" -dataset magic -n 0 -o "$tmp/data/magic.csv" >"$tmp/data/magic.sigma"
"$tmp/points" -dataset fashion-mnist -n 20000 -o "$tmp/data/fashion-20000.csv" >"$tmp/data/fashion-20000.sigma"
"$tmp/points" -dataset fashion-mnist -n 10000 -o "$tmp/fashion-10000.csv" >"$tmp/data/fashion-10000.sigma"
# The 10,000 images are the first rows of the 20,000: device28.sh cuts them there.
head -n 10000 "$tmp/data/fashion-20000.csv" | cmp -s - "$tmp/fashion-10000.csv" ||
	{ echo "$0: the first 10,000 images are not the first rows of the 20,000" >&2; exit 1; }
rm -rf "$d"
mkdir "$d"
tar -C "$tmp" -cf - ikpca lib data | xz -T0 -6 >"$d/device28.tar.xz"
ls -l "$d/device28.tar.xz"
