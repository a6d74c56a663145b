package cmd

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the real patience binary as a subprocess command, beside the
// test-only programs the probe scripts need (probe_hook_test.go): a loopback target, a
// Ctrl-C for a running command and a file-descriptor limit (nofile_unix_test.go).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"patience":            func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"loopback-target":     loopbackTargetMain,
		"loopback-tls-target": loopbackTLSTargetMain,
		"interrupt":           interruptMain,
		"nofile":              nofileMain,
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: exit codes, the stdout/stderr
// split and files written, through the real binary.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		// go test ./cmd -update rewrites the files that `cmp` compares output with.
		UpdateScripts: golden.Updating(),
		Cmds:          map[string]func(ts *testscript.TestScript, neg bool, args []string){"status": cmdStatus, "waiturl": cmdWaitURL},
	})
}

// cmdStatus is `status N prog args...`: it runs prog like exec and asserts its exit code is
// exactly N, so scripts can tell a usage error (2) from a failed gate (1).
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N prog args...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: bad exit code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
