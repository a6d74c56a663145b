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
measure() { /usr/bin/time -f "%e s wall, %U s user + %S s sys, %M KiB max RSS" "$@" 2>&1 >/dev/null | tail -1; }
echo "log: $log ($(du -m "$log" | cut -f1) MB, $(wc -l < "$log") lines), $(nproc) cores"
echo "mawk (urt field):   $(measure mawk -F'urt="' '{split($2, a, "\""); print a[1]}' "$log")"
echo "patience advise:    $(measure "$dir/patience" advise "$log" -o json)"
"$dir/patience" advise "$log" -o json | grep -m1 -A9 '"total": {' | tr -d ' \n'; echo
