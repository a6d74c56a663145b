package cmd

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/patience-dev/patience/probe"
)

// flagBound is one condition a flag's value must meet: when bad, the error names that flag
// and its value alone (`--budget "0s": want a positive duration`), never a list of every
// flag that could have been wrong.
type flagBound struct {
	flag  string
	value string
	bad   bool
	want  string
}

// positiveDuration is a bound for a duration flag that must be above zero.
func positiveDuration(flag string, d time.Duration) flagBound {
	return flagBound{flag: flag, value: d.String(), bad: d <= 0, want: "want a positive duration, e.g. 2s"}
}

// positiveInt is a bound for a count flag that must be above zero.
func positiveInt[T int | int64](flag string, n T) flagBound {
	return flagBound{flag: flag, value: fmt.Sprint(n), bad: n <= 0, want: "want a whole number above 0"}
}

// notNegativeInt is a bound for a count flag where 0 means "not set".
func notNegativeInt[T int | int64](flag string, n T) flagBound {
	return flagBound{flag: flag, value: fmt.Sprint(n), bad: n < 0, want: "want 0 or more"}
}

// notNegativeDuration is a bound for a duration flag where 0 means "not set".
func notNegativeDuration(flag string, d time.Duration) flagBound {
	return flagBound{flag: flag, value: d.String(), bad: d < 0, want: "want 0 or a positive duration"}
}

// firstBadFlag is the error of the first bound not met, in the order given (the order of
// --help), or nil.
func firstBadFlag(bounds ...flagBound) error {
	for _, b := range bounds {
		if b.bad {
			return fmt.Errorf("%s %q: %s", b.flag, b.value, b.want)
		}
	}
	return nil
}

// withSchemeHint adds to err, the error of a probe target that is not a URL, the URL meant
// when the target was written without a scheme, as curl reads one: `localhost:8080` is
// http://localhost:8080 (https:// for port 443). The suggestion is redacted like the target.
func withSchemeHint(err error, target string) error {
	if err == nil || target == "" || strings.Contains(target, "://") {
		return err
	}
	scheme := "http://"
	guess := strings.TrimPrefix(target, "//")
	u, perr := url.Parse(scheme + guess)
	if perr != nil || u.Host == "" {
		return err
	}
	if u.Port() == "443" {
		scheme = "https://"
	}
	return fmt.Errorf("%w: did you mean %s?", err, probe.RedactURL(scheme+guess))
}
