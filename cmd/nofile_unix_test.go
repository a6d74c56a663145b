//go:build unix

package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// nofileMain is the nofile program: `nofile N PROG ARGS...` runs PROG in its place with at
// most N open files (soft and hard RLIMIT_NOFILE, so Go's start-up raise cannot lift it), as
// `ulimit -n N` would: a probe that runs out of file descriptors.
func nofileMain() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: nofile N PROG ARGS...")
		os.Exit(2)
	}
	n, err := strconv.ParseUint(os.Args[1], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nofile:", err)
		os.Exit(2)
	}
	path, err := exec.LookPath(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "nofile:", err)
		os.Exit(2)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Fprintln(os.Stderr, "nofile:", err)
		os.Exit(2)
	}
	err = syscall.Exec(path, os.Args[2:], os.Environ())
	fmt.Fprintln(os.Stderr, "nofile:", err)
	os.Exit(2)
}
