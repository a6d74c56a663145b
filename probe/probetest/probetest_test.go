package probetest

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestStallWait(t *testing.T) {
	period, freeze := 5*time.Second, 500*time.Millisecond
	for _, tc := range []struct{ at, want time.Duration }{
		{0, 0}, {4499 * time.Millisecond, 0}, {4500 * time.Millisecond, 500 * time.Millisecond},
		{4900 * time.Millisecond, 100 * time.Millisecond}, {5 * time.Second, 0}, {9750 * time.Millisecond, 250 * time.Millisecond},
	} {
		if got := StallWait(tc.at, period, freeze); got != tc.want {
			t.Errorf("StallWait(%v) = %v, want %v", tc.at, got, tc.want)
		}
	}
}

func TestExpQuantile(t *testing.T) {
	for _, tc := range []struct{ q, want float64 }{{0.5, 13.47}, {0.9, 21.51}, {0.95, 24.98}, {0.99, 33.03}} {
		if got := ExpQuantile(tc.q); math.Abs(got-tc.want) > 0.005 {
			t.Errorf("ExpQuantile(%g) = %.3f, want %.2f", tc.q, got, tc.want)
		}
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	if _, err := Listen("0.0.0.0:0", Fast()); err == nil {
		t.Error("Listen accepted a non-loopback address")
	}
	s, err := Start(Fast())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status %d", resp.StatusCode)
	}
}

func TestRecord(t *testing.T) {
	r := &Record{}
	for i := 1; i <= 100; i++ {
		r.add(time.Duration(i) * time.Millisecond)
	}
	st := r.Stats()
	if st.Count != 100 || math.Abs(st.P50Ms-50) > 0.1 || math.Abs(st.P99Ms-99) > 0.1 {
		t.Errorf("stats %+v", st)
	}
	r.Reset()
	if r.Stats().Count != 0 {
		t.Error("Reset kept samples")
	}
}

// TestStallRecorded: a request inside a freeze is held to its end, answered with a
// Content-Length body, and recorded by the server; the stats endpoint of Mux clears it.
func TestStallRecorded(t *testing.T) {
	period, freeze := 5*time.Second, 500*time.Millisecond
	// Now is 300 ms before the end of a freeze.
	h, rec := StallRecorded(time.Now().Add(-(period - 300*time.Millisecond)), period, freeze)
	s, err := Start(h)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok\n" || resp.ContentLength != 3 {
		t.Errorf("body %q length %d, want \"ok\\n\" 3", body, resp.ContentLength)
	}
	// The handler records after its response is flushed, so the client can read the body
	// before the record exists: wait for it (bounded).
	st := rec.Stats()
	for deadline := time.Now().Add(5 * time.Second); st.Count == 0 && time.Now().Before(deadline); st = rec.Stats() {
		time.Sleep(time.Millisecond)
	}
	// The handler waits what is left of the freeze: 300 ms less however late it started
	// (plus timer overshoot, never near a second).
	if st.Count != 1 || st.P50Ms < 100 || st.P50Ms > 1000 {
		t.Errorf("server record %+v, want one request held about 300 ms", st)
	}
}

// orderWriter notes the order in which held responses are written.
type orderWriter struct {
	*httptest.ResponseRecorder
	seq   *atomic.Int64
	order int64
	at    time.Time
}

func (w *orderWriter) Write(b []byte) (int, error) {
	w.order, w.at = w.seq.Add(1), time.Now()
	return w.ResponseRecorder.Write(b)
}

// TestStallReleasesOldestFirst: requests held by one freeze are answered after it ends, in
// the order they arrived, as a frozen server draining its queue would.
func TestStallReleasesOldestFirst(t *testing.T) {
	period, freeze := 5*time.Second, 500*time.Millisecond
	// Now is 150 ms before the end of a freeze.
	epoch := time.Now().Add(-(period - 150*time.Millisecond))
	end := epoch.Add(period)
	h, rec := StallRecorded(epoch, period, freeze)
	var seq atomic.Int64
	writers := make([]*orderWriter, 4)
	var wg sync.WaitGroup
	for i := range writers {
		w := &orderWriter{ResponseRecorder: httptest.NewRecorder(), seq: &seq}
		writers[i] = w
		wg.Go(func() { h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil)) })
		time.Sleep(10 * time.Millisecond) // arrival order is send order
	}
	wg.Wait()
	for i, w := range writers {
		if w.order != int64(i+1) {
			t.Errorf("request %d answered as number %d, want oldest first", i+1, w.order)
		}
		if w.at.Before(end) {
			t.Errorf("request %d answered %v before the freeze ended", i+1, end.Sub(w.at))
		}
		if w.Body.String() != "ok\n" || w.Header().Get("Content-Length") != "3" {
			t.Errorf("request %d: body %q, Content-Length %q", i+1, w.Body.String(), w.Header().Get("Content-Length"))
		}
	}
	if st := rec.Stats(); st.Count != 4 {
		t.Errorf("server record counts %d requests, want 4", st.Count)
	}
}
