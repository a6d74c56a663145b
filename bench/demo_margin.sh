#!/usr/bin/env bash
# bench/demo_margin.sh — how much later timers fire during the demo's live replay than in the
# 0.5 s measure before it: the factor live.LoadMargin assumes when the demo picks its speed.
# Runs `patience demo -o json` N times (default 5) on loopback and prints, per run, the
# calibration's timer lateness p99, the replay's (timer_lateness_p99_ms of the agreement), their
# ratio, the speed chosen and whether the run was faithful; then the median and largest ratio.
# Run it on a quiet machine and again beside load (e.g. `BUSY=4`: that many busy loops).
#
#   bench/demo_margin.sh [N]
set -euo pipefail
n=${1:-5}
busy=${BUSY:-0}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/patience
go build -o "$bin" .
pids=()
for ((i = 0; i < busy; i++)); do (while :; do :; done) & pids+=($!); done
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$(dirname "$bin")"' EXIT
echo "| run | load (1 min) | calibration p99 ms | replay p99 ms | ratio | speed | scenario p99 ms | faithful |"
echo "|---|---|---|---|---|---|---|---|"
ratios=()
for ((i = 1; i <= n; i++)); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  row=$("$bin" demo -q -o json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["calibration_lateness_p99_ms"]; r = d["live"]["timer_lateness_p99_ms"]
print(c, r, r / c if c else 0, d["speed"], d["live"]["scenario_lateness_p99_ms"], d["live"]["faithful"])')
  read -r c r ratio speed scen faithful <<<"$row"
  ratios+=("$ratio")
  printf '| %d | %s | %.3f | %.3f | %.1f | %s | %.0f | %s |\n' "$i" "$load" "$c" "$r" "$ratio" "$speed" "$scen" "$faithful"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {printf "\nratio: median %.1f, largest %.1f over %d runs\n", a[int((NR+1)/2)], a[NR], NR}'
