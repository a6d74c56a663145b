package check

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/profile"
)

// This file holds PT017 (docs/design.md §8, issue 29 item 4): each timeout along a
// dependency's chain that can cut a stream, against what a streaming profile measured. A
// stream is not one response to wait for: it is a first event, then silences between events,
// then an end. An idle or read timeout (nginx proxy_read_timeout, Envoy stream_idle_timeout,
// the client's read_timeout) must outlast the first event and every gap; a total (Envoy's
// route timeout, Istio's, Gateway API timeouts.request, the client's timeout) must outlast
// the whole stream, and bounding a stream by a total shorter than its own idle timeout means
// the idle timeout can never catch a stall.

// streamBound is one timeout of a layer that can cut a stream, where it was set and in the
// format's words.
type streamBound struct {
	// idle: the timeout bounds each silence (the wait for the first event, every gap);
	// else it bounds the whole stream (a total).
	idle bool
	// name is the setting in the format's words ("proxy_read_timeout", "route timeout").
	name string
	d    time.Duration
	// at is the line that set it, or for a default the resource that left it unset; dflt
	// says whose default it is ("nginx default"), "" when the file wrote it.
	at   policy.Pos
	dflt string
	// from says which other resource set it ("set by IngressClassParams p"), "" = this one.
	from string
	// off says how the format disables a total ("timeout: 0s"), for the fix; "" = it cannot.
	off string
	// firstOnly: an idle bound on the wait for the first event alone (the policy's
	// first_event_timeout); gapsOnly: on the gaps alone (its read_timeout beside one).
	firstOnly, gapsOnly bool
}

// text renders the bound as messages name it: "proxy_read_timeout 60 s (nginx default)".
func (b streamBound) text() string {
	s := b.name + " " + units.Duration(b.d)
	if b.dflt != "" {
		s += " (" + b.dflt + ")"
	}
	if b.from != "" {
		s += " (" + b.from + ")"
	}
	return s
}

// streamBound records a timeout of the layer that can cut a stream (d ≤ 0: disabled, none).
func (l *ChainLayer) streamBound(b streamBound) {
	if b.d <= 0 {
		return
	}
	if b.at.Line == 0 {
		b.at = l.pos
	}
	l.checks.stream = append(l.checks.stream, b)
}

// streamFigures are what a streaming profile measured, for PT017: the first events, the gaps,
// the completed streams' totals, the mean events per stream, and the accepted cut-off.
type streamFigures struct {
	first, gap, total *hdrhistogram.Histogram
	events            float64
	cutoff            float64
}

// streamDecode merges the named series of res (absent ones add nothing).
func streamDecode(res *profile.Profile, names ...string) (*hdrhistogram.Histogram, error) {
	out := profile.NewHistogram()
	for _, n := range names {
		enc, ok := res.Histograms[n]
		if !ok {
			continue
		}
		h, err := profile.DecodeHistogram(enc)
		if err != nil {
			return nil, fmt.Errorf("histogram %s: %w", n, err)
		}
		out.Merge(h)
	}
	return out, nil
}

// loadStreams reads d's profile's stream series; nil (the rule skipped, saying why) when d
// has no profile or its profile measured no stream. An unreadable profile is an input error.
func loadStreams(p *pass, d *Dependency) (*streamFigures, error) {
	path := profilePath(p, d)
	if path == "" {
		p.skip("no streaming profile (profile: probe.json, or --profile)")
		return nil, nil
	}
	res, err := p.opts.LoadProfile(path)
	if err != nil {
		return nil, profileError(p, d, err)
	}
	f := &streamFigures{cutoff: d.Cutoff}
	if f.cutoff <= 0 {
		f.cutoff = DefaultCutoff
	}
	series := []struct {
		to    **hdrhistogram.Histogram
		names []string
	}{
		{&f.first, []string{profile.SeriesFirstEventFresh, profile.SeriesFirstEventReused}},
		{&f.gap, []string{profile.SeriesGapFresh, profile.SeriesGapReused}},
		{&f.total, []string{profile.SeriesStreamTotal}},
	}
	for _, s := range series {
		if *s.to, err = streamDecode(res, s.names...); err != nil {
			return nil, profileError(p, d, err)
		}
	}
	if f.first.TotalCount() == 0 {
		p.skip("the profile measured no stream (no first_event series: not a streaming response, or a profile saved before streams were measured)")
		return nil, nil
	}
	ev, err := streamDecode(res, profile.SeriesStreamEvents)
	if err != nil {
		return nil, profileError(p, d, err)
	}
	f.events = ev.Mean()
	return f, nil
}

// gapCutoff is the share of gaps an idle timeout may exceed so that no more than the
// cut-off of streams is cut: a stream of N̄ gaps is cut when any one of them exceeds it, so
// the gap's quantile is 1 − cutoff/N̄ (N̄ the mean events per stream, at least 1).
func (f *streamFigures) gapCutoff() float64 {
	return f.cutoff / math.Max(f.events, 1)
}

// quantileText is "p99.9 = 92 s over 10,000 samples", or "p99.9 n/a with 40 samples, max
// 412 ms" when fewer than 1/(1−q) samples back it (the largest seen is then the figure).
func quantileText(h *hdrhistogram.Histogram, share float64) string {
	q := fmtNum(100 * (1 - share))
	n := h.TotalCount()
	if float64(n) < 1/share {
		return fmt.Sprintf("p%s n/a with %s samples, max %s", q, units.Count(int(n)), units.Duration(time.Duration(h.Max())*time.Microsecond))
	}
	return fmt.Sprintf("p%s = %s over %s samples", q, units.Duration(quantileAt(h, share)), units.Count(int(n)))
}

// quantileAt is h's value above which share of its samples lie.
func quantileAt(h *hdrhistogram.Histogram, share float64) time.Duration {
	return time.Duration(h.ValueAtQuantile(100*(1-share))) * time.Microsecond
}

// streamCut is one way a bound cuts streams: the sentence after "is below", and the value
// the bound must exceed (for the fix).
type streamCut struct {
	why  string
	need time.Duration
}

// idleCuts are the ways an idle timeout cuts streams: below the first event's cut-off, or
// below the gaps' per-stream cut-off.
func (f *streamFigures) idleCuts(b streamBound) []streamCut {
	var out []streamCut
	if s := ShareAbove(f.first, b.d); !b.gapsOnly && s > f.cutoff {
		out = append(out, streamCut{
			why:  fmt.Sprintf("the stream's first event %s (%s of streams wait longer for it; cutoff %s): a slow first event is cut", quantileText(f.first, f.cutoff), fmtPct(s), fmtPct(f.cutoff)),
			need: quantileAt(f.first, f.cutoff),
		})
	}
	g := f.gapCutoff()
	if s := ShareAbove(f.gap, b.d); !b.firstOnly && f.gap.TotalCount() > 0 && s > g {
		cut := 1 - math.Pow(1-s, math.Max(f.events, 1))
		out = append(out, streamCut{
			why:  fmt.Sprintf("the gap between events %s (with %s events per stream on average a stream is cut when any of its gaps exceeds the idle timeout, so the gap's quantile is 1 − cutoff/%s: about %s of streams cut, cutoff %s): a stream still sending is cut mid-way", quantileText(f.gap, g), fmtNum(f.events), fmtNum(f.events), fmtPct(cut), fmtPct(f.cutoff)),
			need: quantileAt(f.gap, g),
		})
	}
	return out
}

// totalCuts are the ways a total cuts streams: below the completed streams' total cut-off,
// or below the layer's own idle timeout (own, nil for the client's policy: PT015 says that).
func (f *streamFigures) totalCuts(b streamBound, own []streamBound) []streamCut {
	var out []streamCut
	if s := ShareAbove(f.total, b.d); f.total.TotalCount() > 0 && s > f.cutoff {
		out = append(out, streamCut{
			why:  fmt.Sprintf("the stream's total %s (%s of completed streams last longer; cutoff %s): a long stream is cut however healthy", quantileText(f.total, f.cutoff), fmtPct(s), fmtPct(f.cutoff)),
			need: quantileAt(f.total, f.cutoff),
		})
	}
	for _, o := range own {
		if o.idle && o.d > b.d {
			out = append(out, streamCut{
				why:  fmt.Sprintf("this layer's own idle timeout %s: that idle timeout can never fire, so the total alone decides how long a stream may run, a long healthy one included", o.text()),
				need: o.d,
			})
			break
		}
	}
	return out
}

// streamFix is the fix for a bound: above the largest value it must exceed (× 1.2, whole
// seconds), or for a total that can be disabled, off with the idle timeout catching stalls.
func streamFix(b streamBound, cuts []streamCut, label string) string {
	var need time.Duration
	for _, c := range cuts {
		need = max(need, c.need)
	}
	to := (need * 6 / 5).Round(time.Second)
	if to <= need {
		to = need.Truncate(time.Second) + time.Second
	}
	fix := fmt.Sprintf("raise %s on %s to %s or more", b.name, label, units.Duration(to))
	if !b.idle && b.off != "" {
		fix += fmt.Sprintf(", or disable it (%s) and let an idle timeout above the gaps catch a stall", b.off)
	}
	return fix
}

// streamReport reports every bound of one layer that cuts streams.
func streamReport(p *pass, f *streamFigures, label string, bounds []streamBound, own []streamBound, fixOf func(streamBound, []streamCut) string) {
	for _, b := range bounds {
		cuts := f.totalCuts(b, own)
		if b.idle {
			cuts = f.idleCuts(b)
		}
		if len(cuts) == 0 {
			continue
		}
		whys := make([]string, len(cuts))
		for i, c := range cuts {
			whys[i] = c.why
		}
		fix := fixOf(b, cuts)
		if fix == "" {
			fix = streamFix(b, cuts, label)
		}
		p.reportFix(b.at, fix, "%s: %s is below %s", label, b.text(), strings.Join(whys, "; and below "))
	}
}

// policyStreamBounds are the client's own timeouts that can cut a stream: read_timeout
// bounds each silence — each gap alone when first_event_timeout bounds the first event —
// and timeout the whole attempt.
func policyStreamBounds(d *Dependency) []streamBound {
	var out []streamBound
	first := d.Policy.FirstEventTimeout
	if first > 0 {
		out = append(out, streamBound{idle: true, firstOnly: true, name: "first_event_timeout", d: first, at: d.at("first_event_timeout")})
	}
	if t := d.Policy.ReadTimeout; t > 0 {
		out = append(out, streamBound{idle: true, gapsOnly: first > 0, name: "read_timeout", d: t, at: d.at("read_timeout")})
	}
	if t := d.Policy.Timeout; t > 0 {
		out = append(out, streamBound{name: "timeout", d: t, at: d.at("timeout")})
	}
	return out
}

// policyStreamFix is the fix for the client's own bound, in patience.yaml's words (a value
// pasted as written).
func policyStreamFix(b streamBound, cuts []streamCut) string {
	var need time.Duration
	for _, c := range cuts {
		need = max(need, c.need)
	}
	to := (need * 6 / 5).Round(time.Second)
	if to <= need {
		to = need.Truncate(time.Second) + time.Second
	}
	return fmt.Sprintf("set policy.%s: %s (the profile's figure × 1.2), or set cutoff: to the share you accept", b.name, to)
}

// streamCutByPolicy is PT017 on the client's own timeouts against its streaming profile,
// with or without via: (as PT010 and PT016 check the policy whatever its chain); the chain's
// check covers the other layers.
func streamCutByPolicy(p *pass, d *Dependency) error {
	f, err := loadStreams(p, d)
	if f == nil || err != nil {
		return err
	}
	streamReport(p, f, "policy "+d.Name, policyStreamBounds(d), nil, policyStreamFix)
	return nil
}

// streamCutAlongChain is PT017 on the config layers of a dependency's chain: every layer's
// bounds against the dependency's streaming profile, each at the line that set it (the
// policy is streamCutByPolicy's; a job's queue bounds a run, not the stream). A chain no via:
// took has no dependency, so no profile, and is skipped, saying so.
func streamCutAlongChain(p *pass, ch *Chain) error {
	if ch.dep == nil {
		p.skip("a config read without a dependency's via: has no streaming profile to check against")
		return nil
	}
	if !slices.ContainsFunc(ch.Layers, func(l ChainLayer) bool { return configLayer(&l) }) {
		return nil
	}
	f, err := loadStreams(p, ch.dep)
	if f == nil || err != nil {
		return err
	}
	noFix := func(streamBound, []streamCut) string { return "" }
	for i := range ch.Layers {
		if l := &ch.Layers[i]; configLayer(l) {
			streamReport(p, f, l.label(), l.checks.stream, l.checks.stream, noFix)
		}
	}
	return nil
}
