#!/usr/bin/env bash
# Fit + polish against scikit-learn's arpack across the dimension d of the points: issue
# 28's "ahead of arpack at every d". For each data set, "ikpca fit --rank 50 --k 10
# --polish 4" (OpenBLAS build) and bench/sklearn_fit.py's KernelPCA(n_components=50,
# kernel="rbf", gamma=1/(2σ²), eigen_solver="arpack") run as whole processes on the same
# CSV with the same σ (the median-distance bandwidth bench/points prints), each under
# /usr/bin/time -v, the two sides interleaved and repeated. It prints one Markdown table:
# d, the points, each side's median wall time and peak memory, the ratio of each round and
# of the medians, and the largest |Δλⱼ|/λ₁ over the top 10 between the two.
#
#   cpu_act  all 8192 points, d = 21 (raw features)
#   magic    all 19,020 points, d = 10
#   a9a      the first 20,000 of the seeded order, d = 123 (binary)
#   fashion  the first 10,000 Fashion-MNIST images, d = 784 (pixels / 255)
#
#   bench/every_d.sh                      # all four, 3 rounds
#   bench/every_d.sh -runs 5 -only a9a -a9a-n 32561
#   bench/every_d.sh -only magic,a9a -magic-n 3000 -a9a-n 3000   # at most --batch-max
#                                         # (4096) points: a batch fit, not tracked
#
# The machine first: CPU, cores, OpenBLAS's kernels as "ikpca backend --quick" reports
# them, the date. Run it on an idle machine. Needs Go, libopenblas-dev and
# liblapacke-dev, /usr/bin/time, Debian's python3-sklearn (/usr/bin/python3) and, for
# the images, dataset-fashion-mnist.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

runs=3 only=cpu_act,magic,a9a,fashion magic_n=0 a9a_n=20000 fashion_n=10000 keep="" polish=4
while (($#)); do
	case "$1" in
	-keep) keep="$2"; shift ;;
	-runs) runs="$2"; shift ;;
	-only) only="$2"; shift ;;
	-magic-n) magic_n="$2"; shift ;;
	-a9a-n) a9a_n="$2"; shift ;;
	-fashion-n) fashion_n="$2"; shift ;;
	-polish) polish="$2"; shift ;;
	*) echo "usage: $0 [-runs 3] [-only cpu_act,magic,a9a,fashion] [-magic-n 0] [-a9a-n 20000] [-fashion-n 10000] [-polish 4] [-keep DIR]" >&2; exit 2 ;;
	esac
	shift
done
start_sklearn "$keep"

go build -tags openblas -o "$tmp/ikpca" ./cmd/ikpca
go build -o "$tmp/points" ./bench/points
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
kernels=$("$tmp/ikpca" backend --quick 2>/dev/null | sed -n 's/^core: *//p' | head -1)
echo "Machine: $cpu, $(nproc) logical CPUs; OpenBLAS kernels: ${kernels:-unknown}, on both sides; $(date -u +%Y-%m-%d)."
echo

# One line per run in $tmp/runs.csv: set,n,d,side,round,wall,rss,file of its top 10.
: >"$tmp/runs.csv"
# compare SET N: the points (N of them, 0 for all), then the rounds of both sides.
compare() {
	local set=$1 n=$2 input="$tmp/$1.csv" sigma d count name wall rss status
	sigma=$("$tmp/points" -dataset "$set" -n "$n" -o "$input")
	count=$(wc -l <"$input")
	d=$(head -1 "$input" | awk -F, '{print NF}')
	for r in $(seq "$runs"); do
		name="$set-ikpca-$r"
		timed "$name" "$tmp/ikpca" fit --rank 50 --k 10 --sigma "$sigma" --polish "$polish" --values "$tmp/$name.values" "$input"
		((status == 0)) || failed "$name"
		echo "$set,$count,$d,ikpca,$r,$wall,$rss,$tmp/$name.values" >>"$tmp/runs.csv"
		name="$set-arpack-$r"
		timed "$name" "$python" bench/sklearn_fit.py --one --points "$input" --sigma "$sigma" --components 50 --solvers arpack
		((status == 0)) || failed "$name"
		echo "$set,$count,$d,arpack,$r,$wall,$rss,$tmp/$name.out" >>"$tmp/runs.csv"
	done
}
has cpu_act && compare cpu_act 0
has magic && compare magic "$magic_n"
has a9a && compare a9a "$a9a_n"
has fashion && compare fashion-mnist "$fashion_n"

"$python" - "$tmp/runs.csv" "$polish" <<'EOF'
import csv, statistics, sys

def top10(side, path):
    """The top 10 eigenvalues a run wrote: ikpca's values file, or sklearn_fit.py's row."""
    rows = list(csv.reader(open(path)))
    if side == "ikpca":
        return [float(r[1]) for r in rows[1:11]]
    return [float(v) for v in rows[-1][8:18]]

runs = {}
for s, n, d, side, r, wall, rss, path in csv.reader(open(sys.argv[1])):
    runs.setdefault((s, int(n), int(d)), {}).setdefault(side, []).append((int(r), float(wall), float(rss), top10(side, path)))
print(f"| data set | d | points | fit + polish {sys.argv[2]}, s | arpack, s | ratio, each round | ratio of the medians | peak MiB (ikpca; arpack) | top 10 vs arpack, max \\|Δλⱼ\\|/λ₁ |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for (s, n, d), sides in sorted(runs.items(), key=lambda kv: kv[0][2]):
    ik, ar = sorted(sides["ikpca"]), sorted(sides["arpack"])
    ratios = ", ".join(f"{a[1] / b[1]:.2f}" for a, b in zip(ik, ar))
    mi, ma = statistics.median(x[1] for x in ik), statistics.median(x[1] for x in ar)
    diff = max(abs(x - y) / ar[0][3][0] for a, b in zip(ik, ar) for x, y in zip(a[3], b[3]))
    span = lambda xs: f"{min(xs):.2f}–{max(xs):.2f}" if len(xs) > 1 else f"{xs[0]:.2f}"
    mem = lambda xs: f"{statistics.median(xs):.0f}"
    print(f"| {s} | {d} | {n:,} | {span([x[1] for x in ik])} | {span([x[1] for x in ar])} | {ratios} | **{mi / ma:.2f}** | "
          f"{mem([x[2] for x in ik])}; {mem([x[2] for x in ar])} | {diff:.1e} |")
EOF
