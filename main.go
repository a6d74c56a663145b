// Command patience measures how long to wait for an external call and whether to try again.
package main

import (
	"os"

	"github.com/patience-dev/patience/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
