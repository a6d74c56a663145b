#!/usr/bin/env bash
# bench/limits_advise.sh — advise's and probe --merge's input bounds (issue 24 items 3, 4):
# each attack on a generated input (in a temporary directory, removed on exit), what
# patience did and whether it held, one Markdown row per attack in the form of docs/contributing.md's
# reliability table. Nothing leaves the machine.
#
#   bench/limits_advise.sh [MB]    MB: size of the big HAR and OTLP documents (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/patience" .
p=$work/patience
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
held() { if "$@"; then echo yes; else echo NO; fi; }
# run TAG CMD...: runs CMD under /usr/bin/time; sets code, secs, mib.
run() {
  code=0
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || code=$?
  read -r secs kb < <(tail -1 "$work/time")
  mib=$((kb / 1024))
}
echo "| tried | result | held |"
echo "|---|---|---|"

python3 - "$work" "$mb" <<'PY'
import sys
work, mb = sys.argv[1], int(sys.argv[2])
def line(n, path):
    with open(path, "w") as f:
        f.write("latency_ms\n12\n"); f.write("7" * n); f.write("\n13\n")
line(32 << 20, f"{work}/line32.csv")
line(100 << 20, f"{work}/line100.csv")
with open(f"{work}/body.har", "w") as f:
    f.write('{"log":{"version":"1.2","creator":{"name":"gen","version":"1"},"entries":[\n')
    f.write('{"startedDateTime":"2024-05-01T00:00:00.000Z","time":100,"request":{"method":"GET","url":"https://api.example.test/v1/big"},"response":{"status":200,"content":{"size":1,"mimeType":"application/octet-stream","encoding":"base64","text":"')
    chunk = "QUJD" * (1 << 18)
    for _ in range(mb):
        f.write(chunk)
    f.write('"}},"timings":{"send":1,"wait":50,"receive":5}}\n]}}\n')
span = ('{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"GET","kind":3,'
        '"startTimeUnixNano":"1714521600000000000","endTimeUnixNano":"1714521600087000000","attributes":['
        '{"key":"http.request.method","value":{"stringValue":"GET"}},{"key":"http.response.status_code","value":{"intValue":"200"}},'
        '{"key":"server.address","value":{"stringValue":"api.example.test"}},{"key":"http.route","value":{"stringValue":"/v1/x"}}],"status":{}}')
with open(f"{work}/big.otlp.json", "w") as f:
    f.write('{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"gen"},"spans":[\n')
    n = (mb << 20) // (len(span) + 2)
    f.write(",\n".join([span] * n))
    f.write('\n]}]}]}\n')
with open(f"{work}/big.profile.json", "w") as f:
    f.write('{"schema":"patience/probe/v1"}'); f.write(" " * (17 << 20))
PY
gzip -1 -c "$work/line32.csv" >"$work/line32.csv.gz"

# Item 3: a long line through a pipe and a .gz is read in time linear in its length.
run sh -c "cat '$work/line32.csv' | '$p' advise - --format csv -o json"
row "32 MB line through a pipe (\`cat | advise -\`)" "exit $code, ${secs}s, peak RSS $mib MiB" "$(held test "$code" -eq 0 -a "${secs%.*}" -lt 8)"
run "$p" advise "$work/line32.csv.gz" --format csv -o json
row "32 MB line in a .gz" "exit $code, ${secs}s, peak RSS $mib MiB" "$(held test "$code" -eq 0 -a "${secs%.*}" -lt 8)"
# The 64 MiB cap holds for a regular file too, and names file:line.
run "$p" advise "$work/line100.csv" --format csv -o json
row "100 MB line in a regular file" "exit $code, ${secs}s, peak RSS $mib MiB: $(grep -o 'line100.csv:[0-9]*: line longer than [0-9]* MiB' "$work/err" || head -c 80 "$work/err")" \
  "$(held grep -q 'line100.csv:3: line longer than 64 MiB' "$work/err")"
# Ctrl-C inside a line arriving through a pipe at 16 MB/s (no newline for 6 s).
slow='import sys,time
sys.stdout.write("latency_ms\n"); sys.stdout.flush()
for _ in range(100):
    sys.stdout.write("7" * (1 << 20)); sys.stdout.flush(); time.sleep(1 / 16)'
"$p" advise - --format csv -o json < <(python3 -c "$slow" 2>/dev/null) >/dev/null 2>&1 &
pid=$!
sleep 2
t0=$(date +%s.%N)
kill -INT "$pid" 2>/dev/null || true
code=0; wait "$pid" || code=$?
stop=$(printf '%.2f' "$(echo "$(date +%s.%N) - $t0" | bc)")
row "SIGINT 2 s into a line arriving through a pipe at 16 MB/s" "exit $code ${stop}s after the signal" "$(held test "$(echo "$stop < 1" | bc)" -eq 1 -a "$code" -eq 130)"

# Item 4: HAR and OTLP documents are streamed; profiles are capped and their counters checked.
run "$p" advise "$work/body.har" -o json
row "$mb MB HAR (one entry saved with its body)" "exit $code, ${secs}s, peak RSS $mib MiB" "$(held test "$code" -eq 0 -a "$mib" -lt 200)"
run "$p" advise "$work/big.otlp.json" -o json
row "$mb MB OTLP export (one document)" "exit $code, ${secs}s, peak RSS $mib MiB" "$(held test "$code" -eq 0 -a "$mib" -lt 200)"
run "$p" advise "$work/big.profile.json" --format profile -o json
row "17 MiB profile to \`advise --format profile\`" "exit $code: $(head -c 100 "$work/err")" "$(held grep -q 'larger than 16 MiB' "$work/err")"

printf 'latency_ms,status\n12,200\n30,200\n45,503\n' >"$work/small.csv"
"$p" advise "$work/small.csv" --save "$work/p1.json" -q >/dev/null 2>&1 || true
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
p = json.load(open(f"{w}/p1.json"))
p["status"]["500"] = -1000
json.dump(p, open(f"{w}/neg.json", "w"))
PY
run "$p" probe --merge "$work/p1.json" "$work/neg.json" -o json
row "\`probe --merge\` of a profile with a negative status count" "exit $code: $(head -c 120 "$work/err")" "$(held grep -q 'neg.json: field status.500: -1000' "$work/err")"

# probe --merge holds one profile at a time (it held all of them: 40 × 15 MB took 804 MB):
# 40 links to one 15 MB profile (15 MB of notes, which a merge never keeps).
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
p = json.load(open(f"{w}/p1.json"))
p["notes"] = ["n" * 1000] * 15000
json.dump(p, open(f"{w}/big15.json", "w"))
PY
for i in $(seq 40); do ln -f "$work/big15.json" "$work/m$i.json"; done
run "$p" probe --merge "$work"/m{1..40}.json -o json
row "\`probe --merge\` of 40 profiles of $(($(stat -c %s "$work/big15.json") >> 20)) MiB" "exit $code (1: the merged verdict, a 503 in three), ${secs}s, peak RSS $mib MiB" "$(held test "$code" -le 1 -a "$mib" -lt 200)"
# --log-format FILE#NAME reads an nginx.conf through the same bounded input: /dev/zero is
# refused at 4 MiB (an uncapped read never ended).
printf 'latency_ms\n12\n' >"$work/one.csv"
run timeout 60 "$p" advise "$work/one.csv" --log-format '/dev/zero#main' -o json
row "\`advise --log-format /dev/zero#main\`" "exit $code, ${secs}s, peak RSS $mib MiB: $(head -c 100 "$work/err")" "$(held grep -q 'larger than 4 MiB' "$work/err")"

# The tests that pin them (each fails on the code before the fix).
for t in "advise:TestLineChunkerLinear|TestLongLineStopsOnCancel|TestLongLineCapEverySource|TestMalformedReasonBounded" \
  "advise:TestOTLPStreamsSpans|TestHARBodyNotHeld|TestOTLPOlderScopeName|TestJSONUnitCap|TestProfileCapped" \
  "probe:TestParseProfileRejectsBadCounters|TestMergeTotalsBounded"; do
  pkg=${t%%:*}; pat=${t#*:}
  if go test -count=1 -run "^($pat)\$" "./$pkg" >"$work/out" 2>&1; then ok=yes; else ok=NO; fi
  row "$pkg: ${pat//|/, }" "$(tail -1 "$work/out" | tr '\t' ' ')" "$ok"
done
