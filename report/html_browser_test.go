package report

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The HTML reports in a real browser: headless Chromium opens each page from a file:// URL,
// with no network, over the DevTools protocol on a pipe (--remote-debugging-pipe: no port,
// no WebSocket, no third-party driver). The test fails on any console error, uncaught
// exception, log entry at level error (a Content-Security-Policy violation is one) or
// request for anything but the file itself, then takes a full-page screenshot, decodes it
// with image/png and counts the pixels each chart drew inside its own box.
//
// Without Chromium the test skips; PATIENCE_BROWSER=1 (set by .ci/run, which installs
// Debian's chromium) makes a missing browser a failure. PATIENCE_CHROMIUM names another
// binary. `go test ./report -run TestHTMLInBrowser -screenshots` rewrites docs/html-*.png.

var screenshots = flag.Bool("screenshots", false, "write the browser test's screenshots to ../docs/html-*.png")

// browserWidth is the viewport width the pages are opened at (CSS pixels, scale 1).
const browserWidth = 1000

func findChromium() string {
	if p := os.Getenv("PATIENCE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// needBrowser returns the Chromium binary, or skips (fails under PATIENCE_BROWSER=1).
func needBrowser(t *testing.T) string {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		if os.Getenv("PATIENCE_BROWSER") == "1" {
			t.Fatal("PATIENCE_BROWSER=1 but no chromium on PATH (apt-get install chromium, or set PATIENCE_CHROMIUM)")
		}
		t.Skip("chromium not installed: the HTML reports are not opened in a browser (apt-get install chromium; PATIENCE_BROWSER=1 makes this a failure)")
	}
	return bin
}

func TestHTMLInBrowser(t *testing.T) {
	bin := needBrowser(t)
	b := startBrowser(t, bin)
	dir := t.TempDir()
	for _, tc := range htmlCases {
		t.Run(tc.name, func(t *testing.T) {
			var page bytes.Buffer
			if err := tc.render(t, &page); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.name+".html")
			if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			res := b.open(t, "file://"+path)
			for _, p := range res.problems {
				t.Errorf("in the browser: %s", p)
			}
			wantCharts := strings.Count(page.String(), `<figure class="chart"`)
			if len(res.layout.Charts) != wantCharts {
				t.Errorf("the browser laid out %d charts, the page has %d", len(res.layout.Charts), wantCharts)
			}
			if tc.name != "check_html" && wantCharts == 0 {
				t.Error("no chart in the page")
			}
			if res.layout.Verdict == nil || res.layout.Verdict.Y > 600 {
				t.Errorf("the verdict is not at the top of the page: %+v", res.layout.Verdict)
			}
			img, err := png.Decode(bytes.NewReader(res.png))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			for _, c := range res.layout.Charts {
				ink, colour := chartPixels(img, c)
				area := int(c.W * c.H * 4 / 5)
				t.Logf("%s: %.0f×%.0f at %.0f,%.0f: %d drawn pixels, %d in colour", c.ID, c.W, c.H, c.X, c.Y, ink, colour)
				// Axes, labels and grid lines alone are grey: the data is in colour.
				if c.W < 300 || c.H < 100 {
					t.Errorf("%s is %.0f×%.0f: too small to read", c.ID, c.W, c.H)
				}
				if ink < area/50 || colour < 400 {
					t.Errorf("%s looks blank: %d drawn pixels, %d in colour, of %d", c.ID, ink, colour, area)
				}
			}
			if want := strings.Count(page.String(), `<rect class="band"`); len(res.layout.Bands) != want {
				t.Errorf("the browser laid out %d incident bands, the page has %d", len(res.layout.Bands), want)
			}
			if strings.HasPrefix(tc.name, "replay") || strings.HasPrefix(tc.name, "storm") {
				if len(res.layout.Bands) == 0 {
					t.Error("no incident band in a report whose scenario has one")
				}
			}
			for _, band := range res.layout.Bands {
				shaded, outside := bandPixels(img, band)
				t.Logf("band in %s: %.0f×%.0f at %.0f,%.0f: %.0f%% shaded inside, %.0f%% just left of it", band.ID, band.W, band.H, band.X, band.Y, 100*shaded, 100*outside)
				var chart *pageBox
				for i := range res.layout.Charts {
					if res.layout.Charts[i].ID == band.ID {
						chart = &res.layout.Charts[i]
					}
				}
				if chart == nil || band.X < chart.X || band.Y < chart.Y || band.X+band.W > chart.X+chart.W || band.Y+band.H > chart.Y+chart.H {
					t.Errorf("band %+v is not inside its chart %+v", band, chart)
				}
				// The band shows: most of its pixels are its grey wash (the series cross it,
				// the grid lines are drawn over it); beside it the plot is white.
				if band.W < 4 || band.H < 50 || shaded < 0.6 {
					t.Errorf("band in %s does not show: %.0f×%.0f, %.0f%% of it shaded", band.ID, band.W, band.H, 100*shaded)
				}
				if band.X > chart.X+8 && outside > 0.4 {
					t.Errorf("band in %s: %.0f%% of the plot left of it is shaded too", band.ID, 100*outside)
				}
			}
			if *screenshots {
				name := strings.TrimSuffix(tc.name, "_html")
				// The top of the page down to the end of the first chart.
				bottom := 1400
				if len(res.layout.Charts) > 0 {
					first := res.layout.Charts[0]
					bottom = min(int(first.Y+first.H)+16, 2000)
				}
				if err := writeDocScreenshot(filepath.Join("..", "docs", "html-"+name+".png"), img, bottom); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// The checks above would catch a broken page: a console error, a script error, a blocked
// request and a request off the machine are each reported.
// TestHTMLTablesFitNarrow: in a window 600 px wide (a phone, half a laptop screen) check's
// findings table is no wider than the page: the fix column stays in sight, long YAML paths
// broken where they must be (issue 26 item 5: the fix column was clipped). Tables of figures
// (storm's, advise's groups) scroll sideways in their .table-wrap instead: a number is never
// broken; at the report width (TestHTMLInBrowser) no table is clipped.
func TestHTMLTablesFitNarrow(t *testing.T) {
	bin := needBrowser(t)
	b := startBrowser(t, bin)
	dir := t.TempDir()
	for _, tc := range htmlCases {
		if !strings.HasPrefix(tc.name, "check") {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			var page bytes.Buffer
			if err := tc.render(t, &page); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.name+".html")
			if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range b.openAt(t, "file://"+path, 600).layout.Clipped {
				t.Errorf("at 600 px a table is clipped: %s", c)
			}
		})
	}
}

func TestBrowserReportsPageProblems(t *testing.T) {
	bin := needBrowser(t)
	b := startBrowser(t, bin)
	path := filepath.Join(t.TempDir(), "broken.html")
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>broken</title></head><body>
<p class="verdict">x</p><img src="http://127.0.0.1:9/missing.png" alt="">
<script>console.error("boom"); undefinedFunction();</script></body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	res := b.open(t, "file://"+path)
	all := strings.Join(res.problems, "\n")
	for _, want := range []string{"console error: boom", "exception", "request off the page: http://127.0.0.1:9/missing.png"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among the problems reported:\n%s", want, all)
		}
	}
}

// chartPixels counts, inside a chart's box below its legend (the top fifth), the pixels that
// are not the white background and those in colour (a channel spread over 60: a series, not
// the grey of axes, grid and labels).
func chartPixels(img image.Image, c pageBox) (ink, colour int) {
	r := image.Rect(int(c.X)+2, int(c.Y+c.H/5), int(c.X+c.W)-2, int(c.Y+c.H)-2).Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			R, G, B := int(cr>>8), int(cg>>8), int(cb>>8)
			if R < 245 || G < 245 || B < 245 {
				ink++
			}
			if max(R, G, B)-min(R, G, B) > 60 {
				colour++
			}
		}
	}
	return ink, colour
}

// bandPixels is the share of a band's pixels (inset by 2) in its wash — the band's grey
// over white, within a few levels — and the same share in a 6-pixel strip just left of it.
func bandPixels(img image.Image, b pageBox) (inside, left float64) {
	// fill-opacity α of rgb(110,112,121) over white.
	wash := func(c float64) float64 { return 255 - htmlBandOpacity*(255-c) }
	want := [3]float64{wash(110), wash(112), wash(121)}
	share := func(r image.Rectangle) float64 {
		r = r.Intersect(img.Bounds())
		n, hit := 0, 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				n++
				got := [3]float64{float64(cr >> 8), float64(cg >> 8), float64(cb >> 8)}
				if math.Abs(got[0]-want[0]) <= 6 && math.Abs(got[1]-want[1]) <= 6 && math.Abs(got[2]-want[2]) <= 6 {
					hit++
				}
			}
		}
		if n == 0 {
			return 0
		}
		return float64(hit) / float64(n)
	}
	x0, y0, x1, y1 := int(b.X+0.5), int(b.Y+0.5), int(b.X+b.W), int(b.Y+b.H)
	return share(image.Rect(x0+2, y0+2, x1-2, y1-2)), share(image.Rect(x0-8, y0+2, x0-2, y1-2))
}

// pageBox is an element's box in page coordinates (CSS pixels, scale 1).
type pageBox struct {
	ID         string
	X, Y, W, H float64
}

// pageLayout is what the page script reports: the document's height, the first verdict's
// box and each chart's SVG box.
type pageLayout struct {
	Height  float64
	Verdict *pageBox
	Charts  []pageBox
	// Bands are the shaded incident windows (rect.band), each with its chart's ID.
	Bands []pageBox
	// Clipped are the tables wider than their box: their last columns (check's fix) are
	// out of sight until the reader scrolls sideways. Each is named by its headers.
	Clipped []string
}

const layoutScript = `JSON.stringify((() => {
  const box = (e, id) => { const r = e.getBoundingClientRect(); return {ID: id, X: r.x + scrollX, Y: r.y + scrollY, W: r.width, H: r.height}; };
  const v = document.querySelector('.verdict');
  return {
    Height: document.documentElement.scrollHeight,
    Verdict: v ? box(v, 'verdict') : null,
    Charts: [...document.querySelectorAll('figure.chart')].map(f => box(f.querySelector('svg') || f, f.id)),
    Bands: [...document.querySelectorAll('figure.chart rect.band')].map(r => box(r, r.closest('figure').id)),
    Clipped: [...document.querySelectorAll('.table-wrap')].filter(w => w.scrollWidth > w.clientWidth + 1)
      .map(w => [...w.querySelectorAll('thead th')].map(h => h.textContent).join('|') + ': ' + w.scrollWidth + ' px in ' + w.clientWidth),
  };
})())`

// browser is one headless Chromium driven over --remote-debugging-pipe: requests are JSON
// messages ending in a NUL byte on its fd 3, answers and events the same on its fd 4.
type browser struct {
	in      io.Writer
	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpMessage
	events  []cdpMessage
	notify  chan struct{}
	dead    chan struct{}
	stderr  bytes.Buffer
	readErr error
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, theirEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The flags keep a headless Chromium off the network it does not have here: no
	// background fetches, component updates, sync or QUIC.
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
		"--user-data-dir="+t.TempDir(), "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--disable-extensions", "--disable-default-apps", "--hide-scrollbars", "--mute-audio", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, theirEnd} // fd 3: what it reads, fd 4: what it writes
	b := &browser{in: ourEnd, pending: map[int]chan cdpMessage{}, notify: make(chan struct{}, 1), dead: make(chan struct{})}
	cmd.Stderr = &lockedWriter{w: &b.stderr, mu: &b.mu}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	toChrome.Close()
	theirEnd.Close()
	go b.read(fromChrome)
	t.Cleanup(func() {
		_, _ = b.call("", "Browser.close", nil)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		ourEnd.Close()
		fromChrome.Close()
	})
	if _, err := b.call("", "Browser.getVersion", nil); err != nil {
		t.Fatalf("chromium did not answer on its DevTools pipe: %v\n%s", err, b.stderrText())
	}
	return b
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (b *browser) stderrText() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stderr.String()
}

func (b *browser) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	defer close(b.dead)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m
			}
		} else {
			b.events = append(b.events, m)
			select {
			case b.notify <- struct{}{}:
			default:
			}
		}
		b.mu.Unlock()
	}
}

// call sends one command (to a page's session, or to the browser when session is "") and
// waits for its answer.
func (b *browser) call(session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := b.in.Write(append(raw, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-b.dead:
		return nil, fmt.Errorf("%s: chromium went away (%v)", method, b.readErr)
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 30 s", method)
	}
}

// waitEvent waits for an event of a session, returning the events seen so far.
func (b *browser) waitEvent(session, method string, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		b.mu.Lock()
		for _, e := range b.events {
			if e.SessionID == session && e.Method == method {
				b.mu.Unlock()
				return nil
			}
		}
		b.mu.Unlock()
		select {
		case <-b.notify:
		case <-b.dead:
			return errors.New("chromium went away")
		case <-deadline:
			return fmt.Errorf("no %s in %s", method, timeout)
		}
	}
}

// pageResult is what opening one page found.
type pageResult struct {
	problems []string
	layout   pageLayout
	png      []byte
}

// open loads url in a new tab, waits for it to load (and a little more for late console
// messages), collects its problems and layout, and takes a full-page screenshot.
func (b *browser) open(t *testing.T, url string) pageResult {
	t.Helper()
	res := b.openAt(t, url, browserWidth)
	for _, c := range res.layout.Clipped {
		res.problems = append(res.problems, "a table is wider than the page and clipped (issue 26: check's fix column): "+c)
	}
	return res
}

// openAt is open in a window width pixels wide.
func (b *browser) openAt(t *testing.T, url string, width int) pageResult {
	t.Helper()
	must := func(raw json.RawMessage, err error) json.RawMessage {
		t.Helper()
		if err != nil {
			t.Fatalf("%v\n%s", err, b.stderrText())
		}
		return raw
	}
	var target struct{ TargetID string }
	_ = json.Unmarshal(must(b.call("", "Target.createTarget", map[string]any{"url": "about:blank"})), &target)
	var attached struct{ SessionID string }
	_ = json.Unmarshal(must(b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true})), &attached)
	s := attached.SessionID
	defer func() { _, _ = b.call("", "Target.closeTarget", map[string]any{"targetId": target.TargetID}) }()
	for _, domain := range []string{"Page", "Runtime", "Log", "Network"} {
		must(b.call(s, domain+".enable", nil))
	}
	must(b.call(s, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false}))
	var nav struct{ ErrorText string }
	_ = json.Unmarshal(must(b.call(s, "Page.navigate", map[string]any{"url": url})), &nav)
	if nav.ErrorText != "" {
		t.Fatalf("navigate %s: %s", url, nav.ErrorText)
	}
	if err := b.waitEvent(s, "Page.loadEventFired", 30*time.Second); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	var eval struct {
		Result struct{ Value string }
	}
	_ = json.Unmarshal(must(b.call(s, "Runtime.evaluate", map[string]any{"expression": layoutScript, "returnByValue": true})), &eval)
	var res pageResult
	if err := json.Unmarshal([]byte(eval.Result.Value), &res.layout); err != nil {
		t.Fatalf("layout: %v (%q)", err, eval.Result.Value)
	}
	height := min(max(res.layout.Height, 100), 8000)
	var shot struct{ Data string }
	_ = json.Unmarshal(must(b.call(s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})), &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	res.png = png
	time.Sleep(200 * time.Millisecond) // late console messages
	res.problems = b.problems(s, url)
	return res
}

// problems lists what went wrong on a page: console errors, uncaught exceptions, log
// entries at level error, failed loads and any request for something other than the page.
func (b *browser) problems(session, url string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, e := range b.events {
		if e.SessionID != session {
			continue
		}
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string
				Args []struct {
					Value       any
					Description string
				}
			}
			_ = json.Unmarshal(e.Params, &p)
			if p.Type == "error" || p.Type == "assert" {
				var parts []string
				for _, a := range p.Args {
					if a.Value != nil {
						parts = append(parts, fmt.Sprint(a.Value))
					} else {
						parts = append(parts, a.Description)
					}
				}
				out = append(out, "console error: "+strings.Join(parts, " "))
			}
		case "Runtime.exceptionThrown":
			var p struct {
				ExceptionDetails struct {
					Text      string
					Exception struct{ Description string }
				}
			}
			_ = json.Unmarshal(e.Params, &p)
			out = append(out, "exception: "+p.ExceptionDetails.Text+" "+p.ExceptionDetails.Exception.Description)
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Source, Text, URL string }
			}
			_ = json.Unmarshal(e.Params, &p)
			if p.Entry.Level == "error" {
				out = append(out, fmt.Sprintf("log error (%s): %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL))
			}
		case "Network.requestWillBeSent":
			var p struct {
				Request struct{ URL string }
			}
			_ = json.Unmarshal(e.Params, &p)
			if u := p.Request.URL; u != url && !strings.HasPrefix(u, "data:") {
				out = append(out, "request off the page: "+u)
			}
		case "Network.loadingFailed":
			var p struct{ ErrorText, BlockedReason string }
			_ = json.Unmarshal(e.Params, &p)
			out = append(out, "load failed: "+p.ErrorText+" "+p.BlockedReason)
		}
	}
	return out
}

// writeDocScreenshot writes a screenshot for README: the page down to bottom, in at most 256
// colours, so the PNG stays small.
func writeDocScreenshot(path string, img image.Image, bottom int) error {
	r := img.Bounds()
	r.Max.Y = min(r.Max.Y, r.Min.Y+bottom)
	pal := paletteOf(img, r, 256)
	out := image.NewPaletted(image.Rect(0, 0, r.Dx(), r.Dy()), pal)
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, out); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// paletteOf picks n colours of a region: every flat fill first (a colour on at least 1 in
// 500 pixels: the page, a verdict's background, an incident band — kept exact however close
// to another), then the most frequent (ties by value, so it is stable), skipping any close
// to one already picked, so that a rare hue (a legend's series colour, a ✓) still gets its
// own entry.
func paletteOf(img image.Image, r image.Rectangle, n int) color.Palette {
	counts := map[color.RGBA]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			counts[color.RGBA{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8), 255}]++
		}
	}
	cs := make([]color.RGBA, 0, len(counts))
	for c := range counts {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if counts[cs[i]] != counts[cs[j]] {
			return counts[cs[i]] > counts[cs[j]]
		}
		a, b := cs[i], cs[j]
		return uint32(a.R)<<16|uint32(a.G)<<8|uint32(a.B) < uint32(b.R)<<16|uint32(b.G)<<8|uint32(b.B)
	})
	pal := make(color.Palette, 0, n)
	picked := map[color.RGBA]bool{}
	for _, c := range cs {
		if len(pal) < n && counts[c] >= r.Dx()*r.Dy()/500 {
			pal, picked[c] = append(pal, c), true
		}
	}
	for _, c := range cs {
		if len(pal) == n {
			break
		}
		if picked[c] {
			continue
		}
		near := false
		for _, p := range pal {
			q := p.(color.RGBA)
			dr, dg, db := int(c.R)-int(q.R), int(c.G)-int(q.G), int(c.B)-int(q.B)
			if dr*dr+dg*dg+db*db < 3*8*8 {
				near = true
				break
			}
		}
		if !near {
			pal = append(pal, c)
		}
	}
	return pal
}
