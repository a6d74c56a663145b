package cmd

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/live"
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

// The range of --speed, the time compression of replay --live, serve and demo, is the live
// package's (live.MinSpeed, live.MaxSpeed): one definition, which speedFactor checks with
// live.SpeedInRange, the check Replay makes.
const (
	minSpeed = live.MinSpeed
	maxSpeed = live.MaxSpeed
)

// speedRange is the range of --speed as its help says it.
var speedRange = strconv.FormatFloat(minSpeed, 'g', -1, 64) + " to " + strconv.FormatFloat(maxSpeed, 'g', -1, 64)

// speedFactor is the bound of --speed, which every command with the flag calls.
func speedFactor(v float64) flagBound {
	return flagBound{flag: "--speed", value: strconv.FormatFloat(v, 'g', -1, 64), bad: !live.SpeedInRange(v),
		want: "want a factor from " + strconv.FormatFloat(minSpeed, 'g', -1, 64) + " (a hundred times slower than real time) to " +
			strconv.FormatFloat(maxSpeed, 'g', -1, 64)}
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
