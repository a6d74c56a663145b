package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/profile"
)

func f(v float64) *float64 { return &v }

// probeSummary is a hand-made phase summary; p999 nil means fewer than 1000 samples.
func probeSummary(n int64, min, p50, p90, p95, p99 float64, p999 *float64, max float64) *profile.Summary {
	return &profile.Summary{Count: n, MinMs: f(min), P50Ms: f(p50), P90Ms: f(p90), P95Ms: f(p95), P99Ms: f(p99), P999Ms: p999, MaxMs: f(max)}
}

// probeFixture is a hand-made result (not a live run), so goldens are byte-stable: 2000
// requests at 200/s, half fresh, a 1% tail of 503s, a recommendation with its derivation.
func probeFixture() *profile.Profile {
	total := probeSummary(2000, 10.6, 14.1, 22.3, 26, 34.5, f(48.2), 51.1)
	total.Fresh = probeSummary(1000, 11.2, 14.6, 22.9, 26.8, 35.1, f(48.9), 51.1)
	total.Reused = probeSummary(1000, 10.6, 13.8, 21.9, 25.5, 33.9, f(46.7), 49.5)
	ttfb := probeSummary(2000, 10.2, 13.6, 21.8, 25.4, 33.8, f(47.1), 50.2)
	ttfb.Fresh = probeSummary(1000, 10.3, 13.7, 21.9, 25.6, 34, f(47.5), 50.2)
	ttfb.Reused = probeSummary(1000, 10.2, 13.5, 21.7, 25.3, 33.5, f(46.2), 49.1)
	// The longest silence of each response: its wait for the first byte (plus the send's
	// lateness), here never shorter than the TTFB, or a pause within its body.
	silence := probeSummary(2000, 10.3, 13.7, 21.9, 25.5, 33.9, f(47.3), 50.3)
	silence.Fresh = probeSummary(1000, 10.4, 13.8, 22, 25.7, 34.1, f(47.6), 50.3)
	silence.Reused = probeSummary(1000, 10.3, 13.6, 21.8, 25.4, 33.6, f(46.4), 49.2)
	return &profile.Profile{
		Schema: profile.Schema,
		Target: profile.Target{URL: "https://api.example.com/v1/quote?api_key=REDACTED", Method: "GET", Headers: []string{"Authorization: REDACTED"}},
		Model:  "open", Conn: "both", DurationMs: 10012, Requests: 2000, Responses: 2000,
		Status: map[string]int64{"200": 1980, "503": 20},
		Errors: map[string]int64{"timeout": 0, "refused": 0, "reset": 0, "dns": 0, "tls": 0, "other": 0},
		Phases: profile.Phases{
			DNS:     &profile.Summary{Count: 0},
			Connect: probeSummary(1000, 0.061, 0.182, 0.35, 0.48, 1.1, f(2.9), 3.2),
			TLS:     &profile.Summary{Count: 0},
			TTFB:    ttfb,
			Silence: silence,
			Total:   total,
			Sent:    &profile.Summary{Count: 2000, MinMs: f(10.5), P50Ms: f(13.9), P90Ms: f(22), P95Ms: f(25.7), P99Ms: f(34.1), P999Ms: f(47.8), MaxMs: f(50.9)},
		},
		Schedule: profile.Schedule{RequestedPerS: f(200), AchievedPerS: 199.9, Late: 12, LateAfterMs: 1, LateP99Ms: f(0.9), MaxInFlight: 1000, PeakInFlight: 9, RateHeld: true},
		Distribution: []profile.Bucket{
			{FromMs: 10, ToMs: 20, Count: 1500}, {FromMs: 20, ToMs: 25, Count: 290}, {FromMs: 25, ToMs: 50, Count: 208}, {FromMs: 50, ToMs: 100, Count: 2},
		},
		// The recommendation is the probe's own, from the figures above: its wording is what
		// the golden files must show.
		Recommendation: profile.Recommend(profile.Evidence{
			Good:    probeTail(1980, 14, 40, 41, 42, 43, 44, 45.1, 46, 47, 48.2, 50.9), // p99.9 = rank 1979 = 48.2 ms
			Connect: probeTail(1000, 0.18, 2.9, 3.4),
			Silence: probeTail(1980, 13.7, 39.2, 40.1, 41, 42.2, 43.1, 44, 45.2, 46.1, 47.3, 50.2), // p99.9 = 47.3 ms
			Status:  map[string]int64{"200": 1980, "503": 20}, Errors: map[string]int64{}, MaxTimeout: 30 * time.Second,
		}, profile.Caller{Budget: 2 * time.Second}, profile.RecommendOptions{}),
		CutoffCurve: []profile.Cutoff{
			{Label: "p90", TimeoutMs: f(22.3), CutRate: f(0.0995), Samples: 1980},
			{Label: "p99", TimeoutMs: f(34.5), CutRate: f(0.0096), Samples: 1980},
			{Label: "p99.9", TimeoutMs: f(48.2), CutRate: f(0.001), Samples: 1980},
			{Label: "p99.99", Samples: 1980},
			{Label: "recommended", TimeoutMs: f(60), CutRate: f(0), Samples: 1980},
		},
		Notes: []string{},
	}
}

// probeUnreachable is the result of probing a closed port.
func probeUnreachable() *profile.Profile {
	return &profile.Profile{
		Schema: profile.Schema, Target: profile.Target{URL: "http://127.0.0.1:1/", Method: "GET"}, Model: "open", Conn: "both",
		DurationMs: 212, Requests: 5, Status: map[string]int64{},
		Errors:       map[string]int64{"timeout": 0, "refused": 5, "reset": 0, "dns": 0, "tls": 0, "other": 0},
		Phases:       profile.Phases{DNS: &profile.Summary{}, Connect: &profile.Summary{}, TLS: &profile.Summary{}, TTFB: &profile.Summary{Fresh: &profile.Summary{}, Reused: &profile.Summary{}}, Total: &profile.Summary{Fresh: &profile.Summary{}, Reused: &profile.Summary{}}, Sent: &profile.Summary{Fresh: &profile.Summary{}, Reused: &profile.Summary{}}},
		Schedule:     profile.Schedule{RequestedPerS: f(10), AchievedPerS: 10, LateAfterMs: 1, MaxInFlight: 1000, PeakInFlight: 1},
		ErrorSamples: map[string]profile.ErrorSample{"refused": {Message: "dial tcp 127.0.0.1:1: connect: connection refused", Hint: "nothing listens on that port: is the URL right, is the service up?"}},
		Recommendation: profile.Recommend(profile.Evidence{
			Errors:       map[string]int64{"refused": 5},
			ErrorSamples: map[string]profile.ErrorSample{"refused": {Message: "dial tcp 127.0.0.1:1: connect: connection refused", Hint: "nothing listens on that port: is the URL right, is the service up?"}},
			Unreachable:  true,
		}, profile.Caller{}, profile.RecommendOptions{}),
		Distribution: []profile.Bucket{},
		CutoffCurve:  []profile.Cutoff{{Label: "p90"}, {Label: "p99"}, {Label: "p99.9"}, {Label: "p99.99"}},
		Unreachable:  true,
		Notes:        []string{"stopped early: the first 5 requests could not connect (refused: 5) and none got a response"},
	}
}

// probeTail is n latencies: body repeated, then the tail values.
func probeTail(n int, body float64, tail ...float64) profile.Sample {
	s := make(profile.Sample, 0, n)
	for range n - len(tail) {
		s = append(s, body)
	}
	return append(s, tail...)
}

// probeHanging is the repro: half the requests get no answer within --max-timeout.
// 80 requests at 8/s for 10 s; the 42 answered took 120 ms (one 150 ms), the 38 others
// hung until the 30 s --max-timeout, each on a connection of its own, all in flight at once.
func probeHanging() *profile.Profile {
	r := probeFixture()
	r.Requests, r.Responses, r.MaxTimeoutMs, r.DurationMs = 80, 42, 30000, 40012
	r.Schedule = profile.Schedule{RequestedPerS: f(8), AchievedPerS: 8, LateAfterMs: 1, MaxInFlight: 1000, PeakInFlight: 38, RateHeld: true}
	r.Status = map[string]int64{"200": 42}
	r.Errors = map[string]int64{"timeout": 38, "refused": 0, "reset": 0, "dns": 0, "tls": 0, "other": 0, "fd_limit": 0}
	r.ErrorSamples = map[string]profile.ErrorSample{"timeout": {Message: "no answer within 30 s (--max-timeout)"}}
	answered := func(n int64, p50, p90, max float64) *profile.Summary {
		s := &profile.Summary{Count: n, MinMs: f(p50), P50Ms: f(p50), MaxMs: f(max)}
		if n >= 10 {
			s.P90Ms, s.P95Ms = f(p90), f(p90)
		}
		return s
	}
	total := answered(42, 120, 121, 150)
	total.Fresh, total.Reused = answered(6, 120, 0, 150), answered(36, 120, 120.9, 121)
	ttfb := answered(42, 119, 120, 149)
	ttfb.Fresh, ttfb.Reused = answered(6, 119, 0, 149), answered(36, 119, 119.8, 120)
	r.Phases = profile.Phases{
		DNS: &profile.Summary{}, TLS: &profile.Summary{},
		Connect: answered(44, 0.19, 0.33, 0.9), TTFB: ttfb, Total: total, Sent: answered(42, 119.9, 120.9, 150),
	}
	r.Distribution = []profile.Bucket{{FromMs: 100, ToMs: 125, Count: 41}, {FromMs: 125, ToMs: 150, Count: 1}}
	ev := profile.Evidence{Good: probeTail(42, 120, 150), NoAnswer: 38, MaxTimeout: 30 * time.Second, Status: r.Status, Errors: r.Errors, ErrorSamples: r.ErrorSamples}
	r.Recommendation = profile.Recommend(ev, profile.Caller{}, profile.RecommendOptions{})
	r.CutoffCurve = []profile.Cutoff{
		{Label: "p90", Beyond: true, Samples: 80}, {Label: "p99", Samples: 80}, {Label: "p99.9", Samples: 80}, {Label: "p99.99", Samples: 80},
		{Label: "max-timeout", TimeoutMs: f(30000), CutRate: f(0.475), Samples: 80},
	}
	return r
}

// probeRamp is n latencies in ascending order (a Sample is sorted): period values from lo
// rising by step, each repeated, then the tail values — a spread body rather than one
// repeated value.
func probeRamp(n int, lo, step float64, period int, tail ...float64) profile.Sample {
	s := make(profile.Sample, 0, n)
	for i := range n - len(tail) {
		s = append(s, lo+step*float64(i%period))
	}
	slices.Sort(s)
	return append(s, tail...)
}

// probeJob is a POST with an Idempotency-Key advised for a queue job: 2000 requests at
// 200/s, the 1980 good ones between 700 and 898 ms with a tail of 4 s and 4.5 s, 20 503s.
// The phase rows, the histogram and the cut-off curve are computed from that sample (the
// 503s answered within its body, so they move no figure but the count).
func probeJob() *profile.Profile {
	r := probeFixture()
	r.Target.Method = "POST"
	r.Target.Headers = append(r.Target.Headers, "Idempotency-Key: t-1")
	good := probeRamp(1980, 700, 2, 100, 4000, 4500)
	at := func(q float64) float64 { return good.AtRank(int64(math.Ceil(q * float64(len(good))))) }
	cut := func(ms float64) *float64 { return f(float64(good.Above(ms)) / float64(len(good))) }
	r.Phases.Total = probeSummary(2000, good[0], at(0.5), at(0.9), at(0.95), at(0.99), f(at(0.999)), good[len(good)-1])
	r.Phases.TTFB = probeSummary(2000, good[0]-10, at(0.5)-10, at(0.9)-10, at(0.95)-10, at(0.99)-10, f(at(0.999)-10), good[len(good)-1]-10)
	r.Phases.Sent = probeSummary(2000, good[0]-1, at(0.5)-1, at(0.9)-1, at(0.95)-1, at(0.99)-1, f(at(0.999)-1), good[len(good)-1]-1)
	// The longest silence: the wait for the head, 9.9 ms short of the total (the body came
	// at once).
	silence := make(profile.Sample, len(good))
	for i, v := range good {
		silence[i] = v - 9.9
	}
	r.Phases.Silence = probeSummary(2000, good[0]-9.9, at(0.5)-9.9, at(0.9)-9.9, at(0.95)-9.9, at(0.99)-9.9, f(at(0.999)-9.9), good[len(good)-1]-9.9)
	r.Schedule.PeakInFlight = 182
	r.Distribution = []profile.Bucket{{FromMs: 500, ToMs: 1000, Count: 1998}, {FromMs: 2000, ToMs: 5000, Count: 2}}
	r.Recommendation = profile.Recommend(profile.Evidence{
		Good:    good,
		Connect: probeTail(1000, 0.18, 2.9, 3.4),
		Silence: silence,
		Status:  map[string]int64{"200": 1980, "503": 20}, Errors: map[string]int64{}, MaxTimeout: 30 * time.Second,
	}, profile.Caller{Kind: profile.CallerJob, Method: "POST", IdempotencyKey: true}, profile.RecommendOptions{})
	r.CutoffCurve = []profile.Cutoff{
		{Label: "p90", TimeoutMs: f(at(0.9)), CutRate: cut(at(0.9)), Samples: 1980},
		{Label: "p99", TimeoutMs: f(at(0.99)), CutRate: cut(at(0.99)), Samples: 1980},
		{Label: "p99.9", TimeoutMs: f(at(0.999)), CutRate: cut(at(0.999)), Samples: 1980},
		{Label: "p99.99", Samples: 1980},
		{Label: "recommended", TimeoutMs: f(r.Recommendation.TimeoutMs), CutRate: cut(r.Recommendation.TimeoutMs), Samples: 1980},
	}
	return r
}

// probeH2 is the fixture over HTTP/2: one TLS connection carrying every stream, so DNS,
// connect and TLS were measured once and every request reused it.
func probeH2() *profile.Profile {
	r := probeFixture()
	r.Target.URL = "https://api.internal:8443/v1/quote"
	r.Target.Headers = nil
	r.Target.Protocol = "h2"
	r.Target.TLS = &profile.TLSInfo{Version: "TLS 1.3", Cipher: "TLS_AES_128_GCM_SHA256", ALPN: "h2", ServerName: "api.internal"}
	r.Connections = &profile.Connections{Opened: 1, PeakStreams: 4, MaxConcurrentStreams: 250}
	r.Conn = "reuse"
	one := func(v float64) *profile.Summary {
		return &profile.Summary{Count: 1, MinMs: f(v), P50Ms: f(v), MaxMs: f(v)}
	}
	r.Phases.DNS, r.Phases.Connect, r.Phases.TLS = one(0.41), one(0.182), one(3.1)
	r.Phases.TTFB.Fresh, r.Phases.TTFB.Reused = nil, nil
	r.Phases.Total.Fresh, r.Phases.Total.Reused = nil, nil
	r.Phases.Silence.Fresh, r.Phases.Silence.Reused = nil, nil
	// One connection: the connect timeout rests on that one connect, not on 1000.
	r.Recommendation = profile.Recommend(profile.Evidence{
		Good:    probeTail(1980, 14, 40, 41, 42, 43, 44, 45.1, 46, 47, 48.2, 50.9),
		Connect: profile.Sample{0.182},
		Silence: probeTail(1980, 13.7, 39.2, 40.1, 41, 42.2, 43.1, 44, 45.2, 46.1, 47.3, 50.2),
		Status:  map[string]int64{"200": 1980, "503": 20}, Errors: map[string]int64{}, MaxTimeout: 30 * time.Second,
	}, profile.Caller{Budget: 2 * time.Second}, profile.RecommendOptions{})
	return r
}

func probeOptions(color bool) Options {
	r := lipgloss.NewRenderer(&bytes.Buffer{})
	r.SetColorProfile(termenv.Ascii)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	}
	return Options{Styles: NewStyles(r), Width: 100, Color: color}
}

// probeVariants are the probe results every text golden is rendered from, at every width.
var probeVariants = []struct {
	name string
	res  func() *profile.Profile
}{
	{"probe_text", probeFixture},
	{"probe_text_unreachable", probeUnreachable},
	{"probe_text_hanging", probeHanging},
	{"probe_text_job", probeJob},
	{"probe_text_h2", probeH2},
}

func TestProbeGoldens(t *testing.T) {
	for _, v := range probeVariants {
		for _, w := range goldenWidths {
			name := fmt.Sprintf("%s_%d", v.name, w)
			t.Run(name, func(t *testing.T) {
				var b bytes.Buffer
				if err := ProbeText(&b, v.res(), replayOptions(false, w)); err != nil {
					t.Fatal(err)
				}
				golden.Assert(t, name, b.Bytes())
			})
		}
	}
	for _, tc := range []struct {
		name, format string
		res          *profile.Profile
		color        bool
	}{
		{"probe_text_color_100", "text", probeFixture(), true},
		{"probe_markdown", "markdown", probeFixture(), false},
		{"probe_markdown_unreachable", "markdown", probeUnreachable(), false},
		{"probe_markdown_hanging", "markdown", probeHanging(), false},
		{"probe_markdown_job", "markdown", probeJob(), false},
		{"probe_markdown_h2", "markdown", probeH2(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			render, err := ProbeFormats.Get(tc.format)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := render(&b, tc.res, probeOptions(tc.color)); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, tc.name, b.Bytes())
		})
	}
}

func TestProbeTextLeadsWithVerdictAndHidesUnbackedPercentiles(t *testing.T) {
	var b bytes.Buffer
	res := probeFixture()
	res.Phases.Connect.P999Ms = nil
	res.Phases.Connect.Count = 150
	if err := ProbeText(&b, res, probeOptions(false)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "✓ timeout 60 ms") {
		t.Errorf("text does not lead with the verdict:\n%s", out)
	}
	if !strings.Contains(out, "n/a (n=150)") {
		t.Errorf("an unbacked p99.9 is not shown as n/a (n=150):\n%s", out)
	}
	res.Recommendation = profile.Recommend(profile.Evidence{Good: probeTail(1980, 14, 48.2, 50.9), Status: map[string]int64{"200": 1980}}, profile.Caller{Budget: 50 * time.Millisecond}, profile.RecommendOptions{})
	b.Reset()
	if err := ProbeText(&b, res, probeOptions(false)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "✗ the budget cannot hold one normal call; accept the work and move the call to a queue") {
		t.Errorf("queue verdict not first:\n%s", b.String())
	}
}

func TestProbeJSONContract(t *testing.T) {
	var b bytes.Buffer
	if err := ProbeFormats["json"](&b, probeUnreachable(), probeOptions(false)); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "target", "requests", "status", "errors", "phases", "schedule", "recommendation"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if doc["schema"] != "patience/probe/v1" {
		t.Errorf("schema %v", doc["schema"])
	}
	p99 := doc["phases"].(map[string]any)["total"].(map[string]any)["p99_ms"]
	if p99 != nil {
		t.Errorf("p99 without samples is %v, want null", p99)
	}
	if strings.Contains(b.String(), `\u003c`) {
		t.Error("JSON escapes < as \\u003c")
	}
}

// Every probe and advise variant fits any width from 40 columns on, not only the goldens'
// three: no line wider than the width, none starting with a unit cut from its number.
func TestProbeTextFitsEveryWidth(t *testing.T) {
	type variant struct {
		name   string
		render func(*bytes.Buffer, Options) error
	}
	var variants []variant
	for _, v := range probeVariants {
		res := v.res()
		variants = append(variants, variant{v.name, func(b *bytes.Buffer, o Options) error { return ProbeText(b, res, o) }})
	}
	for name, res := range map[string]*advise.Result{"advise_text": adviseNginx(t), "advise_text_buckets": advisePrometheus(t)} {
		variants = append(variants, variant{name, func(b *bytes.Buffer, o Options) error { return AdviseText(b, res, o) }})
	}
	for _, v := range variants {
		for width := 40; width <= 170; width += 7 {
			var b bytes.Buffer
			if err := v.render(&b, replayOptions(false, width)); err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(b.String(), "\n") {
				if w := lipgloss.Width(line); w > width {
					t.Errorf("%s at %d: line %d is %d wide:\n%s", v.name, width, i+1, w, line)
				}
				if unitLine.MatchString(line) {
					t.Errorf("%s at %d: line %d starts with a unit:\n%s", v.name, width, i+1, line)
				}
			}
		}
	}
}

// TestProbeMergedCount: a merge of one profile says "1 profile", of more "N profiles", and a
// count of a thousand or more is written 1,500 as every other count (issue 26 item 5:
// "merged from 1 profiles").
func TestProbeMergedCount(t *testing.T) {
	for _, tc := range []struct {
		merged int
		want   string
	}{{1, "merged from 1 profile"}, {2, "merged from 2 profiles"}, {1500, "merged from 1,500 profiles"}} {
		r := probeFixture()
		r.Merged = tc.merged
		var b strings.Builder
		if err := ProbeText(&b, r, probeOptions(false)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) || (tc.merged == 1 && strings.Contains(b.String(), "1 profiles")) {
			t.Errorf("Merged %d: no %q in\n%s", tc.merged, tc.want, b.String())
		}
	}
}
