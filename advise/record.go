package advise

import (
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/verdict"
)

// unknown marks a phase a record does not carry.
const unknown time.Duration = -1

// silenceBound bounds a response's longest silence (profile.Phases.Silence) from a source
// that times the wait for the response head after the request was sent (wait) and the
// transfer of the rest (receive): no pause of the body outlasts its whole transfer, so the
// longest silence is at most the longer of the two — exactly that when the body came in
// one piece. The bound never undercounts a silence, so a read timeout derived from it cuts
// off no more than the cut-off allows (it may cut off less). unknown when either is.
func silenceBound(wait, receive time.Duration) time.Duration {
	if wait < 0 || receive < 0 {
		return unknown
	}
	return max(wait, receive)
}

// Record is one request (or, for a proxy that retried, one upstream attempt) read from a
// source. Durations are unknown (-1) when the source does not have them.
type Record struct {
	Time   time.Time
	Method string
	Host   string
	Path   string
	// Model is the GenAI model asked for (gen_ai.request.model), for --by model; "" elsewhere.
	Model string
	// Status is the HTTP status; 0 when no response came back (Err says why).
	Status int
	// Err is a probe error class (profile.ErrorClasses) for a request without a response.
	Err    string
	ErrMsg string
	// Total is the latency the timeout applies to: per attempt where the source shows
	// attempts.
	Total, DNS, Connect, TLS, TTFB time.Duration
	// Silence is the longest silence of the response (profile.Phases.Silence) where the
	// source's fields bound it: the wait for the first byte after the request was sent, or
	// a bound on it and on every pause of the body (silenceBound); unknown elsewhere.
	Silence time.Duration
	// Reused: 0 unknown, 1 fresh connection, 2 reused (HAR connect -1, curl num_connects 0,
	// k6 connecting 0).
	Reused int8
	// Attempts is, on a request's first record, how many attempts it took (0: not shown).
	Attempts int
}

func newRecord() Record {
	return Record{Total: unknown, DNS: unknown, Connect: unknown, TLS: unknown, TTFB: unknown, Silence: unknown}
}

// Histogram geometry: the profile's (1 µs to 1 h at 3 significant digits,
// profile.HistogramLowest to HistogramHighest) for the overall result; groups and windows use
// 2 significant digits (1%), a tenth of the memory, since their figures are rounded on the
// advice ladder anyway.
const (
	histLowest  = profile.HistogramLowest
	histHighest = profile.HistogramHighest
)

func newHist(sig int) *hdrhistogram.Histogram { return hdrhistogram.New(histLowest, histHighest, sig) }

// record adds d (in µs, clamped to the histogram's range) to *h, made on first use.
func record(h **hist, sig int, d time.Duration) {
	if *h == nil {
		*h = newHistogram(sig)
	}
	v := d.Microseconds()
	v = min(max(v, histLowest), histHighest)
	(*h).recordN(v, 1)
}

// statusCount is one status code's count; a series keeps a few in a slice (a map lookup per
// line costs more than scanning the handful of statuses a log has).
type statusCount struct {
	code int
	n    int64
}

// series are one set of counters and histograms: the whole input, or one group.
type series struct {
	sig                            int
	dns, connect, tls, ttfb, total [2]*hist // [fresh-or-unknown, reused]
	silence                        [2]*hist
	good, silenceGood              *hist
	// firstEvent and gap are a stream's phases (profile.SeriesFirstEvent*, SeriesGap*), from
	// sources that measure them per stream (GenAI metrics, genai.go); streams counts the
	// streams behind firstEvent.
	firstEvent, gap *hist
	streams         int64
	status          []statusCount
	errs            map[string]int64
	errMsg          map[string]string
	requests        int64
	reusedKnown     bool
	noAnswerMax     time.Duration
}

func newSeries(sig int) *series {
	return &series{sig: sig, errs: map[string]int64{}, errMsg: map[string]string{}}
}

// numHists is how many histogram slots a series has.
const numHists = 16

// hists lists the series' histogram slots.
func (s *series) hists() [numHists]**hist {
	return [numHists]**hist{&s.dns[0], &s.dns[1], &s.connect[0], &s.connect[1], &s.tls[0], &s.tls[1],
		&s.ttfb[0], &s.ttfb[1], &s.total[0], &s.total[1], &s.good,
		&s.silence[0], &s.silence[1], &s.silenceGood, &s.firstEvent, &s.gap}
}

// reset empties s for reuse, keeping its histograms' memory.
func (s *series) reset() {
	for _, h := range s.hists() {
		if *h != nil {
			(*h).reset()
		}
	}
	s.status = s.status[:0]
	clear(s.errs)
	clear(s.errMsg)
	s.requests, s.reusedKnown, s.noAnswerMax, s.streams = 0, false, 0, 0
}

func (s *series) addStatus(code int, n int64) {
	for i := range s.status {
		if s.status[i].code == code {
			s.status[i].n += n
			return
		}
	}
	s.status = append(s.status, statusCount{code, n})
}

func (s *series) add(r *Record) {
	s.requests++
	i := 0
	if r.Reused == 2 {
		i = 1
	}
	if r.Reused != 0 {
		s.reusedKnown = true
	}
	if r.DNS >= 0 {
		record(&s.dns[0], s.sig, r.DNS)
	}
	if r.Connect >= 0 {
		record(&s.connect[0], s.sig, r.Connect)
	}
	if r.TLS >= 0 {
		record(&s.tls[0], s.sig, r.TLS)
	}
	if r.Status == 0 {
		c := r.Err
		if c == "" {
			c = "other"
		}
		s.errs[c]++
		if _, ok := s.errMsg[c]; !ok && r.ErrMsg != "" {
			s.errMsg[c] = r.ErrMsg
		}
		if c == "timeout" && r.Total > s.noAnswerMax {
			s.noAnswerMax = r.Total
		}
		return
	}
	s.addStatus(r.Status, 1)
	if r.TTFB >= 0 {
		record(&s.ttfb[i], s.sig, r.TTFB)
	}
	if r.Silence >= 0 {
		record(&s.silence[i], s.sig, r.Silence)
		if profile.GoodStatus(r.Status) {
			record(&s.silenceGood, s.sig, r.Silence)
		}
	}
	if r.Total >= 0 {
		record(&s.total[i], s.sig, r.Total)
		if profile.GoodStatus(r.Status) {
			record(&s.good, s.sig, r.Total)
		}
	}
}

// mergeHist adds src to *dst (made on first use); src is left as it was.
func mergeHist(dst **hist, src *hist, sig int) {
	if src == nil {
		return
	}
	if *dst == nil {
		*dst = newHistogram(sig)
	}
	(*dst).merge(src)
}

func (s *series) merge(o *series) {
	for i := range 2 {
		mergeHist(&s.dns[i], o.dns[i], s.sig)
		mergeHist(&s.connect[i], o.connect[i], s.sig)
		mergeHist(&s.tls[i], o.tls[i], s.sig)
		mergeHist(&s.ttfb[i], o.ttfb[i], s.sig)
		mergeHist(&s.total[i], o.total[i], s.sig)
		mergeHist(&s.silence[i], o.silence[i], s.sig)
	}
	mergeHist(&s.good, o.good, s.sig)
	mergeHist(&s.silenceGood, o.silenceGood, s.sig)
	mergeHist(&s.firstEvent, o.firstEvent, s.sig)
	mergeHist(&s.gap, o.gap, s.sig)
	s.streams += o.streams
	for _, st := range o.status {
		s.addStatus(st.code, st.n)
	}
	for k, v := range o.errs {
		s.errs[k] += v
	}
	for k, v := range o.errMsg {
		if _, ok := s.errMsg[k]; !ok {
			s.errMsg[k] = v
		}
	}
	s.requests += o.requests
	s.reusedKnown = s.reusedKnown || o.reusedKnown
	s.noAnswerMax = max(s.noAnswerMax, o.noAnswerMax)
}

// meta is what describes a result besides its series.
type meta struct {
	target     profile.Target
	durationMs float64
	maxTimeout time.Duration
	source     profile.Source
}

// toResult builds the probe result of s with a profile.Builder, so the summaries, the
// recommendation, the cut-off curve and the encoded histograms are the probe's own code.
func (s *series) toResult(m meta, p profile.RecommendParams) (*profile.Profile, error) {
	// Sources that cannot tell fresh from reused connections put everything in reused (the
	// report then shows the blended row only).
	hists := map[string]*hdrhistogram.Histogram{}
	for name, h := range map[string]*hist{
		profile.SeriesDNS: s.dns[0], profile.SeriesConnect: s.connect[0], profile.SeriesTLS: s.tls[0],
		profile.SeriesTTFBFresh: s.ttfb[0], profile.SeriesTTFBReused: s.ttfb[1],
		profile.SeriesTotalFresh: s.total[0], profile.SeriesTotalReused: s.total[1],
		profile.SeriesGood:         s.good,
		profile.SeriesSilenceFresh: s.silence[0], profile.SeriesSilenceReused: s.silence[1],
		profile.SeriesSilenceGood: s.silenceGood,
		// Sources of stream phases cannot tell fresh from reused connections either.
		profile.SeriesFirstEventReused: s.firstEvent, profile.SeriesGapReused: s.gap,
	} {
		if h != nil && h.total > 0 {
			hists[name] = h.toHDR()
		}
	}
	status := map[string]int64{}
	var responses int64
	for _, st := range s.status {
		status[strconv.Itoa(st.code)] += st.n
		responses += st.n
	}
	samples := map[string]profile.ErrorSample{}
	for k, v := range s.errMsg {
		samples[k] = profile.ErrorSample{Message: v}
	}
	maxTimeout := m.maxTimeout
	if s.errs["timeout"] > 0 && maxTimeout <= 0 {
		maxTimeout = s.noAnswerMax
	}
	if maxTimeout <= 0 {
		maxTimeout = profile.DefaultMaxTimeout
	}
	src := m.source
	head := profile.Profile{
		Target: m.target, Model: "log", Conn: "unknown", DurationMs: m.durationMs,
		Schedule: profile.Schedule{RateHeld: true}, Source: &src,
	}
	if s.reusedKnown {
		head.Conn = "both"
	}
	if m.durationMs > 0 {
		head.Schedule.AchievedPerS = float64(s.requests) / (m.durationMs / 1000)
	}
	p.MaxTimeout = maxTimeout
	b := profile.NewBuilder(head, p)
	b.Add(profile.Part{Series: hists, Status: status, Errors: s.errs, ErrorSamples: samples, Requests: s.requests, Responses: responses,
		Streams: profile.StreamCounts{Count: s.streams}})
	out, err := b.Close()
	if err != nil {
		return nil, err
	}
	if s.streams > 0 {
		// Stream phases from metrics (GenAI, genai.go) count first tokens, not how each
		// stream ended: no streams summary (completed, cut) that would read as zeros.
		out.Streams = nil
	}
	if !s.reusedKnown {
		// Fresh and reused are not known: the phases are blended.
		for _, ph := range []*profile.Summary{out.Phases.TTFB, out.Phases.Silence, out.Phases.FirstEvent, out.Phases.Gap, out.Phases.Total, out.Phases.Sent} {
			if ph != nil {
				ph.Fresh, ph.Reused = nil, nil
			}
		}
	}
	return out, nil
}

// lineErr is one malformed line.
type lineErr struct {
	file string
	line int64
	why  string
}

func (e lineErr) String() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.why) }

// maxMalformedSample is how many malformed lines are kept to show.
const maxMalformedSample = 5

// spilledRecord is a record of a chunk that found its chunk's groups full.
type spilledRecord struct {
	key string
	r   Record
}

// maxGroups bounds the groups one accumulator tracks; later keys go to "(other)".
const maxGroups = 500

// accum gathers everything one chunk (or one stream, or the whole input) read.
type accum struct {
	all      *series
	groups   map[string]*series
	windows  map[int64]*windowAcc
	attempts map[int]int64 // beyond the few in attemptsN
	// attemptsN counts requests by attempts below len(attemptsN): no map update per line.
	attemptsN [16]int64
	// attemptsNoAnswer counts attempts before a request's last that the proxy's own timeout
	// ended (Attempts.Unanswered), the longest of them in attemptsNoAnswerMax.
	attemptsNoAnswer    int64
	attemptsNoAnswerMax time.Duration
	lines               int64
	malformed           int64
	// noStatus counts the requests whose source carries no status at all (an HdrHistogram
	// log, a span with neither status code nor error tag): counted as answered, so the
	// error rate over them is unknown, not zero.
	noStatus int64
	bad      []lineErr
	first    time.Time
	last     time.Time
	hosts    map[string]bool
	methods  map[string]bool
	unit     time.Duration
	// notes are the parsers' remarks about the source (deduplicated, in order).
	notes []string
	// buckets is set by bucketed sources (Prometheus).
	buckets *Buckets
	// spill: this accumulates one chunk of a parallel read; a record whose group is new once
	// maxGroups are tracked is kept in spilled (not folded into "(other)"), so the ordered
	// merge (mergeCapped) can give it to its group if the groups read before it have one.
	spill   bool
	spilled []spilledRecord
	// maxTimeout is the bound unanswered requests were censored at, when the source says
	// (a saved profile's --max-timeout).
	maxTimeout time.Duration

	// Per-line shortcuts: the last host and method seen (already in their sets, or the set
	// was full), the last window, the group key being built, and the series and windows of
	// a reset accumulator, kept for reuse.
	lastHost, lastMethod string
	lastWin              *windowAcc
	lastWinKey           int64
	keyBuf               []byte
	freeSeries           []*series
	freeWindows          []*windowAcc
}

type windowAcc struct {
	good   *hist
	count  int64
	failed int64
}

func newAccum() *accum {
	return &accum{all: newSeries(3), groups: map[string]*series{}, windows: map[int64]*windowAcc{},
		attempts: map[int]int64{}, hosts: map[string]bool{}, methods: map[string]bool{}}
}

// reset empties a for the next chunk, keeping its series, windows and histograms for reuse.
func (a *accum) reset() {
	a.all.reset()
	for _, g := range a.groups {
		g.reset()
		a.freeSeries = append(a.freeSeries, g)
	}
	clear(a.groups)
	for _, w := range a.windows {
		if w.good != nil {
			w.good.reset()
		}
		w.count, w.failed = 0, 0
		a.freeWindows = append(a.freeWindows, w)
	}
	clear(a.windows)
	clear(a.attempts)
	a.attemptsN = [16]int64{}
	a.attemptsNoAnswer, a.attemptsNoAnswerMax = 0, 0
	a.lines, a.malformed, a.noStatus = 0, 0, 0
	a.bad = a.bad[:0]
	a.first, a.last = time.Time{}, time.Time{}
	clear(a.hosts)
	clear(a.methods)
	a.notes = a.notes[:0]
	a.buckets = nil
	clear(a.spilled)
	a.spilled = a.spilled[:0]
	a.maxTimeout = 0
	a.lastHost, a.lastMethod, a.lastWin = "", "", nil
}

// newGroup is an empty series for a group: a reused one when a has one.
func (a *accum) newGroup() *series {
	if n := len(a.freeSeries); n > 0 {
		g := a.freeSeries[n-1]
		a.freeSeries = a.freeSeries[:n-1]
		return g
	}
	return newSeries(2)
}

func (a *accum) newWindow() *windowAcc {
	if n := len(a.freeWindows); n > 0 {
		w := a.freeWindows[n-1]
		a.freeWindows = a.freeWindows[:n-1]
		return w
	}
	return &windowAcc{}
}

func (a *accum) note(s string) {
	for _, n := range a.notes {
		if n == s {
			return
		}
	}
	a.notes = append(a.notes, s)
}

// attemptUnanswered counts an attempt before a request's last that got no answer within the
// proxy's timeout, after d.
func (a *accum) attemptUnanswered(d time.Duration) {
	a.attemptsNoAnswer++
	a.attemptsNoAnswerMax = max(a.attemptsNoAnswerMax, d)
}

func (a *accum) malformedLine(file string, line int64, why string) {
	a.malformed++
	a.bad = append(a.bad, lineErr{file, line, clipReason(why)})
	if len(a.bad) > maxMalformedSample*4 {
		a.trimBad()
	}
}

func (a *accum) trimBad() {
	sort.Slice(a.bad, func(i, j int) bool {
		if a.bad[i].file != a.bad[j].file {
			return a.bad[i].file < a.bad[j].file
		}
		return a.bad[i].line < a.bad[j].line
	})
	if len(a.bad) > maxMalformedSample {
		a.bad = a.bad[:maxMalformedSample]
	}
}

// add records r (already filtered) into the totals, its group and its window.
func (a *accum) add(r *Record, by By, window time.Duration) {
	a.all.add(r)
	a.countAttempts(r.Attempts)
	a.noteTarget(r)
	if by != ByNone {
		a.addToGroup(r, by)
	}
	if !r.Time.IsZero() {
		a.addToWindow(r, window)
	}
}

// countAttempts counts a request's attempts (noAttempts: none made, 0: not known).
func (a *accum) countAttempts(n int) {
	switch {
	case n == noAttempts:
		a.attemptsN[0]++
	case n > 0 && n < len(a.attemptsN):
		a.attemptsN[n]++
	case n > 0:
		a.attempts[n]++
	}
}

// noteTarget keeps r's host and method in their sets. The sets keep their first three; a
// value equal to the last one seen is in its set already, or the set was full then (and
// still is).
func (a *accum) noteTarget(r *Record) {
	if r.Host != "" && r.Host != a.lastHost {
		if len(a.hosts) < 3 {
			a.hosts[r.Host] = true
		}
		a.lastHost = r.Host
	}
	if r.Method != "" && r.Method != a.lastMethod {
		if len(a.methods) < 3 {
			a.methods[r.Method] = true
		}
		a.lastMethod = r.Method
	}
}

// newGroupFor is the group a key not seen yet (in a.keyBuf) joins: its own while fewer than
// maxGroups exist, else "(other)".
func (a *accum) newGroupFor() *series {
	key := "(other)"
	if len(a.groups) < maxGroups {
		key = string(a.keyBuf)
	}
	g := a.groups[key]
	if g == nil {
		g = a.newGroup()
		a.groups[key] = g
	}
	return g
}

// groupFor is r's --by group, made (or "(other)" past maxGroups) when new: bucketed
// records, which are never spilled, are counted in it.
func (a *accum) groupFor(r *Record, by By) *series {
	a.keyBuf = appendGroupKey(a.keyBuf[:0], r, by)
	if g, ok := a.groups[string(a.keyBuf)]; ok {
		return g
	}
	return a.newGroupFor()
}

// addToGroup records r in its --by group: a new group past maxGroups is spilled (a chunk's
// accumulator, for the ordered merge to decide) or folds into "(other)".
func (a *accum) addToGroup(r *Record, by By) {
	a.keyBuf = appendGroupKey(a.keyBuf[:0], r, by)
	g, ok := a.groups[string(a.keyBuf)]
	if !ok && a.spill && len(a.groups) >= maxGroups {
		a.spilled = append(a.spilled, spilledRecord{string(a.keyBuf), *r})
		return
	}
	if !ok {
		g = a.newGroupFor()
	}
	if g != nil {
		g.add(r)
	}
}

// addToWindow records r (which has a time) in the time span and in its window; past
// maxWindows a new window is not kept.
func (a *accum) addToWindow(r *Record, window time.Duration) {
	if a.first.IsZero() || r.Time.Before(a.first) {
		a.first = r.Time
	}
	if r.Time.After(a.last) {
		a.last = r.Time
	}
	k := r.Time.UnixNano() / int64(window)
	w := a.lastWin
	if w == nil || k != a.lastWinKey {
		var ok bool
		if w, ok = a.windows[k]; !ok {
			if len(a.windows) >= maxWindows {
				return
			}
			w = a.newWindow()
			a.windows[k] = w
		}
		a.lastWin, a.lastWinKey = w, k
	}
	w.count++
	if r.Status == 0 || !profile.GoodStatus(r.Status) {
		w.failed++
	} else if r.Total >= 0 {
		record(&w.good, 2, r.Total)
	}
}

// maxWindows bounds the windows tracked (about three months of hours).
const maxWindows = 2400

// mergeCapped merges o into a, folding o's groups beyond maxGroups into "(other)": merged in
// input order, the same input always keeps the same groups.
func (a *accum) mergeCapped(o *accum) {
	for k, g := range o.groups {
		if _, ok := a.groups[k]; ok || k == "(other)" || len(a.groups) < maxGroups {
			continue
		}
		delete(o.groups, k)
		if other, ok := o.groups["(other)"]; ok {
			other.merge(g)
			g.reset()
			o.freeSeries = append(o.freeSeries, g)
		} else {
			o.groups["(other)"] = g
		}
	}
	a.merge(o)
	for i := range o.spilled {
		sr := &o.spilled[i]
		g := a.groups[sr.key]
		if g == nil {
			key := sr.key
			if len(a.groups) >= maxGroups {
				key = "(other)"
			}
			if g = a.groups[key]; g == nil {
				g = newSeries(2)
				a.groups[key] = g
			}
		}
		g.add(&sr.r)
	}
}

// merge adds o into a; o keeps everything it had (a copies, so o can be reset and reused).
func (a *accum) merge(o *accum) {
	a.all.merge(o.all)
	for k, g := range o.groups {
		cur, ok := a.groups[k]
		if !ok {
			cur = newSeries(g.sig)
			a.groups[k] = cur
		}
		cur.merge(g)
	}
	for k, w := range o.windows {
		cur, ok := a.windows[k]
		if !ok {
			cur = &windowAcc{}
			a.windows[k] = cur
		}
		cur.count += w.count
		cur.failed += w.failed
		mergeHist(&cur.good, w.good, 2)
	}
	for k, v := range o.attempts {
		a.attempts[k] += v
	}
	for k, v := range o.attemptsN {
		a.attemptsN[k] += v
	}
	a.attemptsNoAnswer += o.attemptsNoAnswer
	a.attemptsNoAnswerMax = max(a.attemptsNoAnswerMax, o.attemptsNoAnswerMax)
	a.lines += o.lines
	a.malformed += o.malformed
	a.noStatus += o.noStatus
	a.bad = append(a.bad, o.bad...)
	a.trimBad()
	if !o.first.IsZero() && (a.first.IsZero() || o.first.Before(a.first)) {
		a.first = o.first
	}
	if o.last.After(a.last) {
		a.last = o.last
	}
	for h := range o.hosts {
		a.hosts[h] = true
	}
	for m := range o.methods {
		a.methods[m] = true
	}
	for _, n := range o.notes {
		a.note(n)
	}
	if a.unit == 0 {
		a.unit = o.unit
	}
	if a.buckets == nil {
		a.buckets = o.buckets
	}
	a.maxTimeout = max(a.maxTimeout, o.maxTimeout)
	// The shortcuts describe a's own sets: o's values may have changed them.
	a.lastHost, a.lastMethod, a.lastWin = "", "", nil
}

// appendGroupKey appends r's group under by (nothing for none) to dst.
func appendGroupKey(dst []byte, r *Record, by By) []byte {
	switch by {
	case ByRoute:
		m := r.Method
		if m == "" {
			m = "?"
		}
		dst = append(dst, m...)
		dst = append(dst, ' ')
		return appendRoute(dst, r.Path)
	case ByModel:
		if r.Model == "" {
			return append(dst, "(no model)"...)
		}
		return append(dst, r.Model...)
	case ByHost:
		if r.Host == "" {
			return append(dst, "(no host)"...)
		}
		return append(dst, r.Host...)
	case ByStatus:
		if r.Status == 0 {
			if r.Err != "" {
				return append(dst, r.Err...)
			}
			return append(dst, "error"...)
		}
		dst = strconv.AppendInt(dst, int64(r.Status/100), 10)
		return append(dst, "xx"...)
	}
	return dst
}

// single is the one key of a set, or "(several)".
func single(set map[string]bool, several string) string {
	if len(set) == 1 {
		for k := range set {
			return k
		}
	}
	if len(set) == 0 {
		return ""
	}
	return several
}

// result turns the merged accumulator into the advise result.
func (a *accum) result(o Options) (*Result, error) {
	a.trimBad()
	if a.all.requests == 0 {
		if a.malformed > 0 {
			return nil, fmt.Errorf("%w: %d lines read, all %d malformed (first: %s)", ErrNoSamples, a.lines, a.malformed, a.bad[0])
		}
		return nil, fmt.Errorf("%w in %s (%d lines read)", ErrNoSamples, strings.Join(o.Files, ", "), a.lines)
	}
	src := profile.Source{Format: string(o.Format), Files: o.Files, Lines: a.lines, Malformed: a.malformed, Unit: unitName(a.unit)}
	if a.unit == 0 {
		src.Unit = ""
	}
	for _, b := range a.bad {
		src.MalformedSample = append(src.MalformedSample, b.String())
	}
	var durMs float64
	if !a.first.IsZero() {
		durMs = float64(a.last.Sub(a.first)) / float64(time.Millisecond)
	}
	method := single(a.methods, "")
	host := single(a.hosts, "(several hosts)")
	if host == "" {
		host = "(" + string(o.Format) + ")"
	}
	m := meta{target: profile.Target{URL: host, Method: method}, durationMs: durMs, source: src, maxTimeout: a.maxTimeout}
	if a.buckets != nil {
		m.maxTimeout = a.buckets.censorAt
	}
	p := o.Advice
	overall, err := a.all.toResult(m, p)
	if err != nil {
		return nil, err
	}
	overall.Notes = append(a.notes, overall.Notes...)
	a.judgeMalformed(&overall.Recommendation.Verdict)
	a.judgeNoStatus(&overall.Recommendation.Verdict)
	res := &Result{Profile: overall, By: o.By, Buckets: a.buckets}
	if a.buckets != nil {
		a.buckets.adjust(overall)
	}
	counts := map[int]int64{}
	maps.Copy(counts, a.attempts)
	for k, v := range a.attemptsN {
		if v > 0 {
			counts[k] += v
		}
	}
	if len(counts) > 0 {
		at := &Attempts{ByCount: map[string]int64{}}
		for k, v := range counts {
			at.ByCount[strconv.Itoa(k)] = v
			at.Requests += v
			at.Attempts += int64(k) * v
		}
		at.PerRequest = float64(at.Attempts) / float64(at.Requests)
		if at.Unanswered = a.attemptsNoAnswer; at.Unanswered > 0 {
			at.UnansweredMaxMs = ptr(float64(a.attemptsNoAnswerMax) / float64(time.Millisecond))
			overall.Notes = append(overall.Notes, fmt.Sprintf("%s attempts before a request's last got no answer within the proxy's timeout (up to %s) and were passed to the next upstream: they are in attempts.unanswered, not in the latency distribution, which holds the attempt that answered each request",
				units.Count(int(at.Unanswered)), units.Millis(*at.UnansweredMaxMs)))
		}
		res.Attempts = at
	}
	if o.By != ByNone {
		var gs []Group
		keys := make([]string, 0, len(a.groups))
		for k := range a.groups {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			ni, nj := a.groups[keys[i]].requests, a.groups[keys[j]].requests
			if ni != nj {
				return ni > nj
			}
			return keys[i] < keys[j]
		})
		other := newSeries(2)
		folded := 0
		for i, k := range keys {
			if i >= o.Top || k == "(other)" {
				other.merge(a.groups[k])
				folded++
				continue
			}
			gs = append(gs, a.groupResult(k, a.groups[k], m, p))
		}
		if folded > 0 {
			gs = append(gs, a.groupResult(fmt.Sprintf("(other: %d groups)", folded), other, m, p))
		}
		for _, g := range gs {
			if g.Result == nil {
				return nil, fmt.Errorf("group %s: cannot build its result", g.Key)
			}
			a.judgeMalformed(&g.Result.Recommendation.Verdict)
			a.judgeNoStatus(&g.Result.Recommendation.Verdict)
		}
		if a.buckets != nil {
			for i := range gs {
				gs[i].Buckets = a.buckets.groups[gs[i].Key]
			}
		}
		res.Groups = gs
	}
	res.windows(a, o.Window)
	return res, nil
}

// CodeMalformedInput is the verdict clause of an input most of whose lines (or, for traces
// and HARs, entries) could not be read: whatever the rest says, it says it about the few
// that could, and a format or log_format that does not fit the file is the likelier story.
const CodeMalformedInput = "malformed_input"

// judgeMalformed fails v when most of the input was malformed: more malformed lines than
// half the lines read (blank ones included), so a file where 9 lines of 10 are not what the
// reader expects never yields a ✓ from the tenth. A JSON document (a HAR, an OTLP export)
// counts its malformed entries against the entries read when it has fewer lines than that
// (a minified HAR is one line).
func (a *accum) judgeMalformed(v *profile.Verdict) {
	of, unit := a.lines, "lines"
	if read := a.malformed + a.all.requests; read > of {
		of, unit = read, "entries"
	}
	if a.malformed == 0 || a.malformed*2 <= of {
		return
	}
	text := fmt.Sprintf("%s of %s %s could not be read (%s): the figures rest on the %s that could — check --format and --log-format against the file",
		units.Count(int(a.malformed)), units.Count(int(of)), unit, sharePercent(float64(a.malformed)/float64(of)), units.Count(int(of-a.malformed)))
	if len(a.bad) > 0 {
		text += " (first: " + a.bad[0].String() + ")"
	}
	v.Add(CodeMalformedInput, verdict.Bad, text)
}

// CodeStatusUnknown is the verdict clause of an input most of whose requests carry no status
// (an HdrHistogram log, spans without status code or error tag): they are counted as
// answered, so the error rate the verdict would judge is unknown — never a ✓ on it.
const CodeStatusUnknown = "status_unknown"

// judgeNoStatus makes v at best provisional when most requests of the input carry no status.
func (a *accum) judgeNoStatus(v *profile.Verdict) {
	if a.noStatus == 0 || a.noStatus*2 <= a.all.requests {
		return
	}
	v.Add(CodeStatusUnknown, verdict.Provisional, fmt.Sprintf("%s of %s requests carry no status (counted as answered): the error rate is unknown, not zero — the timeout rests on latency alone",
		units.Count(int(a.noStatus)), units.Count(int(a.all.requests))))
}

// sharePercent spells a share as "12.5%".
func sharePercent(share float64) string { return strconv.FormatFloat(100*share, 'g', 3, 64) + "%" }

func (a *accum) groupResult(key string, s *series, m meta, p profile.RecommendParams) Group {
	gm := m
	gm.source.Group = key
	gm.source.MalformedSample = nil
	if method, _, ok := strings.Cut(key, " "); ok && strings.HasPrefix(key, method+" /") {
		gm.target = profile.Target{URL: key[len(method)+1:], Method: method}
	} else {
		gm.target = profile.Target{URL: key, Method: m.target.Method}
	}
	r, err := s.toResult(gm, p)
	if err != nil {
		return Group{Key: key, Samples: s.requests}
	}
	// Groups keep their summaries and recommendation; their histograms would repeat the
	// overall profile's at a lower resolution.
	r.Histogram, r.Histograms = "", nil
	return Group{Key: key, Samples: s.requests, Result: r}
}

// windows fills the per-window distribution and flags the windows whose tail moved.
func (r *Result) windows(a *accum, width time.Duration) {
	if len(a.windows) < 2 {
		return
	}
	keys := make([]int64, 0, len(a.windows))
	for k := range a.windows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var p99s []float64
	for _, k := range keys {
		w := a.windows[k]
		out := Window{Start: time.Unix(0, k*int64(width)).UTC(), Count: w.count, Failed: w.failed}
		if w.good != nil && w.good.total > 0 {
			h := w.good.toHDR()
			out.P50Ms = ptr(float64(h.ValueAtQuantile(50)) / 1000)
			out.MaxMs = ptr(float64(h.Max()) / 1000)
			if h.TotalCount() >= 100 {
				out.P99Ms = ptr(float64(h.ValueAtQuantile(99)) / 1000)
				p99s = append(p99s, *out.P99Ms)
			}
		}
		r.Windows = append(r.Windows, out)
	}
	r.WindowMs = float64(width) / float64(time.Millisecond)
	if len(p99s) < 3 {
		return
	}
	sorted := append([]float64(nil), p99s...)
	sort.Float64s(sorted)
	median := sorted[len(sorted)/2]
	for _, w := range r.Windows {
		if w.P99Ms != nil && *w.P99Ms > 2*median {
			r.TailMoved = append(r.TailMoved, fmt.Sprintf("%s: p99 %s, more than twice the median window's %s",
				w.Start.Format("2006-01-02 15:04"), units.Millis(*w.P99Ms), units.Millis(median)))
		}
	}
	if len(r.TailMoved) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("the tail moved in %d of %d windows (see windows): the recommendation spans them all; --since/--until or --filter 'time>=…' select a calm or a bad period", len(r.TailMoved), len(r.Windows)))
	}
}

func ptr(v float64) *float64 { return &v }
