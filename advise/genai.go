package advise

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
)

// OpenTelemetry GenAI metrics (issue 29 item 6; docs/formats.md#genai): the semantic
// conventions' histograms of a generative AI call (open-telemetry/semantic-conventions-genai
// docs/gen-ai/gen-ai-metrics.md), read from a Prometheus exposition (after the OTel →
// Prometheus translation: dots to underscores, the unit "s" as the suffix _seconds —
// opentelemetry-specification specification/compatibility/prometheus_and_openmetrics.md) or
// from OTLP metrics JSON (otlp_metrics.go, which hands its histograms to the same finisher).
// When the input holds them and --filter names no metric, one family gives the profile's
// total (the operation's duration), one its first_event phase and one its gap phase, each
// chosen by the preference of genaiMetrics; the families stay bucketed, so each of their
// quantiles is a bracket (Buckets.Phases), never a point.

// genaiRole is the profile phase a GenAI metric measures.
type genaiRole int8

const (
	genaiTotal      genaiRole = iota // the whole operation: the total phase
	genaiFirstEvent                  // request to first token or chunk: first_event
	genaiGap                         // between output tokens or chunks: gap
)

// phase is the profile phase role feeds.
func (r genaiRole) phase() string {
	return [...]string{"total", "first_event", "gap"}[r]
}

// genaiMetric is one GenAI histogram of the conventions and what it measures.
type genaiMetric struct {
	// Name is the convention's name (dotted); every one has unit "s".
	Name string
	Role genaiRole
	// Caveat, for a gap metric, says how far it is from one sample per silence.
	Caveat string
}

// genaiMetrics are the GenAI histograms advise reads, in order of preference within a role:
// the client's own view first (it is what the caller's timeouts see, network and proxies
// included), the model server's next.
var genaiMetrics = []genaiMetric{
	{Name: "gen_ai.client.operation.duration", Role: genaiTotal},
	{Name: "gen_ai.server.request.duration", Role: genaiTotal},
	{Name: "gen_ai.client.operation.time_to_first_chunk", Role: genaiFirstEvent},
	{Name: "gen_ai.server.time_to_first_token", Role: genaiFirstEvent},
	{Name: "gen_ai.client.operation.time_per_output_chunk", Role: genaiGap,
		Caveat: "one sample per chunk after the first, from the end of the previous chunk: the gap distribution an idle timeout must outlast"},
	{Name: "gen_ai.server.time_per_output_token", Role: genaiGap,
		Caveat: "a mean per output token over each response (the request's duration less its first token, divided by the tokens after it), not one sample per silence: a single stall is averaged away, so it bounds the idle timeout only loosely (from below); a per-chunk gap (gen_ai.client.operation.time_per_output_chunk, or probe) is what an idle timeout should come from"},
}

// genaiLookup is family's GenAI metric: the name as the conventions spell it (UTF-8 names)
// or as translated for Prometheus (dots to underscores, the unit suffix _seconds).
func genaiLookup(family string) (genaiMetric, bool) {
	n := strings.ReplaceAll(strings.ToLower(family), ".", "_")
	n = strings.TrimSuffix(n, "_seconds")
	for _, m := range genaiMetrics {
		if n == strings.ReplaceAll(m.Name, ".", "_") {
			return m, true
		}
	}
	return genaiMetric{}, false
}

// genaiPlan is the family chosen for each role, nil where the input has none.
type genaiPlan struct {
	fams  [3]*promFam
	specs [3]genaiMetric
}

// planGenAI picks the GenAI families among the candidates, by genaiMetrics' preference; nil
// when there is none or --filter names a metric (then the family named is advised from as
// any other). An error when the input has stream metrics but no operation duration.
func (p *promFinisher) planGenAI() (*genaiPlan, error) {
	if p.named {
		return nil, nil
	}
	var plan genaiPlan
	found := false
	for _, m := range genaiMetrics {
		for _, f := range p.cands {
			if g, ok := genaiLookup(f.Name); ok && g.Name == m.Name && plan.fams[m.Role] == nil {
				plan.fams[m.Role], plan.specs[m.Role] = f, m
				found = true
			}
		}
	}
	if !found {
		return nil, nil
	}
	if plan.fams[genaiTotal] == nil {
		return nil, fmt.Errorf("GenAI stream metrics without an operation duration (gen_ai.client.operation.duration or gen_ai.server.request.duration): the total of a call is not in them; name the family to advise from as a total with --filter 'metric=NAME'")
	}
	return &plan, nil
}

// emitGenAI records the plan's total family as the total (emit) and its stream families as
// the first_event and gap phases, and says which family fed which phase.
func (p *promFinisher) emitGenAI(plan *genaiPlan) error {
	tot := plan.fams[genaiTotal]
	choice := "as the GenAI operation duration (" + plan.specs[genaiTotal].Name + "), the stream phases from the GenAI metrics beside it"
	p.noteChoice(tot, choice)
	if err := p.emit(tot, choice); err != nil {
		return err
	}
	var fed []string
	for _, role := range []genaiRole{genaiFirstEvent, genaiGap} {
		f := plan.fams[role]
		if f == nil {
			continue
		}
		ph, err := p.streamPhase(f, role)
		if err != nil {
			return err
		}
		ph.Caveat = plan.specs[role].Caveat
		p.a.buckets.Phases = append(p.a.buckets.Phases, ph)
		fed = append(fed, fmt.Sprintf("%s from %s", role.phase(), f.Name))
	}
	msg := fmt.Sprintf("GenAI metrics (OpenTelemetry semantic conventions): total from %s", tot.Name)
	if len(fed) > 0 {
		msg += "; " + strings.Join(fed, "; ")
	}
	if plan.fams[genaiFirstEvent] == nil {
		msg += "; no time-to-first-token metric, so no first_event phase"
	}
	if plan.fams[genaiGap] == nil {
		msg += "; the gap between events is not in these metrics (neither gen_ai.client.operation.time_per_output_chunk nor gen_ai.server.time_per_output_token): probe the stream for it"
	}
	p.a.note(msg)
	if c := plan.specs[genaiGap].Caveat; plan.fams[genaiGap] != nil && strings.Contains(c, "mean") {
		p.a.note(plan.fams[genaiGap].Name + ": " + c)
	}
	return nil
}

// PhaseBuckets are the quantile brackets of one stream phase read from bucketed data.
type PhaseBuckets struct {
	// Phase is the profile phase fed: first_event or gap.
	Phase        string    `json:"phase"`
	Metric       string    `json:"metric"`
	Observations float64   `json:"observations"`
	Quantiles    []Bracket `json:"quantiles"`
	// AboveTop counts the observations above the top finite bucket: recorded at it, so the
	// phase's figures from there up are lower bounds only.
	AboveTop float64 `json:"above_top_bucket,omitempty"`
	// Caveat says how far the metric is from the phase (gap from a mean per token).
	Caveat string `json:"caveat,omitempty"`
}

// streamPhase records family f's buckets in the role's phase (first_event: one stream per
// observation) and returns its brackets. An observation above the top finite bucket is
// recorded at that bound: a lower bound, counted in AboveTop.
func (p *promFinisher) streamPhase(f *promFam, role genaiRole) (PhaseBuckets, error) {
	les, err := p.familyLes(f)
	if err != nil {
		return PhaseBuckets{}, err
	}
	toDur := func(v float64) time.Duration { return time.Duration(v * float64(f.unit)) }
	top := 0.0
	if len(les) > 1 {
		top = les[len(les)-2]
	}
	ph := PhaseBuckets{Phase: role.phase(), Metric: f.Name, Observations: f.Observations}
	cum := make([]float64, len(les))
	for _, k := range f.series {
		c := p.counts[k]
		own := promSortedLes(c)
		promAccumulate(cum, les, own, c)
		ph.AboveTop += p.addPhaseBuckets(p.r.promLast[k], c, own, role, func(le float64) time.Duration {
			if math.IsInf(le, 1) {
				le = top
			}
			return toDur(le * 0.999)
		})
	}
	toMs := func(v float64) float64 { return ms(toDur(v)) }
	for _, q := range p.quantiles() {
		ph.Quantiles = append(ph.Quantiles, bracket(les, cum, cum[len(cum)-1], q, toMs))
	}
	return ph, nil
}

// quantiles are the quantiles bracketed: p50, p90, p99 and the cut-off's (promFinisher.brackets).
func (p *promFinisher) quantiles() []float64 {
	q := 1 - p.r.opts.Advice.Options.Cutoff
	if p.r.opts.Advice.Options.Cutoff == 0 {
		q = 1 - profile.DefaultCutoff
	}
	if q == 0.99 {
		return []float64{0.5, 0.9, 0.99}
	}
	return []float64{0.5, 0.9, 0.99, q}
}

// addPhaseBuckets adds series s's buckets (counts c at sorted les own) to the role's phase,
// each bucket once with its count as weight, at at(le); it returns the count above the top
// finite bucket.
func (p *promFinisher) addPhaseBuckets(s *promSeries, c map[float64]float64, own []float64, role genaiRole, at func(float64) time.Duration) float64 {
	done, above := 0.0, 0.0
	for _, le := range own {
		v := max(c[le], done)
		n := int64(math.Round(v - done))
		done = v
		if n <= 0 {
			continue
		}
		if math.IsInf(le, 1) {
			above += float64(n)
		}
		rec := newRecord()
		rec.Path, rec.Method, rec.Status, rec.Model = s.path, s.method, s.status, s.model
		p.a.addPhaseWeighted(&rec, role, at(le), n, p.r.opts.By)
	}
	return above
}

// addPhaseWeighted records n samples of d in r's stream phase role (first_event counts n
// streams), overall and in r's group.
func (a *accum) addPhaseWeighted(r *Record, role genaiRole, d time.Duration, n int64, by By) {
	a.all.addPhaseN(role, d, n)
	if by == ByNone {
		return
	}
	a.groupFor(r, by).addPhaseN(role, d, n)
}

// addPhaseN records n samples of d in the stream phase role.
func (s *series) addPhaseN(role genaiRole, d time.Duration, n int64) {
	h := &s.gap
	if role == genaiFirstEvent {
		h = &s.firstEvent
		s.streams += n
	}
	if *h == nil {
		*h = newHistogram(s.sig)
	}
	v := min(max(d.Microseconds(), histLowest), histHighest)
	(*h).recordN(v, n)
}

// adjustPhases notes each stream phase's brackets: from buckets, a quantile is a bracket.
func (b *Buckets) adjustPhases(r *profile.Profile) {
	for _, ph := range b.Phases {
		var parts []string
		for _, q := range ph.Quantiles {
			if q.LowerOnly {
				parts = append(parts, fmt.Sprintf("%s ≥ %s (above the top bucket: lower bound only)", q.Label, units.Millis(q.LowerMs)))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s in (%s, %s], estimate %s", q.Label, units.Millis(q.LowerMs), units.Millis(*q.UpperMs), units.Millis(q.EstimateMs)))
		}
		msg := fmt.Sprintf("%s from %s (bucketed: each quantile is a bracket, the phase's figures sit at the bucket's upper bound): %s", ph.Phase, ph.Metric, strings.Join(parts, "; "))
		if ph.AboveTop > 0 {
			msg += fmt.Sprintf("; %s observations above the top bucket are recorded at it (lower bounds)", promCount(ph.AboveTop))
		}
		r.Notes = append(r.Notes, msg)
	}
}

// isGenAI says whether family is one of the GenAI metrics advise reads.
func isGenAI(family string) bool {
	_, ok := genaiLookup(family)
	return ok
}

// genaiFailure makes rec, an operation of d that ended with error.type errType, a failure:
// an HTTP status when errType is one (the conventions' example "500"), a timeout when it
// names one ("timeout", "APITimeoutError", …), else the class other with errType as its
// message.
func genaiFailure(rec *Record, errType string, d time.Duration) {
	rec.Total = d
	if n, err := strconv.Atoi(errType); err == nil && n >= 100 && n <= 599 {
		rec.Status = n
		return
	}
	rec.Status, rec.Err, rec.ErrMsg = 0, "other", "error.type="+errType
	if strings.Contains(strings.ToLower(errType), "timeout") || strings.Contains(strings.ToLower(errType), "timed_out") {
		rec.Err = "timeout"
	}
}
