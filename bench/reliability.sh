#!/usr/bin/env bash
# bench/reliability.sh — the README's reliability table (issue 17), loopback only: what was
# tried against patience (hostile inputs, endless files, signals, fuzzing) and whether it held.
# Prints one Markdown row per trial.
#
#   bench/reliability.sh [RUNS] [FUZZTIME]    defaults: 200 runs of probe -n 1, 60s a fuzz target
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
fuzztime=${2:-60s}
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

# Issue 24 item 6: rates, capacities, speeds and durations out of their bounds
# (bench/limits_rates.sh holds the rows).
source bench/limits_rates.sh
limits_rates_rows
