#!/usr/bin/env bash
# bench/screens.sh — the first screen of each command, as README shows it (issue 26 item 1):
# each README example runs in a tmux pane of 80 × 30 (a terminal, so stdout's width and the
# progress bars are a user's), against loopback targets only, and the first 30 rows it printed
# are kept. Not a benchmark of speed.
#
#   bench/screens.sh            # print every capture
#   UPDATE=1 bench/screens.sh   # also replace README's ```console blocks with the captures
#
# Needs tmux (apt-get install tmux). A `patience serve` listens on 127.0.0.1:8080 for the
# probe example, as README starts it; the script stops if the
# port is taken. About a minute on two cores (demo 15 s, probe 10 s).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
command -v tmux >/dev/null || { echo "screens.sh: needs tmux" >&2; exit 2; }
work=$(mktemp -d)
srv_pid=""
cleanup() {
  [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/patience" . || exit 2
cd "$work" || exit 2

# --- fixtures: the files README's examples name -------------------------------------------
# nginx: the ingress "rt= uct= uht= urt=" variant, three routes, 3,000 lines (as readme80.sh).
awk 'BEGIN {
  for (i = 0; i < 3000; i++) {
    t = sprintf("01/May/2024:%02d:%02d:%02d +0000", int(i / 3600) % 24, int(i / 60) % 60, i % 60)
    r = (i % 3 == 0) ? "GET /users/" i : (i % 3 == 1) ? "GET /orders/" i "/items" : "POST /v2/merchants/" i "/settlements"
    d = 0.020 + (i * 7919 % 1000) / 4000.0
    printf "10.0.0.%d - - [%s] \"%s HTTP/1.1\" %d 512 \"-\" \"curl/8\" rt=%.3f uct=\"0.001\" uht=\"%.3f\" urt=\"%.3f\" host=api.example.com\n", i % 250, t, r, (i % 97 == 0) ? 503 : 200, d, d, d
  }
}' >access.log
# README's check example: the yaml block under "### check".
awk '/^### check/ {c = 1} c && /^```yaml$/ {y = 1; next} y && /^```$/ {exit} y {print}' \
  "$root/README.md" >patience.yaml
[ -s patience.yaml ] || { echo "screens.sh: README's check example not found" >&2; exit 2; }

# README's probe target: the bundled delivery-date API, healthy for its first minute (probe is
# captured first, in about 12 s).
"$work/patience" serve delivery-date-hang --listen 127.0.0.1:8080 --for 1m >serve.out 2>&1 &
srv_pid=$!
sleep 1
kill -0 "$srv_pid" 2>/dev/null || { echo "screens.sh: 127.0.0.1:8080: $(cat serve.out)" >&2; exit 2; }

# capture NAME COMMAND: run COMMAND in an 80×30 pane; the first 30 rows after the prompt.
capture() {
  local name=$1 cmd=$2 s=screens-$$-$1
  tmux new-session -d -s "$s" -x 80 -y 30 -c "$work" \
    "env -i HOME=$work PATH=$work:/usr/bin:/bin TERM=xterm-256color NO_COLOR=1 bash --norc --noprofile"
  tmux set-option -t "$s" history-limit 5000 >/dev/null
  sleep 0.5
  tmux send-keys -t "$s" "PS1='\$ '; clear" Enter
  sleep 0.5
  tmux send-keys -t "$s" "$cmd; tmux wait-for -S $s-done" Enter
  timeout 300 tmux wait-for "$s-done"
  sleep 0.3
  tmux capture-pane -p -t "$s" -S - -E - >"$name.full"
  tmux kill-session -t "$s"
  # The prompt line (with the wait-for added, wrapped when long: its end is "-done") becomes
  # "$ COMMAND"; trailing blank rows go.
  { echo "\$ $cmd"
    awk 'f == 2 {print; next} f == 0 && /^\$ patience/ {f = 1} f == 1 && /-done$/ {f = 2}' "$name.full" |
      sed -e 's/[[:space:]]*$//' | awk 'NF && $0 != "$" {n = NR} {l[NR] = $0} END {for (i = 1; i <= n; i++) print l[i]}' |
      head -29
  } >"$name.screen"
}

names=(probe advise replay storm check serve demo scenarios)
declare -A cmds=(
  [probe]='patience probe http://127.0.0.1:8080/quote --rate 20/s -n 200'
  [advise]='patience advise access.log'
  [replay]='patience replay'
  [storm]='patience storm'
  [check]='patience check patience.yaml'
  [serve]='patience serve rate-limited --listen 127.0.0.1:0 --for 3s'
  [demo]='patience demo'
  [scenarios]='patience scenarios'
)
for n in "${names[@]}"; do
  capture "$n" "${cmds[$n]}"
  echo "== $n"
  cat "$n.screen"
done

if [ -n "${UPDATE:-}" ]; then
  # Each ```console block whose first line is "$ patience NAME" gets NAME's capture.
  awk -v dir="$work" '
    /^```console$/ {hold = 1; print; next}
    hold == 1 {
      hold = 0
      split($0, w, " ")
      f = dir "/" w[3] ".screen"
      if ((getline line < f) > 0) {
        print line
        while ((getline line < f) > 0) print line
        close(f)
        skip = 1
        next
      }
      print
      next
    }
    skip && /^```$/ {skip = 0; print; next}
    skip {next}
    {print}
  ' "$root/README.md" >README.new && mv README.new "$root/README.md"
  echo "README.md updated; review with git diff"
fi
