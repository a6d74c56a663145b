package advise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Jaeger's JSON traces (jaegertracing/jaeger model/json/model.go, the UI model the query
// service returns from /api/traces and the UI downloads; fixture
// model/converter/json/fixtures/ui_01.json): {"data":[trace…]} from the API, or one trace
// {"traceID","spans":[…],"processes":{…}}. A span's startTime is epoch microseconds and its
// duration microseconds; tags are a list of {key, type, value} with typed values (string,
// bool, int64, float64, binary). The span kind is the "span.kind" tag (client, server,
// producer, consumer), the status "http.status_code" (int64 or string), failure the "error"
// tag (bool true); the service called by a client span is "peer.service", else the span's
// process serviceName. Spans are chosen by kind as Zipkin's are (zipkin.go).

type jaegerTag struct {
	Key   string          `json:"key"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

type jaegerSpan struct {
	SpanID        string      `json:"spanID"`
	OperationName string      `json:"operationName"`
	StartTime     *int64      `json:"startTime"`
	Duration      *int64      `json:"duration"`
	Tags          []jaegerTag `json:"tags"`
	ProcessID     string      `json:"processID"`
}

type jaegerTrace struct {
	TraceID   string       `json:"traceID"`
	Spans     []jaegerSpan `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

type jaegerDoc struct {
	Data []jaegerTrace `json:"data"`
	jaegerTrace
}

func jaegerStream(ctx context.Context, r *reader, in *input, a *accum) error {
	lt := &lineTracker{r: in.br}
	dec := json.NewDecoder(lt)
	sets := newSpanSets("Jaeger")
	var spans int
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		line := lt.valueLine(dec.InputOffset())
		var doc jaegerDoc
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				a.malformedLine(in.name, line, fmt.Sprintf("%s: want %s, got %s", typ.Field, typ.Type, typ.Value))
				continue
			}
			return &InputError{File: in.name, Line: lt.lineAt(dec.InputOffset()), Err: err}
		}
		traces := doc.Data
		if len(doc.Spans) > 0 {
			traces = append(traces, doc.jaegerTrace)
		}
		for _, tr := range traces {
			for i := range tr.Spans {
				sp := &tr.Spans[i]
				spans++
				service := ""
				if p, ok := tr.Processes[sp.ProcessID]; ok {
					service = p.ServiceName
				}
				rec, kind, noStatus, err := jaegerRecord(sp, service)
				if err != nil {
					a.malformedLine(in.name, line, fmt.Sprintf("Jaeger span %s %q: %v", sp.SpanID, sp.OperationName, err))
					continue
				}
				sets.add(r, kind, &rec, noStatus)
			}
		}
	}
	a.lines = lt.lines
	if spans == 0 && a.malformed == 0 {
		return &InputError{File: in.name, Err: errors.New(`no Jaeger spans (want {"data":[trace…]} or a trace with "spans")`)}
	}
	sets.finish(a, time.Microsecond)
	a.note("Jaeger: latency is each span's duration (µs)")
	return nil
}

// jaegerTagString is a tag's value as text (a string's contents, a number's digits).
func jaegerTagString(t *jaegerTag) string {
	var s string
	if json.Unmarshal(t.Value, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(t.Value))
}

func jaegerRecord(sp *jaegerSpan, service string) (rec Record, kind string, noStatus bool, err error) {
	rec = newRecord()
	if sp.Duration == nil {
		return rec, "", false, errors.New("no duration")
	}
	if *sp.Duration < 0 || *sp.Duration > int64(1<<63-1)/int64(time.Microsecond) {
		return rec, "", false, fmt.Errorf("duration %d µs", *sp.Duration)
	}
	rec.Total = time.Duration(*sp.Duration) * time.Microsecond
	if sp.StartTime != nil && *sp.StartTime > 0 && *sp.StartTime < int64(1<<63-1)/1000 {
		rec.Time = time.UnixMicro(*sp.StartTime).UTC()
	}
	tags := map[string]string{}
	failed := false
	for i := range sp.Tags {
		t := &sp.Tags[i]
		v := jaegerTagString(t)
		tags[t.Key] = v
		if t.Key == "error" && v == "true" {
			failed = true
		}
	}
	kind = tags["span.kind"]
	rec.Method = tags["http.method"]
	rec.Path = tags["http.route"]
	if rec.Path == "" {
		rec.Path = sp.OperationName
	}
	rec.Host = service
	if strings.EqualFold(kind, "client") && tags["peer.service"] != "" {
		rec.Host = tags["peer.service"]
	}
	if s := tags["http.status_code"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 || n > 999 {
			return rec, kind, false, fmt.Errorf("http.status_code %q is not a status", s)
		}
		rec.Status = n
		return rec, kind, false, nil
	}
	if failed {
		rec.Err, rec.ErrMsg = "other", "error tag"
		return rec, kind, false, nil
	}
	rec.Status = answeredNoStatus
	return rec, kind, true, nil
}
