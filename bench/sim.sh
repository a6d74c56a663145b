#!/usr/bin/env bash
# bench/sim.sh — speed and memory of the discrete-event simulator (docs/design.md §6, issue 3
# "Performance"). No network at all.
#
#   bench/sim.sh [COUNT]       (default 3 benchmark runs)
#
# 1. go test -bench BenchmarkRunPolicy in sim on ONE core (GOMAXPROCS=1): the issue's
#    100-client, 10-minute scenario with retries (2,000 logical requests/s, a fifth of the
#    calls failing, exponential backoff with full jitter, a token bucket and a breaker on the
#    hot path, a 400-worker target with a queue). Reports attempts/s (wall clock),
#    attempts/cpu-s (process CPU time: the fair figure on a shared machine), heap-MB (heap in
#    use after a run), B/op and allocs/op. The target is ≥ 2,000,000 attempts per second.
# 2. TestAllocationsDoNotGrowWithRequests: ten times the run length must not cost ten times
#    the allocations (memory follows concurrency and the per-second timeline).
# 3. Wall time and peak RSS (GNU time) of `patience replay` on every bundled scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-3}

echo "== BenchmarkRunPolicy (GOMAXPROCS=1, -count $COUNT)"
GOMAXPROCS=1 go test ./sim -run '^$' -bench 'BenchmarkRunPolicy$' -benchtime 2x -count "$COUNT"

echo
echo "== memory bounded by the timeline, not the request count"
go test ./sim -run 'TestAllocationsDoNotGrowWithRequests' -v | grep -E '^(---|ok|FAIL)'

echo
echo "== patience replay on the bundled scenarios (wall time, peak RSS)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/patience" .
for name in $("$work/patience" scenarios -o json 2>/dev/null | grep -o '"name": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' || true); do
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "$name: %es wall, %MkB peak RSS" "$work/patience" replay "$name" -o json >/dev/null
  else
    start=$(date +%s.%N)
    "$work/patience" replay "$name" -o json >/dev/null
    echo "$name: $(echo "$(date +%s.%N) - $start" | bc)s wall"
  fi
done
