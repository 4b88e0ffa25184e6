#!/usr/bin/env bash
# Package pca, exact incremental linear PCA, against scikit-learn's PCA and IncrementalPCA
# on all 70,000 Fashion-MNIST images (d = 784), side by side in one run: the measurements
# of issue 22. It prints Markdown tables for docs/performance.md, each target followed by
# PASS or FAIL.
#
# One IDX file of the images (bench/points -dataset fashion-mnist) is read by every
# process; each fit is a process of its own under /usr/bin/time -v (wall time, peak
# resident memory):
#
#   pca-add          bench/pcafit -method add: the exact model, one Add an image (one
#                    rank-one update of the 784×784 decomposition each);
#   pca-block-B      bench/pcafit -method batch -block B: the exact model, AddBatch of B
#                    images at a time (one refactorisation a block), for each B of
#                    -blocks: 1000, and 3920 = 5·d, IncrementalPCA's default batch_size.
#                    A refactorisation forms and decomposes the d×d scatter matrix, about
#                    9–11 784³ dgemms whatever B, where IncrementalPCA's batch is one SVD
#                    of a (50 + B + 1)×784 matrix: at B = 100 ours is 9–14× slower (the
#                    -tiny run), at B = 1000 about as fast (0.88× on 4,000 images);
#   pca-rank-R       bench/pcafit -method rank -rank R: Options{Components: R, Rank: R},
#                    one Add an image (R = 50);
#   sklearn-full     PCA(n_components, svd_solver="full"), the SVD of the centred
#                    points: the reference of accuracy (bench/sklearn_pca.py);
#   sklearn-randomized  PCA(50, svd_solver="randomized", random_state=0);
#   sklearn-ipca-B   IncrementalPCA(50, batch_size=B) for each B of -blocks (and with
#                    its default batch_size, 5·d, if that is not one of them).
#
# Every process writes its top 50 variances and components into the run's directory, and
# bench/pca_report.py compares them with sklearn-full's: max |Δvⱼ|/v₁ and max |Δvⱼ|/vⱼ
# over the top 50, and the sine ‖(I − UUᵀ)V‖₂ of the top 10 and top 50 (its spectral
# norm computed directly). The physical limit is one 784³ dgemm on the same backend,
# timed (native.Gemm, best of 10) in each bench/pcafit process after its fit: the time
# of an image of pca-add as a multiple of it. Targets: exact pca in blocks of B no slower
# than IncrementalPCA(batch_size=B), for each B; every exact pca fit within 1e-11·v₁ of
# the reference's variances and its sines within 1e-11·v₁/gap (Davis–Kahan);
# one image at a time at most two 784³ dgemms an image. IncrementalPCA's and the rank-50
# model's errors are printed as multiples of the exact fits'.
#
# The machine (CPU, OpenBLAS's core as OPENBLAS_VERBOSE=2 names it, for the Go side and
# for numpy) is printed first. Run it on an idle machine:
#
#   bench/pca_vs_sklearn.sh -keep DIR       # everything: about 20–30 minutes on an idle
#                                           # machine of 2 cores, most of it pca-add (70,000
#                                           # rank-one updates of a 784×784 decomposition,
#                                           # ~1.2 784³ dgemms each, 10 ms here at -tiny)
#   bench/pca_vs_sklearn.sh -only blocks,rank,sklearn -keep DIR   # all but pca-add: minutes
#   bench/pca_vs_sklearn.sh -tiny           # 2,000 images, blocks of 100, rank 10: a check
#                                           # that it runs, in about a minute
#
# Other flags: -n N (images, default 70000), -blocks LIST (default 1000,3920), -rank R
# (default 50), -k K (components compared, default 50), -only LIST (of add, blocks, rank,
# sklearn; default all), -keep DIR (keep the input, the outputs and the /usr/bin/time
# reports in DIR; runs with the same DIR add to one report, a run again replacing its
# row). Needs Go, libopenblas-dev and liblapacke-dev, /usr/bin/time, Debian's
# python3-sklearn (/usr/bin/python3) and dataset-fashion-mnist.
set -euo pipefail
cd "$(dirname "$0")/.."

n=70000 blocks=1000,3920 rank=50 k=50 only=add,blocks,rank,sklearn keep="" tiny=false
while (($#)); do
	case "$1" in
	-tiny) tiny=true n=2000 blocks=100 rank=10 ;;
	-n) n="$2"; shift ;;
	-blocks) blocks="$2"; shift ;;
	-rank) rank="$2"; shift ;;
	-k) k="$2"; shift ;;
	-only) only="$2"; shift ;;
	-keep) keep="$2"; shift ;;
	*) echo "usage: $0 [-tiny] [-n N] [-blocks 1000,3920] [-rank R] [-k K] [-only add,blocks,rank,sklearn] [-keep DIR]" >&2; exit 2 ;;
	esac
	shift
done
source bench/lib.sh
start_sklearn "$keep"

echo "building bench/pcafit (-tags openblas) and the points helper" >&2
go build -tags openblas -o "$tmp/pcafit" ./bench/pcafit
go build -o "$tmp/points" ./bench/points
core=$(OPENBLAS_VERBOSE=2 "$tmp/pcafit" -h 2>&1 | sed -n 's/^Core: //p' | head -1)
npcore=$(OPENBLAS_VERBOSE=2 "$python" -c "import numpy" 2>&1 | sed -n 's/^Core: //p' | head -1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "\"$cpu\",$(nproc),${core:-unknown},${npcore:-unknown (not OpenBLAS?)},$(date -u +%Y-%m-%d)" >"$tmp/machine.csv"

# results.csv: one line per process — name, points, wall seconds, max RSS MiB, exit status.
# With -keep, runs add to it: the report takes each name's last line.
results="$tmp/results.csv"
touch "$results"

# measure NAME COMMAND...: runs the command under /usr/bin/time -v, its standard output
# to NAME.out and its standard error to NAME.err, and records the wall time and maximum
# resident set size; a failure stops the script.
measure() {
	local name=$1 status wall rss
	shift
	timed "$name" "$@"
	echo "$name,$n,$wall,$rss,$status" >>"$results"
	((status == 0)) || failed "$name"
}

input="$tmp/fashion-$n.idx"
[[ -f "$input" ]] || "$tmp/points" -dataset fashion-mnist -n "$n" -o "$input" >/dev/null

# scikit-learn first: the reference the report needs, and the fits that take minutes.
if has sklearn; then
	measure sklearn-full "$python" bench/sklearn_pca.py --points "$input" --method full --components "$k" --out "$tmp/sklearn-full"
	measure sklearn-randomized "$python" bench/sklearn_pca.py --points "$input" --method randomized --components "$k" --out "$tmp/sklearn-randomized"
	default=0
	for b in ${blocks//,/ }; do
		measure "sklearn-ipca-$b" "$python" bench/sklearn_pca.py --points "$input" --method incremental --components "$k" --batch-size "$b" --out "$tmp/sklearn-ipca-$b"
		((b == 5 * 784)) && default=1
	done
	if ((default == 0)); then
		measure sklearn-ipca-default "$python" bench/sklearn_pca.py --points "$input" --method incremental --components "$k" --out "$tmp/sklearn-ipca-default"
	fi
fi
if has blocks; then
	for b in ${blocks//,/ }; do
		measure "pca-block-$b" "$tmp/pcafit" -method batch -block "$b" -k "$k" -input "$input" -out "$tmp/pca-block-$b" -json -
	done
fi
if has rank; then
	measure "pca-rank-$rank" "$tmp/pcafit" -method rank -rank "$rank" -k "$k" -input "$input" -out "$tmp/pca-rank-$rank" -json -
fi
if has add; then
	measure pca-add "$tmp/pcafit" -method add -k "$k" -input "$input" -out "$tmp/pca-add" -json -
fi

"$python" bench/pca_report.py "$tmp" --k "$k" --rank "$rank" --blocks "$blocks" $($tiny && echo --tiny)
