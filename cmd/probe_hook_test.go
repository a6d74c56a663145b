package cmd

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/patience-dev/patience/probe/probetest"
	"github.com/spf13/cobra"
)

// The test binary gets a hidden `patience probe against KIND [--sigint-after=D] ARGS...`:
// it starts a loopback target of the given kind in-process, replaces {url} in ARGS with its
// address and runs `patience probe ARGS...` through the real command tree, so testscript can
// check exit codes against a server without juggling ports. With --sigint-after the process
// sends itself SIGINT, exercising the real Ctrl-C path of cmd.Main.
func init() {
	probeTestHooks = append(probeTestHooks, func(f *Factory, c *cobra.Command) {
		c.AddCommand(&cobra.Command{
			Use:                "against KIND [--sigint-after=D] ARGS...",
			Hidden:             true,
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				if len(args) < 1 {
					return UsageErrorf("against: want a target kind")
				}
				h, ok := testTargets()[args[0]]
				if !ok {
					return UsageErrorf("against: unknown target %q", args[0])
				}
				rest := args[1:]
				if len(rest) > 0 && strings.HasPrefix(rest[0], "--sigint-after=") {
					d, err := time.ParseDuration(strings.TrimPrefix(rest[0], "--sigint-after="))
					if err != nil {
						return UsageError(err)
					}
					rest = rest[1:]
					time.AfterFunc(d, func() { _ = syscall.Kill(os.Getpid(), syscall.SIGINT) })
				}
				srv, err := probetest.Start(h)
				if err != nil {
					return err
				}
				defer srv.Close()
				probeArgs := []string{"probe"}
				for _, a := range rest {
					probeArgs = append(probeArgs, strings.ReplaceAll(a, "{url}", srv.URL))
				}
				if code := run(cmd.Context(), f, probeArgs); code != 0 {
					return &ExitError{Code: code} // already reported by the inner run
				}
				return nil
			},
		})
	})
}

// testTargets are the loopback targets scripts can probe.
func testTargets() map[string]http.Handler {
	return map[string]http.Handler{
		"fast": probetest.Fast(),
		"exp":  probetest.Exp(1),
		"slow": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(200 * time.Millisecond)
			fmt.Fprintln(w, "ok")
		}),
	}
}
