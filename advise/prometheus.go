package advise

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
)

// Prometheus histograms (docs/formats.md#prometheus, prometheus/docs
// docs/practices/histograms.md): cumulative `_bucket{le=…}` counts since the process
// started — one exposition is the lifetime, two (or a range query) give a window by
// subtraction. A quantile is known only to lie in its bucket: the report gives the bracket
// [lower le, upper le] and the histogram_quantile estimate (linear inside the bucket,
// prometheus/prometheus promql/quantile.go BucketQuantile); the samples are recorded at the
// bucket's upper bound, each bucket once with its count as weight (O(buckets), never
// O(observations)), so the timeout derived is rounded up to it; observations in +Inf are
// known only to exceed the top finite le and count as right-censored there ("lower bound
// only").
//
// Only a family whose unit is a time is a latency: the unit is the OpenMetrics `# UNIT` line
// when there is one (OpenMetrics 1.0 requires it to be the name's suffix: prometheus/prometheus
// model/textparse/openmetricsparse.go refuses "unit %q not a suffix of metric %q"; the 2.0
// draft's request_duration with # UNIT seconds has none), else the name's unit suffix (prometheus/docs docs/practices/naming.md:
// "…SHOULD have a suffix describing the unit, in plural form", base unit seconds; the
// `_milliseconds`/`_ms`/`_microseconds` seen in the wild read as such). A unit that is not a
// time (`_bytes`, `_ratio`, …) is never a latency, whatever --unit says; --unit gives a unit
// to a family whose name has none. Several duration families are listed in the result
// (Buckets.Families) and one is chosen by promChoiceRule, or named with --filter
// 'metric=NAME'.
//
// The text is read as Prometheus's own parsers read it (prometheus/prometheus
// model/textparse promlex.l, openmetricslex.l): `# HELP`/`# TYPE`/`# UNIT`/`# EOF` lines,
// a metric name bare or quoted inside the braces (UTF-8 names), quoted label values with
// \\, \" and \n escapes, a value, then an optional timestamp, start timestamp (st@…) and
// exemplars (`# {…} v t`), all ignored. `_sum`, `_count`, `_created`, `_gsum` and `_gcount`
// samples are not needed; gauge histograms (TYPE gaugehistogram) measure a current state,
// not observations, and are listed but never advised from. OpenMetrics 2.0's composite
// values are read for a classic histogram ({count:…,sum:…,bucket:[le:count,…]}); a native
// histogram (schema:…) is listed as not read.

// Buckets reports the quantile brackets of bucketed data.
type Buckets struct {
	Metric string `json:"metric"`
	// Window says whether the counts are a lifetime (one exposition) or a window (two
	// expositions, or a range query, subtracted).
	Window    string    `json:"window"`
	Quantiles []Bracket `json:"quantiles"`
	// Observations is the chosen family's count (its +Inf buckets, after --filter).
	Observations float64 `json:"observations"`
	// Choice says how the family was chosen: the only duration family, --filter, or the
	// stated rule (promChoiceRule).
	Choice string `json:"choice,omitempty"`
	// Families lists every histogram family of the input, the chosen one included, in name
	// order: which are durations, and why the others are not.
	Families []PromFamily `json:"families,omitempty"`
	// Phases are the stream phases read from GenAI metrics (genai.go), each bracketed.
	Phases   []PhaseBuckets `json:"phases,omitempty"`
	censorAt time.Duration
	// groups are the brackets of each --by group's own buckets (Group.Buckets), by key.
	groups map[string][]Bracket
}

// PromFamily is one histogram family of a Prometheus input.
type PromFamily struct {
	Name string `json:"name"`
	// Type is the `# TYPE` (histogram, gaugehistogram), "" when the input does not say.
	Type string `json:"type,omitempty"`
	// Unit is the family's unit word (seconds, milliseconds, bytes, …), "" when none.
	Unit string `json:"unit,omitempty"`
	// UnitFrom says where the unit comes from: "suffix", "# UNIT" or "--unit".
	UnitFrom string `json:"unit_from,omitempty"`
	// Duration: the unit is a time, so the family is a latency.
	Duration     bool    `json:"duration"`
	Series       int     `json:"series"`
	Observations float64 `json:"observations"`
	// Skipped says why the family cannot be advised from ("" when it can).
	Skipped string `json:"skipped,omitempty"`
}

// Bracket is one quantile's bucket: the quantile lies in (LowerMs, UpperMs]; EstimateMs is
// histogram_quantile's linear interpolation; LowerOnly when it lies in +Inf.
type Bracket struct {
	Label      string   `json:"label"`
	LowerMs    float64  `json:"lower_ms"`
	UpperMs    *float64 `json:"upper_ms"`
	EstimateMs float64  `json:"estimate_ms"`
	LowerOnly  bool     `json:"lower_bound_only,omitempty"`
}

// promSeries is one histogram series: its family, its labels without le, its buckets.
type promSeries struct {
	family string
	labels string
	status int
	// path and method are the series' handler/route and method labels, for --filter and
	// --by route.
	path, method string
	// model is the GenAI model label (gen_ai_request_model), for --by model; errType the
	// error.type label: a series of failed operations (genai.go).
	model, errType string
	le             map[float64]float64
	// typ and omUnit are the family's `# TYPE` and `# UNIT` in this exposition.
	typ, omUnit string
	// native marks a native histogram (OpenMetrics 2.0 schema:…), not read.
	native bool
	// otlp marks a series read from OTLP metrics: its omUnit is the metric's unit field.
	otlp bool
}

func promStream(ctx context.Context, r *reader, in *input, a *accum) error {
	head, _ := in.br.Peek(1)
	var snaps []map[string]*promSeries
	var err error
	switch {
	case len(head) > 0 && head[0] == '{' && otlpMetricsHead(in):
		snaps, err = otlpMetricsStream(in, a)
	case len(head) > 0 && head[0] == '{':
		snaps, err = promQueryJSON(in, a)
	default:
		var s map[string]*promSeries
		s, err = promText(ctx, in, a)
		snaps = []map[string]*promSeries{s}
	}
	if err != nil {
		return err
	}
	for _, snap := range snaps {
		if r.promCount == 0 {
			r.promFirst = snap
		}
		r.promLast = snap
		r.promCount++
	}
	return nil
}

// promUnits are the unit words of a family name's suffix or `# UNIT` line that are a time,
// with their length. The base unit is seconds (prometheus/docs docs/practices/naming.md,
// "Base units"); the others are OpenTelemetry's units as Prometheus's own translator names
// them (prometheus/otlptranslator unit_namer.go unitMap: ms → milliseconds, us →
// microseconds, ns → nanoseconds, min → minutes, h → hours, d → days), and the hand-made
// _ms, _us, _ns seen in the wild.
var promUnits = map[string]time.Duration{
	"seconds": time.Second, "s": time.Second,
	"milliseconds": time.Millisecond, "ms": time.Millisecond, "millis": time.Millisecond,
	"microseconds": time.Microsecond, "us": time.Microsecond, "micros": time.Microsecond,
	"nanoseconds": time.Nanosecond, "ns": time.Nanosecond, "nanos": time.Nanosecond,
	"minutes": time.Minute, "hours": time.Hour, "days": 24 * time.Hour,
}

// promOtherUnits are unit suffixes that are not a time (naming.md "Base units" and the
// common non-base ones): a family ending so is never a latency.
var promOtherUnits = map[string]bool{
	"bytes": true, "bits": true, "ratio": true, "percent": true, "meters": true, "celsius": true,
	"volts": true, "amperes": true, "joules": true, "grams": true, "hertz": true, "watts": true, "kelvin": true,
	"kilobytes": true, "megabytes": true, "kibibytes": true, "mebibytes": true, "kb": true, "mb": true,
}

// promUnitKind says what a family's unit is.
type promUnitKind int8

const (
	promNoUnit    promUnitKind = iota // no unit word: --unit may give one
	promTimeUnit                      // a time: the family is a latency
	promOtherUnit                     // bytes, ratio, a rate…: never a latency
)

// promUnit is the unit of family name: the `# UNIT` line's word when there is one, else the
// last word of the name; d is the length of a time unit. A rate (x_per_second,
// otlptranslator's per-unit naming) is not a time.
func promUnit(name, omUnit string) (word, from string, d time.Duration, kind promUnitKind) {
	word, from = omUnit, "# UNIT"
	if omUnit == "" {
		from = "suffix"
		w := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '.' || r == ':' })
		if len(w) == 0 {
			return "", "", 0, promNoUnit
		}
		word = w[len(w)-1]
		if len(w) >= 2 && w[len(w)-2] == "per" {
			return "per_" + word, from, 0, promOtherUnit
		}
	}
	if strings.Contains(word, "per_") || strings.Contains(word, "/") {
		return word, from, 0, promOtherUnit
	}
	if d, ok := promUnits[strings.ToLower(word)]; ok {
		return word, from, d, promTimeUnit
	}
	if omUnit != "" || promOtherUnits[word] {
		return word, from, 0, promOtherUnit
	}
	return "", "", 0, promNoUnit
}

// promRequestWords mark a family as a request latency (its name's words): the preference of
// promChoiceRule.
var promRequestWords = map[string]bool{"request": true, "requests": true, "http": true, "grpc": true, "rpc": true, "handling": true, "handler": true}

// promChoiceRule is how a family is chosen among several duration families.
const promChoiceRule = "the most observations among those whose name speaks of requests (request, requests, http, grpc, rpc, handling, handler), else among all"

func promRequestLike(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '.' || r == ':' }) {
		if promRequestWords[w] {
			return true
		}
	}
	return false
}

// promFam is what promFinish gathers about one family.
type promFam struct {
	PromFamily
	unit   time.Duration
	series []string // keys of promLast
}

// promFinisher carries promFinish's stages over the first and last expositions: the
// window's counts, the families, the candidates, the choice among them, and the chosen
// family's samples and brackets.
type promFinisher struct {
	r        *reader
	a        *accum
	flagUnit time.Duration // --unit, 0 when not given
	named    bool          // --filter names a metric
	keys     []string      // promLast's keys, sorted
	// counts are every series' bucket counts: the window's when there are two expositions.
	counts map[string]map[float64]float64
	fams   map[string]*promFam
	names  []string     // the family names, sorted
	out    []PromFamily // every family, for Buckets.Families
	cands  []*promFam   // the families that can be advised from and that --filter leaves
	// Of the chosen family: its unit, its top finite le and the duration it stands for
	// (observations in +Inf count as unanswered there).
	unit      time.Duration
	topFinite float64
	censor    time.Duration
}

// promFinish turns the first and last expositions into the accumulator's samples: called
// once every file is read. Its work is O(series × buckets) whatever the counts.
func (r *reader) promFinish(a *accum) error {
	if len(r.promLast) == 0 {
		return errors.New("no histogram (_bucket{le=…}) in the input")
	}
	p := &promFinisher{r: r, a: a}
	if r.opts.Unit != "" {
		u, err := ParseUnit(r.opts.Unit)
		if err != nil {
			return err
		}
		p.flagUnit = u
	}
	if err := p.windowCounts(); err != nil {
		return err
	}
	p.named = r.filter.namesMetric()
	p.gatherFamilies()
	p.pickCandidates()
	if len(p.cands) == 0 {
		return p.noCandidate()
	}
	plan, err := p.planGenAI()
	if err != nil {
		return err
	}
	if plan != nil {
		return p.emitGenAI(plan)
	}
	fam, choice := p.choose()
	p.noteChoice(fam, choice)
	return p.emit(fam, choice)
}

// window says whether the counts are a lifetime or a window.
func (p *promFinisher) window() string {
	if p.r.promCount > 1 {
		return "window (the last exposition minus the first)"
	}
	return "lifetime (one exposition: counts since the process started)"
}

// windowCounts sets every series' counts: the last exposition's, minus the first's when
// there are two. A bucket that goes down between them is an error (a restart).
func (p *promFinisher) windowCounts() error {
	first, last := p.r.promFirst, p.r.promLast
	p.counts = map[string]map[float64]float64{}
	p.keys = make([]string, 0, len(last))
	for k := range last {
		p.keys = append(p.keys, k)
	}
	sort.Strings(p.keys)
	for _, k := range p.keys {
		s := last[k]
		if s.native {
			continue
		}
		var base *promSeries
		if p.r.promCount > 1 {
			base = first[k]
		}
		c, err := promWindow(s, base)
		if err != nil {
			return err
		}
		p.counts[k] = c
	}
	return nil
}

// promWindow is series s's counts minus base's (nil: s's own).
func promWindow(s, base *promSeries) (map[float64]float64, error) {
	c := make(map[float64]float64, len(s.le))
	for le, v := range s.le {
		if base != nil {
			v -= base.le[le]
		}
		if v < 0 {
			return nil, fmt.Errorf("%s%s: bucket le=%g went down between expositions (a restart?): give expositions from one process", s.family, s.labels, le)
		}
		c[le] = v
	}
	return c, nil
}

// gatherFamilies groups the series into families, with their units and what --filter
// leaves of them.
func (p *promFinisher) gatherFamilies() {
	p.fams = map[string]*promFam{}
	for _, k := range p.keys {
		s := p.r.promLast[k]
		f := p.fams[s.family]
		if f == nil {
			f = p.newFamily(s)
			p.fams[s.family] = f
			p.names = append(p.names, s.family)
		}
		p.addSeries(f, k, s)
	}
	sort.Strings(p.names)
}

// newFamily is the family of series s: its unit (the name's or # UNIT's, else --unit's) and,
// when it cannot be a latency, why.
func (p *promFinisher) newFamily(s *promSeries) *promFam {
	f := &promFam{PromFamily: PromFamily{Name: s.family, Type: s.typ}}
	word, from, d, kind := promUnit(s.family, s.omUnit)
	if s.otlp && from == "# UNIT" {
		from = "OTLP unit"
	}
	switch {
	case kind == promTimeUnit:
		f.Unit, f.UnitFrom, f.unit, f.Duration = word, from, d, true
	case kind == promNoUnit && isGenAI(s.family):
		// A UTF-8 name as the conventions spell it has no unit suffix: their unit is "s".
		f.Unit, f.UnitFrom, f.unit, f.Duration = "seconds", "GenAI convention", time.Second, true
	case kind == promOtherUnit:
		f.Unit, f.UnitFrom = word, from
		f.Skipped = fmt.Sprintf("%s, not a time (never a latency, whatever --unit says)", word)
	case p.flagUnit > 0:
		f.Unit, f.UnitFrom, f.unit = unitName(p.flagUnit), "--unit", p.flagUnit
	default:
		f.Skipped = "no unit suffix (--unit and --filter 'metric=NAME' name one)"
	}
	if s.typ == "gaugehistogram" {
		f.Skipped = "a gauge histogram (a current state, not observations)"
	}
	return f
}

// addSeries counts series s (key k) in its family f, and keeps it when --filter does.
func (p *promFinisher) addSeries(f *promFam, k string, s *promSeries) {
	f.Series++
	if s.native {
		if f.Skipped == "" {
			f.Skipped = "a native histogram (not read)"
		}
		return
	}
	flt := p.r.filter.forMetric(s.family)
	if !flt.Match(&Record{Path: s.path, Method: s.method, Status: s.status, Total: unknown}) {
		return
	}
	f.series = append(f.series, k)
	f.Observations += p.counts[k][math.Inf(1)]
}

// pickCandidates sets the families that can be advised from and that --filter leaves; the
// others get the reason why not.
func (p *promFinisher) pickCandidates() {
	anyTime := false
	for _, n := range p.names {
		f := p.fams[n]
		anyTime = anyTime || (f.Duration && f.Skipped == "")
	}
	for _, n := range p.names {
		f := p.fams[n]
		f.Skipped = p.skipReason(f, anyTime)
		if f.Skipped == "" {
			p.cands = append(p.cands, f)
		}
	}
	p.out = make([]PromFamily, 0, len(p.names))
	for _, n := range p.names {
		p.out = append(p.out, p.fams[n].PromFamily)
	}
}

// skipReason says why family f cannot be advised from, "" when it can; anyTime: some
// family has a time unit of its own.
func (p *promFinisher) skipReason(f *promFam, anyTime bool) string {
	switch {
	case f.Skipped != "":
		return f.Skipped
	case p.named && len(f.series) == 0:
		return "not named by --filter"
	case len(f.series) == 0:
		return "no series left by --filter"
	case f.Observations <= 0:
		return "no observations"
	case !f.Duration && anyTime && !p.named:
		// --unit gives a unit to a family without one; it is chosen only when named, or
		// when no family has a time unit of its own.
		return "no unit suffix (--unit applies when --filter 'metric=NAME' names one)"
	}
	return ""
}

// noCandidate is the error when no family can be advised from: what --filter named and
// why each cannot, or why every family cannot.
func (p *promFinisher) noCandidate() error {
	if !p.named {
		return fmt.Errorf("no duration histogram to advise from: %s", promSkipped(p.out, ""))
	}
	var picked []string
	for _, n := range p.names {
		if f := p.fams[n]; len(f.series) > 0 {
			picked = append(picked, n+": "+f.Skipped)
		}
	}
	if len(picked) == 0 {
		return fmt.Errorf("--filter names no histogram of the input (%s)", strings.Join(p.names, ", "))
	}
	return fmt.Errorf("--filter names no duration histogram: %s", strings.Join(picked, "; "))
}

// choose picks the family to advise from among the candidates, and says how.
func (p *promFinisher) choose() (*promFam, string) {
	n := len(p.cands)
	switch {
	case n == 1 && p.named:
		return p.cands[0], "named by --filter"
	case n == 1:
		return p.cands[0], "the only duration histogram"
	}
	how := "with observations"
	if p.named {
		how = "--filter names"
	}
	return promMostObserved(promRequestPool(p.cands)), "chosen among the " + strconv.Itoa(n) + " duration histograms " + how + " as " + promChoiceRule
}

// promRequestPool is the families among cands whose name speaks of requests, else cands.
func promRequestPool(cands []*promFam) []*promFam {
	var req []*promFam
	for _, f := range cands {
		if promRequestLike(f.Name) {
			req = append(req, f)
		}
	}
	if len(req) > 0 {
		return req
	}
	return cands
}

// promMostObserved is the family of pool with the most observations, the first on a tie.
func promMostObserved(pool []*promFam) *promFam {
	fam := pool[0]
	for _, f := range pool[1:] {
		if f.Observations > fam.Observations {
			fam = f
		}
	}
	return fam
}

// noteChoice notes an ignored --unit and, when the input has several families, which one is
// advised from, why, and the others.
func (p *promFinisher) noteChoice(fam *promFam, choice string) {
	if p.flagUnit > 0 && fam.UnitFrom != "--unit" {
		p.a.note(fmt.Sprintf("--unit %s ignored for %s: its unit is %s (%s)", p.r.opts.Unit, fam.Name, fam.Unit, fam.UnitFrom))
	}
	if len(p.names) <= 1 {
		return
	}
	var durs []string
	for _, f := range p.out {
		if f.Name != fam.Name && f.Duration && f.Skipped == "" {
			durs = append(durs, fmt.Sprintf("%s (%s)", f.Name, promCount(f.Observations)))
		}
	}
	msg := fmt.Sprintf("%d histograms in the input: advising from %s (%s observations), %s", len(p.names), fam.Name, promCount(fam.Observations), choice)
	if len(durs) > 0 {
		msg += "; the other durations: " + strings.Join(durs, ", ")
	}
	if sk := promSkipped(p.out, fam.Name); sk != "" {
		msg += "; " + sk
	}
	p.a.note(msg + "; name one with --filter 'metric=NAME'")
}

// emit records the chosen family's buckets as samples and its quantile brackets.
func (p *promFinisher) emit(fam *promFam, choice string) error {
	p.unit = fam.unit
	p.a.unit = fam.unit
	les, err := p.familyLes(fam)
	if err != nil {
		return err
	}
	if len(les) > 1 {
		p.topFinite = les[len(les)-2]
	}
	p.censor = p.toDur(p.topFinite)
	if p.censor <= 0 {
		p.censor = profile.DefaultMaxTimeout
	}
	b := &Buckets{Metric: fam.Name, Window: p.window(), censorAt: p.censor, Observations: fam.Observations, Families: p.out}
	if len(p.names) > 1 || p.named {
		b.Choice = choice
	}
	p.a.buckets = b
	p.a.note(fmt.Sprintf("%s: bucketed data — each quantile is known only to lie in its bucket (bracket below); samples sit at their bucket's upper bound, so the timeout is rounded up to it; observations above the top bucket (%s) are known only to be longer and count as unanswered within it", fam.Name, units.Millis(ms(p.censor))))
	cum := make([]float64, len(les))
	for _, k := range fam.series {
		c := p.counts[k]
		own := promSortedLes(c)
		promAccumulate(cum, les, own, c)
		p.addBuckets(p.r.promLast[k], c, own)
	}
	b.Quantiles = p.brackets(les, cum)
	b.groups = p.groupBrackets(fam, les)
	return nil
}

// groupBrackets are the quantile brackets of each --by group, from the buckets of the series
// in it (nil for --by none, and for --by status, whose groups split a series' buckets: its
// +Inf bucket is a timeout). A group's key is the one its requests are grouped by
// (appendGroupKey over the series' labels, as addBuckets records them).
func (p *promFinisher) groupBrackets(fam *promFam, les []float64) map[string][]Bracket {
	by := p.r.opts.By
	if by == ByNone || by == ByStatus {
		return nil
	}
	cums := map[string][]float64{}
	for _, k := range fam.series {
		s, c := p.r.promLast[k], p.counts[k]
		rec := newRecord()
		rec.Path, rec.Method, rec.Status, rec.Model = s.path, s.method, s.status, s.model
		key := string(appendGroupKey(nil, &rec, by))
		if cums[key] == nil {
			cums[key] = make([]float64, len(les))
		}
		promAccumulate(cums[key], les, promSortedLes(c), c)
	}
	out := make(map[string][]Bracket, len(cums))
	for key, cum := range cums {
		if cum[len(cum)-1] > 0 {
			out[key] = p.brackets(les, cum)
		}
	}
	return out
}

// toDur is v in the chosen family's unit.
func (p *promFinisher) toDur(v float64) time.Duration { return time.Duration(v * float64(p.unit)) }

// familyLes is the family's buckets: the union of its series' les, which must end with
// +Inf. A series without one of them counts there what it has at its own largest le below
// (a lower bound).
func (p *promFinisher) familyLes(fam *promFam) ([]float64, error) {
	leSet := map[float64]bool{}
	for _, k := range fam.series {
		for le := range p.counts[k] {
			leSet[le] = true
		}
	}
	les := make([]float64, 0, len(leSet))
	for le := range leSet {
		les = append(les, le)
	}
	sort.Float64s(les)
	if len(les) == 0 || !math.IsInf(les[len(les)-1], 1) {
		return nil, fmt.Errorf("histogram %s has no le=\"+Inf\" bucket (an exposition must have one, B8)", fam.Name)
	}
	return les, nil
}

// promSortedLes is the les of counts c, in order.
func promSortedLes(c map[float64]float64) []float64 {
	own := make([]float64, 0, len(c))
	for le := range c {
		own = append(own, le)
	}
	sort.Float64s(own)
	return own
}

// promAccumulate adds one series' cumulative counts (c, at its own sorted les own) to cum,
// at the family's les. Cumulative counts never go down (promql/quantile.go
// ensureMonotonic): a bucket below its predecessor counts as the predecessor.
func promAccumulate(cum, les, own []float64, c map[float64]float64) {
	prev := 0.0
	j := 0
	for i, le := range les {
		for j < len(own) && own[j] <= le {
			prev = max(prev, c[own[j]])
			j++
		}
		cum[i] += prev
	}
}

// addBuckets adds one weighted record per bucket of series s's own (counts c at sorted les
// own).
func (p *promFinisher) addBuckets(s *promSeries, c map[float64]float64, own []float64) {
	done := 0.0
	for _, le := range own {
		v := max(c[le], done)
		n := int64(math.Round(v - done))
		done = v
		if n <= 0 {
			continue
		}
		rec := newRecord()
		rec.Path, rec.Method, rec.Status, rec.Model = s.path, s.method, s.status, s.model
		switch {
		case s.errType != "" && !math.IsInf(le, 1):
			genaiFailure(&rec, s.errType, p.toDur(le*0.999))
		case math.IsInf(le, 1):
			rec.Status, rec.Err, rec.ErrMsg, rec.Total = 0, "timeout", fmt.Sprintf("observed above the top bucket le=%g", p.topFinite), p.censor
		case le <= 0:
			rec.Total = 0
		default:
			// A hair below the bound: HDR reports a bucket's highest equivalent value
			// (≤ 0.1% above), which must not cross the le into the next ladder step.
			rec.Total = p.toDur(le * 0.999)
		}
		p.a.addWeighted(&rec, n, p.r.opts.By)
	}
}

// brackets are the quantile brackets of cumulative counts cum: p50, p90, p99 and the
// cutoff's quantile.
func (p *promFinisher) brackets(les, cum []float64) []Bracket {
	var out []Bracket
	total := cum[len(cum)-1]
	q := 1 - p.r.opts.Advice.Options.Cutoff
	if p.r.opts.Advice.Options.Cutoff == 0 {
		q = 1 - profile.DefaultCutoff
	}
	toMs := func(v float64) float64 { return ms(p.toDur(v)) }
	for _, qq := range []float64{0.5, 0.9, 0.99, q} {
		if qq == 0.99 && q == 0.99 {
			continue
		}
		out = append(out, bracket(les, cum, total, qq, toMs))
	}
	return out
}

// promSkipped lists the families that cannot be advised from, grouped by why.
func promSkipped(fams []PromFamily, chosen string) string {
	var reasons []string
	byReason := map[string][]string{}
	for _, f := range fams {
		if f.Name == chosen || f.Skipped == "" {
			continue
		}
		if byReason[f.Skipped] == nil {
			reasons = append(reasons, f.Skipped)
		}
		byReason[f.Skipped] = append(byReason[f.Skipped], f.Name)
	}
	var parts []string
	for _, why := range reasons {
		parts = append(parts, why+": "+strings.Join(byReason[why], ", "))
	}
	return strings.Join(parts, "; ")
}

// promCount spells an observation count: whole, with thousands separators.
func promCount(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// addWeighted records n requests like r at once (a bucket's count): the totals, the status,
// the histograms and r's group — never a loop over n. Bucketed records carry no phases, no
// time and no attempts.
func (a *accum) addWeighted(r *Record, n int64, by By) {
	a.all.addWeighted(r, n)
	if r.Method != "" && len(a.methods) < 3 {
		a.methods[r.Method] = true
	}
	if by == ByNone {
		return
	}
	a.groupFor(r, by).addWeighted(r, n)
}

// addWeighted is series.add for n requests like r, which has a status (or an error) and a
// total only.
func (s *series) addWeighted(r *Record, n int64) {
	s.requests += n
	if r.Status == 0 {
		c := r.Err
		if c == "" {
			c = "other"
		}
		s.errs[c] += n
		if _, ok := s.errMsg[c]; !ok && r.ErrMsg != "" {
			s.errMsg[c] = r.ErrMsg
		}
		if c == "timeout" && r.Total > s.noAnswerMax {
			s.noAnswerMax = r.Total
		}
		return
	}
	s.addStatus(r.Status, n)
	if r.Total < 0 {
		return
	}
	v := min(max(r.Total.Microseconds(), histLowest), histHighest)
	if s.total[0] == nil {
		s.total[0] = newHistogram(s.sig)
	}
	s.total[0].recordN(v, n)
	if profile.GoodStatus(r.Status) {
		if s.good == nil {
			s.good = newHistogram(s.sig)
		}
		s.good.recordN(v, n)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// bracket is histogram_quantile's estimate of quantile q and the bucket it lies in
// (prometheus/prometheus promql/quantile.go BucketQuantile: the first bucket whose count
// reaches the rank; linear within it, the lowest from 0 unless its bound is ≤ 0, where the
// bound is returned; in +Inf the upper bound of the second highest bucket is returned —
// here flagged as a lower bound only). cum[i] is the cumulative count at les[i].
func bracket(les, cum []float64, total, q float64, toMs func(float64) float64) Bracket {
	out := Bracket{Label: profile.QuantileLabel(q)}
	rank := q * total
	lower, prev := 0.0, 0.0
	for i, le := range les {
		c := cum[i]
		if c >= rank && c > 0 {
			if math.IsInf(le, 1) {
				out.LowerMs = toMs(lower)
				out.EstimateMs = out.LowerMs
				out.LowerOnly = true
				return out
			}
			if i == 0 && le <= 0 {
				out.LowerMs, out.UpperMs, out.EstimateMs = toMs(le), ptr(toMs(le)), toMs(le)
				return out
			}
			out.LowerMs, out.UpperMs = toMs(lower), ptr(toMs(le))
			frac := 0.0
			if c > prev {
				frac = (rank - prev) / (c - prev)
			}
			out.EstimateMs = toMs(lower + (le-lower)*frac)
			return out
		}
		lower, prev = le, c
	}
	return out
}

// adjust puts the bracket into the result: notes, and a verdict reason when the cut-off
// quantile lies in +Inf.
func (b *Buckets) adjust(r *profile.Profile) {
	for _, q := range b.Quantiles {
		if q.LowerOnly {
			r.Notes = append(r.Notes, fmt.Sprintf("%s lies above the top bucket: lower bound only, ≥ %s", q.Label, units.Millis(q.LowerMs)))
			continue
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s in bucket (%s, %s], histogram_quantile estimate %s", q.Label, units.Millis(q.LowerMs), units.Millis(*q.UpperMs), units.Millis(q.EstimateMs)))
	}
	b.adjustPhases(r)
}

// promLine is one sample line of a text exposition.
type promLine struct {
	name   string
	labels [][2]string // name, value (unescaped), in order
	value  string      // the value token; a composite value {…} whole
}

// parsePromLine reads a sample line (not a comment) as promlex.l / openmetricslex.l do: a
// name, then labels in braces (the name may instead be the first, quoted, item inside them),
// then the value; what follows (timestamp, st@…, exemplars) is ignored. col is the 1-based
// column of an error.
func parsePromLine(l string) (p promLine, col int, err error) {
	x := &promLexer{l: l}
	for x.more() && promNameByte(l[x.i], x.i == 0) {
		x.i++
	}
	p.name = l[:x.i]
	x.skip()
	if x.at('{') && !promCompositeAt(l[x.i:]) {
		x.i++
		if col, err := x.labels(&p); err != nil {
			return p, col, err
		}
	}
	if p.name == "" {
		return p, 1, errors.New("no metric name")
	}
	x.skip()
	if !x.more() {
		return p, x.i + 1, errors.New("no value")
	}
	p.value, col, err = x.value()
	if err != nil {
		return p, col, err
	}
	return p, 0, nil
}

// promLexer reads one sample line: l, at byte i. Its methods that fail give the 1-based
// column of the error.
type promLexer struct {
	l string
	i int
}

// promNameByte says whether c may be in a metric or label name (first: may start one).
func promNameByte(c byte, first bool) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
}

// more says whether the line goes on.
func (x *promLexer) more() bool { return x.i < len(x.l) }

// at says whether the next byte is c.
func (x *promLexer) at(c byte) bool { return x.i < len(x.l) && x.l[x.i] == c }

// skip passes blanks.
func (x *promLexer) skip() {
	for x.i < len(x.l) && (x.l[x.i] == ' ' || x.l[x.i] == '\t') {
		x.i++
	}
}

// quoted reads the quoted string at i (l[i] == '"') with its \\, \" and \n escapes; false
// when it is not closed.
func (x *promLexer) quoted() (string, bool) {
	l := x.l
	var b strings.Builder
	for j := x.i + 1; j < len(l); j++ {
		switch l[j] {
		case '\\':
			if j+1 >= len(l) {
				return "", false
			}
			j++
			switch l[j] {
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(l[j])
			}
		case '"':
			x.i = j + 1
			return b.String(), true
		default:
			b.WriteByte(l[j])
		}
	}
	return "", false
}

// labels reads the items inside the braces (after the '{'), up to the closing '}'.
func (x *promLexer) labels(p *promLine) (int, error) {
	for {
		x.skip()
		if !x.more() {
			return x.i + 1, errors.New("labels: no closing }")
		}
		if x.at('}') {
			x.i++
			return 0, nil
		}
		if col, err := x.item(p); err != nil {
			return col, err
		}
		x.skip()
		if x.at(',') {
			x.i++
			continue
		}
		if x.more() && !x.at('}') {
			return x.i + 1, fmt.Errorf("labels: %q where , or } belongs", x.l[x.i:x.i+1])
		}
	}
}

// item reads one item inside the braces: a label name="value", or a quoted item without =,
// the metric name (UTF-8 names).
func (x *promLexer) item(p *promLine) (int, error) {
	at := x.i + 1
	var key string
	if x.at('"') {
		s, ok := x.quoted()
		if !ok {
			return at, errors.New("labels: quoted name not closed")
		}
		x.skip()
		if !x.at('=') {
			if p.name != "" {
				return at, fmt.Errorf("labels: a second metric name %q", s)
			}
			p.name = s
			return 0, nil
		}
		key = s
	} else {
		k, col, err := x.labelName()
		if err != nil {
			return col, err
		}
		key = k
	}
	x.i++ // '='
	x.skip()
	if !x.at('"') {
		return x.i + 1, fmt.Errorf("label %s: value not quoted", key)
	}
	at = x.i + 1
	v, ok := x.quoted()
	if !ok {
		return at, fmt.Errorf("label %s: value not closed", key)
	}
	p.labels = append(p.labels, [2]string{key, v})
	return 0, nil
}

// labelName reads a bare label name and the blanks after it, up to its '='.
func (x *promLexer) labelName() (string, int, error) {
	j := x.i
	for x.more() && promNameByte(x.l[x.i], x.i == j) && x.l[x.i] != ':' {
		x.i++
	}
	if x.i == j {
		return "", j + 1, fmt.Errorf("labels: %q is not a label name", x.l[j:min(j+1, len(x.l))])
	}
	key := x.l[j:x.i]
	x.skip()
	if !x.at('=') {
		return key, x.i + 1, fmt.Errorf("label %s: no =", key)
	}
	return key, 0, nil
}

// value reads the value: a number (up to a blank), or an OpenMetrics 2.0 composite value in
// braces.
func (x *promLexer) value() (string, int, error) {
	j := x.i
	if x.at('{') {
		k := strings.IndexByte(x.l[x.i:], '}')
		if k < 0 {
			return "", x.i + 1, errors.New("composite value: no closing }")
		}
		x.i += k + 1
	} else {
		for x.more() && !x.at(' ') && !x.at('\t') {
			x.i++
		}
	}
	return x.l[j:x.i], 0, nil
}

// promCompositeAt says whether s, starting at a brace, is an OpenMetrics 2.0 composite value
// ({count:…,sum:…,…}) rather than labels: its first word is followed by a colon, which no
// label name has.
func promCompositeAt(s string) bool {
	j := 1
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	k := j
	for k < len(s) && (s[k] == '_' || (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z')) {
		k++
	}
	return k > j && k < len(s) && s[k] == ':'
}

// promHead says whether sample lines (Detect's) are a text exposition without the # HELP or
// # TYPE first line Detect knows: a `_bucket` sample with an le label (Prometheus's own
// alltypes.237mfs.nometa.prom.txt, UTF-8 names quoted inside the braces), or a # UNIT line.
func promHead(lines [][]byte) bool {
	for _, b := range lines {
		l := strings.TrimSpace(string(b))
		if strings.HasPrefix(l, "# UNIT ") {
			return true
		}
		if l == "" || l[0] == '#' || !strings.Contains(l, "_bucket") {
			continue
		}
		p, _, err := parsePromLine(l)
		if err != nil || !strings.HasSuffix(p.name, "_bucket") {
			continue
		}
		for _, kv := range p.labels {
			if kv[0] == "le" {
				return true
			}
		}
	}
	return false
}

// promText reads one text exposition (Prometheus text 0.0.4 or OpenMetrics).
func promText(ctx context.Context, in *input, a *accum) (map[string]*promSeries, error) {
	out := map[string]*promSeries{}
	types, unitsOM := map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(in.br)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var line int64
	eof := false
	for sc.Scan() {
		line++
		a.lines++
		if line%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		if eof {
			a.malformedLine(in.name, line, "data after # EOF (OpenMetrics: the exposition ends there)")
			continue
		}
		if l[0] == '#' {
			f := strings.Fields(l[1:])
			switch {
			case len(f) == 1 && f[0] == "EOF":
				eof = true
			case len(f) >= 3 && f[0] == "TYPE":
				types[promMetaName(f[1])] = strings.ToLower(f[2])
			case len(f) >= 3 && f[0] == "UNIT":
				unitsOM[promMetaName(f[1])] = f[2]
			}
			continue
		}
		p, col, err := parsePromLine(l)
		if err != nil {
			a.malformedLine(in.name, line, fmt.Sprintf("col %d: %v", col, err))
			continue
		}
		fam, isBucket := strings.CutSuffix(p.name, "_bucket")
		if t, ok := types[p.name]; ok && t != "histogram" && t != "gaugehistogram" {
			// A family of its own whose name ends in _bucket.
			isBucket = false
		}
		composite := strings.HasPrefix(p.value, "{")
		if composite {
			fam = p.name
			if t := types[fam]; t != "histogram" && t != "gaugehistogram" {
				continue // a summary's or another composite
			}
		} else if !isBucket {
			continue // _sum, _count, _created, _gsum, _gcount, counters, gauges…
		}
		if err := promAdd(out, fam, p.labels, p.value, types[fam], unitsOM[fam]); err != nil {
			a.malformedLine(in.name, line, fmt.Sprintf("%s: %v", p.name, err))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &InputError{File: in.name, Line: line + 1, Err: err}
	}
	return out, nil
}

// promMetaName is the name of a # TYPE / # UNIT line (quoted for UTF-8 names).
func promMetaName(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// promLabelKeys maps the series' labels read for --filter and --by: status, path, method.
var promStatusLabels = map[string]bool{"code": true, "status": true, "status_code": true, "http_status_code": true, "http_response_status_code": true}
var promPathLabels = map[string]bool{"handler": true, "path": true, "route": true, "http_route": true, "uri": true, "url": true, "endpoint": true}
var promMethodLabels = map[string]bool{"method": true, "http_method": true, "http_request_method": true}

// promAdd adds one bucket sample (or, value {…}, an OpenMetrics 2.0 composite histogram).
func promAdd(out map[string]*promSeries, fam string, labels [][2]string, value, typ, omUnit string) error {
	var le string
	var keep []string
	status := 200
	var path, method, model, errType string
	for _, kv := range labels {
		k, val := kv[0], kv[1]
		switch {
		case k == "le":
			le = val
			continue
		case promStatusLabels[k]:
			if n, err := strconv.Atoi(val); err == nil {
				status = n
			}
		case promPathLabels[k] && path == "":
			path = val
		case promMethodLabels[k] && method == "":
			method = strings.ToUpper(val)
		case k == "gen_ai_request_model" || k == "gen_ai.request.model":
			model = val
		case k == "error_type" || k == "error.type":
			errType = val
		}
		keep = append(keep, k+"="+strconv.Quote(val))
	}
	sort.Strings(keep)
	key := fam + "{" + strings.Join(keep, ",") + "}"
	s := &promSeries{family: fam, labels: "{" + strings.Join(keep, ",") + "}", status: status, path: path, method: method,
		model: model, errType: errType, le: map[float64]float64{}, typ: typ, omUnit: omUnit}
	if old := out[key]; old != nil {
		s = old
	}
	if strings.HasPrefix(value, "{") {
		if err := promComposite(s, value); err != nil {
			return err
		}
		out[key] = s
		return nil
	}
	v, err := promValue(value)
	if err != nil {
		return err
	}
	if le == "" {
		return errors.New("a _bucket sample without le")
	}
	bound, err := strconv.ParseFloat(le, 64)
	if err != nil || math.IsNaN(bound) || math.IsInf(bound, -1) {
		return fmt.Errorf("le=%q is not a bucket bound", le)
	}
	s.le[bound] = v
	out[key] = s
	return nil
}

// promValue reads a bucket count: a number, not NaN, not negative.
func promValue(value string) (float64, error) {
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %q is not a count", value)
	}
	return v, nil
}

// promComposite reads an OpenMetrics 2.0 composite value into s: a classic histogram's
// bucket:[le:count,…] (cumulative), or marks s native (schema:…, not read).
func promComposite(s *promSeries, value string) error {
	body := strings.TrimSuffix(strings.TrimPrefix(value, "{"), "}")
	if strings.HasPrefix(body, "schema:") || strings.Contains(body, ",schema:") {
		s.native = true
		return nil
	}
	_, rest, ok := strings.Cut(body, "bucket:[")
	if !ok {
		return errors.New("composite value with no bucket list (bucket:[…]) and no schema")
	}
	list, _, ok := strings.Cut(rest, "]")
	if !ok {
		return errors.New("bucket:[ not closed")
	}
	for _, item := range strings.Split(list, ",") {
		if item == "" {
			continue
		}
		le, c, ok := strings.Cut(item, ":")
		if !ok {
			return fmt.Errorf("bucket %q: want le:count", item)
		}
		bound, err := strconv.ParseFloat(le, 64)
		if err != nil || math.IsNaN(bound) || math.IsInf(bound, -1) {
			return fmt.Errorf("bucket %q: le is not a bucket bound", item)
		}
		v, err := promValue(c)
		if err != nil {
			return err
		}
		s.le[bound] = v
	}
	return nil
}

// promQueryJSON reads a /api/v1/query or /api/v1/query_range answer: a vector is one
// exposition, a matrix gives the first and the last point of each series.
func promQueryJSON(in *input, a *accum) ([]map[string]*promSeries, error) {
	var doc struct {
		Status string `json:"status"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  []any             `json:"value"`
				Values [][]any           `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	lt := &lineTracker{r: in.br}
	dec := json.NewDecoder(lt)
	if err := dec.Decode(&doc); err != nil {
		return nil, &InputError{File: in.name, Line: lt.lineAt(dec.InputOffset()), Err: err}
	}
	a.lines = lt.lines + 1
	first, last := map[string]*promSeries{}, map[string]*promSeries{}
	for _, res := range doc.Data.Result {
		name := strings.TrimSuffix(res.Metric["__name__"], "_bucket")
		if name == "" {
			name = "histogram"
		}
		var labels [][2]string
		for k, v := range res.Metric {
			if k != "__name__" {
				labels = append(labels, [2]string{k, v})
			}
		}
		pts := res.Values
		if res.Value != nil {
			pts = [][]any{res.Value}
		}
		if len(pts) == 0 {
			continue
		}
		val := func(p []any) string {
			if len(p) < 2 {
				return ""
			}
			s, _ := p[1].(string)
			return s
		}
		if err := promAdd(first, name, labels, val(pts[0]), "histogram", ""); err != nil {
			a.malformedLine(in.name, 1, err.Error())
		}
		if err := promAdd(last, name, labels, val(pts[len(pts)-1]), "histogram", ""); err != nil {
			a.malformedLine(in.name, 1, err.Error())
		}
	}
	if doc.Data.ResultType == "matrix" {
		return []map[string]*promSeries{first, last}, nil
	}
	return []map[string]*promSeries{last}, nil
}
