#!/usr/bin/env bash
# The Beam module's measurement (issue 14 §3): a 1,000,000-point stream fitted and
# projected on the prism runner, on two cores, with each backend and each method —
# SKPCA (D random Fourier features, a sketch of ℓ rows) and Nyström KPCA (r landmarks
# sampled in the pipeline, σ the median distance between them); time and peak memory by
# /usr/bin/time -v, and the pipeline's model against a single-process fit of the same
# points (measure/compare). Run it on an idle machine:
#
#   beam/measure/run.sh                 # synthetic, d = 10
#   MAGIC=1 beam/measure/run.sh         # MAGIC replicated with noise (d = 10)
#   N=20000 beam/measure/run.sh         # a quick look
#   METHODS=nystrom BACKENDS=openblas beam/measure/run.sh
#
# Prism runs in the launching process: up to 8 bundles at a time, on the cores Go may
# use. "Two workers" is two cores here: taskset -c 0,1 and GOMAXPROCS=2 (OpenBLAS: one
# thread, so that bundles, not BLAS, use the cores). Scores are written sharded (one
# file per bundle, where it is computed: memory independent of N; named
# scores-…-SSSSS-of-NNNNN.csv when all are written), counted, and deleted
# unless KEEP_SCORES=1 (50 scores a point are about 1 GB per million points). Results go
# to $OUT (default /tmp/ikpca-beam-measure): fit-<method>-<backend>.time and
# project-<method>-<backend>.time (the /usr/bin/time -v reports),
# compare-<method>-<backend>.txt, and summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000000}
D=${D:-10}
FEATURES=${FEATURES:-1000}
SKETCH=${SKETCH:-50}
LANDMARKS=${LANDMARKS:-200}
K=${K:-50} # Nyström: components projected on
METHODS=${METHODS:-skpca nystrom}
BACKENDS=${BACKENDS:-gonum openblas}
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

echo "N = $N, d = $D; SKPCA D = $FEATURES, ℓ = $SKETCH; Nyström r = $LANDMARKS, k = $K" | tee "$OUT/summary.txt"
for backend in $BACKENDS; do
	tags=()
	[[ $backend == openblas ]] && tags=(-tags openblas)
	go build "${tags[@]}" -o "$OUT/ikpca-beam-$backend" ./cmd/ikpca-beam
	go build "${tags[@]}" -o "$OUT/compare-$backend" ./measure/compare
	run() { # name, then the command's flags
		local name=$1
		shift
		GOMAXPROCS=2 OPENBLAS_NUM_THREADS=1 taskset -c 0,1 /usr/bin/time -v \
			"$OUT/ikpca-beam-$backend" --input="$OUT/data/part-*.csv" "$@" \
			2>"$OUT/$name-$backend.time" >/dev/null || { tail -20 "$OUT/$name-$backend.time"; exit 1; }
		printf '%-16s %-8s %s, %s\n' "$name" "$backend" \
			"$(grep -o 'Elapsed (wall clock) time.*' "$OUT/$name-$backend.time" | sed 's/.*: //') wall" \
			"$(grep -o 'Maximum resident set size.*' "$OUT/$name-$backend.time" | sed 's/.*: //') kB peak" |
			tee -a "$OUT/summary.txt"
	}
	for method in $METHODS; do
		model="$OUT/model-$method-$backend"
		case $method in
		skpca) fit=(--method=skpca --features="$FEATURES" --sketch="$SKETCH" --seed=1) project=() ;;
		nystrom) fit=(--method=nystrom --landmarks="$LANDMARKS" --seed=1) project=(--k="$K") ;;
		*) echo "unknown method $method" >&2 && exit 2 ;;
		esac
		# Fit, then project the same points with the written model (SKPCA: all ℓ
		# components). Sharded scores: each bundle's file written where it is computed.
		run "fit-$method" --mode=fit --model="$model" "${fit[@]}"
		rm -rf "$OUT/scores-$method-$backend"-* "$OUT/scores-$method-$backend".*
		run "project-$method" --mode=project --model="$model" --output="$OUT/scores-$method-$backend" "${project[@]}"
		cat "$OUT/scores-$method-$backend"-*-of-*.csv | wc -l | xargs printf 'scores: %s lines\n' | tee -a "$OUT/summary.txt"
		[[ -n "${KEEP_SCORES:-}" ]] || rm -rf "$OUT/scores-$method-$backend"-* "$OUT/scores-$method-$backend".*
		# One OpenBLAS thread, as in the pipeline: a threaded dsyevr may differ in the
		# last bits, and then compare's Nyström feature map is not the pipeline's.
		OPENBLAS_NUM_THREADS=1 "$OUT/compare-$backend" --model="$model" --input="$OUT/data/part-*.csv" |
			tee "$OUT/compare-$method-$backend.txt" | tee -a "$OUT/summary.txt"
	done
done
echo "results in $OUT/summary.txt"
