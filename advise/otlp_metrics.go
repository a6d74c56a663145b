package advise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// OTLP metrics JSON (docs/formats.md#otlp-metrics): an ExportMetricsServiceRequest as the
// OTLP/JSON encoding writes it (opentelemetry-proto opentelemetry/proto/metrics/v1/
// metrics.proto; the collector's file exporter writes one per line). Its explicit-bucket
// histograms are turned into the Prometheus reader's series, named as the OTel → Prometheus
// translation names them (opentelemetry-specification specification/compatibility/
// prometheus_and_openmetrics.md: dots to underscores, the unit as a suffix, "s" →
// _seconds), and finished by promFinish: one reader of bucketed data, one choice of family,
// one bracket for every quantile. bucketCounts are per bucket (not cumulative), the last
// one above the last explicit bound. With CUMULATIVE temporality (2) the earliest and the
// latest point of a series make the window; DELTA points (1) add up. Exponential
// histograms are listed as not read (as native histograms are).

// otlpMetricsDoc is the part of an ExportMetricsServiceRequest advise reads.
type otlpMetricsDoc struct {
	ResourceMetrics []struct {
		ScopeMetrics []struct {
			Metrics []otlpMetric `json:"metrics"`
		} `json:"scopeMetrics"`
	} `json:"resourceMetrics"`
}

type otlpMetric struct {
	Name      string `json:"name"`
	Unit      string `json:"unit"`
	Histogram *struct {
		AggregationTemporality int          `json:"aggregationTemporality"`
		DataPoints             []otlpHistPt `json:"dataPoints"`
	} `json:"histogram"`
	ExponentialHistogram *json.RawMessage `json:"exponentialHistogram"`
}

type otlpHistPt struct {
	Attributes     []otlpKV   `json:"attributes"`
	TimeUnixNano   otlpUint   `json:"timeUnixNano"`
	BucketCounts   []otlpUint `json:"bucketCounts"`
	ExplicitBounds []float64  `json:"explicitBounds"`
}

type otlpKV struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string  `json:"stringValue"`
		IntValue    otlpUint `json:"intValue"`
		BoolValue   *bool    `json:"boolValue"`
		DoubleValue *float64 `json:"doubleValue"`
	} `json:"value"`
}

// otlpUint is a 64-bit integer as OTLP/JSON writes it: a decimal string, or a number.
type otlpUint struct {
	v   float64
	set bool
}

func (u *otlpUint) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" {
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Errorf("not a count: %s", b)
	}
	u.v, u.set = v, true
	return nil
}

// otlpUnitWords are OTel units (UCUM) as the Prometheus translation spells them
// (prometheus/otlptranslator unit_namer.go); an annotation ({token}) has no unit word.
var otlpUnitWords = map[string]string{
	"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds",
	"min": "minutes", "h": "hours", "d": "days", "By": "bytes", "1": "",
}

// otlpFamily is metric's Prometheus family name and unit word.
func otlpFamily(name, unit string) (family, word string) {
	word, ok := otlpUnitWords[unit]
	if !ok && !strings.HasPrefix(unit, "{") {
		word = strings.ToLower(unit)
	}
	family = strings.ReplaceAll(name, ".", "_")
	if word != "" && !strings.HasSuffix(family, "_"+word) {
		family += "_" + word
	}
	return family, word
}

// otlpPoint is one histogram point, cumulative per bound (+Inf last).
type otlpPoint struct {
	family, unit string
	labels       [][2]string
	bounds, cum  []float64
	time         float64
	delta        bool
}

// otlpMetricsStream reads OTLP metrics JSON documents (one, or one per line) into the
// first and last snapshots promFinish reads.
func otlpMetricsStream(in *input, a *accum) ([]map[string]*promSeries, error) {
	lt := &lineTracker{r: in.br}
	dec := json.NewDecoder(lt)
	pts := map[string][]otlpPoint{}
	var keys []string
	for {
		var doc otlpMetricsDoc
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &InputError{File: in.name, Line: lt.lineAt(dec.InputOffset()), Err: err}
		}
		line := lt.lineAt(dec.InputOffset())
		for _, rm := range doc.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					keys = otlpCollect(m, line, in.name, a, pts, keys)
				}
			}
		}
	}
	a.lines = lt.lines + 1
	return otlpSnapshots(pts, keys, in.name, a)
}

// otlpCollect adds metric m's histogram points to pts (by series key, keys in first-seen
// order); a malformed point is a malformed line.
func otlpCollect(m otlpMetric, line int64, file string, a *accum, pts map[string][]otlpPoint, keys []string) []string {
	fam, word := otlpFamily(m.Name, m.Unit)
	if m.ExponentialHistogram != nil {
		a.note(fmt.Sprintf("%s: an exponential histogram (not read)", m.Name))
	}
	if m.Histogram == nil {
		return keys
	}
	for i, dp := range m.Histogram.DataPoints {
		p, err := otlpPointOf(fam, word, dp, m.Histogram.AggregationTemporality == 1)
		if err != nil {
			a.malformedLine(file, line, fmt.Sprintf("metric %s dataPoints[%d]: %v", m.Name, i, err))
			continue
		}
		k := seriesKey(fam, p.labels)
		if _, ok := pts[k]; !ok {
			keys = append(keys, k)
		}
		pts[k] = append(pts[k], p)
	}
	return keys
}

// otlpPointOf is data point dp of family fam, its counts made cumulative.
func otlpPointOf(fam, word string, dp otlpHistPt, delta bool) (otlpPoint, error) {
	if len(dp.BucketCounts) != len(dp.ExplicitBounds)+1 {
		return otlpPoint{}, fmt.Errorf("%d bucketCounts for %d explicitBounds (want one more)", len(dp.BucketCounts), len(dp.ExplicitBounds))
	}
	p := otlpPoint{family: fam, unit: word, time: dp.TimeUnixNano.v, delta: delta}
	prev := math.Inf(-1)
	for _, b := range dp.ExplicitBounds {
		if math.IsNaN(b) || math.IsInf(b, 0) || b <= prev {
			return otlpPoint{}, fmt.Errorf("explicitBounds not strictly increasing finite numbers")
		}
		prev = b
	}
	p.bounds = append(append([]float64{}, dp.ExplicitBounds...), math.Inf(1))
	run := 0.0
	for _, c := range dp.BucketCounts {
		run += c.v
		p.cum = append(p.cum, run)
	}
	for _, kv := range dp.Attributes {
		p.labels = append(p.labels, [2]string{strings.ReplaceAll(kv.Key, ".", "_"), otlpAttrValue(kv)})
	}
	sort.Slice(p.labels, func(i, j int) bool { return p.labels[i][0] < p.labels[j][0] })
	return p, nil
}

// otlpAttrValue is an attribute's value as a label value.
func otlpAttrValue(kv otlpKV) string {
	v := kv.Value
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return strconv.FormatBool(*v.BoolValue)
	case v.DoubleValue != nil:
		return strconv.FormatFloat(*v.DoubleValue, 'g', -1, 64)
	case v.IntValue.set:
		return strconv.FormatFloat(v.IntValue.v, 'f', 0, 64)
	}
	return ""
}

// seriesKey is a series' identity: its family and its sorted labels.
func seriesKey(fam string, labels [][2]string) string {
	var b strings.Builder
	b.WriteString(fam)
	for _, l := range labels {
		b.WriteString("\x00" + l[0] + "=" + l[1])
	}
	return b.String()
}

// otlpSnapshots makes the first and last snapshots: a cumulative series' earliest and
// latest points, a delta series' points added up (in the last only).
func otlpSnapshots(pts map[string][]otlpPoint, keys []string, file string, a *accum) ([]map[string]*promSeries, error) {
	first, last := map[string]*promSeries{}, map[string]*promSeries{}
	window := false
	for _, k := range keys {
		ps := pts[k]
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].time < ps[j].time })
		lo, hi := ps[0], ps[len(ps)-1]
		if hi.delta {
			var left int
			hi, left = otlpSum(ps)
			msg := fmt.Sprintf("%s: DELTA temporality, the exported intervals' counts are added up", hi.family)
			if left > 0 {
				msg += fmt.Sprintf(" (%d points with other bucket bounds left out)", left)
			}
			a.note(msg)
		} else if len(ps) > 1 {
			window = true
			otlpAdd(first, lo, file, a)
		}
		otlpAdd(last, hi, file, a)
	}
	for _, snap := range []map[string]*promSeries{first, last} {
		for _, s := range snap {
			s.otlp = true
		}
	}
	if window {
		return []map[string]*promSeries{first, last}, nil
	}
	return []map[string]*promSeries{last}, nil
}

// otlpSum is delta points ps added up; a point whose bounds differ from the first's is left
// out (its buckets cannot be added) and counted.
func otlpSum(ps []otlpPoint) (otlpPoint, int) {
	s := ps[0]
	s.cum = append([]float64{}, s.cum...)
	left := 0
	for _, p := range ps[1:] {
		if !slices.Equal(p.bounds, s.bounds) {
			left++
			continue
		}
		for i := range s.cum {
			s.cum[i] += p.cum[i]
		}
	}
	return s, left
}

// otlpAdd puts point p in snapshot snap as a Prometheus series (its unit as # UNIT).
func otlpAdd(snap map[string]*promSeries, p otlpPoint, file string, a *accum) {
	for i, b := range p.bounds {
		labels := append(append([][2]string{}, p.labels...), [2]string{"le", strconv.FormatFloat(b, 'g', -1, 64)})
		if err := promAdd(snap, p.family, labels, strconv.FormatFloat(p.cum[i], 'f', -1, 64), "histogram", p.unit); err != nil {
			a.malformedLine(file, 1, fmt.Sprintf("%s: %v", p.family, err))
			return
		}
	}

}

// otlpMetricsHead says whether the buffered start of in is OTLP metrics JSON.
func otlpMetricsHead(in *input) bool {
	head, _ := in.br.Peek(in.br.Buffered())
	if len(head) < 4096 {
		head, _ = in.br.Peek(4096)
	}
	return bytes.Contains(head, []byte(`"resourceMetrics"`))
}
