# Shared by the comparison scripts of bench/ (sourced, not run): the checks of the tools
# they need and their working directory.

# need_sklearn TOOL...: exits unless each TOOL (a path or a command) is there and
# /usr/bin/python3 imports scikit-learn, and sets python to that interpreter.
need_sklearn() {
	python=/usr/bin/python3
	local tool
	for tool in "$@" "$python"; do
		command -v "$tool" >/dev/null || { echo "$0: $tool is missing" >&2; exit 1; }
	done
	"$python" -c "import sklearn" 2>/dev/null || { echo "$0: $python cannot import scikit-learn (Debian: python3-sklearn)" >&2; exit 1; }
}

# start_sklearn DIR: what a comparison with scikit-learn needs first: the tools
# (need_sklearn, with /usr/bin/time) and its working directory (workdir DIR).
start_sklearn() {
	need_sklearn /usr/bin/time
	workdir "$1"
}

# workdir DIR: sets tmp to DIR, made if missing and kept (-keep DIR), or with DIR empty to
# a new temporary directory removed when the script exits.
workdir() {
	if [[ -n "$1" ]]; then
		mkdir -p "$1"
		tmp=$(cd "$1" && pwd)
	else
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
	fi
}

# has PART: whether the comma-separated list $only names PART (the scripts' -only).
has() { [[ ",$only," == *",$1,"* ]]; }

# timed NAME COMMAND...: runs the command under /usr/bin/time -v, its standard output to
# $tmp/NAME.out and its standard error to $tmp/NAME.err, then sets status to its exit
# status, wall to its wall time in seconds and rss to its maximum resident set size in
# MiB (bash's dynamic scope: the caller declares them local).
timed() {
	local name=$1
	shift
	echo "running $name: $*" >&2
	status=0
	/usr/bin/time -v -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || status=$?
	wall=$(awk -F': ' '/Elapsed \(wall clock\) time/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tmp/$name.time")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$tmp/$name.time")
}

# failed NAME: says that the run NAME (timed) failed, with its standard error, and exits.
failed() {
	echo "$0: $1 failed:" >&2
	cat "$tmp/$1.err" >&2
	exit 1
}
