package live

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/patience-dev/patience/internal/eventscan"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
)

// Live replay of a stream target (docs/design.md §6, streams), as the simulator models it
// (sim/stream.go): the driver reads the body event by event with probe's scanner
// (internal/eventscan); the policy's first_event_timeout bounds the wait for the first event
// after the head, its read_timeout each gap after it (silence.go); a stream that ends
// cleanly is an answer, one the target cuts is a reset with reason stream_cut, one a timer
// ends is that timer's timeout. A retry after the first event restarts the stream (counted
// with its events wasted) and a success is timed to its first event, the caller's wait.

// streamBuf is the size of the buffer a stream is read with: one per attempt, whatever the
// stream's length.
const streamBuf = 4 << 10

// streamSent is what an attempt's stream sent before its end: events, and when the first
// came (scenario time; 0 with none).
type streamSent struct {
	events  int
	firstAt int64 // scenario ns
}

// readEvents reads a stream's body to its end, each read fed to the scanner; every read
// that ends an event tells the silence (the first-event, then the idle timeout) and the
// first stamps the caller's wait. io.EOF is the stream's clean end (nil).
func (r *run) readEvents(body io.Reader, kind eventscan.Kind, quiet *silence) (streamSent, error) {
	sc := eventscan.New(kind)
	buf := make([]byte, streamBuf)
	var got streamSent
	for {
		n, err := body.Read(buf)
		if k := sc.Feed(buf[:n]); k > 0 {
			quiet.event()
			if got.events == 0 {
				got.firstAt = int64(r.now())
			}
			got.events += k
		}
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
	}
}

// streamKind is the kind of resp's events when the target streams and resp is a stream (a
// 2xx whose Content-Type says so); eventscan.None otherwise: a status fault, a 503 over
// capacity or a target that does not stream is read as a whole body.
func (r *run) streamKind(resp *http.Response) eventscan.Kind {
	if r.sc.Target.Stream == nil || resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return eventscan.None
	}
	return eventscan.KindOf(resp.Header.Get("Content-Type"), false)
}

// streamResult is the result of a stream attempt whose head came: read to its end, or cut.
func (r *run) streamResult(ctx context.Context, resp *http.Response, kind eventscan.Kind, quiet *silence, info *dialInfo) result {
	got, err := r.readEvents(resp.Body, kind, quiet)
	_ = resp.Body.Close()
	res := result{stream: true, events: got.events, firstAt: got.firstAt}
	if err == nil {
		res.o, res.wallNow = policy.Outcome{Kind: policy.Success, Status: resp.StatusCode}, wallOf(resp)
		return res
	}
	c := r.classify(ctx, err, info)
	c.stream, c.events, c.firstAt = true, got.events, got.firstAt
	if !c.aborted && c.o.Kind != policy.Timeout {
		// Neither a timer of the caller's nor the run's end: the target closed the stream
		// mid-way (serve's drop), a reset to the policy (docs/design.md §6).
		c.o, c.dropped = policy.Outcome{Kind: policy.Reset}, true
	}
	return c
}

// tallyStream counts, for a stream attempt, how it ended for its caller (completed, dropped
// by the target, cut by a timer) and, when the policy retries it after its first event, the
// restart and the events thrown away; r.mu must be held. The simulator counts the same
// (sim/stream.go tallyStream, engine.go resolve).
func (r *run) tallyStream(res result, retry bool) {
	st := r.res.Streams
	if st == nil || !res.stream {
		return
	}
	switch {
	case res.o.Kind == policy.Success:
		st.Completed++
	case res.dropped:
		st.Dropped++
	case res.o.Kind == policy.Timeout:
		st.Cut++
	}
	if retry && res.events > 0 {
		st.Restarted++
		st.EventsWasted += res.events
	}
}

// streamReason is the failure reason of a final outcome: read_timeout for the read or
// first-event timeout's, stream_cut for a stream the target dropped, else the outcome's.
func streamReason(res result) string {
	switch {
	case res.read && res.o.Kind == policy.Timeout:
		return replay.ReasonReadTimeout
	case res.dropped:
		return replay.ReasonStreamCut
	}
	return replay.ReasonOf(res.o)
}

// wallOf is the time a response's Retry-After is relative to: its own Date, or now.
func wallOf(resp *http.Response) time.Time {
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		return d
	}
	return time.Now()
}
