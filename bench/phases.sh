#!/usr/bin/env bash
# Each phase of a fit at 1, 2, … threads: issue 28's table of parallel efficiency. For
# each data set and thread count t it runs "ikpca fit --timings" (OpenBLAS build) as a
# process of its own with GOMAXPROCS=t and OPENBLAS_NUM_THREADS=t, the runs of the
# thread counts interleaved and repeated, and prints a Markdown table: each phase's
# median wall seconds at every t, its share of the one-thread total, and its speed-up
# and parallel efficiency T₁/(t·Tₜ) at the largest t, with the track's parts ("track:
# solve", the serial dense eigenproblems of the block steps, and project, assemble and
# other); the fit and polish together (the issue's target: every phase but the
# certificate); and, as the machine's own limit, the
# rate of a dgemm of order 1000 on t threads timed in the same rounds ("ikpca backend
# --quick"). The machine first (CPU, cores, the OpenBLAS kernels as "ikpca backend
# --quick" reports them, the date).
#
#   bench/phases.sh                      # MAGIC (all 19,020) and Fashion-MNIST 10,000, 1 and 2 threads, 3 runs
#   bench/phases.sh -threads 1,2,4,8,16  # on a machine with more cores
#   bench/phases.sh -runs 5 -only magic
#
# The fits are issue 28's: "fit --rank 50 --k 10 --polish 4 --certify", σ the
# median-distance bandwidth of the points (bench/points), MAGIC's raw features from a
# CSV, the images from a CSV of their pixels. Needs Go, libopenblas-dev and
# liblapacke-dev, and Debian's dataset-fashion-mnist for the images. Run it on an idle
# machine: every other process takes cores from the runs of more threads.
set -euo pipefail
cd "$(dirname "$0")/.."

threads=1,2 runs=3 only=magic,fashion fashion_n=10000 keep="" bin="" data="" extra=()
while (($#)); do
	case "$1" in
	-threads) threads="$2"; shift ;;
	-runs) runs="$2"; shift ;;
	-only) only="$2"; shift ;;
	-fashion-n) fashion_n="$2"; shift ;;
	-keep) keep="$2"; shift ;;
	-bin) bin="$2"; shift ;;
	-data) data="$2"; shift ;;
	--) shift; extra=("$@"); break ;;
	*) echo "usage: $0 [-threads 1,2] [-runs 3] [-only magic,fashion] [-fashion-n 10000] [-keep DIR] [-bin IKPCA] [-data DIR] [-- extra fit flags]" >&2; exit 2 ;;
	esac
	shift
done
source bench/lib.sh
workdir "$keep"

# -bin and -data run it where there is no Go (bench/device28.sh): an ikpca built with
# -tags openblas, and a directory of the points and their bandwidths as below
# (magic.csv, magic.sigma, fashion-N.csv, fashion-N.sigma).
if [[ -n "$bin" ]]; then
	cp "$bin" "$tmp/ikpca"
else
	go build -tags openblas -o "$tmp/ikpca" ./cmd/ikpca
	go build -o "$tmp/points" ./bench/points
fi
# points SET N FILE: writes the points of SET (magic, all of them, or the first N
# images) to FILE and prints their bandwidth σ.
points() {
	if [[ -n "$data" ]]; then
		local name=$1
		[[ $1 == fashion-mnist ]] && name=fashion-$2
		cp "$data/$name.csv" "$3"
		cat "$data/$name.sigma"
	else
		"$tmp/points" -dataset "$1" -n "$2" -o "$3"
	fi
}
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
kernels=$("$tmp/ikpca" backend --quick 2>/dev/null | sed -n 's/^core: *//p' | head -1)
echo "Machine: $cpu, $(nproc) logical CPUs; OpenBLAS kernels: ${kernels:-unknown}; $(date -u +%Y-%m-%d)."
echo

# run SET TITLE FILE SIGMA: every thread count, runs times, interleaved; one line per
# phase and run in $tmp/SET-times.csv: threads,run,phase,wall,cpu; then the table, headed TITLE.
run() {
	local set=$1 title=$2 file=$3 sigma=$4 out="$tmp/$1-times.csv"
	: >"$out"
	for r in $(seq "$runs"); do
		for t in ${threads//,/ }; do
			echo "$set: run $r, $t threads" >&2
			GOMAXPROCS=$t OPENBLAS_NUM_THREADS=$t "$tmp/ikpca" fit --rank 50 --k 10 --sigma "$sigma" \
				--polish 4 --certify --timings "${extra[@]}" --values /dev/null "$file" 2>"$tmp/$set-$t-$r.err"
			# A phase's line, and the parts listed under it (the track's updates: project,
			# solve, assemble, other) as "track: project" and so on.
			awk -v t="$t" -v r="$r" '/^ikpca: timings/ {on = 1; next}
				on && NF >= 7 {last = $1; printf "%s,%s,%s,%s,%s\n", t, r, $1, $2, $5}
				on && NF == 4 && $4 == "wall" {printf "%s,%s,%s: %s,%s,\n", t, r, last, $1, $2}' "$tmp/$set-$t-$r.err" >>"$out"
			# The machine's own gain from the threads, in the same round: dgemm of order
			# 1000 on t OpenBLAS threads ("ikpca backend --quick", median of 3).
			GOMAXPROCS=$t OPENBLAS_NUM_THREADS=$t "$tmp/ikpca" backend --quick 2>/dev/null |
				sed -n 's/^dgemm: *n=1000: \([0-9.]*\) GFLOP.*/'"$t,$r"',dgemm,\1,0/p' >>"$out"
		done
	done
	python3 - "$out" "$title" "$threads" <<'EOF'
import csv, statistics, sys
path, name, threads = sys.argv[1], sys.argv[2], [int(t) for t in sys.argv[3].split(",")]
runs, order, rates = {}, [], {}
for t, r, phase, wall, cpu in csv.reader(open(path)):
    if phase == "dgemm":
        rates.setdefault(int(t), []).append(float(wall))
        continue
    if phase not in order:
        order.append(phase)
    runs.setdefault((int(t), r), {})[phase] = float(wall)
# The issue's target is the fit and its polish: every phase but the certificate's.
fit = "fit + polish"
order.insert(order.index("total"), fit)
times = {}
for (t, r), ph in runs.items():
    ph[fit] = sum(v for p, v in ph.items() if p not in ("certify", "write", "total") and ": " not in p)
    for p, v in ph.items():
        times.setdefault((p, t), []).append(v)
med = {k: statistics.median(v) for k, v in times.items()}
one, top = threads[0], threads[-1]
total1 = med[("total", one)]
print(f"**{name}** (median of the runs, wall seconds)\n")
head = "| phase | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads) + \
    f" | share of the {one}-thread time | speed-up {one} → {top} | efficiency at {top} |"
print(head)
print("|" + "---|" * (len(threads) + 4))
for phase in order:
    row = [med.get((phase, t), float("nan")) for t in threads]
    t1, tt = med.get((phase, one)), med.get((phase, top))
    share = t1 / total1 if t1 else float("nan")
    speed = t1 / tt if t1 and tt else float("nan")
    eff = speed * one / top
    cells = " | ".join(f"{v:.3f}" for v in row)
    name_ = f"**{phase}**" if phase in ("total", fit) else phase
    print(f"| {name_} | {cells} | {share:.1%} | {speed:.2f}× | {eff:.0%} |")
if rates:
    rate = {t: statistics.median(v) for t, v in rates.items()}
    cells = " | ".join(f"{rate[t]:.1f} GFLOP/s" if t in rate else "" for t in threads)
    if one in rate and top in rate:
        speed = rate[top] / rate[one]
        print(f"| *dgemm n = 1000, same rounds (the machine)* | {cells} | | {speed:.2f}× | {speed * one / top:.0%} |")
print()
EOF
}

if has magic; then
	sigma=$(points magic 0 "$tmp/magic.csv")
	run magic "MAGIC, all 19,020 points, fit --rank 50 --k 10 --polish 4 --certify" "$tmp/magic.csv" "$sigma"
fi
if has fashion; then
	sigma=$(points fashion-mnist "$fashion_n" "$tmp/fashion.csv")
	run fashion "Fashion-MNIST, the first $fashion_n images (CSV), fit --rank 50 --k 10 --polish 4 --certify" "$tmp/fashion.csv" "$sigma"
fi
