package cmd

import (
	"errors"
	"strings"

	"github.com/patience-dev/patience/advise"
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

// chainStdin names each --chain -#DEPENDENCY as a reader of standard input (the check file
// piped in).
func chainStdin(specs []string) []string {
	var out []string
	for _, spec := range specs {
		if file, _, _ := strings.Cut(spec, "#"); file == input.Stdin {
			out = append(out, "--chain "+spec)
		}
	}
	return out
}

// adviseStdinLogFormat reads `advise --log-format -` (or -#NAME): an nginx.conf on standard
// input, read once, before any log — a --log-format path is read again for every log file,
// standard input cannot be — bounded as a path's is (4 MiB) and refused when a log is "-"
// too. Its log_format, compiled, takes --log-format's place in o (advise.Options.NginxConf);
// any other --log-format is left as given.
func adviseStdinLogFormat(opts *AdviseOptions, o *advise.Options) error {
	file, want, _ := strings.Cut(opts.LogFormat, "#")
	if file != input.Stdin || strings.Contains(opts.LogFormat, "$") || opts.IO.In == nil {
		return nil // with no standard input, "-" is a path like any other
	}
	flag := "--log-format " + opts.LogFormat
	if err := oneStdin(stdinUses("the log", opts.Files), []string{flag}); err != nil {
		return err
	}
	if f := advise.Format(opts.Format); f != "" && f != advise.FormatAuto && f != advise.FormatNginx {
		return UsageErrorf("%s: an nginx.conf names an nginx log_format; --format %s reads none", flag, f)
	}
	data, err := input.Read(opts.IO.In, check.StdinName, input.MaxCheck)
	if se := (*input.StoppedError)(nil); errors.As(err, &se) {
		return interruptedInput(err)
	}
	if err == nil {
		o.NginxConf, err = advise.ParseNginxConf(check.StdinName, data, want)
	}
	if err != nil {
		return UsageErrorf("--log-format: %v", err)
	}
	o.LogFormat = ""
	return nil
}

// dataStdin names -d @- as a reader of standard input; a literal body "-" reads nothing.
func dataStdin(data string) []string {
	if data == "@"+input.Stdin {
		return []string{"--data @-"}
	}
	return nil
}
