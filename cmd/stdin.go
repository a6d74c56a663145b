package cmd

import (
	"errors"
	"strings"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/profile"
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

// checkStdinProfile reads `check --profile -` from standard input, once, before the check
// files (refused when one of them is "-" too): the name check's options carry for it
// (check.StdinName) and the profile. Any other --profile is returned as given, unread.
func checkStdinProfile(opts *CheckOptions, paths []string) (string, *profile.Profile, error) {
	if opts.Profile != input.Stdin {
		return opts.Profile, nil, nil
	}
	if err := oneStdin(stdinUses("the file", paths), stdinUse("--profile", opts.Profile)); err != nil {
		return "", nil, err
	}
	p, err := profile.Read(check.StdinName, opts.IO.In)
	if se := (*input.StoppedError)(nil); errors.As(err, &se) {
		return "", nil, interruptedInput(err)
	}
	if err != nil {
		return "", nil, UsageErrorf("--profile: %v", err)
	}
	return check.StdinName, p, nil
}

// dataStdin names -d @- as a reader of standard input; a literal body "-" reads nothing.
func dataStdin(data string) []string {
	if data == "@"+input.Stdin {
		return []string{"--data @-"}
	}
	return nil
}
