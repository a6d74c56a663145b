#!/usr/bin/env bash
# bench/limits_rates.sh — issue 24 item 6: every rate, capacity, speed and duration input out
# of its bound, and what patience did, one Markdown row per attack in the form of docs/contributing.md's
# reliability table (tried | result | held). Loopback only; nothing here sends a request.
#
#   bench/limits_rates.sh                 prints the header and the rows
#   source bench/limits_rates.sh; limits_rates_rows   (bench/reliability.sh: rows only,
#                                          with its $p, $work and row)
#
# held: exit 2 (a usage error naming the field or the flag) before any work, in bounded time
# and memory, never the internal-error exit 70 of a panic.

limits_rates_rows() {
  local f=$work/lr
  mkdir -p "$f"
  printf 'name: tiny\nduration: 1m\nload:\n  rate: 1e-12/s\ntarget:\n  latency: {fixed: 10ms}\npolicy: {timeout: 1s}\n' >"$f/tiny.yaml"
  printf 'name: hourly\nduration: 1m\nload:\n  rate: 1/h\ntarget:\n  latency: {fixed: 10ms}\npolicy: {timeout: 1s}\n' >"$f/hourly.yaml"
  printf 'name: big\nduration: 1m\nload: {clients: 1000000, burst: 10000000}\ntarget:\n  latency: {fixed: 10ms}\npolicy: {timeout: 1s, retry: {max_attempts: 3}}\n' >"$f/big.yaml"
  printf 'name: slow\nduration: 1m\nload: {clients: 2, rate: 5/s}\ntarget:\n  latency: {fixed: 2562047h}\n  capacity: {workers: 1}\n  phases: [{name: p, at: 10s, for: 10s, stall: true}]\npolicy: {timeout: 1s, retry: {max_attempts: 3}}\n' >"$f/slow.yaml"
  local args code secs kb msg want
  while IFS='|' read -r want args; do
    code=0
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$work/time" timeout -s INT -k 10 "${LIMITS_RATES_TIMEOUT:-60}" "$p" $args >/dev/null 2>"$work/err" </dev/null || code=$?
    read -r secs kb < <(tail -1 "$work/time")
    msg=$(grep -m1 '^error: ' "$work/err" | sed "s|^error: ||; s|$f/||" | cut -c1-100 || true)
    [ -n "$msg" ] || msg=$(grep -m1 -o 'internal error\|stable below\|interrupted' "$work/err" || true)
    row "\`${args//$f\//}\`" "exit $code, ${secs}s, peak RSS $((kb / 1024)) MiB${msg:+: $msg}" \
      "$([ "$code" -eq "$want" ] && [ "$kb" -lt 300000 ] && ! grep -q 'internal error' "$work/err" && echo yes || echo NO)"
  done <<ROWS
2|replay $f/tiny.yaml
2|storm $f/tiny.yaml
2|replay $f/hourly.yaml
2|storm --rate 1e-12/s
2|storm --capacity 1e-12/s
2|storm --duration 1ns
2|storm layered-retries --capacity 2/s
1|storm $f/slow.yaml
2|replay --live --speed 1e-308
2|serve --listen 127.0.0.1:0 --speed 1e-308 --for 1s
2|demo --speed 1e-308
2|demo --rate 1e-12/s
2|demo --rate 1e12/s
2|demo --duration 10000h
2|replay --live $f/big.yaml
ROWS
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cd "$(dirname "$0")/.."
  # Only the binary: these attacks need no target.
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  go build -o "$work/patience" .
  p=$work/patience
  row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
  echo "| tried | result | held |"
  echo "|---|---|---|"
  limits_rates_rows
fi
