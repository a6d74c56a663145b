//go:build !unix

package cmd

import (
	"fmt"
	"os"
)

// nofileMain needs RLIMIT_NOFILE; scripts run it only under [unix].
func nofileMain() {
	fmt.Fprintln(os.Stderr, "nofile: needs a unix system")
	os.Exit(2)
}
