#!/usr/bin/env bash
# bench/advise.sh — patience advise against mawk extracting the same field from the same
# nginx log (issue 15 item 5): wall time, CPU time and peak RSS of each, side by side.
# usage: bench/advise.sh [SIZE_MB] (default 1024: a 1 GB log, generated once in $TMPDIR)
set -euo pipefail
size=${1:-1024}
dir=${TMPDIR:-/tmp}/patience-advise-bench
mkdir -p "$dir"
log=$dir/access-${size}MB.log
command -v mawk >/dev/null || { echo "mawk is needed (apt-get install -y mawk)" >&2; exit 2; }
go build -o "$dir/patience" "$(dirname "$0")/.."
if [[ ! -s $log ]]; then
  # The "timed" log_format, urt lognormal-ish, ~165 bytes a line.
  mawk -v target=$((size * 1024 * 1024)) 'BEGIN {
    srand(1); n = 0; bytes = 0
    while (bytes < target) {
      u1 = rand(); u2 = rand(); if (u1 < 1e-12) u1 = 1e-12
      z = sqrt(-2 * log(u1)) * cos(6.283185307 * u2)
      v = exp(log(0.080) + 0.6919 * z); if (v < 0.001) v = 0.001
      line = sprintf("10.0.%d.%d - - [01/May/2024:%02d:%02d:%02d +0000] \"GET /users/%d HTTP/1.1\" 200 %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\" rt=%.3f uct=\"0.001\" uht=\"%.3f\" urt=\"%.3f\"",
        n % 256, n % 199, int(n / 72000) % 24, int(n / 1200) % 60, int(n / 20) % 60, n % 99999, 100 + n % 9000, v + 0.001, v * 0.9, v)
      print line; bytes += length(line) + 1; n++
    }
  }' > "$log"
fi
# measure NAME CMD...: wall, CPU (user+sys) and peak RSS of CMD, and CPU seconds per GB of log.
measure() {
  local name=$1; shift
  local t
  t=$(/usr/bin/time -f "%e %U %S %M" "$@" 2>&1 >/dev/null | tail -1)
  read -r wall user sys rss <<<"$t"
  awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v mb="$mb" 'BEGIN {
    printf "%-20s %6.2f s wall, %5.2f s user + %4.2f s sys = %5.2f s CPU (%5.2f s CPU/GB), %5.1f MiB max RSS\n",
      n ":", w, u, s, u + s, (u + s) * 1024 / mb, r / 1024 }'
  eval "${name//[^a-z]/_}_wall=$wall"
}
mb=$(du -m "$log" | cut -f1)
echo "log: $log ($mb MB, $(wc -l < "$log") lines), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
measure "mawk (urt field)" mawk -F'urt="' '{split($2, a, "\""); print a[1]}' "$log"
# ADVISE_BASE=/path/to/an/older/patience measures it too, side by side.
if [[ -n ${ADVISE_BASE:-} ]]; then measure "advise (base)" "$ADVISE_BASE" advise "$log" -o json; fi
measure "patience advise" "$dir/patience" advise "$log" -o json
awk -v a="$patience_advise_wall" -v m="$mawk__urt_field__wall" 'BEGIN {
  printf "advise/mawk wall: %.2f× (target ≤ 2×: ≥ 0.5× mawk'"'"'s throughput)\n", a / m }'
"$dir/patience" advise "$log" -o json | grep -m1 -A9 '"total": {' | tr -d ' \n'; echo
