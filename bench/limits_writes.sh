#!/usr/bin/env bash
# bench/limits_writes.sh — issue 24 item 8: the files patience writes (check --report, the step
# summary, probe and advise --save, serve --url-file, man pages) against a full disk, symbolic
# links planted at their paths, and runs that got no good response; one Markdown row per
# attack in the form of docs/contributing.md's reliability table (tried | result | held). Loopback only.
#
#   bench/limits_writes.sh                 prints the header and the rows
#   source bench/limits_writes.sh; limits_writes_rows   (bench/reliability.sh: rows only,
#                                          with its $p, $work and row)
#
# held: the file that was there is byte for byte what it was (or the link's target is), and
# the run says why it wrote nothing.

limits_writes_rows() {
  local f=$work/lw code msg held
  rm -rf "$f"
  mkdir -p "$f"
  printf 'precious: do not overwrite\n' >"$f/victim.orig"
  cat >"$f/bad.yaml" <<'YAML'
dependencies:
  - name: shipping
    caller: {kind: job, timeout: 20s, retry_after: 20s}
    request: {method: POST}
    policy:
      timeout: 5s
      retry: {max_attempts: 4, non_idempotent: always, jitter: none}
YAML
  # unchanged FILE ORIG: "unchanged" or "CHANGED (N bytes)"
  unchanged() { if cmp -s "$1" "$2"; then echo unchanged; else echo "CHANGED ($(wc -c <"$1") bytes)"; fi; }
  errline() { grep -m1 '^error: \|^warning: ' "$f/err" | sed "s|$f/||g" | cut -c1-110 || true; }

  # 1. A full disk in the middle of a report. RLIMIT_FSIZE (ulimit -f, 512- or 1024-byte
  # blocks) fails writes past the limit with EFBIG (Go ignores SIGXFSZ), as a full disk does
  # with ENOSPC.
  (cd "$f" && "$p" check --report sarif=check.sarif bad.yaml >/dev/null 2>&1) || true
  cp "$f/check.sarif" "$f/good.sarif"
  code=0; (cd "$f" && ulimit -f 2 && exec "$p" check --report sarif=check.sarif bad.yaml) >/dev/null 2>"$f/err" || code=$?
  msg=$(unchanged "$f/check.sarif" "$f/good.sarif")
  row "disk full while \`check --report sarif=check.sarif\` replaces a $(wc -c <"$f/good.sarif")-byte report (\`ulimit -f 2\`)" \
    "exit $code, check.sarif $msg: $(errline)" "$([ "$msg" = unchanged ] && echo yes || echo NO)"

  # 2. A link planted at the report's path.
  cp "$f/victim.orig" "$f/victim"
  ln -sf victim "$f/planted.sarif"
  code=0; (cd "$f" && "$p" check --report sarif=planted.sarif bad.yaml) >/dev/null 2>"$f/err" || code=$?
  msg=$(unchanged "$f/victim" "$f/victim.orig")
  row "symbolic link planted at \`check --report sarif=PATH\` (to another file)" "exit $code, its target $msg: $(errline)" \
    "$([ "$msg" = unchanged ] && echo yes || echo NO)"

  # 3. A link planted at the step summary.
  ln -sf victim "$f/summary.md"
  code=0; (cd "$f" && GITHUB_STEP_SUMMARY=$f/summary.md "$p" check bad.yaml) >/dev/null 2>"$f/err" || code=$?
  msg=$(unchanged "$f/victim" "$f/victim.orig")
  row "symbolic link planted at \`\$GITHUB_STEP_SUMMARY\`" "exit $code, its target $msg: $(errline)" \
    "$([ "$msg" = unchanged ] && echo yes || echo NO)"

  # 4. serve --url-file: a link planted at the fixed PATH.tmp serve used to write through.
  printf 'name: down\ntarget:\n  latency: {fixed: 1ms}\n  phases:\n    - {name: down, at: 0s, for: 1h, faults: [{status: 503, percent: 100%%}]}\n' >"$f/down.yaml"
  ln -sf victim "$f/url.txt.tmp"
  "$p" serve "$f/down.yaml" --listen 127.0.0.1:0 --for 2m --url-file "$f/url.txt" >/dev/null 2>"$f/serve.err" &
  local srv=$! url=""
  for _ in $(seq 100); do url=$(cat "$f/url.txt" 2>/dev/null || true); [ -n "$url" ] && break; sleep 0.1; done
  msg=$(unchanged "$f/victim" "$f/victim.orig")
  row "symbolic link planted at \`serve --url-file url.txt\`'s old fixed temporary name url.txt.tmp" \
    "URL file $([ -n "$url" ] && echo written || echo MISSING), the link's target $msg" "$([ "$msg" = unchanged ] && [ -n "$url" ] && echo yes || echo NO)"
  case "$url" in http://127.0.0.1:*) ;; *) url="" ;; esac

  # 5. probe --save: a good profile, then a run against a target that answers 503 only.
  if [ -n "${BASE:-}" ] && [ -n "$url" ]; then
    "$p" probe "$BASE/fast" -c 1 -n 20 -q --save "$f/p.json" >/dev/null 2>&1 || true
    cp "$f/p.json" "$f/p.good"
    code=0; "$p" probe "$url/" -c 1 -n 5 -q --save "$f/p.json" >/dev/null 2>"$f/err" || code=$?
    msg=$(unchanged "$f/p.json" "$f/p.good")
    row "\`probe --save p.json\` over a good profile, every response 503 (no good response)" "exit $code, p.json $msg: $(grep -m1 '^warning: ' "$f/err" | sed "s|$f/||g" | cut -c1-90)" \
      "$([ "$msg" = unchanged ] && echo yes || echo NO)"
  fi
  kill -INT "$srv" 2>/dev/null || true
  wait "$srv" 2>/dev/null || true

  # 6. advise --save: the same with an access log where every request got a 503.
  local i
  for i in 0 1 2 3 4; do
    printf '10.0.0.1 - - [01/May/2024:00:00:0%s +0000] "GET /a HTTP/1.1" 200 512 "-" "curl/8" rt=0.05%s uct="0.001" uht="0.045" urt="0.05%s"\n' "$i" "$i" "$i" >>"$f/good.log"
    printf '10.0.0.1 - - [01/May/2024:00:00:0%s +0000] "GET /a HTTP/1.1" 503 512 "-" "curl/8" rt=0.05%s uct="0.001" uht="0.045" urt="0.05%s"\n' "$i" "$i" "$i" >>"$f/503.log"
  done
  "$p" advise "$f/good.log" -q --save "$f/a.json" >/dev/null 2>&1 || true
  cp "$f/a.json" "$f/a.good"
  code=0; "$p" advise "$f/503.log" -q --save "$f/a.json" >/dev/null 2>"$f/err" || code=$?
  msg=$(unchanged "$f/a.json" "$f/a.good")
  row "\`advise 503.log --save a.json\` over a good profile (every request 503)" "exit $code, a.json $msg: $(grep -m1 '^warning: ' "$f/err" | sed "s|$f/||g" | cut -c1-90)" \
    "$([ "$msg" = unchanged ] && echo yes || echo NO)"

  # 7. advise --save into a missing directory, the input a FIFO nobody writes: found before
  # the input is opened, or waited on until the timeout (exit 124).
  mkfifo "$f/fifo"
  code=0; { timeout -k 2 10 "$p" advise "$f/fifo" --save "$f/nodir/a.json" >"$f/out" 2>"$f/err" || code=$?; } 2>/dev/null
  row "\`advise FIFO --save nodir/a.json\` (a FIFO with no writer; 10 s timeout)" "exit $code$(case $code in 124) echo ': waited on the input until SIGTERM at 10 s' ;; 137) echo ': waited on the input, SIGTERM at 10 s ignored, killed at 12 s' ;; esac)$(errline | sed 's/^/: /')" \
    "$([ "$code" = 2 ] && echo yes || echo NO)"

  # 8. man DIR with a link planted at one page's name.
  mkdir -p "$f/man"
  ln -sf ../victim "$f/man/patience-probe.1"
  code=0; "$p" man "$f/man" >/dev/null 2>"$f/err" || code=$?
  msg=$(unchanged "$f/victim" "$f/victim.orig")
  row "symbolic link planted at \`patience man DIR\`'s DIR/patience-probe.1" "exit $code, its target $msg$(errline | sed 's/^/: /')" \
    "$([ "$msg" = unchanged ] && echo yes || echo NO)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cd "$(dirname "$0")/.."
  source bench/lib.sh
  p=${PATIENCE_BIN:-$work/patience}
  row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
  echo "| tried | result | held |"
  echo "|---|---|---|"
  limits_writes_rows
fi
