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
	"github.com/patience-dev/patience/probe"
)

// Prometheus histograms (config-and-log-sources.md B8, prometheus/docs
// docs/practices/histograms.md): cumulative `_bucket{le=…}` counts since the process
// started — one exposition is the lifetime, two (or a range query) give a window by
// subtraction. Units are whatever the metric says: `_seconds` by convention, `_milliseconds`
// / `_ms` read as such; a metric without a unit suffix needs --unit. A quantile is known only
// to lie in its bucket: the report gives the bracket [lower le, upper le] and the
// histogram_quantile estimate (linear inside the bucket); the samples are recorded at the
// bucket's upper bound, so the timeout derived is rounded up to it; observations in +Inf are
// known only to exceed the top finite le and count as right-censored there ("lower bound
// only").

// Buckets reports the quantile brackets of bucketed data.
type Buckets struct {
	Metric string `json:"metric"`
	// Window says whether the counts are a lifetime (one exposition) or a window (two
	// expositions, or a range query, subtracted).
	Window    string    `json:"window"`
	Quantiles []Bracket `json:"quantiles"`
	censorAt  time.Duration
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
	le     map[float64]float64
}

func promStream(ctx context.Context, r *reader, in *input, a *accum) error {
	head, _ := in.br.Peek(1)
	var snaps []map[string]*promSeries
	var err error
	if len(head) > 0 && head[0] == '{' {
		snaps, err = promQueryJSON(in, a)
	} else {
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

// promFinish turns the first and last expositions into the accumulator's samples: called
// once every file is read.
func (r *reader) promFinish(a *accum) error {
	first, last := r.promFirst, r.promLast
	if len(last) == 0 {
		return errors.New("no histogram (_bucket{le=…}) in the input")
	}
	window := "lifetime (one exposition: counts since the process started)"
	if r.promCount > 1 {
		window = "window (the last exposition minus the first)"
	}
	// The family: the only one, or the one --filter names (metric=NAME, via the route field).
	fams := map[string]bool{}
	for _, s := range last {
		fams[s.family] = true
	}
	var names []string
	for f := range fams {
		names = append(names, f)
	}
	sort.Strings(names)
	fam := names[0]
	for _, n := range names {
		if r.filter == nil || r.filter.Match(&Record{Path: n, Status: 200}) {
			fam = n
			break
		}
	}
	if len(names) > 1 {
		a.note(fmt.Sprintf("%d histograms in the input (%s): advising from %s; pick another with --filter 'path=NAME'", len(names), strings.Join(names, ", "), fam))
	}
	unit := time.Duration(0)
	switch {
	case strings.HasSuffix(fam, "_seconds"):
		unit = time.Second
	case strings.HasSuffix(fam, "_milliseconds") || strings.HasSuffix(fam, "_ms"):
		unit = time.Millisecond
	case strings.HasSuffix(fam, "_microseconds") || strings.HasSuffix(fam, "_us"):
		unit = time.Microsecond
	}
	if r.opts.Unit != "" {
		u, err := ParseUnit(r.opts.Unit)
		if err != nil {
			return err
		}
		unit = u
	}
	if unit == 0 {
		return fmt.Errorf("histogram %s has no unit suffix (_seconds, _milliseconds): say it with --unit s|ms|us|ns", fam)
	}
	a.unit = unit
	// Sum the family's series bucket by bucket (cumulative counts add).
	cum := map[float64]float64{}
	statusCum := map[int]map[float64]float64{}
	for k, s := range last {
		if s.family != fam {
			continue
		}
		if r.filter != nil && !r.filter.Match(&Record{Path: fam, Status: s.status}) {
			continue
		}
		base := first[k]
		if r.promCount < 2 {
			base = nil
		}
		for le, v := range s.le {
			if base != nil {
				v -= base.le[le]
			}
			if v < 0 {
				return fmt.Errorf("%s%s: bucket le=%g went down between expositions (a restart?): give expositions from one process", fam, s.labels, le)
			}
			cum[le] += v
			if statusCum[s.status] == nil {
				statusCum[s.status] = map[float64]float64{}
			}
			statusCum[s.status][le] += v
		}
	}
	les := make([]float64, 0, len(cum))
	for le := range cum {
		les = append(les, le)
	}
	sort.Float64s(les)
	if len(les) == 0 || !math.IsInf(les[len(les)-1], 1) {
		return fmt.Errorf("histogram %s has no le=\"+Inf\" bucket (an exposition must have one, B8)", fam)
	}
	topFinite := 0.0
	if len(les) > 1 {
		topFinite = les[len(les)-2]
	}
	toDur := func(v float64) time.Duration { return time.Duration(v * float64(unit)) }
	censor := toDur(topFinite)
	if censor <= 0 {
		censor = probe.DefaultMaxTimeout
	}
	b := &Buckets{Metric: fam, Window: window, censorAt: censor}
	a.buckets = b
	a.note(fmt.Sprintf("%s: bucketed data — each quantile is known only to lie in its bucket (bracket below); samples sit at their bucket's upper bound, so the timeout is rounded up to it; observations above the top bucket (%s) are known only to be longer and count as unanswered within it", fam, units.Millis(ms(censor))))
	for status, c := range statusCum {
		prevCount := 0.0
		for _, le := range les {
			n := int64(math.Round(c[le] - prevCount))
			prevCount = c[le]
			if n <= 0 {
				continue
			}
			rec := newRecord()
			rec.Path, rec.Status = fam, status
			if math.IsInf(le, 1) {
				rec.Status, rec.Err, rec.ErrMsg, rec.Total = 0, "timeout", fmt.Sprintf("observed above the top bucket le=%g", topFinite), censor
			} else {
				// A hair below the bound: HDR reports a bucket's highest equivalent value
				// (≤ 0.1% above), which must not cross the le into the next ladder step.
				rec.Total = toDur(le * 0.999)
			}
			for range n {
				a.add(&rec, r.opts.By, r.opts.Window)
			}
		}
	}
	total := cum[math.Inf(1)]
	q := 1 - r.opts.Advice.Options.Cutoff
	if r.opts.Advice.Options.Cutoff == 0 {
		q = 1 - probe.DefaultCutoff
	}
	for _, qq := range []float64{0.5, 0.9, 0.99, q} {
		if qq == 0.99 && q == 0.99 {
			continue
		}
		b.Quantiles = append(b.Quantiles, bracket(les, cum, total, qq, func(v float64) float64 { return ms(toDur(v)) }))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// bracket is histogram_quantile's estimate of quantile q and the bucket it lies in (B8:
// linear within the bucket, the lowest from 0; in +Inf the upper bound of the second
// highest bucket is returned — here flagged as a lower bound only).
func bracket(les []float64, cum map[float64]float64, total, q float64, toMs func(float64) float64) Bracket {
	out := Bracket{Label: probe.QuantileLabel(q)}
	rank := q * total
	lower, prev := 0.0, 0.0
	for i, le := range les {
		c := cum[le]
		if c >= rank && c > 0 {
			if math.IsInf(le, 1) {
				out.LowerMs = toMs(lower)
				out.EstimateMs = out.LowerMs
				out.LowerOnly = true
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
		_ = i
		lower, prev = le, c
	}
	return out
}

// adjust puts the bracket into the result: notes, and a verdict reason when the cut-off
// quantile lies in +Inf.
func (b *Buckets) adjust(r *probe.Result) {
	for _, q := range b.Quantiles {
		if q.LowerOnly {
			r.Notes = append(r.Notes, fmt.Sprintf("%s lies above the top bucket: lower bound only, ≥ %s", q.Label, units.Millis(q.LowerMs)))
			continue
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s in bucket (%s, %s], histogram_quantile estimate %s", q.Label, units.Millis(q.LowerMs), units.Millis(*q.UpperMs), units.Millis(q.EstimateMs)))
	}
}

// promText reads one text exposition.
func promText(ctx context.Context, in *input, a *accum) (map[string]*promSeries, error) {
	out := map[string]*promSeries{}
	sc := bufio.NewScanner(in.br)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var line int64
	for sc.Scan() {
		line++
		a.lines++
		if line%65536 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' {
			continue
		}
		name, rest, ok := strings.Cut(l, "{")
		if !ok || !strings.HasSuffix(name, "_bucket") {
			continue
		}
		labels, value, ok := strings.Cut(rest, "}")
		if !ok {
			a.malformedLine(in.name, line, "no closing } after the labels")
			continue
		}
		if err := promAdd(out, strings.TrimSuffix(name, "_bucket"), labels, strings.Fields(value)); err != nil {
			a.malformedLine(in.name, line, err.Error())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &InputError{File: in.name, Line: line + 1, Err: err}
	}
	return out, nil
}

// promAdd adds one bucket sample.
func promAdd(out map[string]*promSeries, fam, labels string, value []string) error {
	if len(value) == 0 {
		return errors.New("no value")
	}
	v, err := strconv.ParseFloat(value[0], 64)
	if err != nil {
		return fmt.Errorf("value %q is not a number", value[0])
	}
	var le string
	var keep []string
	status := 200
	for _, kv := range splitLabels(labels) {
		k, val, _ := strings.Cut(kv, "=")
		val = strings.Trim(val, `"`)
		switch k {
		case "le":
			le = val
			continue
		case "code", "status", "status_code", "http_status_code":
			if n, err := strconv.Atoi(val); err == nil {
				status = n
			}
		}
		keep = append(keep, kv)
	}
	if le == "" {
		return errors.New("a _bucket sample without le")
	}
	bound, err := strconv.ParseFloat(le, 64)
	if err != nil {
		return fmt.Errorf("le=%q is not a number", le)
	}
	key := fam + "{" + strings.Join(keep, ",") + "}"
	s := out[key]
	if s == nil {
		s = &promSeries{family: fam, labels: "{" + strings.Join(keep, ",") + "}", status: status, le: map[float64]float64{}}
		out[key] = s
	}
	s.le[bound] = v
	return nil
}

// splitLabels splits a{b="c,d",e="f"}'s inside at the commas outside quotes.
func splitLabels(s string) []string {
	var out []string
	inQ := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			inQ = !inQ
		case ',':
			if !inQ {
				if p := strings.TrimSpace(s[start:i]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
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
		var keys []string
		for k, v := range res.Metric {
			if k != "__name__" {
				keys = append(keys, k+`="`+v+`"`)
			}
		}
		sort.Strings(keys)
		labels := strings.Join(keys, ",")
		pts := res.Values
		if res.Value != nil {
			pts = [][]any{res.Value}
		}
		if len(pts) == 0 {
			continue
		}
		val := func(p []any) []string {
			if len(p) < 2 {
				return nil
			}
			s, _ := p[1].(string)
			return []string{s}
		}
		if err := promAdd(first, name, labels, val(pts[0])); err != nil {
			a.malformedLine(in.name, 1, err.Error())
		}
		if err := promAdd(last, name, labels, val(pts[len(pts)-1])); err != nil {
			a.malformedLine(in.name, 1, err.Error())
		}
	}
	if doc.Data.ResultType == "matrix" {
		return []map[string]*promSeries{first, last}, nil
	}
	return []map[string]*promSeries{last}, nil
}
