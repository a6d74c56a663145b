package cmd

import (
	"context"
	"strings"
	"testing"
)

// TestFlagErrorsNameOneFlag: a bad value is reported with its flag and value alone (issue 16:
// one sentence listed every numeric flag when one was wrong), and a probe target without a
// scheme gets the URL it probably meant.
func TestFlagErrorsNameOneFlag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    string
		notWant []string
	}{
		{[]string{"probe", "http://127.0.0.1:1/", "-c", "-1"}, `--concurrency "-1": want 0 or more`, []string{"--budget", "--max-in-flight", "-n"}},
		{[]string{"probe", "http://127.0.0.1:1/", "--budget", "0s"}, `--budget "0s": want a positive duration`, []string{"--max-timeout", "--connect-floor", "--concurrency"}},
		{[]string{"probe", "http://127.0.0.1:1/", "--max-in-flight", "0"}, `--max-in-flight "0": want a whole number above 0`, []string{"--budget"}},
		{[]string{"probe", "http://127.0.0.1:1/", "--duration", "-5s"}, `--duration "-5s": want 0 or a positive duration`, []string{"--budget"}},
		{[]string{"probe", "http://127.0.0.1:1/", "--rate", "200/x"}, `--rate "200/x": unknown unit "x"`, []string{"strconv", "--budget"}},
		{[]string{"probe", "http://127.0.0.1:1/", "--cutoff", "200%"}, `--cutoff "200%" is over 100%`, []string{"--max-error-rate"}},
		{[]string{"probe", "http://127.0.0.1:1/", "--cutoff", "0%"}, `--cutoff "0%": want more than 0% and less than 100%`, []string{"--max-error-rate"}},
		{[]string{"probe", "http://127.0.0.1:1/", "--max-error-rate", "100%"}, `--max-error-rate "100%": want at least 0% and less than 100%`, []string{"--cutoff"}},
		{[]string{"probe", "http://127.0.0.1:1/", "--max-error-rate", "x"}, `--max-error-rate "x" is not a percentage`, []string{"--cutoff"}},
		{[]string{"probe", "http://127.0.0.1:1/", "-H", "X-Token: a\nb"}, `--header "X-Token: …": the value must not contain line breaks`, nil},
		{[]string{"advise", "access.log", "--top", "0"}, `--top "0": want a whole number above 0`, []string{"--window", "--budget"}},
		{[]string{"advise", "access.log", "--window", "0s"}, `--window "0s": want a positive duration`, []string{"--top", "--budget"}},
		{[]string{"demo", "--duration", "0s"}, `--duration "0s": want a positive duration`, []string{"--rate"}},
		{[]string{"demo", "--rate", "0"}, `--rate "0": want a positive rate`, []string{"--duration"}},
		{[]string{"demo", "--rate", "200/x"}, `--rate "200/x": unknown unit "x"`, []string{"strconv", "--duration"}},
		{[]string{"serve", "--max-conns", "-1"}, `--max-conns "-1": want 0 or more`, []string{"--max-keys", "--idempotency-ttl"}},
		// No scheme: the URL meant, as curl reads it (https for port 443), redacted.
		{[]string{"probe", "localhost:8080"}, `did you mean http://localhost:8080?`, nil},
		{[]string{"probe", "api.example.com:443/v1/quote"}, `did you mean https://api.example.com:443/v1/quote?`, nil},
		{[]string{"probe", "alice:s3cret@localhost:8080/x?token=t0ken"}, `did you mean http://REDACTED:REDACTED@localhost:8080/x?token=REDACTED?`, []string{"s3cret", "t0ken", "alice"}},
		{[]string{"probe", "ftp://localhost/"}, `is not an http:// or https:// URL`, []string{"did you mean"}},
	} {
		code, out, errOut := runCmd(t, context.Background(), "", tc.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
		for _, nw := range tc.notWant {
			if strings.Contains(errOut, nw) {
				t.Errorf("%v: stderr %q names %q too", tc.args, errOut, nw)
			}
		}
	}
}
