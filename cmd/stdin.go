package cmd

import (
	"strings"

	"github.com/patience-dev/patience/internal/input"
)

// Standard input can be read once per run: "-" is accepted wherever a file is read
// (docs/commands.md), so a command refuses two inputs that both name it, before reading
// either, with a usage error naming both.

// stdinUse is what, when value is "-", names a reader of standard input; else nothing.
func stdinUse(what, value string) []string {
	if value == input.Stdin {
		return []string{what + " -"}
	}
	return nil
}

// stdinUses is stdinUse over a repeatable flag's values, each named flag -.
func stdinUses(flag string, values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, stdinUse(flag, v)...)
	}
	return out
}

// oneStdin is a usage error when more than one input reads standard input.
func oneStdin(uses ...[]string) error {
	var all []string
	for _, u := range uses {
		all = append(all, u...)
	}
	if len(all) < 2 {
		return nil
	}
	both := "both"
	if len(all) > 2 {
		both = "all"
	}
	return UsageErrorf("%s %s read standard input, which can be read once: give all but one a file", strings.Join(all, " and "), both)
}
