#!/usr/bin/env bash
# bench/probe.sh — throughput and memory of `patience probe` against wrk on one loopback
# endpoint (docs/design.md §7, issue 2 "Performance"). Loopback only, bounded in time.
#
#   bench/probe.sh [ROUNDS]      (default 3 interleaved rounds)
#
# Per round, in alternating order: `patience probe -c 50 --duration 10s --conn reuse` and
# `wrk -t2 -c50 -d10s` on the same /fast endpoint served by bench/targets (Go, 127.0.0.1).
# --conn reuse because wrk keeps its 50 connections open; the default `both` would open a
# fresh connection for every other request and measure connection set-up instead.
# Prints req/s of each, the per-round ratio probe/wrk and its median, and peak RSS from
# GNU time -v, and each tool's CPU (user + system) per request. Then one 30 s probe run to
# show RSS stays flat from 10 s to 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need wrk || ! [ -x /usr/bin/time ]; then
  echo "installing wrk and GNU time (Debian packages)…" >&2
  apt-get update -qq >/dev/null
  apt-get install -y -qq wrk time >/dev/null
fi

source bench/lib.sh
URL="$BASE/fast"

rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
# cpu_us TIMEFILE REQ_PER_S SECONDS: user + system CPU per request, in µs.
cpu_us() {
  python3 - "$1" "$2" "$3" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
cpu = sum(float(re.search(rf"{k} time \(seconds\): ([0-9.]+)", t).group(1)) for k in ("User", "System"))
print(f"{cpu / (float(sys.argv[2]) * float(sys.argv[3])) * 1e6:.1f}")
PY
}

run_probe() { # $1 = duration, $2 = tag → prints "req/s rss_kib"
  /usr/bin/time -v -o "$work/time.$2" "$work/patience" probe "$URL" -c 50 --duration "$1" --conn reuse -q -o json >"$work/probe.$2.json"
  python3 - "$work/probe.$2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(round(r["requests"] / (r["duration_ms"] / 1000)))
PY
}
run_wrk() { # $1 = tag
  /usr/bin/time -v -o "$work/time.$1" wrk -t2 -c50 -d10s "$URL" >"$work/wrk.$1.txt"
  sed -n 's/^Requests\/sec: *//p' "$work/wrk.$1.txt" | cut -d. -f1
}

echo "target $URL, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %12s %10s %10s %12s %10s %10s %7s\n' round probe_req/s probe_MiB probe_µs wrk_req/s wrk_MiB wrk_µs ratio
ratios=(); pus=(); wus=()
for i in $(seq "$ROUNDS"); do
  if (( i % 2 )); then
    p=$(run_probe 10s "p$i"); w=$(run_wrk "w$i")
  else
    w=$(run_wrk "w$i"); p=$(run_probe 10s "p$i")
  fi
  pr=$(rss "$work/time.p$i"); wr=$(rss "$work/time.w$i")
  ratio=$(python3 -c "print(f'{$p/$w:.2f}')")
  ratios+=("$ratio")
  pu=$(cpu_us "$work/time.p$i" "$p" 10); wu=$(cpu_us "$work/time.w$i" "$w" 10)
  pus+=("$pu"); wus+=("$wu")
  printf '%-6s %12s %10.1f %10s %12s %10.1f %10s %7s\n' "$i" "$p" "$(python3 -c "print($pr/1024)")" "$pu" \
    "$w" "$(python3 -c "print($wr/1024)")" "$wu" "$ratio"
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "median ratio probe/wrk: $(med "${ratios[@]}") (target ≥ 0.9); median CPU per request: probe $(med "${pus[@]}") µs, wrk $(med "${wus[@]}") µs; load now $(cut -d' ' -f1-3 /proc/loadavg)"

p30=$(run_probe 30s long)
echo "probe RSS at 10 s: $(python3 -c "print(round($(rss "$work/time.p1")/1024, 1))") MiB, at 30 s: $(python3 -c "print(round($(rss "$work/time.long")/1024, 1))") MiB ($p30 req/s over 30 s; target ≤ 30 MiB and flat)"
