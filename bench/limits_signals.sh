#!/usr/bin/env bash
# bench/limits_signals.sh — issue 24 items 2 and 9: Ctrl-C (SIGINT) and SIGTERM against a
# command blocked on its input (a FIFO with no writer, a FIFO whose writer is idle, an idle
# pipe on standard input, a pipe that brought lines first), a second Ctrl-C while the run waits on a stdout nobody reads, and
# Ctrl-C during `replay --live`; one Markdown row per attack in the form of docs/contributing.md's
# reliability table (tried | result | held). Loopback only; nothing is ever sent.
#
#   bench/limits_signals.sh                  prints the header and the rows
#   source bench/limits_signals.sh; limits_signals_rows   (bench/reliability.sh: rows only,
#                                            with its $p, $work and row)
#
# held: exit 130 within the bound (20 s: a liveness bound, the measured time is in the row),
# and stderr says what happened — never "partial results above" when nothing was printed.

limits_signals_rows() {
  local f=$work/ls code ms msg pid wd start
  rm -rf "$f"
  mkdir -p "$f"
  mkfifo "$f/in.fifo"
  cat >"$f/hang.yaml" <<'YAML'
name: hang
seed: 1
duration: 60s
drain: 30s
load: {clients: 1, workers: 20, rate: 20/s}
target:
  latency: {fixed: 10ms}
  phases:
    - {name: hang, at: 0s, for: 50s, latency: {fixed: 40s}}
policies:
  - {name: patient, timeout: 1m}
YAML
  now() { date +%s%N; }
  # stop PID SIG [SIG2]: sends SIG (and SIG2 300 ms later), kills the process after 20 s if it
  # is still there, and sets code and ms (from the first signal to the exit).
  stop() {
    local pid=$1
    (sleep 20; kill -KILL "$pid" 2>/dev/null) &
    wd=$!
    start=$(now)
    kill "-$2" "$pid" 2>/dev/null || true
    if [ -n "${3:-}" ]; then sleep 0.3; kill "-$3" "$pid" 2>/dev/null || true; fi
    code=0; wait "$pid" || code=$?
    ms=$((($(now) - start) / 1000000))
    kill "$wd" 2>/dev/null || true
    wait "$wd" 2>/dev/null || true
  }
  # run SIG CMD...: starts CMD in the background (stdout discarded, stderr to $f/err), lets
  # it reach its blocking read, then stop()s it with SIG. A child that left nothing on stderr
  # died of the signal before its handler was installed (a slow start on a loaded machine):
  # it is started again with a longer wait.
  run() {
    local sig=$1 settle=0.5 try
    shift
    for try in 1 2 3; do
      "$@" <&0 >/dev/null 2>"$f/err" & # <&0: a background job would read /dev/null
      pid=$!
      sleep "$settle"
      stop "$pid" "$sig"
      [ "$code" -eq 130 ] && [ ! -s "$f/err" ] || break
      settle=$(echo "$settle * 3" | bc)
    done
  }
  errline() { grep -m1 '^interrupted' "$f/err" | sed "s|$f/||g" | cut -c1-100 || true; }
  verdict() {
    if [ "$code" -eq 130 ] && [ "$ms" -lt 20000 ] && ! grep -q 'partial results above' "$f/err"; then echo yes; else echo NO; fi
  }

  # 1. A FIFO with no writer: open(2) blocks until one appears.
  for args in "advise F" "check F" "replay F" "storm F" "probe --merge F" "probe -d @F http://127.0.0.1:9/" \
    "probe --cacert F https://127.0.0.1:9/"; do
    # shellcheck disable=SC2086
    run INT "$p" ${args//F/$f/in.fifo}
    row "Ctrl-C, \`${args//F/FIFO}\` on a FIFO with no writer" "exit $code in $ms ms: $(errline)" "$(verdict)"
  done
  # SIGTERM is the same stop.
  run TERM "$p" advise "$f/in.fifo"
  row "SIGTERM, \`advise FIFO\` on a FIFO with no writer" "exit $code in $ms ms: $(errline)" "$(verdict)"

  # 2. A FIFO whose writer opened it and says nothing (a stalled log shipper): the read blocks.
  exec {w}<>"$f/in.fifo"
  run INT "$p" advise "$f/in.fifo"
  exec {w}>&-
  row "Ctrl-C, \`advise FIFO\` whose writer is idle" "exit $code in $ms ms: $(errline)" "$(verdict)"

  # 3. An idle pipe on standard input: sleep 30 | patience ...
  for args in "advise -" "probe --merge -" "probe -d @- http://127.0.0.1:9/"; do
    # shellcheck disable=SC2086
    run INT "$p" $args < <(sleep 30)
    row "Ctrl-C, \`sleep 30 \\| patience $args\`" "exit $code in $ms ms: $(errline)" "$(verdict)"
  done

  # 3b. Ctrl-C after 3,000 lines arrived and the writer went idle (`tail -f access.log |`):
  # the report of those lines is printed, marked interrupted (it printed nothing).
  "$p" advise - --log-format '$remote_addr - [$time_local] "$request" $status $request_time' -o json \
    < <(for i in $(seq 3000); do echo "10.0.0.1 - [01/May/2024:10:00:00 +0000] \"GET /a HTTP/1.1\" 200 0.1$((i % 50 + 10))"; done; sleep 30) \
    >"$f/out.json" 2>"$f/err" &
  pid=$!
  sleep 2
  stop "$pid" INT
  msg=$(grep -o 'interrupted: reading stopped in (stdin) after [0-9]* lines' "$f/out.json" || true)
  row "Ctrl-C after 3,000 lines, \`(lines; sleep 30) \\| patience advise -\`" "exit $code in $ms ms: ${msg:-no report}" \
    "$([ "$code" -eq 130 ] && [ "$msg" = 'interrupted: reading stopped in (stdin) after 3000 lines' ] && echo yes || echo NO)"

  # 4. A second Ctrl-C while the run waits on a stdout nobody reads (a suspended pager):
  # replay -o json is ~300 KB, past a pipe's buffer.
  mkfifo "$f/out.fifo"
  "$p" replay -o json >"$f/out.fifo" 2>"$f/err" &
  pid=$!
  exec {r}<"$f/out.fifo"
  head -c 4096 <&"$r" >/dev/null
  stop "$pid" INT INT
  exec {r}<&-
  msg=$(grep -m1 -o 'interrupted again.*exiting now' "$f/err" || true)
  row "two Ctrl-C, \`replay -o json \\| (a reader that stopped)\`" "exit $code in $ms ms after the first: ${msg:-$(head -c 80 "$f/err")}" \
    "$([ "$code" -eq 130 ] && [ -n "$msg" ] && echo yes || echo NO)"

  # 5. Ctrl-C 2 s into `replay --live` of a dependency that hangs: the policy it cut is
  # marked interrupted and not graded (it was ✗ "requests still hanging … does not recover").
  "$p" replay "$f/hang.yaml" --live -o json >"$f/out.json" 2>"$f/err" &
  pid=$!
  sleep 2
  stop "$pid" INT
  msg=$(grep -o '"level": "[a-z_]*"' "$f/out.json" | head -1 || true)
  row "Ctrl-C 2 s into \`replay --live\` of a 1 min hang" "exit $code in $ms ms, the cut policy's verdict ${msg:-absent}" \
    "$([ "$code" -eq 130 ] && [ "$msg" = '"level": "not_graded"' ] && echo yes || echo NO)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cd "$(dirname "$0")/.."
  source bench/lib.sh
  p=${PATIENCE_BIN:-$work/patience}
  row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
  echo "| tried | result | held |"
  echo "|---|---|---|"
  limits_signals_rows
fi
