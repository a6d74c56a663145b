#!/usr/bin/env bash
# bench/reliability.sh — the reliability table of docs/contributing.md (issue 17), loopback only: what was
# tried against patience (hostile inputs, endless files, signals, fuzzing) and whether it held.
# Prints one Markdown row per trial. Issue 24's attacks (hard limits) follow, from the
# bench/limits_*.sh scripts: those with a limits_*_rows function are sourced, limits_probe.sh
# and limits_advise.sh run as children (their header lines dropped).
#
#   bench/reliability.sh [RUNS] [FUZZTIME] [MB]    defaults: 200 runs of probe -n 1, 60s a fuzz
#                                                  target, 300 MB HAR and OTLP documents
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
fuzztime=${2:-60s}
mb=${3:-300}
source bench/lib.sh
p=$work/patience
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
echo "| tried | result | held |"
echo "|---|---|---|"

# probe -n 1: every total latency on one value crashed distribution() (2 runs in 500).
bad=0
for i in $(seq "$runs"); do
  code=0; "$p" probe "$BASE/fast" -n 1 -c 1 -q --save "$work/one.json" >/dev/null 2>"$work/err" || code=$?
  if [ "$code" -ne 0 ] || grep -q panic "$work/err"; then bad=$((bad + 1)); fi
done
row "\`probe -n 1\` × $runs against a loopback server" "$bad runs exited non-zero or panicked" "$([ $bad -eq 0 ] && echo yes || echo NO)"

# Endless files: each must end in "FILE: larger than N MiB", exit 2, in bounded memory.
printf 'scenarios: [/dev/zero]\n' >"$work/scenarios-dev-zero.yaml"
printf 'duration: 1m\nload: {rate: 1/s}\ntarget:\n  latency: {profile: /dev/zero}\npolicy: {timeout: 1s}\n' >"$work/profile-dev-zero.yaml"
for args in "probe --merge /dev/zero" "probe http://127.0.0.1:1/ -d @/dev/zero" "check /dev/zero" "check $work/scenarios-dev-zero.yaml" \
  "replay /dev/zero" "replay --policy /dev/zero" "replay $work/profile-dev-zero.yaml"; do
  code=0
  # shellcheck disable=SC2086
  /usr/bin/time -f '%e %M' -o "$work/time" "$p" $args >/dev/null 2>"$work/err" || code=$?
  read -r secs kb < <(tail -1 "$work/time")
  msg=$(grep -o 'larger than [0-9]* MiB\|not a regular file' "$work/err" | head -1 || true)
  row "\`${args//$work\//}\`" "exit $code, ${secs}s, peak RSS $((kb / 1024)) MiB: ${msg:-$(head -c 80 "$work/err")}" "$([ $code -eq 2 ] && [ -n "$msg" ] && [ $kb -lt 300000 ] && echo yes || echo NO)"
done

# Hostile profiles and the crashes issue 17 reproduced, as the tests that pin them.
for t in "probe:TestDistributionOneValue|TestMergeHugeCountsIsQuick|TestQuantileCIHugeCount|TestParseProfileRejects" \
  "scenario:TestProfileValuesPastDurationRange|TestProfileFileHostile|TestOpenDevZero" \
  "report:TestProbeBarsHugeCounts|TestRenderersEscapeUserStrings" \
  "cmd:TestPanicIsInternalError|TestReplayFarProfile|TestSecretsOutOfErrors|TestScenarioEscapesNeverReachTheTerminal|TestSaveKeepsGoodProfile|TestInterruptedExits"; do
  pkg=${t%%:*}; pat=${t#*:}
  start=$(date +%s.%N)
  if go test -count=1 -run "^($pat)\$" "./$pkg" >"$work/out" 2>&1; then ok=yes; else ok=NO; fi
  row "$pkg: ${pat//|/, }" "$(tail -1 "$work/out" | tr '\t' ' ') ($(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s with the build)" "$ok"
done

# Signals: SIGINT mid-run prints and saves what was measured, exit 130; the saved profile
# merges with exit 0.
"$p" probe "$BASE/exp" --rate 100/s --duration 60s -q --save "$work/cut.json" >/dev/null 2>"$work/err" &
pid=$!
sleep 2
kill -INT "$pid"
code=0; wait "$pid" || code=$?
mcode=0; "$p" probe --merge "$work/cut.json" "$work/cut.json" >/dev/null 2>&1 || mcode=$?
row "SIGINT after 2 s of \`probe --rate 100/s --duration 60s --save\`, then \`--merge\` of the profile" "exit $code, profile of $(grep -o '"requests": [0-9]*' "$work/cut.json" | head -1), merge exit $mcode" "$([ $code -eq 130 ] && echo yes || echo NO)"

# Secrets: a password, a token and a signature never reach stdout, stderr or the profile.
"$p" probe 'http://alice:s3cret@127.0.0.1:1/?X-Amz-Signature=s3cret#access_token=s3cret' -n 1 -c 1 -q --save "$work/sec.json" >"$work/out" 2>&1 || true
"$p" probe 'http://alice:s3cret@host:port/' >>"$work/out" 2>&1 || true
n=$(cat "$work/out" "$work/sec.json" | grep -c s3cret || true)
row "secrets in a URL that is unreachable, and in one that does not parse" "$n lines hold the secret" "$([ "$n" -eq 0 ] && echo yes || echo NO)"

# Fuzzing, bounded.
for t in report:FuzzMergeRender sim:FuzzProfileSimulate probe:FuzzParseProfile scenario:FuzzParse check:FuzzLoad; do
  pkg=${t%%:*}; name=${t#*:}
  if go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "./$pkg" >"$work/out" 2>&1; then ok=yes; else ok=NO; fi
  execs=$(grep -o 'execs: [0-9]*' "$work/out" | tail -1)
  row "fuzz $name, $fuzztime" "${execs:-?}, $(grep -c 'new interesting' "$work/out" >/dev/null && grep -o 'total: [0-9]*' "$work/out" | tail -1 | sed 's/total/corpus/')" "$ok"
done

# Issue 24: each script's rows without its header (the child scripts build their own binary
# and, for the probe, their own loopback targets).
# noheader also drops the children's temporary directories from paths and escapes a | inside a
# code span (GFM splits a table row at it before code spans are read).
noheader() {
  grep -v '^| tried | result | held |$' | grep -v '^|---|---|---|$' |
    sed -E 's#/[^ ]*/tmp\.[A-Za-z0-9]+/##g' |
    perl -pe 's/(`[^`]*`)/my $c = $1; $c =~ s{(?<!\\)\|}{\\|}g; $c/ge' || true
}
# Items 1, 5, 10, 11, 12: worker bound, HTTP/2 frames and windows, redaction, the rate rule on
# short runs, tests that bound work instead of wall time.
bash bench/limits_probe.sh | noheader || row "\`bench/limits_probe.sh\`" "stopped early (exit $?)" NO
# Item 2 and 9: Ctrl-C and SIGTERM against a command blocked on its input, a second Ctrl-C,
# Ctrl-C during replay --live.
source bench/limits_signals.sh
limits_signals_rows
# Items 3 and 4: long lines, HAR and OTLP documents, profile size and counters.
bash bench/limits_advise.sh "$mb" | noheader || row "\`bench/limits_advise.sh $mb\`" "stopped early (exit $?)" NO
# Item 6: rates, capacities, speeds and durations out of their bounds.
source bench/limits_rates.sh
limits_rates_rows
# Item 7: names from input through every report format.
source bench/limits_escape.sh
limits_escape_rows
# Item 8: atomic writes, planted symbolic links, --save after a run with no good response.
source bench/limits_writes.sh
limits_writes_rows
