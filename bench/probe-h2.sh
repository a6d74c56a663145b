#!/usr/bin/env bash
# bench/probe-h2.sh — HTTP/2 throughput of `patience probe --http 2` against h2load (Debian
# nghttp2-client) on one loopback h2c endpoint (issue 18 item 3). Loopback only, bounded.
#
#   bench/probe-h2.sh [ROUNDS]      (default 3 interleaved rounds)
#
# Per round, in alternating order: `patience probe -c 50 --duration 10s --conn reuse --http 2`
# (50 workers whose streams share one connection, as Go's client would) and
# `h2load -c 1 -m 50 -D 10` (one connection, 50 streams at once) on /fast of the h2c server
# that bench/targets starts. Prints req/s, CPU (user + system) per request and peak RSS of
# each, the per-round ratio probe/h2load and its median (target ≥ 0.7).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need h2load || ! [ -x /usr/bin/time ]; then
  echo "installing nghttp2-client and GNU time (Debian packages)…" >&2
  apt-get update -qq >/dev/null
  apt-get install -y -qq nghttp2-client time >/dev/null
fi

source bench/lib.sh
URL="$H2C/fast"

rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
cpu_us() { # TIMEFILE REQ_PER_S SECONDS
  python3 - "$1" "$2" "$3" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
cpu = sum(float(re.search(rf"{k} time \(seconds\): ([0-9.]+)", t).group(1)) for k in ("User", "System"))
print(f"{cpu / (float(sys.argv[2]) * float(sys.argv[3])) * 1e6:.1f}")
PY
}
run_probe() { # $1 = tag
  /usr/bin/time -v -o "$work/time.$1" "$work/patience" probe "$URL" -c 50 --duration 10s --conn reuse --http 2 -q -o json >"$work/probe.$1.json"
  python3 - "$work/probe.$1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["target"]["protocol"] == "h2c", r["target"]
print(round(r["requests"] / (r["duration_ms"] / 1000)))
PY
}
run_h2load() { # $1 = tag
  /usr/bin/time -v -o "$work/time.$1" h2load -c 1 -m 50 -D 10 "$URL" >"$work/h2load.$1.txt"
  sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$work/h2load.$1.txt" | cut -d. -f1
}

echo "target $URL, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %12s %10s %10s %12s %10s %10s %7s\n' round probe_req/s probe_MiB probe_µs h2load_req/s h2l_MiB h2l_µs ratio
ratios=()
for i in $(seq "$ROUNDS"); do
  if (( i % 2 )); then
    p=$(run_probe "p$i"); h=$(run_h2load "h$i")
  else
    h=$(run_h2load "h$i"); p=$(run_probe "p$i")
  fi
  ratio=$(python3 -c "print(f'{$p/$h:.2f}')")
  ratios+=("$ratio")
  printf '%-6s %12s %10.1f %10s %12s %10.1f %10s %7s\n' "$i" "$p" "$(python3 -c "print($(rss "$work/time.p$i")/1024)")" "$(cpu_us "$work/time.p$i" "$p" 10)" \
    "$h" "$(python3 -c "print($(rss "$work/time.h$i")/1024)")" "$(cpu_us "$work/time.h$i" "$h" 10)" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
echo "median ratio probe/h2load: $median (target ≥ 0.7)"
