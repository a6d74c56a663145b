package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/live"
)

// ServeFormats renders the final counters of `patience serve` (the same document as
// GET /.well-known/patience/stats).
var ServeFormats = Registry[live.Stats]{
	"text": ServeText,
	"json": JSON[live.Stats],
}

// ServeText renders the server's counters, fitted to the width: a verdict line on side
// effects first (the thing Idempotency-Key handling exists for), then the counts by status
// and by fault.
func ServeText(w io.Writer, s live.Stats, opts Options) error {
	st := opts.Styles
	width := textWidth(opts)
	var b strings.Builder
	writeHeadline(&b, st, "serve", []string{textSafe(s.Scenario), units.Millis(s.UptimeMs) + " real",
		units.Millis(s.ScenarioTimeMs) + " scenario time at speed " + units.Sig(s.Speed)}, width)
	effects := fmt.Sprintf("(%s executions of non-idempotent requests)", count64(s.SideEffects))
	if s.DuplicateSideEffects > 0 {
		writeHanging(&b, st.Bad.Render("✗")+" ", 2, count64(s.DuplicateSideEffects)+" duplicate side effects "+effects, width, st.Bad)
	} else {
		writeHanging(&b, st.Good.Render("✓")+" ", 2, "no duplicate side effects "+effects, width, st.Good)
	}
	const keyW = 15 // "  " + 13
	kv := func(k string, items ...string) {
		head := "  " + st.Key.Render(fmt.Sprintf("%-13s", k))
		lines := wrapSeparated(items, " · ", max(width-keyW, 20))
		b.WriteString(head + lines[0] + "\n")
		for _, l := range lines[1:] {
			b.WriteString(strings.Repeat(" ", keyW) + l + "\n")
		}
	}
	kv("requests", st.Value.Render(count64(s.Requests)))
	kv("by status", countList(s.ByStatus, st)...)
	kv("by fault", countList(s.ByFault, st)...)
	kv("idempotency", count64(s.Keys)+" keys, "+count64(s.Replayed)+" responses replayed")
	kv("capacity", count64(s.Overflow)+" overflowed (503), "+count64(s.Wasted)+" served after the client left")
	if ss := s.Streams; ss != nil {
		kv("streams", count64(ss.Started)+" started", count64(ss.Completed)+" completed", count64(ss.Dropped)+" dropped",
			count64(ss.Stalled)+" stalled", count64(ss.Abandoned)+" abandoned", count64(ss.Events)+" events")
		kv("first event", streamQuantiles(ss.FirstEventMs, st)...)
		kv("gap", streamQuantiles(ss.GapMs, st)...)
	}
	if s.Panics > 0 {
		kv("panics", st.Bad.Render(count64(s.Panics)+" recovered (answered 500)"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func count64[T int | int64](n T) string { return units.Count(int(n)) }

// streamQuantiles is "p50 212 ms", "p99 n/a", … "max 1.2 s", "n=300" of one of serve's stream
// histograms: n/a where the record has too few samples for the quantile.
func streamQuantiles(q live.StreamSummary, st Styles) []string {
	if q.Count == 0 {
		return []string{st.Muted.Render("none sent")}
	}
	out := make([]string, 0, 6)
	for _, v := range []struct {
		name string
		ms   *float64
	}{{"p50", q.P50}, {"p90", q.P90}, {"p99", q.P99}, {"p99.9", q.P999}, {"max", q.Max}} {
		text := st.Muted.Render("n/a")
		if v.ms != nil {
			text = st.Value.Render(units.Millis(*v.ms))
		}
		out = append(out, v.name+" "+text)
	}
	return append(out, "n="+count64(q.Count))
}

// countList is "200 ×41", "503 ×7" in key order, or "none".
func countList(m map[string]int64, st Styles) []string {
	if len(m) == 0 {
		return []string{st.Muted.Render("none")}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%s", textSafe(k), st.Value.Render(count64(m[k])))
	}
	return parts
}
