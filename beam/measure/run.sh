#!/usr/bin/env bash
# The Beam module's measurement (issue 14 §3): a 1,000,000-point stream fitted with
# SKPCA and projected on the prism runner, on two cores, with each backend; time and
# peak memory by /usr/bin/time -v, and the pipeline's model against a single-process
# fit of the same points. Run it on an idle machine:
#
#   beam/measure/run.sh                 # synthetic, d = 10
#   MAGIC=1 beam/measure/run.sh         # MAGIC replicated with noise (d = 10)
#   N=100000 beam/measure/run.sh        # a quicker look
#
# Prism runs in the launching process: up to 8 bundles at a time, on the cores Go may
# use. "Two workers" is two cores here: taskset -c 0,1 and GOMAXPROCS=2 (OpenBLAS: one
# thread, so that bundles, not BLAS, use the cores). Results go to $OUT (default
# /tmp/ikpca-beam-measure): fit-<backend>.time and project-<backend>.time (the
# /usr/bin/time -v reports), compare-<backend>.txt, and summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000000}
D=${D:-10}
FEATURES=${FEATURES:-1000}
SKETCH=${SKETCH:-50}
OUT=${OUT:-/tmp/ikpca-beam-measure}
mkdir -p "$OUT"

gen=(-n "$N" -d "$D" -parts 4 -out "$OUT/data")
[[ -n "${MAGIC:-}" ]] && gen+=(-magic)
if [[ ! -f "$OUT/data/.done-$N-$D-${MAGIC:-}" ]]; then
	rm -rf "$OUT/data"
	go run ./measure/gendata "${gen[@]}"
	touch "$OUT/data/.done-$N-$D-${MAGIC:-}"
fi
du -sh "$OUT/data"

: >"$OUT/summary.txt"
for backend in gonum openblas; do
	tags=()
	[[ $backend == openblas ]] && tags=(-tags openblas)
	go build "${tags[@]}" -o "$OUT/ikpca-beam-$backend" ./cmd/ikpca-beam
	run() { # name, then the command's flags
		local name=$1
		shift
		GOMAXPROCS=2 OPENBLAS_NUM_THREADS=1 taskset -c 0,1 /usr/bin/time -v \
			"$OUT/ikpca-beam-$backend" --input="$OUT/data/part-*.csv" "$@" \
			2>"$OUT/$name-$backend.time" >/dev/null || { tail -20 "$OUT/$name-$backend.time"; exit 1; }
		printf '%-8s %-8s %s, %s\n' "$name" "$backend" \
			"$(grep -o 'Elapsed (wall clock) time.*' "$OUT/$name-$backend.time" | sed 's/.*: //') wall" \
			"$(grep -o 'Maximum resident set size.*' "$OUT/$name-$backend.time" | sed 's/.*: //') kB peak" |
			tee -a "$OUT/summary.txt"
	}
	# Fit, then project the same points with the written model (all --sketch components).
	run fit --mode=fit --model="$OUT/model-$backend.skpca" --features="$FEATURES" --sketch="$SKETCH" --seed=1
	# Sharded scores: each bundle's file written where it is computed. (One file,
	# without --sharded, gathers every score on one worker: prism holds them in memory,
	# about 10 kB a point with 50 scores.)
	rm -f "$OUT/scores-$backend"-*
	run project --mode=project --model="$OUT/model-$backend.skpca" --output="$OUT/scores-$backend" --sharded
	cat "$OUT/scores-$backend"-*.csv | wc -l | xargs printf 'scores: %s lines\n' | tee -a "$OUT/summary.txt"
	go run "${tags[@]}" ./measure/compare --model="$OUT/model-$backend.skpca" --input="$OUT/data/part-*.csv" |
		tee "$OUT/compare-$backend.txt" | tee -a "$OUT/summary.txt"
done
echo "results in $OUT/summary.txt"
