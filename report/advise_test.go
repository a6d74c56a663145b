package report

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/internal/golden"
)

// adviseNginx is advise on a generated nginx log (the "timed" log_format, from standard
// input so no path reaches the report): four routes over six hours, one of them long
// enough to wrap, lognormal latency whose tail grows in the fourth hour, 1% 503s, and one
// request in fifty tried on a second upstream (comma-separated $upstream_* values).
func adviseNginx(t *testing.T) *advise.Result {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 3))
	routes := []string{"/users/%d", "/orders/%d/items", "/search?q=%d", "/v2/merchants/%d/settlements/pending/export"}
	var b strings.Builder
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := range 2400 {
		at := t0.Add(time.Duration(i) * 9 * time.Second)
		sigma := 0.6
		if at.Hour() == 3 {
			sigma = 1.2
		}
		d := time.Duration(math.Exp(math.Log(0.045)+sigma*rng.NormFloat64()) * float64(time.Second)).Round(time.Millisecond)
		d = max(d, time.Millisecond)
		status := 200
		if rng.IntN(100) == 0 {
			status = 503
		}
		sec := fmt.Sprintf("%.3f", d.Seconds())
		uct, uht, urt := "0.001", sec, sec
		if i%50 == 0 {
			uct, uht, urt = "0.001, 0.002", "1.000, "+sec, "1.000, "+sec
		}
		path := fmt.Sprintf(routes[rng.IntN(len(routes))], rng.IntN(1000))
		fmt.Fprintf(&b, `10.0.0.%d - - [%s] "GET %s HTTP/1.1" %d 512 "-" "curl/8.5" rt=%s uct="%s" uht="%s" urt="%s"`+"\n",
			i%250, at.Format("02/Jan/2006:15:04:05 -0700"), path, status, sec, uct, uht, urt)
	}
	r, err := advise.Run(context.Background(), advise.Options{Files: []string{"-"}, Stdin: strings.NewReader(b.String()),
		By: advise.ByRoute, Window: time.Hour, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// advisePrometheus is advise on two scrapes of a Prometheus histogram (the window between
// them): 10,000 observations, 0.3% of them above the top finite bucket, so the p99.9 is a
// lower bound only and no timeout is recommended.
func advisePrometheus(t *testing.T) *advise.Result {
	t.Helper()
	expo := func(counts []int) string {
		les := []string{"0.05", "0.1", "0.25", "0.5", "1", "+Inf"}
		var b strings.Builder
		b.WriteString("# HELP http_request_duration_seconds x\n# TYPE http_request_duration_seconds histogram\n")
		c := 0
		for i, le := range les {
			c += counts[i]
			fmt.Fprintf(&b, "http_request_duration_seconds_bucket{handler=\"/q\",le=\"%s\"} %d\n", le, c)
		}
		fmt.Fprintf(&b, "http_request_duration_seconds_sum 1\nhttp_request_duration_seconds_count %d\n", c)
		return b.String()
	}
	dir := t.TempDir()
	files := []string{dir + "/before.prom", dir + "/after.prom"}
	for i, counts := range [][]int{{100, 0, 0, 0, 0, 0}, {5100, 3000, 1860, 90, 20, 30}} {
		if err := os.WriteFile(files[i], []byte(expo(counts)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := advise.Run(context.Background(), advise.Options{Files: files, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The temporary directory's name changes from run to run: the report names the files.
	r.Source.Files = []string{"before.prom", "after.prom"}
	return r
}

func TestAdviseGoldens(t *testing.T) {
	for _, v := range []struct {
		name string
		res  func(*testing.T) *advise.Result
	}{
		{"advise_text", adviseNginx},
		{"advise_text_buckets", advisePrometheus},
	} {
		res := v.res(t)
		for _, w := range goldenWidths {
			var b bytes.Buffer
			if err := AdviseText(&b, res, replayOptions(false, w)); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, fmt.Sprintf("%s_%d", v.name, w), b.Bytes())
		}
		var md bytes.Buffer
		if err := AdviseMarkdown(&md, res, replayOptions(false, 100)); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, strings.Replace(v.name, "_text", "_markdown", 1), md.Bytes())
	}
}

// TestAdviseGroupsFirst: with --by, the per-group answer comes before the report of all the
// samples and its 24-line window chart, in every format for people (issue 26 item 4: it came
// last).
func TestAdviseGroupsFirst(t *testing.T) {
	res := adviseNginx(t)
	for name, render := range map[string]Renderer[*advise.Result]{"text": AdviseText, "markdown": AdviseMarkdown, "html": AdviseHTML} {
		var b bytes.Buffer
		if err := render(&b, res, replayOptions(false, 100)); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		groups, window, all := strings.Index(out, "By route"), strings.Index(out, "By window"), strings.Index(out, "Cut-off curve")
		if name == "html" {
			all = strings.Index(out, "<h2")
		}
		if groups < 0 || window < 0 || groups > window || (all >= 0 && groups > all && name != "html") {
			t.Errorf("%s: By route at %d, By window at %d, the report of all samples at %d: the groups must come first", name, groups, window, all)
		}
	}
}

// TestAdviseGroupBrackets: bucketed input with --by gives each group its own brackets, in
// every format for people, after the brackets of all the groups together (note29 item 5).
func TestAdviseGroupBrackets(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/two.prom"
	expo := "# TYPE http_request_duration_seconds histogram\n" +
		"http_request_duration_seconds_bucket{handler=\"/fast\",le=\"0.1\"} 900\n" +
		"http_request_duration_seconds_bucket{handler=\"/fast\",le=\"1\"} 1000\n" +
		"http_request_duration_seconds_bucket{handler=\"/fast\",le=\"+Inf\"} 1000\n" +
		"http_request_duration_seconds_bucket{handler=\"/slow\",le=\"0.1\"} 0\n" +
		"http_request_duration_seconds_bucket{handler=\"/slow\",le=\"1\"} 1000\n" +
		"http_request_duration_seconds_bucket{handler=\"/slow\",le=\"+Inf\"} 1000\n"
	if err := os.WriteFile(file, []byte(expo), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := advise.Run(context.Background(), advise.Options{Files: []string{file}, Workers: 1, By: advise.ByRoute})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 2 {
		t.Fatalf("groups %+v", res.Groups)
	}
	for name, render := range map[string]Renderer[*advise.Result]{"text": AdviseText, "markdown": AdviseMarkdown, "html": AdviseHTML} {
		var b bytes.Buffer
		if err := render(&b, res, replayOptions(false, 100)); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		at, all := strings.Index(out, "Buckets by route"), strings.Index(out, "Buckets")
		fast, slow := strings.Index(out[max(at, 0):], "/fast"), strings.Index(out[max(at, 0):], "/slow")
		if at < 0 || all > at || fast < 0 || slow < 0 {
			t.Errorf("%s: Buckets by route at %d (all at %d), /fast at %d, /slow at %d:\n%s", name, at, all, fast, slow, out)
			continue
		}
		// /fast's p50 lies in its first bucket, /slow's in (100 ms, 1 s].
		for _, want := range []string{"p50 in (0 ms, 100 ms], estimate 55.6 ms", "p50 in (100 ms, 1 s], estimate 550 ms"} {
			if !strings.Contains(out[at:], want) {
				t.Errorf("%s: no %q after Buckets by route:\n%s", name, want, out[at:])
			}
		}
	}
}
