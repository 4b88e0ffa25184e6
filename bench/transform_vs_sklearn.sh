#!/usr/bin/env bash
# Projection throughput of ikpca's models against scikit-learn's, side by side in one
# run (issue 14 §2): go run -tags openblas ./bench/transform and
# /usr/bin/python3 bench/sklearn_transform.py on the same data and split (MAGIC, d = 10,
# and a9a, d = 123: fit on the first m rows, project the n following ones, k = 6, RBF
# with the median distance), each measurement in a process of its own. It prints one
# CSV (method,n,d,m,points_per_s,seconds,peak_rss_mib) and a markdown table of points
# per second with each method's ratio to the element path (kernel.Column, what Transform
# used before kernel blocks) and to scikit-learn's KernelPCA.transform.
#
#   bench/transform_vs_sklearn.sh               # n = 10000, m = 1000: about a minute
#   bench/transform_vs_sklearn.sh -n 200 -m 50  # a check that it runs
#
# Run it on an idle machine. Needs Go, libopenblas-dev and liblapacke-dev, and Debian's
# python3-sklearn (/usr/bin/python3).
set -euo pipefail
cd "$(dirname "$0")/.."

n=10000 m=1000 reps=3
while (($#)); do
	case "$1" in
	-n) n="$2"; shift ;;
	-m) m="$2"; shift ;;
	-reps) reps="$2"; shift ;;
	*) echo "usage: $0 [-n N] [-m M] [-reps R]" >&2; exit 2 ;;
	esac
	shift
done
python=/usr/bin/python3
"$python" -c "import sklearn" 2>/dev/null || { echo "$0: $python cannot import scikit-learn (Debian: python3-sklearn)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags openblas -o "$tmp/transform" ./bench/transform
{
	"$tmp/transform" -n "$n" -m "$m" -reps "$reps"
	"$python" bench/sklearn_transform.py -n "$n" -m "$m" -reps "$reps" | tail -n +2
} >"$tmp/all.csv"
cat "$tmp/all.csv"
echo
awk -F, 'NR > 1 { rate[$1 "," $3] = $5; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
END {
	print "| points/s | d = 10 | × element path | × scikit-learn KernelPCA | d = 123 | × element path | × scikit-learn KernelPCA |"
	print "|---|--:|--:|--:|--:|--:|--:|"
	for (i = 1; i <= k; i++) {
		mth = order[i]; line = "| " mth
		for (j = 0; j < 2; j++) {
			d = (j == 0) ? 10 : 123
			r = rate[mth "," d]; e = rate["ikpca-kernel-column," d]; s = rate["sklearn-kernelpca-transform," d]
			line = line sprintf(" | %.0f | %.1f | %.2f", r, r / e, r / s)
		}
		print line " |"
	}
}' "$tmp/all.csv"
