package advise

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
)

// Issue 24 item 4: HAR and OTLP documents are read one entry or span at a time, and a string
// (a response body saved in a HAR) is never held whole. Each test reads a generated document
// through a reader that samples the heap as it goes, and bounds the peak's growth.

// genReader serves head, then body n times (sep between), then tail, holding none of it.
type genReader struct {
	parts []string
	reps  []int
	i, k  int
	off   int
}

func (g *genReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && g.i < len(g.parts) {
		s := g.parts[g.i]
		c := copy(p[n:], s[g.off:])
		n += c
		g.off += c
		if g.off == len(s) {
			g.off = 0
			if g.k++; g.k >= g.reps[g.i] {
				g.i, g.k = g.i+1, 0
			}
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// heapPeak wraps r, sampling the live heap after every MiB read.
type heapPeak struct {
	r          io.Reader
	since, max uint64
}

func (h *heapPeak) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if h.since += uint64(n); h.since >= 1<<20 {
		h.since = 0
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.max = max(h.max, ms.HeapAlloc)
	}
	return n, err
}

func peakOf(t *testing.T, format Format, r io.Reader) (growth uint64, res *Result, err error) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	h := &heapPeak{r: r}
	res, err = Run(context.Background(), Options{Files: []string{"-"}, Stdin: h, Format: format})
	if h.max < base {
		return 0, res, err
	}
	return h.max - base, res, err
}

const otlpGenSpan = `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"GET","kind":3,"startTimeUnixNano":"1714521600000000000","endTimeUnixNano":"1714521600087000000","attributes":[{"key":"http.request.method","value":{"stringValue":"GET"}},{"key":"http.response.status_code","value":{"intValue":"200"}},{"key":"server.address","value":{"stringValue":"api.example.test"}},{"key":"http.route","value":{"stringValue":"/v1/x"}}],"status":{}},` + "\n"

// TestOTLPStreamsSpans: a 20 MB single-document export (one resourceSpans, 50,000 spans)
// is read with the heap growing by less than 16 MiB (the whole-document decode grew it by
// about twice the document: 126 MiB for 60 MB, 1.9 GB RSS for 300 MB). 50,000 spans, not the
// 150,000 it had: the bound still fails a whole-document decode (≈ 42 MiB at the ratio
// measured for 60 MB), and the race detector's JSON decoding took 38 s of CPU for 150,000
// (5 minutes at load 27, past go test's 10-minute package limit with the rest of advise).
func TestOTLPStreamsSpans(t *testing.T) {
	const spans = 50_000
	g := &genReader{
		parts: []string{`{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"gen"},"spans":[` + "\n", otlpGenSpan, strings.TrimSuffix(otlpGenSpan, ",\n") + "\n]}]}]}\n"},
		reps:  []int{1, spans - 1, 1},
	}
	growth, res, err := peakOf(t, FormatOTLP, g)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != spans {
		t.Errorf("read %d requests, want %d", res.Requests, spans)
	}
	if growth > 16<<20 {
		t.Errorf("heap grew by %d MiB reading one OTLP document: want under 16 MiB (one span at a time)", growth>>20)
	}
}

// TestHARBodyNotHeld: a HAR entry saved with a 96 MB response body is read with the heap
// growing by less than 16 MiB (the decoder held the body twice over: 286 MiB here, 1.1 GB RSS
// for 300 MB).
func TestHARBodyNotHeld(t *testing.T) {
	g := &genReader{
		parts: []string{
			`{"log":{"version":"1.2","creator":{"name":"gen","version":"1"},"entries":[` + "\n" +
				`{"startedDateTime":"2024-05-01T00:00:00.000Z","time":100,"request":{"method":"GET","url":"https://api.example.test/v1/big"},"response":{"status":200,"content":{"size":1,"mimeType":"application/octet-stream","encoding":"base64","text":"`,
			strings.Repeat("QUJD", 1<<12),
			`"}},"timings":{"send":1,"wait":50,"receive":5}}` + "\n]}}\n",
		},
		reps: []int{1, 96 << 20 >> 14, 1},
	}
	growth, res, err := peakOf(t, FormatHAR, g)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 1 {
		t.Errorf("read %d requests, want 1", res.Requests)
	}
	if growth > 16<<20 {
		t.Errorf("heap grew by %d MiB reading a HAR entry with a 96 MB body: want under 16 MiB", growth>>20)
	}
}

// TestOTLPOlderScopeName: instrumentationLibrarySpans, the name scopeSpans had before
// opentelemetry-proto v0.15.0 (trace.proto keeps it as deprecated field 1000 of
// ResourceSpans), is read like scopeSpans; a span of the wrong type costs only itself, on its
// own line (the whole document was dropped).
func TestOTLPOlderScopeName(t *testing.T) {
	span := strings.TrimSuffix(otlpGenSpan, ",\n")
	doc := `{"resourceSpans":[{"instrumentationLibrarySpans":[{"spans":[` + "\n" + span + ",\n" + `{"kind":"three"},` + "\n" + span + "\n" + `]}]}]}` + "\n"
	res, err := Run(context.Background(), Options{Files: []string{"-"}, Stdin: strings.NewReader(doc), Format: FormatOTLP})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 2 {
		t.Errorf("read %d requests, want 2", res.Requests)
	}
	if res.Source == nil || res.Source.Malformed != 1 || len(res.Source.MalformedSample) != 1 ||
		!strings.Contains(res.Source.MalformedSample[0], ":3:") || !strings.Contains(res.Source.MalformedSample[0], "spans.kind") {
		t.Errorf("source = %+v, want one malformed span on line 3 naming spans.kind", res.Source)
	}
}

// TestJSONUnitCap: one HAR entry past 16 MiB once its strings are cut (300,000 headers) is
// refused naming its line and the cap, before it is held.
func TestJSONUnitCap(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 20 MB")
	}
	g := &genReader{
		parts: []string{`{"log":{"entries":[` + "\n" + `{"time":1,"timings":{"wait":1}},` + "\n" + `{"request":{"headers":[`,
			`{"name":"x-pad","value":"0123456789abcdef0123456789abcdef"},`, `{}]}}]}}`},
		reps: []int{1, 20 << 20 / 55, 1},
	}
	growth, _, err := peakOf(t, FormatHAR, g)
	if err == nil || !strings.Contains(err.Error(), "(stdin):3: HAR entry larger than 16 MiB") {
		t.Errorf("err = %v, want (stdin):3: HAR entry larger than 16 MiB", err)
	}
	if growth > 48<<20 {
		t.Errorf("heap grew by %d MiB", growth>>20)
	}
}

// FuzzJSONClip: the clip keeps a valid document valid, passes one without a string past the
// cap unchanged, and cuts each string to the cap (strings decoded from the clipped document
// are prefixes of the original's, escapes kept whole).
func FuzzJSONClip(f *testing.F) {
	for _, s := range []string{`{"a":"abcdefgh"}`, `["\u00e9\u00e9\u00e9\u00e9",1,{"k\\\"ey":"v\"v\"v\"v\"v"}]`, `"\\\\\\\\\\\\"`, "{\"x\":\"ab\ncd\"}", `[{"a":[{"b":"ccccccccccccccc"}]}]`} {
		f.Add(s, 4)
	}
	f.Fuzz(func(t *testing.T, doc string, max int) {
		max = 1 + abs(max)%16
		out, err := io.ReadAll(&jsonClip{r: pipeReader{strings.NewReader(doc), 3}, strMax: max})
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid([]byte(doc)) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("clip(%q) = %q: not valid JSON", doc, out)
		}
		var in, got any
		json.Unmarshal([]byte(doc), &in)
		json.Unmarshal(out, &got)
		if !prefixOf(got, in) {
			t.Fatalf("clip(%q) = %q: not the document with its strings cut", doc, out)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// prefixOf says whether got is want with strings (values) shortened; keys may be cut too.
func prefixOf(got, want any) bool {
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		return ok && strings.HasPrefix(strings.ToValidUTF8(w, "\uFFFD"), strings.TrimRight(g, "\uFFFD"))
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !prefixOf(g[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		_, ok := got.(map[string]any)
		return ok // keys cut may merge: the shape is enough
	default:
		return reflectEqual(got, want)
	}
}

func reflectEqual(a, b any) bool { return a == b }
