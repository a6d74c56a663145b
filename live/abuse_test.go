package live

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// abuseScale multiplies the attack of TestServeSurvivesAbuse: 1 in `go test`,
// bench/serve-abuse.sh sets PATIENCE_ABUSE_SCALE for the full one.
func abuseScale(t *testing.T) int {
	if v := os.Getenv("PATIENCE_ABUSE_SCALE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PATIENCE_ABUSE_SCALE=%q", v)
		}
		return n
	}
	return 1
}

// dialIdle opens a connection and sends nothing.
func dialIdle(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// closedWithin says whether the server closes c (EOF or reset) within d; what it reads
// before that (a 503 past the cap) is returned.
func closedWithin(c net.Conn, d time.Duration) (string, bool) {
	_ = c.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return string(b), false
	}
	return string(b), true
}

// getOK is one ordinary client's request on a fresh connection.
func getOK(t *testing.T, url string) {
	t.Helper()
	resp, err := client(2 * time.Second).Get(url)
	if err != nil {
		t.Fatalf("an ordinary client was not answered: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("an ordinary client got %d", resp.StatusCode)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// Issue 17 item 3, scaled down (bench/serve-abuse.sh runs it full size): idle connections
// are dropped after the idle timeout and past the cap answered 503 at once; slow bodies are
// cut at the read timeout; a flood of distinct Idempotency-Keys and logical ids is held to
// the caps; over-long ids and keys are refused; a long service outlives the read timeout;
// and ordinary clients are answered throughout, with the heap flat.
func TestServeSurvivesAbuse(t *testing.T) {
	scale := abuseScale(t)
	const maxConns, maxKeys = 64, 500
	var log strings.Builder
	var logMu sync.Mutex
	s := startServer(t, target(0), ServerOptions{
		MaxConns: maxConns, MaxKeys: maxKeys, MaxLogicalIDs: maxKeys,
		ReadTimeout: 300 * time.Millisecond, IdleTimeout: 400 * time.Millisecond, WriteTimeout: time.Second,
		Log: writerFunc(func(b []byte) (int, error) { logMu.Lock(); defer logMu.Unlock(); return log.Write(b) }),
	})
	addr := strings.TrimPrefix(s.URL(), "http://")

	// Warm up, then the heap before the attack.
	for i := 0; i < 50; i++ {
		getOK(t, s.URL()+"/")
	}
	before := heapInUse()

	// 1. Idle connections below the cap: ordinary clients are still answered, and the idle
	// ones are dropped after the idle timeout.
	idle := make([]net.Conn, 0, maxConns/2)
	for range maxConns / 2 {
		idle = append(idle, dialIdle(t, addr))
	}
	getOK(t, s.URL()+"/")
	for i, c := range idle {
		if _, closed := closedWithin(c, 3*time.Second); !closed {
			t.Fatalf("idle connection %d still open after 3 s (read timeout 300 ms)", i)
		}
		_ = c.Close()
	}

	// 2. Past the cap: answered 503 at once and closed, logged; the server recovers when the
	// flood is gone.
	flood := make([]net.Conn, 0, 2*maxConns)
	for range 2 * maxConns {
		flood = append(flood, dialIdle(t, addr))
	}
	refused := 0
	for _, c := range flood[maxConns+8:] {
		if got, closed := closedWithin(c, 2*time.Second); closed && strings.HasPrefix(got, "HTTP/1.1 503") {
			refused++
		}
	}
	if refused == 0 {
		t.Error("no connection past the cap was answered 503")
	}
	for _, c := range flood {
		_ = c.Close()
	}
	logMu.Lock()
	if !strings.Contains(log.String(), "open connections, the cap") {
		t.Errorf("no log line for the cap; log:\n%s", log.String())
	}
	logMu.Unlock()
	deadline := time.Now().Add(3 * time.Second)
	for s.Stats().ConnsRefused == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the server notices the closed connections
	getOK(t, s.URL()+"/")

	// 3. Slow bodies: a body trickling one byte per 100 ms is cut at the read timeout.
	var wg sync.WaitGroup
	slowCut := make(chan bool, 8*scale)
	for range 8 * scale {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", addr, 2*time.Second)
			if err != nil {
				slowCut <- false
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
			start := time.Now()
			for time.Since(start) < 5*time.Second {
				if _, err := c.Write([]byte("x")); err != nil {
					slowCut <- true
					return
				}
				time.Sleep(100 * time.Millisecond)
				_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
				if _, err := bufio.NewReader(c).ReadByte(); err == nil || !isTimeout(err) {
					slowCut <- true // answered (400) or closed
					return
				}
			}
			slowCut <- false
		}()
	}
	getOK(t, s.URL()+"/")
	wg.Wait()
	close(slowCut)
	for cut := range slowCut {
		if !cut {
			t.Fatal("a slow body held its connection for 5 s (read timeout 300 ms)")
		}
	}

	// 4. Distinct keys and logical ids: the stores stay at their caps.
	hc := &http.Client{Timeout: 2 * time.Second}
	for i := range 2000 * scale {
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/pay", strings.NewReader(`{"n":1}`))
		req.Header.Set(IdempotencyKeyHeader, fmt.Sprintf(`"key-%d-%s"`, i, strings.Repeat("k", 200)))
		req.Header.Set(LogicalIDHeader, fmt.Sprintf("abuse:%d", i))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("keyed request %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	st := s.Stats()
	if st.Keys > maxKeys || st.KeysEvicted < int64(2000*scale-maxKeys) {
		t.Errorf("%d keys kept, %d evicted, cap %d", st.Keys, st.KeysEvicted, maxKeys)
	}
	s.mu.Lock()
	ids := s.executions.len()
	s.mu.Unlock()
	if ids > maxKeys {
		t.Errorf("%d logical ids kept, cap %d", ids, maxKeys)
	}

	// 5. Over-long ids and keys are refused, not kept.
	for _, tc := range []struct {
		header, value string
		want          int
	}{
		{LogicalIDHeader, strings.Repeat("x", 60_000), http.StatusRequestHeaderFieldsTooLarge},
		{IdempotencyKeyHeader, `"` + strings.Repeat("k", 256) + `"`, http.StatusBadRequest},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/pay", strings.NewReader("{}"))
		req.Header.Set(tc.header, tc.value)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s of %d bytes: %d, want %d", tc.header, len(tc.value), resp.StatusCode, tc.want)
		}
	}

	if after := heapInUse(); after > before+16<<20 {
		t.Errorf("heap grew from %d to %d MB under the attack", before>>20, after>>20)
	}
	getOK(t, s.URL()+"/")
}

// A service longer than the read timeout is served whole: the read deadline is lifted once
// the request is read, so it does not end the request as if the client had gone.
func TestLongServiceOutlivesReadTimeout(t *testing.T) {
	s := startServer(t, target(700*time.Millisecond), ServerOptions{ReadTimeout: 200 * time.Millisecond})
	start := time.Now()
	getOK(t, s.URL()+"/")
	if d := time.Since(start); d < 600*time.Millisecond {
		t.Fatalf("answered after %v, want the 700 ms service", d)
	}
	if st := s.Stats(); st.Wasted != 0 {
		t.Fatalf("%d requests counted as wasted: the read timeout cancelled the request", st.Wasted)
	}
}

// The idempotency store forgets a key after its TTL, and beyond its cap the least recently
// used key first.
func TestKeyStoreTTLAndLRU(t *testing.T) {
	now := time.Unix(0, 0)
	s := newKeyStoreWith(time.Hour, 2)
	s.now = func() time.Time { return now }
	fp := fingerprint(nil)
	for _, k := range []string{"a", "b"} {
		if v, _ := s.begin(k, fp); v != keyNew {
			t.Fatalf("%s: %v", k, v)
		}
		s.finish(k, &storedResponse{status: 200})
	}
	if v, _ := s.begin("a", fp); v != keyDone { // a is now the most recently used
		t.Fatalf("a: %v, want done", v)
	}
	s.begin("c", fp) // evicts b
	if v, _ := s.begin("b", fp); v != keyNew {
		t.Errorf("b after eviction: %v, want new", v)
	}
	now = now.Add(2 * time.Hour)
	if v, _ := s.begin("a", fp); v != keyNew {
		t.Errorf("a after its TTL: %v, want new", v)
	}
	if s.len() > 2 {
		t.Errorf("%d keys kept, cap 2", s.len())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
