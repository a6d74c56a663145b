# bench/lib.sh — sourced by the bench scripts: builds patience and bench/targets into a
# temporary directory, starts the targets on loopback (killed on exit) and sets
#   work   the temporary directory (removed on exit), with $work/patience
#   BASE   the net/http targets' base URL (/fast, /exp, /exp/stats, /lognormal)
#   STALL  the stall target's base URL (/stats is its record)
#   H2C    the net/http targets on a server that also speaks h2c (prior knowledge)
# Anything but a 127.0.0.1 URL stops the script: benches never leave loopback.
work=$(mktemp -d)
trap 'kill "$srv_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/patience" .
go build -o "$work/targets" ./bench/targets
: >"$work/url" # exists before the background redirect opens it (the loop below reads it)
"$work/targets" -for 15m >"$work/url" &
srv_pid=$!
for _ in $(seq 50); do [ "$(wc -l <"$work/url")" -ge 3 ] && break; sleep 0.1; done
BASE=$(sed -n 1p "$work/url")
STALL=$(sed -n 2p "$work/url")
H2C=$(sed -n 3p "$work/url")
for u in "$BASE" "$STALL" "$H2C"; do
  case "$u" in http://127.0.0.1:*) ;; *) echo "refusing non-loopback target $u" >&2; exit 2;; esac
done
