#!/usr/bin/env bash
# Projection throughput of ikpca's models against scikit-learn's, side by side in one
# run (issue 14 §2): go run -tags openblas ./bench/transform and
# /usr/bin/python3 bench/sklearn_transform.py on the same data and split (MAGIC, d = 10,
# and a9a, d = 123: fit on the first m rows, project the n following ones, k = 6, RBF
# with the median distance), each measurement in a process of its own. It prints one
# CSV (method,n,d,m,points_per_s,seconds,peak_rss_mib) and a markdown table of points
# per second with each method's ratios: to kpca.Model.Transform as it was before kernel
# blocks (the baseline: bench/transformbaseline built in a git worktree of revision
# d9e92bd, the last before them, where Transform evaluated kernel columns point by point;
# issue 14's "today's path"), to the element path of today (kernel.Column alone), to
# scikit-learn's KernelPCA.transform, and to the dgemm floor (the n×d by d×m product alone,
# ikpca-dgemm-floor: a projection cannot be faster).
#
#   bench/transform_vs_sklearn.sh               # n = 10000, m = 1000, best of 10: about 2 minutes
#   bench/transform_vs_sklearn.sh -n 200 -m 50  # a check that it runs
#
# Other flags: -baseline REV (another revision to compare with; it must have
# kernel.MedianDistance, kpca.New(k, x0, opts) and data.A9A, as every revision before
# issue 19 has: bench/transformbaseline/main.go is written for them). Run it on an idle
# machine, in a git clone. Needs Go, libopenblas-dev and liblapacke-dev, and Debian's
# python3-sklearn (/usr/bin/python3).
set -euo pipefail
cd "$(dirname "$0")/.."

n=10000 m=1000 reps=10 baseline=d9e92bd
while (($#)); do
	case "$1" in
	-n) n="$2"; shift ;;
	-m) m="$2"; shift ;;
	-reps) reps="$2"; shift ;;
	-baseline) baseline="$2"; shift ;;
	*) echo "usage: $0 [-n N] [-m M] [-reps R] [-baseline REV]" >&2; exit 2 ;;
	esac
	shift
done
python=/usr/bin/python3
"$python" -c "import sklearn" 2>/dev/null || { echo "$0: $python cannot import scikit-learn (Debian: python3-sklearn)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/baseline" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -tags openblas -o "$tmp/transform" ./bench/transform
# The baseline: the same measurement program built in a worktree of the old revision.
git worktree add --detach --quiet "$tmp/baseline" "$baseline"
mkdir -p "$tmp/baseline/bench/transformbaseline"
cp bench/transformbaseline/main.go "$tmp/baseline/bench/transformbaseline/"
(cd "$tmp/baseline" && go build -tags openblas -o "$tmp/transformbaseline" ./bench/transformbaseline/main.go)
{
	"$tmp/transform" -n "$n" -m "$m" -reps "$reps"
	for ds in magic a9a; do
		"$tmp/transformbaseline" -dataset "$ds" -n "$n" -m "$m" -reps "$reps" -method baseline-kpca-transform
	done
	"$python" bench/sklearn_transform.py -n "$n" -m "$m" -reps "$reps" | tail -n +2
} >"$tmp/all.csv"
cat "$tmp/all.csv"
echo
awk -F, 'NR > 1 { rate[$1 "," $3] = $5; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
END {
	for (j = 0; j < 2; j++) {
		d = (j == 0) ? 10 : 123
		print ""
		print "| d = " d " | points/s | × Transform before kernel blocks | × element path | × scikit-learn KernelPCA | ÷ dgemm floor |"
		print "|---|--:|--:|--:|--:|--:|"
		for (i = 1; i <= k; i++) {
			mth = order[i]; line = "| " mth
			r = rate[mth "," d]; b = rate["baseline-kpca-transform," d]; e = rate["ikpca-kernel-column," d]
			s = rate["sklearn-kernelpca-transform," d]; f = rate["ikpca-dgemm-floor," d]
			line = line sprintf(" | %.0f | %.1f | %.1f | %.2f | %.2f", r, r / b, r / e, r / s, f / r)
			print line " |"
		}
	}
}' "$tmp/all.csv"
