package report

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/verdict"
)

// htmlCase is one HTML report rendered from a test fixture.
type htmlCase struct {
	name   string
	render func(t *testing.T, b *bytes.Buffer) error
}

// htmlCases are the HTML report of every command, each from the fixture its other formats'
// goldens use; the browser test (html_browser_test.go) opens the same pages.
var htmlCases = []htmlCase{
	{"probe_html", func(t *testing.T, b *bytes.Buffer) error { return ProbeHTML(b, probeFixture(), Options{}) }},
	{"probe_html_streams", func(t *testing.T, b *bytes.Buffer) error { return ProbeHTML(b, probeStreaming(t), Options{}) }},
	{"replay_html", func(t *testing.T, b *bytes.Buffer) error { return ReplayHTML(b, replayFixture(t), Options{}) }},
	{"storm_html", func(t *testing.T, b *bytes.Buffer) error { return StormHTML(b, stormFixture(), Options{}) }},
	{"check_html", func(t *testing.T, b *bytes.Buffer) error {
		return CheckHTML(b, checkResult(t, checkFixture), Options{})
	}},
	{"demo_html", func(t *testing.T, b *bytes.Buffer) error { return DemoHTML(b, demoFixture(t), Options{}) }},
	{"advise_html", func(t *testing.T, b *bytes.Buffer) error { return AdviseHTML(b, adviseFixture(t), Options{}) }},
}

// adviseFixture is advise on a generated nginx log (the "timed" log_format, read from
// standard input so no path reaches the page): three routes over six hours, lognormal
// latency whose tail grows in the fourth hour, a few 503s.
func adviseFixture(t *testing.T) *advise.Result {
	t.Helper()
	rng := rand.New(rand.NewPCG(16, 4))
	routes := []string{"/users/%d", "/orders/%d/items", "/search?q=%d"}
	var b strings.Builder
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1800 {
		at := t0.Add(time.Duration(i) * 12 * time.Second)
		sigma := 0.7
		if at.Hour() == 3 {
			sigma = 1.1
		}
		d := time.Duration(math.Exp(math.Log(0.060)+sigma*rng.NormFloat64()) * float64(time.Second)).Round(time.Millisecond)
		d = max(d, time.Millisecond)
		status := 200
		if rng.IntN(100) == 0 {
			status = 503
		}
		path := fmt.Sprintf(routes[rng.IntN(len(routes))], rng.IntN(1000))
		sec := fmt.Sprintf("%.3f", d.Seconds())
		fmt.Fprintf(&b, `10.0.0.%d - - [%s] "GET %s HTTP/1.1" %d 512 "-" "curl/8.5" rt=%s uct="0.001" uht="%s" urt="%s"`+"\n",
			i%250, at.Format("02/Jan/2006:15:04:05 -0700"), path, status, sec, sec, sec)
	}
	r, err := advise.Run(context.Background(), advise.Options{Files: []string{"-"}, Stdin: strings.NewReader(b.String()),
		By: advise.ByRoute, Window: time.Hour, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHTMLGoldens(t *testing.T) {
	for _, tc := range htmlCases {
		t.Run(tc.name, func(t *testing.T) {
			var b, again bytes.Buffer
			if err := tc.render(t, &b); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, tc.name, b.Bytes())
			if err := tc.render(t, &again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), again.Bytes()) {
				t.Error("two renderings of the same result differ")
			}
		})
	}
}

// Every format registry that people read offers html.
func TestHTMLRegistered(t *testing.T) {
	for name, ok := range map[string]bool{
		"probe":  ProbeFormats["html"] != nil,
		"replay": ReplayFormats["html"] != nil,
		"storm":  StormFormats["html"] != nil,
		"check":  CheckFormats["html"] != nil,
		"demo":   DemoFormats["html"] != nil,
		"advise": AdviseFormats["html"] != nil,
	} {
		if !ok {
			t.Errorf("%s has no html format", name)
		}
	}
	if IsMachineFormat("html") {
		t.Error("html is for people")
	}
}

// external matches anything that would make a browser fetch: a script, a stylesheet link,
// an attribute or CSS url pointing off the page.
var external = regexp.MustCompile(`(?i)<script|<link\b|<iframe|<object|<embed|@import|url\(|\b(src|href|xlink:href|action)\s*=`)

// The page opens offline: nothing in it refers to anything outside it, and its
// Content-Security-Policy forbids fetching anyway.
func TestHTMLSelfContained(t *testing.T) {
	for _, tc := range htmlCases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.render(t, &b); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			if m := external.FindString(page); m != "" {
				t.Errorf("the page refers outside itself: %q", m)
			}
			if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`) {
				t.Error("no Content-Security-Policy forbidding fetches")
			}
			if !strings.HasPrefix(page, "<!DOCTYPE html>") {
				t.Error("not an HTML5 document")
			}
		})
	}
}

// The verdict comes first: the first verdict block is before every table and chart.
func TestHTMLVerdictFirst(t *testing.T) {
	for _, tc := range htmlCases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.render(t, &b); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			v := strings.Index(page, `<div class="verdict `)
			if v < 0 {
				t.Fatal("no verdict")
			}
			for _, later := range []string{"<table", `<figure class="chart"`} {
				if i := strings.Index(page, later); i >= 0 && i < v {
					t.Errorf("%s comes before the verdict", later)
				}
			}
		})
	}
}

// The verdicts are the result's own: each policy's level is its CSS class and every clause
// is printed as the result states it.
func TestHTMLPrintsTheResultsVerdicts(t *testing.T) {
	r := replayFixture(t)
	var b bytes.Buffer
	if err := ReplayHTML(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, p := range r.Policies {
		if !strings.Contains(page, `<div class="verdict lvl-`+string(p.Verdict.Level)+`">`) {
			t.Errorf("%s: no verdict block at level %s", p.Name, p.Verdict.Level)
		}
		for _, reason := range p.Verdict.Reasons {
			if !strings.Contains(page, htmlEscape(reason.Text)) {
				t.Errorf("%s: clause %q missing", p.Name, reason.Text)
			}
		}
	}
}

// htmlEscape is html/template's escaping of text, for looking a string up in a page.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// Every string from the user — scenario and policy names, descriptions, verdict text — is
// escaped, in the page and in the charts' SVG.
func TestHTMLEscapesUserStrings(t *testing.T) {
	r := replayFixture(t)
	evil := `<script>alert("x")</script><img src=x onerror=alert(1)>`
	r.Scenario = evil
	r.Description = evil
	r.Policies[0].Name = evil
	r.Incidents[0].Name = evil // the band's label in every chart
	r.Policies[0].Verdict.Reasons = append([]replay.Reason{{Code: "x", Level: verdict.Bad, Text: evil}}, r.Policies[0].Verdict.Reasons...)
	var b bytes.Buffer
	if err := ReplayHTML(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script") || strings.Contains(page, "<img") {
		t.Error("user markup reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;") {
		t.Error("the escaped name is not shown")
	}
}

// svgFigure is one chart of a page: its SVG.
func svgFigures(page string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)<figure class="chart" id="([^"]+)">.*?(<svg.*?</svg>)`).FindAllStringSubmatch(page, -1) {
		out[m[1]] = m[2]
	}
	return out
}

var svgBandRect = regexp.MustCompile(`<rect class="band" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"`)

// The per-second charts shade the incident behind the series: one band per fault window,
// drawn before the grid and the lines, labelled, spanning the plot's height, and exactly
// where the data says the stall was — the retries policy's offered load steps up at 30 s
// (450/s) and again at 40 s (600/s), and the band's edges are those steps' x.
func TestHTMLChartsShadeTheIncident(t *testing.T) {
	var b bytes.Buffer
	if err := StormHTML(&b, stormFixture(), Options{}); err != nil {
		t.Fatal(err)
	}
	figs := svgFigures(b.String())
	if len(figs) != 3 {
		t.Fatalf("%d charts, want offered load, goodput and queue", len(figs))
	}
	for id, svg := range figs {
		bands := svgBandRect.FindAllStringSubmatch(svg, -1)
		if len(bands) != 1 {
			t.Fatalf("%s: %d bands, want 1", id, len(bands))
		}
		if !strings.Contains(svg, `class="band-label"`) || !strings.Contains(svg, ">stall</text>") {
			t.Errorf("%s: the band is not labelled stall", id)
		}
		if strings.Index(svg, `<rect class="band"`) > strings.Index(svg, "stroke-width:2;") {
			t.Errorf("%s: the band is drawn over a series, not behind it", id)
		}
		if id != "storm-offered" {
			continue
		}
		x, _ := strconv.ParseFloat(bands[0][1], 64)
		w, _ := strconv.ParseFloat(bands[0][3], 64)
		// The first series drawn (stroke-width 2) is retries.
		line := regexp.MustCompile(`<path d="([^"]+)" style="stroke-width:2;`).FindStringSubmatch(svg)
		if line == nil {
			t.Fatal("no series in the chart")
		}
		var xs, ys []float64
		for _, pt := range regexp.MustCompile(`[ML] ([0-9.]+) ([0-9.]+)`).FindAllStringSubmatch(line[1], -1) {
			px, _ := strconv.ParseFloat(pt[1], 64)
			py, _ := strconv.ParseFloat(pt[2], 64)
			xs, ys = append(xs, px), append(ys, py)
		}
		var steps []float64
		for i := 1; i < len(ys); i++ {
			if ys[i] != ys[i-1] {
				steps = append(steps, xs[i])
			}
		}
		if len(steps) != 2 || steps[0] != x || steps[1] != x+w {
			t.Errorf("band from %v to %v, the stall's steps in the offered load are at %v", x, x+w, steps)
		}
	}
	// Replay's charts shade its phase the same way, under the phase's name.
	b.Reset()
	if err := ReplayHTML(&b, replayFixture(t), Options{}); err != nil {
		t.Fatal(err)
	}
	for id, svg := range svgFigures(b.String()) {
		if len(svgBandRect.FindAllString(svg, -1)) != 1 || !strings.Contains(svg, ">hang</text>") {
			t.Errorf("%s: no band labelled hang", id)
		}
	}
}

// Without a fault there is nothing to shade, and a chart of a run without one is drawn as
// before.
func TestHTMLChartsWithoutIncidentHaveNoBand(t *testing.T) {
	r := stormFixture()
	r.Triggers = nil
	var b bytes.Buffer
	if err := StormHTML(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `class="band"`) {
		t.Error("a band without a fault")
	}
	if len(svgFigures(b.String())) != 3 {
		t.Error("the charts are missing")
	}
}
