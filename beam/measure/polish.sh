#!/usr/bin/env bash
# The measurement of ikpcabeam.Polish (docs/design.md, "Polish and Certify over sharded
# points"): a data set written as CSV, polished on prism by `ikpca-beam --mode=polish`
# and in one process by kpca.FitFrom from the same start rows, then Certify
# (measure/polish -single), each a process under /usr/bin/time -v; then the two
# certificates compared (the values' largest difference over λ₁, whether the intervals
# overlap). Run it on an idle machine:
#
#   beam/measure/polish.sh                                # MAGIC, all 19,020 points
#   DATASET=fashion-mnist N=20000 beam/measure/polish.sh  # the first 20,000 images
#   DATASET=fashion-mnist N=70000 SINGLE=0 beam/measure/polish.sh
#   START=nystrom PASSES=3 REF_PASSES=5 FLOOR=1 beam/measure/polish.sh  # from a Nyström model
#
# SINGLE=0 skips the one-process run (at 70,000 images docs/certified.md has its values).
# START=nystrom first fits a Nyström model of LANDMARKS (1000) landmarks on prism and
# polishes from it; the one-process run, the reference, is still FitFrom from the random
# start, of REF_PASSES (default PASSES) passes. FLOOR=1 also times a pass's floor in one
# process (measure/polish -floor).
# Results go to $OUT (default /tmp/ikpca-polish-measure).
set -euo pipefail
cd "$(dirname "$0")/.."

DATASET=${DATASET:-magic}
N=${N:-0}
K=${K:-10}
RANK=${RANK:-50}
PASSES=${PASSES:-6}
REF_PASSES=${REF_PASSES:-$PASSES}
SHARDS=${SHARDS:-4}
SINGLE=${SINGLE:-1}
START=${START:-random}
LANDMARKS=${LANDMARKS:-1000}
FLOOR=${FLOOR:-0}
OUT=${OUT:-/tmp/ikpca-polish-measure}
mkdir -p "$OUT"
go build -tags openblas -o "$OUT/ikpca-beam" ./cmd/ikpca-beam
go build -tags openblas -o "$OUT/polish" ./measure/polish
data="$OUT/$DATASET-$N"
[[ -f "$data/sigma" ]] || "$OUT/polish" -write "$data" -dataset "$DATASET" -n "$N" -parts 4
sigma=$(cat "$data/sigma")
echo "# $DATASET n=$N σ=$sigma rank=$RANK k=$K passes=$PASSES shards=$SHARDS start=$START; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
if [[ "$SINGLE" == 1 ]]; then
	/usr/bin/time -v "$OUT/polish" -single "$data/points-*.csv" -sigma "$sigma" -k "$K" -rank "$RANK" \
		-passes "$REF_PASSES" >"$OUT/single.json" 2>"$OUT/single.time"
	grep -E "polish:|Elapsed|Maximum resident" "$OUT/single.time"
fi
if [[ "$FLOOR" == 1 ]]; then
	"$OUT/polish" -floor "$data/points-*.csv" -sigma "$sigma" -rank "$RANK" -shards "$SHARDS"
fi
start=()
if [[ "$START" == nystrom ]]; then
	rm -f "$OUT/start.nys"
	/usr/bin/time -v "$OUT/ikpca-beam" --mode=fit --method=nystrom --landmarks="$LANDMARKS" --seed=1 --sigma="$sigma" \
		--input="$data/points-*.csv" --model="$OUT/start.nys" 2>"$OUT/start.time" >/dev/null
	echo "Nyström start, $LANDMARKS landmarks:"
	grep -E "Elapsed|Maximum resident" "$OUT/start.time"
	start=(--start="$OUT/start.nys")
fi
rm -rf "$OUT/scores"* "$OUT/pipeline.json"
/usr/bin/time -v "$OUT/ikpca-beam" --mode=polish "${start[@]}" --input="$data/points-*.csv" --sigma="$sigma" --k="$K" \
	--rank="$RANK" --passes="$PASSES" --shards="$SHARDS" --certificate="$OUT/pipeline.json" \
	--output="$OUT/scores" 2>"$OUT/pipeline.time" >/dev/null
grep -E "Elapsed|Maximum resident" "$OUT/pipeline.time"
echo "scores: $(cat "$OUT"/scores-*-of-*.csv | wc -l) lines"
if [[ "$SINGLE" == 1 ]]; then
	"$OUT/polish" -compare "$OUT/pipeline.json" "$OUT/single.json"
else
	python3 -c "import json; c = json.load(open('$OUT/pipeline.json')); print('values', ' '.join('%.4f' % v for v in c['values'])); print('widest interval / λ₁ %.2g, largest sine %.2g' % (max(u - l for l, u in zip(c['lower'], c['upper'])) / c['values'][0], max(c['sine'])))"
fi
