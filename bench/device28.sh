#!/usr/bin/env bash
# Issue 28's measurements on a lent machine of many cores, in one call of the run tool,
# from what bench/device28_prep.sh packed here (carry .device28):
#
#   bench/device28_prep.sh                          # here, first
#   run: bench/device28.sh    carry [".device28"]   timeout_s 600
#
# It writes $OUT/device28.md (and the logs beside it), section by section in this
# order, each skipped if the time left (BUDGET seconds from the start, default 540) is
# less than it is expected to take, so that what was measured comes back:
#   1. the machine: CPU, cores, `ikpca backend` with nothing set, with the library's
#      switch off (IKPCA_OPENBLAS_CORE=keep: the core OpenBLAS 0.3.21 chooses alone) and
#      with OPENBLAS_CORETYPE set by hand to the core the switch chose;
#   2. the switch's cost: MAGIC's fit --rank 50 --k 10 --polish 4 on every core, as
#      whole processes, nothing set against OPENBLAS_CORETYPE by hand against keep,
#      ROUNDS interleaved rounds (issue 28: within 10% of the core set by hand);
#   3. against arpack on every core: scikit-learn's KernelPCA(50, arpack) and ikpca's
#      fit + polish 4, time and peak memory, on MAGIC and on Fashion-MNIST 10,000 and
#      20,000 images (issue 28: at most 0.75× arpack's time);
#   4. each phase at THREADS threads (bench/phases.sh -runs PHASE_RUNS), MAGIC and
#      Fashion-MNIST 10,000: the parallel efficiency table of docs/performance.md.
# Environment: BUDGET, ROUNDS (2), THREADS (1,2,4,8,16, cut at the machine's CPUs),
# PHASE_RUNS (2), PYTHON (one that imports scikit-learn, for section 3), SECTIONS (1234:
# the sections to run).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/device28-out}
budget=${BUDGET:-540} rounds=${ROUNDS:-2} phase_runs=${PHASE_RUNS:-2}
mkdir -p "$out"
md=$out/device28.md
: >"$md"
say() { printf '%s\n' "$@" | tee -a "$md"; } # each argument a line
left() { echo $((budget - SECONDS)); }
# section NAME SECONDS: whether NAME ("N. …") is among SECTIONS and SECONDS are left for
# it (and says so if not).
section() {
	[[ ${SECTIONS:-1234} == *"${1%%.*}"* ]] || return 1
	if (($(left) < $2)); then
		say "" "## $1: skipped, $(left) s left of the budget"
		return 1
	fi
	say "" "## $1" ""
}

w=/tmp/device28
rm -rf "$w"
mkdir -p "$w"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' .device28/device28.tar.xz "$w" ||
	{ echo "$0: no .device28/device28.tar.xz (run bench/device28_prep.sh here and carry .device28)" >&2; exit 1; }
export LD_LIBRARY_PATH=$w/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
head -n 10000 "$w/data/fashion-20000.csv" >"$w/data/fashion-10000.csv"
ik=$w/ikpca
cores=$(nproc)
# The Python with scikit-learn: $PYTHON, python3 (the lent machine's) or Debian's.
py=""
for c in ${PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$c" >/dev/null && "$c" -c "import sklearn" 2>/dev/null; then
		py=$c
		break
	fi
done
threads=""
IFS=, read -ra wanted <<<"${THREADS:-1,2,4,8,16}"
for t in "${wanted[@]}"; do
	((t <= cores)) && threads+="${threads:+,}$t"
done
sigma() { cat "$w/data/$1.sigma"; }

# measure LABEL COMMAND...: runs the command (its output to $out/LABEL.log) and prints
# "wall_s peak_MiB exit": wall time and peak resident memory of the process and its
# children, by Python (the machine may have no /usr/bin/time).
measure() {
	local label=$1
	shift
	python3 - "$out/$label.log" "$@" <<'EOF'
import resource, subprocess, sys, time
log = open(sys.argv[1], "w")
t = time.monotonic()
code = subprocess.run(sys.argv[2:], stdout=log, stderr=subprocess.STDOUT).returncode
wall = time.monotonic() - t
print(f"{wall:.2f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} {code}")
EOF
}

say "# Issue 28 on a lent machine, $(date -u '+%Y-%m-%d %H:%M') UTC"
say ""
say "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $cores logical CPUs, $(free -g | awk '/^Mem/ {print $2}') GiB."

if section "1. OpenBLAS's kernels: found, chosen, set by hand" 30; then
	say '```'
	lscpu | grep -E '^(Model name|CPU family|Model|Thread|Core|Socket|L3|Flags)' | cut -c1-300 | tee -a "$md"
	say '--- nothing set'
	env -u OPENBLAS_CORETYPE "$ik" backend 2>&1 | tee -a "$md"
	say '--- IKPCA_OPENBLAS_CORE=keep (OpenBLAS alone)'
	env -u OPENBLAS_CORETYPE IKPCA_OPENBLAS_CORE=keep "$ik" backend 2>&1 | tee -a "$md"
	# "core: found Prescott, using SkylakeX: …" or "found Cooperlake, using it: …".
	read -r found used < <(env -u OPENBLAS_CORETYPE "$ik" backend --quick 2>/dev/null |
		sed -n 's/^core: *found \([A-Za-z0-9]*\), using \([A-Za-z0-9]*\).*/\1 \2/p' | head -1)
	[[ ${used:-} == it ]] && used=$found
	say "--- OPENBLAS_CORETYPE=${used:-SkylakeX} (by hand)"
	OPENBLAS_CORETYPE=${used:-SkylakeX} "$ik" backend 2>&1 | tee -a "$md"
	say '```'
fi
hand=${used:-SkylakeX}

magic_fit() { # magic_fit ENV...: MAGIC's fit --rank 50 --k 10 --polish 4 on every core
	measure "$1" env -u OPENBLAS_CORETYPE "${@:2}" GOMAXPROCS="$cores" OPENBLAS_NUM_THREADS="$cores" \
		"$ik" fit --rank 50 --k 10 --polish 4 --sigma "$(sigma magic)" --timings --values /dev/null "$w/data/magic.csv"
}
if section "2. The switch's cost: MAGIC fit + polish 4, $cores threads, whole processes" 120; then
	say "| round | nothing set, s | OPENBLAS_CORETYPE=$hand, s | IKPCA_OPENBLAS_CORE=keep, s |"
	say "|---|--:|--:|--:|"
	for r in $(seq "$rounds"); do
		a=$(magic_fit "switch-auto-$r" IKPCA_OPENBLAS_CORE=)
		b=$(magic_fit "switch-hand-$r" OPENBLAS_CORETYPE="$hand")
		c=$(magic_fit "switch-keep-$r" IKPCA_OPENBLAS_CORE=keep)
		say "| $r | ${a%% *} | ${b%% *} | ${c%% *} |"
	done
	say "" "The core each used: $(grep -ho 'core [A-Za-z0-9]* ([^)]*)' "$out"/switch-*-1.log | sort -u | tr '\n' ';')"
fi

# ratio A B: A/B to two decimals, "?" if either is not a number.
ratio() { python3 -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{a / b:.2f}')" "$1" "$2" 2>/dev/null || echo "?"; }
if section "3. Against arpack, $cores threads, whole processes on the same CSV" 200; then
	say "| points | ikpca fit + polish 4, s | peak MiB | arpack (scikit-learn), s | peak MiB | time ratio | memory ratio |"
	say "|---|--:|--:|--:|--:|--:|--:|"
	for set in magic fashion-10000 fashion-20000; do
		(($(left) < 90)) && { say "| $set | skipped: $(left) s left | | | | | |"; continue; }
		s=$(sigma "$set")
		read -r iw ip _ < <(measure "fit-$set" env GOMAXPROCS="$cores" OPENBLAS_NUM_THREADS="$cores" \
			"$ik" fit --rank 50 --k 10 --polish 4 --sigma "$s" --values /dev/null "$w/data/$set.csv")
		# Both whole processes, reading the same CSV (sklearn_fit.py --one fits in its own).
		read -r aw ap _ < <(measure "arpack-$set" env OMP_NUM_THREADS="$cores" OPENBLAS_NUM_THREADS="$cores" \
			"${py:-python3}" bench/sklearn_fit.py --one --points "$w/data/$set.csv" --sigma "$s" --components 50 --solvers arpack)
		say "| $set | $iw | $ip | ${aw:-?} | ${ap:-?} | $(ratio "$iw" "${aw:-0}") | $(ratio "$ip" "${ap:-0}") |"
	done
fi

if section "4. Each phase at threads $threads (bench/phases.sh, $phase_runs runs)" 120; then
	bench/phases.sh -bin "$ik" -data "$w/data" -threads "$threads" -runs "$phase_runs" -keep "$w/phases" 2>"$out/phases.log" | tee -a "$md"
fi
say "" "Done in $SECONDS s."
