#!/usr/bin/env bash
# bench/serve-abuse.sh — `patience serve` under attack (issue 17 item 3), loopback only: the
# attack of live's TestServeSurvivesAbuse (idle connections below and past the cap, slow
# bodies, distinct Idempotency-Keys and logical ids, over-long ids) at SCALE times its size
# (default 500: a million distinct keys), checking that the key and id stores stay at their
# caps, the heap stays flat and ordinary clients are answered throughout.
#
#   bench/serve-abuse.sh [SCALE]
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-500}
echo "== serve abuse, scale $scale ($((2000 * scale)) distinct keys, $((8 * scale)) slow bodies)"
PATIENCE_ABUSE_SCALE=$scale /usr/bin/time -f "%es wall, peak RSS %M kB (test process: client and server)" \
  go test ./live -run 'TestServeSurvivesAbuse$' -count 1 -v -timeout 2h 2>&1 | grep -v '^=== RUN'
