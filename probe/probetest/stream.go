package probetest

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// StreamConfig shapes the streaming target (Stream): every response is Events events, the
// first FirstEvent after the request was read, each next one Gap after the one before,
// each written and flushed on its own (a chunk of a chunked body). No randomness: the same
// config streams the same way every time.
type StreamConfig struct {
	// Format is "sse" (text/event-stream, "data: …" events ending at a blank line, the last
	// one followed, in the same write, by the "data: [DONE]" sentinel, as serve and LLM APIs
	// end a stream), "ndjson" (application/x-ndjson, one JSON object a line) or "text"
	// (text/plain chunks without delimiters, for --stream) or "grpc" (application/grpc,
	// each event a length-prefixed message; over h2c it is a gRPC server stream as the
	// probe sees one, grpc-status trailer aside). Empty: "sse".
	Format     string
	FirstEvent time.Duration
	Gap        time.Duration
	// Events is the number of events of a whole stream (the SSE [DONE] sentinel is not one);
	// at least 1.
	Events int
	// CutAfter > 0 cuts every CutEvery-th stream (all when CutEvery ≤ 1) after that many
	// events: the connection closes without the rest or the chunked body's terminator.
	CutAfter, CutEvery int
}

// StreamRecord is the streaming target's own record of what it sent: the first event from
// the request read to the first event's write and flush, and each gap between two
// consecutive flushes.
type StreamRecord struct {
	FirstEvent, Gap Record
}

// Stream is the streaming target and its own record.
func Stream(cfg StreamConfig) (http.Handler, *StreamRecord) {
	rec := &StreamRecord{}
	events := max(cfg.Events, 1)
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		cut := cfg.CutAfter > 0 && (cfg.CutEvery <= 1 || n.Add(1)%int64(cfg.CutEvery) == 0)
		w.Header().Set("Content-Type", streamContentType(cfg.Format))
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		last := start
		var buf []byte // one event at a time, reused: the target allocates nothing per event
		for i := range events {
			if cut && i == cfg.CutAfter {
				panic(http.ErrAbortHandler) // net/http closes the connection: no terminator
			}
			wait := cfg.Gap
			if i == 0 {
				wait = cfg.FirstEvent
			}
			if !sleepCtx(r, last.Add(wait)) {
				return
			}
			buf = appendEvent(buf[:0], cfg.Format, i, events)
			if _, err := w.Write(buf); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
			now := time.Now()
			if i == 0 {
				rec.FirstEvent.add(now.Sub(start))
			} else {
				rec.Gap.add(now.Sub(last))
			}
			last = now
		}
	}), rec
}

// sleepCtx waits until t or the client going away (false then).
func sleepCtx(r *http.Request, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return r.Context().Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func streamContentType(format string) string {
	switch format {
	case "ndjson":
		return "application/x-ndjson"
	case "text":
		return "text/plain; charset=utf-8"
	case "grpc":
		return "application/grpc"
	}
	return "text/event-stream"
}

// appendEvent appends event i of n in format to b.
func appendEvent(b []byte, format string, i, n int) []byte {
	switch format {
	case "ndjson":
		b = strconv.AppendInt(append(b, `{"i":`...), int64(i), 10)
		return append(b, "}\n"...)
	case "text":
		b = strconv.AppendInt(append(b, "chunk "...), int64(i), 10)
		return append(b, '\n')
	case "grpc":
		b = append(b, 0, 0, 0, 0, 0)
		start := len(b)
		b = strconv.AppendInt(b, int64(i), 10)
		b[start-1] = byte(len(b) - start)
		return b
	}
	b = strconv.AppendInt(append(b, "event: token\ndata: {\"i\":"...), int64(i), 10)
	b = append(b, "}\n\n"...)
	if i == n-1 {
		b = append(b, "data: [DONE]\n\n"...)
	}
	return b
}

// StreamStats is a snapshot of a StreamRecord in milliseconds.
type StreamStats struct {
	FirstEvent RecordStats `json:"first_event"`
	Gap        RecordStats `json:"gap"`
}

// Stats returns the record so far and clears it.
func (r *StreamRecord) Stats() StreamStats {
	st := StreamStats{FirstEvent: r.FirstEvent.Stats(), Gap: r.Gap.Stats()}
	r.FirstEvent.Reset()
	r.Gap.Reset()
	return st
}
