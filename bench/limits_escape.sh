#!/usr/bin/env bash
# bench/limits_escape.sh — issue 24 item 7: names from input through every report, one
# Markdown row per command and format in the form of docs/contributing.md's reliability table (tried |
# result | held). Loopback only; nothing here sends a request.
#
#   bench/limits_escape.sh                 prints the header and the rows
#   source bench/limits_escape.sh; limits_escape_rows   (bench/reliability.sh: rows only,
#                                           with its $p, $work and row)
#
# The name: x, a line break, a GitHub Actions workflow command, a line break, raw HTML, a
# table's | and a colour escape, as a check dependency and as a scenario, phase and policy.
# held: no line of stdout is a workflow command (the runner trims leading white space, then
# looks for "::" — actions/runner ActionCommand.cs TryParseV2) but the github format's own,
# no raw <img in Markdown or HTML, no ESC byte in text, and the run's usual exit code.

limits_escape_rows() {
  local f=$work/le
  mkdir -p "$f"
  local name='"x\n::error title=pwned::owned\n<img src=x onerror=alert(1)>|\e[31m'
  printf 'dependencies:\n  - name: %s"\n    request: {method: POST}\n    policy:\n      timeout: 5s\n      retry: {max_attempts: 4, on: [timeout, 5xx]}\n' "$name" >"$f/check.yaml"
  printf 'name: %s"\nduration: 1m\nload: {clients: 2, rate: 10/s}\ntarget:\n  latency: {p50: 50ms, p99: 200ms}\n  phases: [{name: %s phase", at: 20s, for: 20s, faults: [{status: 503, percent: 50%%}]}]\npolicies:\n  - {name: %s a", timeout: 1s, retry: {max_attempts: 3}}\n  - {name: plain, timeout: 1s}\n' \
    "$name" "$name" "$name" >"$f/scenario.yaml"
  local want args code out cmds imgs escs
  # count is the number of lines of stdout matching an extended regexp (0 is no failure).
  count() { grep -cE "$1" "$work/out" || true; }
  local sgr=$'\x1b''\[[0-9;]*m' # a colour sequence before the :: counts as nothing
  while IFS='|' read -r want args; do
    code=0
    # shellcheck disable=SC2086
    timeout -k 5 60 "$p" $args >"$work/out" 2>"$work/err" </dev/null || code=$?
    case "$args" in
    *'-o github'*) cmds=$(count "^([[:space:]]|$sgr)*::")
      local own; own=$(count '^::(error|warning|notice) ')
      cmds=$((cmds - own)) ;;
    *) cmds=$(count "^([[:space:]]|$sgr)*::") ;;
    esac
    imgs=0
    case "$args" in *'-o markdown'* | *'-o html'*) imgs=$(count '<[iI][mM][gG]') ;; esac
    if [[ $args == *--color* ]]; then
      escs=$(count $'\\|\x1b\\[') # the colour is ours; the name's own escape follows its |
    else
      escs=$(count $'\x1b')
    fi
    out="exit $code, $cmds workflow-command lines from the name, $imgs raw <img, $escs lines with the name's ESC"
    row "\`${args//$f\//}\` (a hostile name)" "$out" \
      "$([ "$code" -eq "$want" ] && [ "$cmds" -eq 0 ] && [ "$imgs" -eq 0 ] && [ "$escs" -eq 0 ] && echo yes || echo NO)"
  done <<ROWS
1|check $f/check.yaml
1|check --color always $f/check.yaml
1|check -o markdown $f/check.yaml
1|check -o html $f/check.yaml
1|check -o github $f/check.yaml
1|check -o junit $f/check.yaml
1|check -o sarif $f/check.yaml
1|replay $f/scenario.yaml
1|replay --color always $f/scenario.yaml
1|replay -o markdown $f/scenario.yaml
1|replay -o html $f/scenario.yaml
0|storm $f/scenario.yaml
0|storm -o markdown $f/scenario.yaml
0|storm -o html $f/scenario.yaml
0|scenarios validate $f/scenario.yaml
ROWS
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cd "$(dirname "$0")/.."
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if [ -n "${PATIENCE_BIN:-}" ]; then
    p=$PATIENCE_BIN # another build, e.g. the one before the fix
  else
    go build -o "$work/patience" .
    p=$work/patience
  fi
  row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
  echo "| tried | result | held |"
  echo "|---|---|---|"
  limits_escape_rows
fi
