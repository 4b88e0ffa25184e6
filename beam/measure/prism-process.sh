#!/usr/bin/env bash
# The command beyond in-process prism (issue 30): prism as its own job-server process,
# the SDK workers as separate processes (the PROCESS environment: prism starts Beam's Go
# boot loader, which fetches the staged worker binary and runs it), and a worker killed
# in the middle of a job. Prism does not retry a failed bundle (its README, "Durability
# Model"): the job fails; the command releases the failed run's claims and temporaries,
# and a rerun to the same prefixes must give the in-process run's outputs, each line once.
#
#   beam/measure/prism-process.sh            # N=20000 points, d = 10
#
# Results in $OUT (default /tmp/ikpca-beam-process): summary.txt and the logs.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-20000}
OUT=${OUT:-/tmp/ikpca-beam-process}
PORT=${PORT:-8073}
rm -rf "$OUT" && mkdir -p "$OUT"

go build -o "$OUT/prism" github.com/apache/beam/sdks/v2/go/cmd/prism
go build -o "$OUT/boot" github.com/apache/beam/sdks/v2/go/container
# prism v2.77.0 starts a PROCESS worker with --id='ID', the quotes in the value (no shell
# reads them), and the boot loader fails to find the worker: strip them.
cat >"$OUT/boot.sh" <<'SH'
#!/usr/bin/env bash
args=()
for a in "$@"; do
	case $a in --id=*) a=${a//\'/} ;; esac
	args+=("$a")
done
exec "$(dirname "$0")/boot" "${args[@]}"
SH
chmod +x "$OUT/boot.sh"
CGO_ENABLED=0 go build -o "$OUT/ikpca-beam" ./cmd/ikpca-beam
go run ./measure/gendata -n "$N" -d 10 -parts 4 -out "$OUT/data" >/dev/null

# The reference: prism in the command's own process.
"$OUT/ikpca-beam" --mode=fit --method=nystrom --landmarks=100 --seed=1 \
	--input="$OUT/data/part-*.csv" --model="$OUT/inproc.nys" --output="$OUT/inproc" 2>"$OUT/inproc.log"

"$OUT/prism" --job_port="$PORT" --serve_http=false >"$OUT/prism.log" 2>&1 &
PRISM=$!
# Prism leaves each job's worker process running after the job; they end with prism.
trap 'kill $PRISM 2>/dev/null || true' EXIT
sleep 2

remote() { # the output's name, then a sleep before a kill (none: no kill)
	local name=$1 kill=${2:-}
	"$OUT/ikpca-beam" --runner=universal --endpoint="localhost:$PORT" \
		--environment_type=PROCESS --environment_config="{\"command\":\"$OUT/boot.sh\"}" \
		--worker_binary="$OUT/ikpca-beam" \
		--mode=fit --method=nystrom --landmarks=100 --seed=1 \
		--input="$OUT/data/part-*.csv" --model="$OUT/$name.nys" --output="$OUT/$name" \
		>"$OUT/$name.log" 2>&1 &
	local launcher=$!
	if [[ -n $kill ]]; then
		sleep "$kill"
		# The worker: the binary the boot loader runs with --worker=true, a child of
		# boot, a child of prism; its pid differs from the launcher's.
		local w
		w=$(pgrep -n -f -- "--worker=true --id=job-" || true) # the newest: this job's
		echo "killing worker pid ${w:-none} after ${kill}s: $(ps -o args= -p "${w:-1}" | cut -c1-120)" | tee -a "$OUT/summary.txt"
		[[ -n $w ]] && kill -9 "$w"
	fi
	if wait "$launcher"; then echo "$name: exit 0" | tee -a "$OUT/summary.txt"; else echo "$name: exit $?" | tee -a "$OUT/summary.txt"; fi
}

remote first
remote killed "${KILL_AFTER:-2}"
ls "$OUT" | grep -E '^killed' | tee -a "$OUT/summary.txt" || true
remote rerun

check() { # prefix: lines, distinct lines, and equal to the in-process run's
	local p=$1
	local lines distinct
	lines=$(cat "$OUT/$p"-*-of-*.csv | wc -l)
	distinct=$(cat "$OUT/$p"-*-of-*.csv | sort -u | wc -l)
	echo "$p: $lines lines, $distinct distinct" | tee -a "$OUT/summary.txt"
}
check inproc
check rerun
if cmp -s <(cat "$OUT"/inproc-*-of-*.csv | sort) <(cat "$OUT"/rerun-*-of-*.csv | sort); then
	echo "rerun scores equal the in-process run's" | tee -a "$OUT/summary.txt"
else
	echo "rerun scores DIFFER from the in-process run's" | tee -a "$OUT/summary.txt"
fi
cmp "$OUT/inproc.nys" "$OUT/rerun.nys" && echo "models bit-identical" | tee -a "$OUT/summary.txt" || true
ls -d "$OUT"/rerun.tmp-* "$OUT"/rerun.claim-* "$OUT"/killed.tmp-* "$OUT"/killed.claim-* 2>/dev/null | sed 's/^/left: /' | tee -a "$OUT/summary.txt" || true
