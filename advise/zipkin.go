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

// Zipkin v2 JSON spans (openzipkin/zipkin zipkin/src/main/java/zipkin2/Span.java,
// openzipkin/zipkin-api zipkin2-api.yaml): a list of spans (POST /api/v2/spans, a trace from
// GET /api/v2/trace/{id}) or a list of traces, each a list (GET /api/v2/traces). timestamp is epoch microseconds and duration
// microseconds ("the duration of the critical path, if known"; absent for an incomplete
// span, which is not a sample). kind is CLIENT, SERVER, PRODUCER or CONSUMER, absent for a
// local span. tags are strings: "http.status_code", "http.method", "http.path", "http.route",
// and "error" set when the call failed (its value the message). A CLIENT span's
// remoteEndpoint.serviceName is the service called.
//
// Spans are read as OTLP's are: the CLIENT spans (the caller's view, network and queueing
// included) when there are any, else the SERVER spans (the dependency's own view), else every
// span, each choice noted. A span with neither http.status_code nor an error tag is counted as
// answered (shown as 200) and noted: the source does not say more.

type zipkinEndpoint struct {
	ServiceName string `json:"serviceName"`
}

type zipkinSpan struct {
	TraceID        string            `json:"traceId"`
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	Kind           string            `json:"kind"`
	Timestamp      *int64            `json:"timestamp"`
	Duration       *int64            `json:"duration"`
	Tags           map[string]string `json:"tags"`
	RemoteEndpoint *zipkinEndpoint   `json:"remoteEndpoint"`
	LocalEndpoint  *zipkinEndpoint   `json:"localEndpoint"`
}

// spanSets gathers the spans of a trace source by kind, to read the CLIENT spans when there
// are any (otlp.go's rule, for Zipkin and Jaeger alike).
type spanSets struct {
	format               string
	client, server, none *accum
	noStatus             [3]int64
}

func newSpanSets(format string) *spanSets {
	return &spanSets{format: format, client: newAccum(), server: newAccum(), none: newAccum()}
}

// add records rec in the set of its kind ("client", "server", anything else).
func (s *spanSets) add(r *reader, kind string, rec *Record, noStatus bool) {
	i, a := 2, s.none
	switch strings.ToLower(kind) {
	case "client":
		i, a = 0, s.client
	case "server":
		i, a = 1, s.server
	}
	if noStatus {
		s.noStatus[i]++
	}
	r.add(a, rec)
}

// finish moves the chosen set into a, keeping a's lines and malformed spans.
func (s *spanSets) finish(a *accum, unit time.Duration) {
	var chosen *accum
	var i int
	switch {
	case s.client.all.requests > 0:
		chosen, i = s.client, 0
	case s.server.all.requests > 0:
		chosen, i = s.server, 1
		a.note(s.format + ": no CLIENT spans: these are SERVER spans, the dependency's own view — network and queueing in front of it are not in them")
	case s.none.all.requests > 0:
		chosen, i = s.none, 2
		a.note(s.format + ": no span says its kind (client or server): every span is taken as one call, local work included")
	default:
		return
	}
	lines, malformed, bad, notes := a.lines, a.malformed, a.bad, a.notes
	*a = *chosen
	a.lines, a.malformed, a.bad, a.unit = lines, malformed, bad, unit
	for _, n := range notes {
		a.note(n)
	}
	if n := s.noStatus[i]; n > 0 {
		a.noStatus = int64(n)
		a.note(fmt.Sprintf("%s: %d of %d spans carry no http.status_code and no error tag: counted as answered (shown as 200); the source does not say more", s.format, n, chosen.all.requests))
	}
	if len(chosen.hosts) > 1 {
		a.note(s.format + ": the spans call several services (databases and caches too): --by host gives one recommendation per service")
	}
}

func zipkinStream(ctx context.Context, r *reader, in *input, a *accum) error {
	lt := &lineTracker{r: in.br}
	dec := json.NewDecoder(lt)
	sets := newSpanSets("Zipkin")
	var spans int
	var visit func(raw json.RawMessage, line int64, depth int) error
	visit = func(raw json.RawMessage, line int64, depth int) error {
		switch {
		case len(raw) > 0 && raw[0] == '[' && depth < 2:
			var list []json.RawMessage
			if err := json.Unmarshal(raw, &list); err != nil {
				return err
			}
			for _, v := range list {
				if err := visit(v, line, depth+1); err != nil {
					return err
				}
			}
			return nil
		case len(raw) > 0 && raw[0] == '{':
			var sp zipkinSpan
			if err := json.Unmarshal(raw, &sp); err != nil {
				a.malformedLine(in.name, line, fmt.Sprintf("Zipkin span: %v", err))
				return nil
			}
			spans++
			rec, noStatus, err := zipkinRecord(&sp)
			if err != nil {
				a.malformedLine(in.name, line, fmt.Sprintf("Zipkin span %s %q: %v", sp.ID, sp.Name, err))
				return nil
			}
			sets.add(r, sp.Kind, &rec, noStatus)
			return nil
		}
		a.malformedLine(in.name, line, "not a Zipkin span or list of spans")
		return nil
	}
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		line := lt.valueLine(dec.InputOffset())
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			return &InputError{File: in.name, Line: lt.lineAt(dec.InputOffset()), Err: err}
		}
		if err := visit(raw, line, 0); err != nil {
			return &InputError{File: in.name, Line: line, Err: err}
		}
	}
	a.lines = lt.lines
	if spans == 0 && a.malformed == 0 {
		return &InputError{File: in.name, Err: errors.New("no Zipkin spans (want a JSON list of spans, or of traces)")}
	}
	sets.finish(a, time.Microsecond)
	a.note("Zipkin: latency is each span's duration (µs)")
	return nil
}

// zipkinRecord turns a span into a record; noStatus says the span carried no status at all.
func zipkinRecord(sp *zipkinSpan) (Record, bool, error) {
	rec := newRecord()
	if sp.Duration == nil {
		return rec, false, errors.New("no duration (an incomplete span)")
	}
	if *sp.Duration < 0 || *sp.Duration > int64(1<<63-1)/int64(time.Microsecond) {
		return rec, false, fmt.Errorf("duration %d µs", *sp.Duration)
	}
	rec.Total = time.Duration(*sp.Duration) * time.Microsecond
	if sp.Timestamp != nil && *sp.Timestamp > 0 && *sp.Timestamp < int64(1<<63-1)/1000 {
		rec.Time = time.UnixMicro(*sp.Timestamp).UTC()
	}
	tag := func(k string) string { return sp.Tags[k] }
	rec.Method = tag("http.method")
	rec.Path = tag("http.route")
	if rec.Path == "" {
		rec.Path = tag("http.path")
	}
	if rec.Path == "" {
		rec.Path = sp.Name
	}
	if strings.EqualFold(sp.Kind, "client") && sp.RemoteEndpoint != nil {
		rec.Host = sp.RemoteEndpoint.ServiceName
	} else if sp.LocalEndpoint != nil {
		rec.Host = sp.LocalEndpoint.ServiceName
	}
	if s := tag("http.status_code"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 || n > 999 {
			return rec, false, fmt.Errorf("http.status_code %q is not a status", s)
		}
		rec.Status = n
		return rec, false, nil
	}
	if msg, ok := sp.Tags["error"]; ok {
		rec.ErrMsg = msg
		rec.Err = classifyError(msg)
		return rec, false, nil
	}
	rec.Status = answeredNoStatus
	return rec, true, nil
}
