package cmd

import (
	"context"
	"strings"
	"testing"
)

// TestProbeConcurrencyRefused (issue 24 item 1): `probe -c 1000000000 -n 3` grew to 23 GB
// and ignored Ctrl-C; past the documented bound it is a usage error (exit 2) naming the flag
// and the bound, before a connection or a worker exists.
func TestProbeConcurrencyRefused(t *testing.T) {
	for _, args := range [][]string{
		{"probe", "http://127.0.0.1:1/", "-c", "1000000000", "-n", "3"},
		{"probe", "http://127.0.0.1:1/", "-c", "1000000", "-n", "3"},
		{"probe", "http://127.0.0.1:1/", "--max-in-flight", "1000000000"},
	} {
		code, _, errOut := runCmd(t, context.Background(), "", args...)
		if code != ExitUsage || !strings.Contains(errOut, "want at most 10000") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the bound 10000", args, code, errOut)
		}
	}
}
