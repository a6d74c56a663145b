#!/usr/bin/env bash
# bench/source-speed.sh — speed and memory of check's source reading (issue 28 item 7: ≥ 20,000
# lines of source per second on two cores, memory flat in the size of the tree). No network.
#
#   bench/source-speed.sh DIR [RUNS]   (RUNS default 5)
#
# Runs `patience check -o json --allow-empty DIR` RUNS times under /usr/bin/time -v and prints
# the source lines check reads (`wc -l` of the files a walk reads by extension: .go .py .js .mjs
# .cjs .ts .tsx .php, leaving out vendor/, node_modules/, testdata/, hidden directories and Go
# test files, as the walk does),
# the median wall time, lines/s (lines ÷ median wall), the median CPU seconds (user + system),
# lines per CPU second (the fair figure on a shared machine) and the peak RSS (the largest of the
# runs). Then the same on the tree copied 4× side by side (DIR/../x4/{1..4}
# in a temporary directory): lines/s should hold and peak RSS stay flat, since check holds one
# package (directory) at a time. LANGS="go py" limits the line count to those extensions (what
# the binary under test reads: main before the Python, JS/TS and PHP readers read only .go).
# The per-reader micro benchmarks are `go test ./source -run '^$' -bench Read`.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:?usage: bench/source-speed.sh DIR [RUNS]}
RUNS=${2:-5}
[ -d "$DIR" ] || { echo "not a directory: $DIR" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/patience" .

exts=${LANGS:-"go py js mjs cjs ts tsx php"}

# lines counts the source lines a walk of $1 reads.
lines() {
  local names=()
  for e in $exts; do names+=(-o -name "*.$e"); done
  find "$1" \( -name node_modules -o -name vendor -o -name testdata -o \( -name '.*' ! -name . ! -name .. \) \) -prune \
    -o -type f ! -name '*_test.go' \( "${names[@]:1}" \) -print0 | xargs -0 -r cat | wc -l
}

# measure prints one row: the tree's name, its lines, median wall, lines/s, median CPU, peak RSS.
measure() {
  local tree=$1 name=$2 n walls=() cpus=() rss=0
  n=$(lines "$tree")
  for _ in $(seq "$RUNS"); do
    set +e
    /usr/bin/time -v "$work/patience" check -o json --allow-empty "$tree" >"$work/out.json" 2>"$work/time.txt"
    code=$?
    set -e
    if [ "$code" -gt 1 ]; then
      echo "check failed (exit $code) on $tree:" >&2
      grep -v '^\s' "$work/time.txt" | head -5 >&2
      exit 1
    fi
    walls+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time.txt")")
    cpus+=("$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$work/time.txt")")
    r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  local wall cpu
  wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  calls=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("calls") or []))' "$work/out.json" 2>/dev/null || echo "?")
  awk -v name="$name" -v n="$n" -v wall="$wall" -v cpu="$cpu" -v rss="$rss" -v calls="$calls" -v runs="$RUNS" 'BEGIN {
    printf "%-28s %10d %6s %8.2f %12.0f %8.2f %12.0f %10.1f\n", name, n, calls, wall, (wall > 0 ? n / wall : 0), cpu, (cpu > 0 ? n / cpu : 0), rss / 1024 }'
}

echo "source-speed: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), median of $RUNS runs, extensions: $exts"
printf "%-28s %10s %6s %8s %12s %8s %12s %10s\n" tree lines calls wall_s lines/s cpu_s lines/cpu-s peak_MiB
measure "$DIR" "$(basename "$DIR")"
mkdir -p "$work/x4"
for i in 1 2 3 4; do cp -r "$DIR" "$work/x4/$i"; done
measure "$work/x4" "$(basename "$DIR") ×4"
