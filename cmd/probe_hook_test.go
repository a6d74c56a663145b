package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/patience-dev/patience/probe/probetest"
	"github.com/rogpeppe/go-internal/testscript"
)

// The scripts probe real loopback servers run by programs of the test binary, registered
// with testscript in TestMain as fortio's cli_test.go does, so the production binary carries
// no test hooks:
//
//	exec loopback-target FILE &NAME&   serve the targets, write their base URL to FILE
//	waiturl VAR FILE                    (script command) wait for FILE, set $VAR to the URL
//	interrupt URL N PROG ARGS...        run PROG, send it SIGINT once URL/served counts N more
//
// loopback-target serves every kind of target on one 127.0.0.1 port: /fast answers at once,
// /exp after 10 ms + Exp(5 ms), /slow after 200 ms; /hang-half never answers every other
// request (the 1st, 3rd, …), /flaky answers 503 to every 10th, /404 and /503 answer only
// that; /served is how many of those requests it has answered. It stops, exit 0, on SIGINT or SIGTERM (kill -INT NAME, or the end of the
// script).

// served counts the target requests loopback-target has answered (/served reads it).
var served atomic.Int64

// loopbackTargets are the kinds of target a script can probe, by path.
func loopbackTargets() map[string]http.Handler {
	return map[string]http.Handler{
		"/fast": probetest.Fast(),
		"/exp":  probetest.Exp(1),
		"/slow": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(200 * time.Millisecond)
			fmt.Fprintln(w, "ok")
		}),
		"/hang-half": probetest.HangEvery(2),
		"/drip":      probetest.Drip(50*time.Millisecond, 3, false),
		"/flaky":     probetest.FailEvery(10, http.StatusServiceUnavailable),
		"/404":       probetest.Status(http.StatusNotFound),
		"/503":       probetest.Status(http.StatusServiceUnavailable),
	}
}

// loopbackTargetMain is the loopback-target program.
func loopbackTargetMain() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: loopback-target FILE")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	mux := http.NewServeMux()
	for path, h := range loopbackTargets() {
		mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			served.Add(1)
		}))
	}
	mux.HandleFunc("/served", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, served.Load())
	})
	srv, err := probetest.Start(mux)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopback-target:", err)
		os.Exit(1)
	}
	defer srv.Close()
	// Written whole, then renamed: waiturl never reads half a URL.
	file := os.Args[1]
	if err := os.WriteFile(file+".tmp", []byte(srv.URL+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "loopback-target:", err)
		os.Exit(1)
	}
	if err := os.Rename(file+".tmp", file); err != nil {
		fmt.Fprintln(os.Stderr, "loopback-target:", err)
		os.Exit(1)
	}
	<-ctx.Done()
}

// cmdWaitURL is `waiturl VAR FILE`: it waits (up to a minute, a loaded machine starts
// programs slowly) for FILE, written by loopback-target once it listens, and sets $VAR to
// the base URL in it.
func cmdWaitURL(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waiturl VAR FILE")
	}
	path := ts.MkAbs(args[1])
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err == nil {
			ts.Setenv(args[0], strings.TrimSpace(string(b)))
			return
		}
		if !errors.Is(err, os.ErrNotExist) {
			ts.Fatalf("waiturl: %v", err)
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waiturl: %s did not appear within a minute", args[1])
		}
	}
}

// interruptMain is the interrupt program: `interrupt URL N PROG ARGS...` runs PROG and sends
// it SIGINT, as Ctrl-C would, once the loopback target at URL has answered N more requests
// than before PROG started: then PROG is surely running and measuring, however slowly the
// machine started it. It exits with PROG's exit code.
func interruptMain() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: interrupt URL N PROG ARGS...")
		os.Exit(2)
	}
	n, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "interrupt:", err)
		os.Exit(2)
	}
	code, err := interruptWhenServed(strings.TrimSuffix(os.Args[1], "/")+"/served", n, os.Args[3], os.Args[4:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "interrupt:", err)
	}
	os.Exit(code)
}

// interruptWhenServed runs prog and interrupts it once the count at served has grown by n;
// it returns prog's exit code, or 1 with the reason when prog could not be interrupted.
func interruptWhenServed(served string, n int64, prog string, args []string) (int, error) {
	count := func() (int64, error) {
		resp, err := http.Get(served)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, err
		}
		return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	base, err := count()
	if err != nil {
		return 1, err
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return 1, err
	}
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		return 1, err
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for {
		select {
		case err := <-exited:
			return exitCodeOf(err), fmt.Errorf("%s exited before it was interrupted", prog)
		case <-deadline:
			_ = c.Process.Kill()
			<-exited
			return 1, fmt.Errorf("%s did not send %d requests within a minute", prog, n)
		case <-tick.C:
			if got, err := count(); err == nil && got-base >= n {
				_ = c.Process.Signal(os.Interrupt)
				return exitCodeOf(<-exited), nil
			}
		}
	}
}

// exitCodeOf is the exit code behind exec.Cmd.Wait's error.
func exitCodeOf(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	}
	return 1
}
