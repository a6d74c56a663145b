#!/usr/bin/env bash
# bench/accuracy.sh — the probe acceptance measurements of issue 2, on loopback targets with
# a known latency (bench/targets, started here). Bounded: about 70 s per round.
#
#   bench/accuracy.sh [ROUNDS]   (default 1)
#
# 1. /exp (10 ms + Exp(5 ms); analytic p50 13.47, p99 33.03 ms): patience probe --rate 200/s
#    -n 2000, compared with the analytic truth and with the server's own record of the same
#    requests (which includes the host's timer overshoot).
# 2. the stall target (frozen 500 ms every 5 s; truth for an open model p95 250, p99 450 ms): --rate
#    200/s and 1000/s for 10 s; p95, p99, achieved rate, late sends, peak in flight, and the
#    server's own record of the same requests (request read to response written): after a
#    freeze it releases hundreds of responses at once, and the time it takes to write them
#    on this host is the target's latency, which no client can measure away.
# 3. both again over h2c (--http 2): /exp on the h2c server, and its /stall (the same
#    schedule, as a handler that sleeps each request to the end of its freeze).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-1}
source bench/lib.sh
echo "targets at $BASE, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

stats() { python3 -c "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode().strip())" "$1"; }

# Each case runs over HTTP/1.1 (the targets' net/http server and the stall server) and over
# h2c (--http 2 against the h2c server, which serves /exp and a handler version of the stall
# target at /stall, each with its own record).
for i in $(seq "$ROUNDS"); do
 for proto in http/1.1 h2c; do
  if [ "$proto" = h2c ]; then
    exp_base=$H2C; stall_url=$H2C/stall; stall_stats=$H2C/stall/stats; flags=(--http 2)
  else
    exp_base=$BASE; stall_url=$STALL/; stall_stats=$STALL/stats; flags=()
  fi
  stats "$exp_base/exp/stats" >/dev/null # clear the server record
  "$work/patience" probe "$exp_base/exp" "${flags[@]}" --rate 200/s -n 2000 -q -o json >"$work/exp.json" || echo "exit $?"
  server=$(stats "$exp_base/exp/stats")
  python3 - "$work/exp.json" "$server" "$proto" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = json.loads(sys.argv[2])
assert r["target"]["protocol"] == sys.argv[3], r["target"]
t, snt = r["phases"]["total"], r["phases"]["sent"]
print(f"{sys.argv[3]:8} exp  200/s n=2000: total p50 {t['p50_ms']:.2f} p99 {t['p99_ms']:.2f} | sent p50 {snt['p50_ms']:.2f} p99 {snt['p99_ms']:.2f} | "
      f"server record p50 {s['p50_ms']:.2f} p99 {s['p99_ms']:.2f} | analytic 13.47 / 33.03 | "
      f"error vs record p50 {t['p50_ms']-s['p50_ms']:+.2f} p99 {t['p99_ms']-s['p99_ms']:+.2f} ms | achieved {r['schedule']['achieved_per_s']:.2f}/s")
PY
  for rate in 200 1000; do
    stats "$stall_stats" >/dev/null # clear the server record
    "$work/patience" probe "$stall_url" "${flags[@]}" --rate "$rate/s" --duration 10s -q -o json >"$work/stall.json" || echo "exit $?"
    server=$(stats "$stall_stats")
    python3 - "$work/stall.json" "$rate" "$server" "$proto" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); rate = float(sys.argv[2]); t = r["phases"]["total"]; s = r["schedule"]; v = json.loads(sys.argv[3])
assert r["target"]["protocol"] == sys.argv[4], r["target"]
print(f"{sys.argv[4]:8} stall {rate:.0f}/s 10 s: p50 {t['p50_ms']:.2f} p95 {t['p95_ms']:.1f} ({t['p95_ms']/250-1:+.1%} vs 250) "
      f"p99 {t['p99_ms']:.1f} ({t['p99_ms']/450-1:+.1%} vs 450) | server record p95 {v['p95_ms']:.1f} ({v['p95_ms']/250-1:+.1%}) "
      f"p99 {v['p99_ms']:.1f} ({v['p99_ms']/450-1:+.1%}) | achieved {s['achieved_per_s']:.2f}/s ({s['achieved_per_s']/rate-1:+.2%}) "
      f"late {s['late']} (p99 {s['late_p99_ms']} ms) dropped {s['dropped']} peak in flight {s['peak_in_flight']}/{s['max_in_flight']}")
PY
  done
 done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
