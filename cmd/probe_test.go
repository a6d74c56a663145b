package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/patience-dev/patience/scenario"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/report"
)

func TestProbeFlags(t *testing.T) {
	var got *ProbeOptions
	f := &Factory{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
	c := NewCmdProbe(f, func(o *ProbeOptions) error { got = o; return nil })
	c.SetArgs([]string{"http://127.0.0.1:9/x", "-X", "post", "-H", "A: b", "-H", "C: d", "--rate", "2400/m", "-n", "50",
		"--conn", "reuse", "--budget", "2s", "--cutoff", "1%", "--max-timeout", "5s", "--save", "p.json", "-o", "markdown"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg, err := probeConfig(got)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.URL != "http://127.0.0.1:9/x" || cfg.Method != "POST" || cfg.Rate != 40 || cfg.Requests != 50 || cfg.Conn != "reuse" ||
		cfg.Budget != 2*time.Second || cfg.Cutoff != 0.01 || cfg.MaxTimeout != 5*time.Second || cfg.Header.Get("C") != "d" ||
		got.Save != "p.json" || got.Output != "markdown" {
		t.Errorf("config %+v from options %+v", cfg, got)
	}
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  string
	}{
		{"20/s", 20, ""}, {"2400/m", 40, ""}, {"36000/h", 10, ""}, {" 0.5/s ", 0.5, ""},
		{"20", 20, ""}, {"fast", 0, "not a rate"}, {"0/s", 0, "positive"}, {"-1/s", 0, "negative"}, {"x/s", 0, "not a rate"},
		{"20/d", 0, `unit "d"`}, {"NaN/s", 0, "not a rate"}, {"2e7/s", 0, "at most"},
	} {
		got, err := parseRate(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseRate(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParsePercentAndHeader(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{{"0.1%", 0.001, true}, {"50%", 0.5, true}, {"0.1", 0, false}, {"101%", 0, false}, {"%", 0, false}} {
		got, err := scenario.ParsePercent(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("scenario.ParsePercent(%q) = %v, %v", tc.in, got, err)
		}
	}
	if n, v, err := parseHeader("X-Trace:  abc "); err != nil || n != "X-Trace" || v != "abc" {
		t.Errorf("parseHeader = %q %q %v", n, v, err)
	}
	if _, _, err := parseHeader("Authorization Bearer sekrit-value"); err == nil || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("a malformed header error must not echo the secret: %v", err)
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"20/s", "2400/m", "1e3/h", "20", "/", "-0/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRate(s)
		if err == nil && !(r > 0) {
			t.Fatalf("parseRate(%q) accepted %v", s, r)
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"A: b", "A:", ":b", "A b", "A: b\r\nC: d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, v, err := parseHeader(s)
		if err == nil && (n == "" || strings.ContainsAny(n+v, "\r\n")) {
			t.Fatalf("parseHeader(%q) accepted %q %q", s, n, v)
		}
	})
}

// TestProbeInterruptedExit: a cancelled run renders what it measured and maps to exit 130.
func TestProbeInterruptedExit(t *testing.T) {
	srv, err := probetest.Start(probetest.Fast())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out, errOut bytes.Buffer
	f := &Factory{IO: report.Test(nil, &out, &errOut)}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	code := run(ctx, f, []string{"probe", srv.URL + "/", "--rate", "20/s", "--duration", "30s"})
	if code != ExitInterrupted {
		t.Errorf("exit %d, want 130", code)
	}
	if !strings.Contains(out.String(), "interrupted: these figures cover") || !strings.Contains(errOut.String(), "interrupted: partial results above") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
}

// TestProbeLoad: --load is the caller's production rate; it sizes the retry budget, and
// without it a probe has none (its --rate is its own load, docs/design.md §7). A bad value
// names the flag.
func TestProbeLoad(t *testing.T) {
	if v, err := parseLoad(""); err != nil || v != 0 {
		t.Errorf(`parseLoad("") = %v, %v; want none`, v, err)
	}
	if v, err := parseLoad("12000/m"); err != nil || v != 200 {
		t.Errorf(`parseLoad("12000/m") = %v, %v; want 200`, v, err)
	}
	if _, err := parseLoad("lots"); err == nil || !strings.Contains(err.Error(), `--load "lots"`) {
		t.Errorf(`parseLoad("lots"): %v, want an error naming --load and the value`, err)
	}
	srv, err := probetest.Start(probetest.Fast())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tc := range []struct {
		args   []string
		budget bool
	}{
		{nil, false},
		{[]string{"--load", "200/s"}, true},
	} {
		var out, errOut bytes.Buffer
		f := &Factory{IO: report.Test(nil, &out, &errOut)}
		args := append([]string{"probe", srv.URL + "/", "-c", "2", "-n", "40", "-o", "json"}, tc.args...)
		code := run(context.Background(), f, args)
		if code != ExitOK && code != ExitGateFailed {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut.String())
		}
		var doc struct {
			Recommendation struct {
				RetryBudget *struct {
					RatePerS   float64  `json:"rate_per_s"`
					Derivation []string `json:"derivation"`
				} `json:"retry_budget"`
			} `json:"recommendation"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		b := doc.Recommendation.RetryBudget
		if (b != nil) != tc.budget {
			t.Fatalf("%v: retry_budget %+v, want present %v", tc.args, b, tc.budget)
		}
		if b != nil && (b.RatePerS != 200 || !strings.Contains(b.Derivation[0], "production's rate as stated")) {
			t.Errorf("%v: budget %+v, want the stated 200/s", tc.args, *b)
		}
	}
}

func FuzzParseLoad(f *testing.F) {
	for _, s := range []string{"", "200/s", "12000/m", "0/s", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseLoad(s)
		if err == nil && s != "" && !(v > 0) {
			t.Fatalf("parseLoad(%q) accepted %v", s, v)
		}
		if err != nil && !strings.Contains(err.Error(), "--load") {
			t.Fatalf("parseLoad(%q): %v does not name the flag", s, err)
		}
	})
}
