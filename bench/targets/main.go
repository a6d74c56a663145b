// Command targets serves the probetest targets on a loopback address for bench/probe.sh and
// manual acceptance runs: /fast, /exp (10 ms + Exp(5 ms)), /stall (500 ms freeze every 5 s)
// and /lognormal (p50 40 ms, p99 300 ms, 1% 503). It prints its base URL on stdout and
// serves until killed or until -for elapses.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/patience-dev/patience/probe/probetest"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:0", "loopback address to listen on (port 0 picks one)")
	seed := flag.Uint64("seed", 42, "seed of the latency RNGs")
	life := flag.Duration("for", 10*time.Minute, "stop after this long (a bench never leaves a server behind)")
	flag.Parse()
	s, err := probetest.Listen(*addr, probetest.Mux(*seed))
	if err != nil {
		fmt.Fprintln(os.Stderr, "targets:", err)
		os.Exit(2)
	}
	fmt.Println(s.URL)
	time.Sleep(*life)
	_ = s.Close()
}
