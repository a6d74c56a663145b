#!/usr/bin/env bash
# bench/storm.sh — speed and memory of `patience storm` (issue 5, "Performance"). No network.
#
#   bench/storm.sh
#
# 1. The issue's storm on ONE core (GOMAXPROCS=1): 100,000 clients, 2,000 logical requests/s,
#    10 simulated minutes, a 10 s stall at t=60 s, 4 attempts, 1 s timeout — once where the
#    backlog drains (capacity 10,000/s) and once collapsed for nine minutes (capacity 5,000/s,
#    queue bounded at 50,000). Reports attempts/cpu-s (process CPU time: the fair figure on a
#    shared machine), attempts/wall-s, peak-heap-MB (live heap objects sampled every 20 ms),
#    B/op and allocs/op. The target is ≥ 2,000,000 simulated attempts per second.
# 2. The same with 100 clients: what per-client state (budgets, breakers) costs.
# 3. The stable_below_per_s bisection of the default quick model (runs, seconds).
# 4. Wall time and peak RSS (GNU time) of `patience storm` with its defaults (six policies,
#    each with its bisection) and with --attempts 4,4,4.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== storm benchmarks (GOMAXPROCS=1, one run each)"
GOMAXPROCS=1 go test ./storm -run '^$' -bench 'Storm100k|Storm100Recovers|StableBelowDefault' -benchtime 1x -benchmem

echo
echo "== patience storm (wall time, peak RSS)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/patience" .
for args in "" "--attempts 4,4,4 --rate 20/s"; do
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "storm $args: %es wall, %Us user, %MkB peak RSS" "$work/patience" storm $args -o json >/dev/null
  else
    start=$(date +%s.%N)
    "$work/patience" storm $args -o json >/dev/null
    echo "storm $args: $(echo "$(date +%s.%N) - $start" | bc)s wall"
  fi
done
