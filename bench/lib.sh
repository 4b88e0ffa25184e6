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
