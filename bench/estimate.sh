#!/usr/bin/env bash
# bench/estimate.sh — the estimate `patience storm` and `patience check` say up front against
# the time the run then takes (issue 26). No network.
#
#   bench/estimate.sh            (SKIP_LONG=1 leaves out the cases of a minute or more;
#                                 RAW=DIR keeps the measurements: quiet.tsv, busy.tsv, meta;
#                                 FROM=DIR prints the table of measurements kept so)
#
# bench/estimate (Go) runs every case twice over: storm on every bundled scenario,
# scenario/testdata's design example and the quick models of bench/storm.sh and the command's
# help (its policies and their stable-rate searches, on GOMAXPROCS workers); check replaying
# each bundled scenario file, the design example and any scenario file under check/testdata
# and ../shared/corpus, and copies of each at 400/s and 2000/s. Each case is estimated the
# way the command does it — sim's mean-field estimate of the work, times the speed measured
# on this machine just before (sim.Calibrate, on the run's workers) — and then run and timed.
#
# First on the machine as it is, then with two busy loops beside it (`while :; do :; done`,
# killed at the end): a busy machine must get a longer estimate. Prints a Markdown table —
# predicted (a range where the run may tip, with its point), measured and measured/predicted
# per case — then, per command and mode, the median and the worst ratio (the farthest from 1
# either way) and how many are within ×2, of all and of the runs of a second or more, with the
# load average before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
busy=()
cleanup() {
  for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
if [ -n "${FROM:-}" ]; then
  cp "$FROM/quiet.tsv" "$FROM/busy.tsv" "$FROM/meta" "$work"/
else
  go build -o "$work/estimate" ./bench/estimate
  args=()
  [ -n "${SKIP_LONG:-}" ] && args+=(-skip-long)
  load() { sed 's/ .*//' /proc/loadavg 2>/dev/null || uptime | sed 's/.*load average: //; s/,.*//'; }
  l0=$(load)
  "$work/estimate" "${args[@]}" >"$work/quiet.tsv"
  l1=$(load)
  for _ in 1 2; do
    (while :; do :; done) &
    busy+=($!)
  done
  sleep 2
  l2=$(load)
  "$work/estimate" "${args[@]}" >"$work/busy.tsv"
  l3=$(load)
  for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
  busy=()
  {
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -m)), GOMAXPROCS $(nproc)."
    echo "Load average (1 min): as the machine was $l0 → $l1; with two busy loops $l2 → $l3."
  } >"$work/meta"
  if [ -n "${RAW:-}" ]; then cp "$work/quiet.tsv" "$work/busy.tsv" "$work/meta" "$RAW"/; fi
fi

cat "$work/meta"
echo
awk -F'\t' '
function secs(x) { return x < 10 ? sprintf("%.2f s", x) : sprintf("%.1f s", x) }
function pred(p, lo, hi) { return (hi > 1.5 * lo && lo > 0) ? secs(lo) "–" secs(hi) " (" secs(p) ")" : secs(p) }
function far(r) { return r >= 1 ? r : 1 / r }
FNR == NR { q[$1 "\t" $2] = $0; next }
{ b[$1 "\t" $2] = $0; order[++n] = $1 "\t" $2 }
END {
  print "| command | case | as is: predicted | measured | ratio | 2 busy loops: predicted | measured | ratio |"
  print "|---|---|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= n; i++) {
    k = order[i]
    if (!(k in q)) continue
    split(q[k], a, "\t"); split(b[k], c, "\t")
    printf "| %s | %s | %s | %s | %.2f | %s | %s | %.2f |\n", a[1], a[2], pred(a[3], a[4], a[5]), secs(a[6]), a[7], pred(c[3], c[4], c[5]), secs(c[6]), c[7]
    rq[a[1]] = rq[a[1]] " " a[7]; rb[a[1]] = rb[a[1]] " " c[7]
    if (a[6] >= 1) { nq[a[1]]++; if (far(a[7]) <= 2) wq[a[1]]++ }
    if (c[6] >= 1) { nb[a[1]]++; if (far(c[7]) <= 2) wb[a[1]]++ }
  }
  print ""
  print "| command | mode | cases | median ratio | worst ratio | within ×2 | within ×2, runs of 1 s or more |"
  print "|---|---|---:|---:|---:|---:|---:|"
  split("storm check", cmds, " ")
  for (ci = 1; ci <= 2; ci++) {
    cmd = cmds[ci]
    for (m = 1; m <= 2; m++) {
      list = (m == 1) ? rq[cmd] : rb[cmd]
      k = split(list, v, " ")
      if (k == 0) continue
      # sort v (insertion)
      for (x = 2; x <= k; x++) { t = v[x]; y = x - 1; while (y >= 1 && v[y] + 0 > t + 0) { v[y + 1] = v[y]; y-- } v[y + 1] = t }
      med = (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
      worst = v[1]; within = 0
      for (x = 1; x <= k; x++) { if (far(v[x]) > far(worst)) worst = v[x]; if (far(v[x]) <= 2) within++ }
      long = (m == 1) ? (wq[cmd] + 0) " of " (nq[cmd] + 0) : (wb[cmd] + 0) " of " (nb[cmd] + 0)
      printf "| %s | %s | %d | %.2f | %.2f | %d of %d | %s |\n", cmd, (m == 1 ? "as is" : "2 busy loops"), k, med, worst, within, k, long
    }
  }
}' "$work/quiet.tsv" "$work/busy.tsv"
