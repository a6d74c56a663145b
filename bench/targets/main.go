// Command targets serves the probetest targets on loopback addresses for bench/probe.sh,
// bench/accuracy.sh and manual acceptance runs. It prints two base URLs on stdout, one per
// line: the net/http targets (/fast, /exp = 10 ms + Exp(5 ms), /lognormal = p50 40 ms,
// p99 300 ms, 1% 503; GET /exp/stats is the server's record of /exp), then the stall target
// (frozen 500 ms every 5 s; GET /stats is its record), then the net/http targets again on a
// server that also speaks h2c with prior knowledge (bench/probe-h2.sh), which serves the stall
// target too as /stall (record at /stall/stats; bench/accuracy.sh). It serves until killed or
// until -for elapses.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/patience-dev/patience/probe/probetest"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:0", "loopback address of the net/http targets (port 0 picks one)")
	stallAddr := flag.String("listen-stall", "127.0.0.1:0", "loopback address of the stall target")
	seed := flag.Uint64("seed", 42, "seed of the latency RNGs")
	life := flag.Duration("for", 10*time.Minute, "stop after this long (a bench never leaves a server behind)")
	flag.Parse()
	s, err := probetest.Listen(*addr, probetest.Mux(*seed))
	if err != nil {
		fmt.Fprintln(os.Stderr, "targets:", err)
		os.Exit(2)
	}
	epoch := time.Now()
	stall, err := probetest.ListenStall(*stallAddr, epoch, 5*time.Second, 500*time.Millisecond)
	if err != nil {
		fmt.Fprintln(os.Stderr, "targets:", err)
		os.Exit(2)
	}
	// The h2c server also serves the stall target as /stall (its record at /stall/stats),
	// frozen on the same schedule as the HTTP/1.1 one: bench/accuracy.sh's h2c case.
	mux := probetest.Mux(*seed)
	stallH, stallRec := probetest.StallRecorded(epoch, 5*time.Second, 500*time.Millisecond)
	mux.Handle("/stall", stallH)
	mux.HandleFunc("/stall/stats", func(w http.ResponseWriter, _ *http.Request) {
		st := stallRec.Stats()
		stallRec.Reset()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st)
	})
	h2c, err := probetest.StartH2C(mux)
	if err != nil {
		fmt.Fprintln(os.Stderr, "targets:", err)
		os.Exit(2)
	}
	fmt.Println(s.URL)
	fmt.Println(stall.URL)
	fmt.Println(h2c.URL)
	time.Sleep(*life)
	_ = s.Close()
	_ = stall.Close()
	_ = h2c.Close()
}
