package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/live"
)

// ServeFormats renders the final counters of `patience serve` (the same document as
// GET /.well-known/patience/stats).
var ServeFormats = Registry[live.Stats]{
	"text": ServeText,
	"json": JSON[live.Stats],
}

// ServeText renders the server's counters: a verdict line on side effects first (the thing
// Idempotency-Key handling exists for), then the counts by status and by fault.
func ServeText(w io.Writer, s live.Stats, opts Options) error {
	st := opts.Styles
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", st.Title.Render("serve"), st.Muted.Render(fmt.Sprintf("%s · %.1fs real · %.1fs scenario time at speed %g",
		s.Scenario, s.UptimeMs/1000, s.ScenarioTimeMs/1000, s.Speed)))
	switch {
	case s.DuplicateSideEffects > 0:
		fmt.Fprintf(&b, "%s\n", st.Bad.Render(fmt.Sprintf("✗ %d duplicate side effects (%d executions of non-idempotent requests)", s.DuplicateSideEffects, s.SideEffects)))
	default:
		fmt.Fprintf(&b, "%s\n", st.Good.Render(fmt.Sprintf("✓ no duplicate side effects (%d executions of non-idempotent requests)", s.SideEffects)))
	}
	kv := func(k, v string) { fmt.Fprintf(&b, "  %s %s\n", st.Key.Render(fmt.Sprintf("%-13s", k)), v) }
	kv("requests", st.Value.Render(strconv.FormatInt(s.Requests, 10)))
	kv("by status", countList(s.ByStatus, st))
	kv("by fault", countList(s.ByFault, st))
	kv("idempotency", fmt.Sprintf("%d keys, %d responses replayed", s.Keys, s.Replayed))
	kv("capacity", fmt.Sprintf("%d overflowed (503), %d served after the client left", s.Overflow, s.Wasted))
	if s.Panics > 0 {
		kv("panics", st.Bad.Render(strconv.FormatInt(s.Panics, 10)+" recovered (answered 500)"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// countList writes "200 ×41 · 503 ×7" in key order, or "none".
func countList(m map[string]int64, st Styles) string {
	if len(m) == 0 {
		return st.Muted.Render("none")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%s", k, st.Value.Render(strconv.FormatInt(m[k], 10)))
	}
	return strings.Join(parts, " · ")
}
