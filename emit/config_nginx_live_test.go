package emit

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNginxEmittedLive runs the emitted nginx configuration in the real nginx (Debian's
// nginx-light) in front of serve on loopback, and checks what the emission says it does and
// does not bound: a hang ends with 504 at proxy_read_timeout (one try: nginx tries the one
// server of the upstream once), and a body dripping a byte every 250 ms, inside the 400 ms read
// timeout, is never cut — nginx has no total, as the emission's Missing says. Written as the
// bare 400 ms, nginx's lazy timer (nginxTimerLazy) cut that drip at 400 ms. It measures wall-clock times, so
// it runs where .ci/run sets PATIENCE_REALCLIENTS=1, and only where nginx is installed.
func TestNginxEmittedLive(t *testing.T) {
	if os.Getenv("PATIENCE_REALCLIENTS") != "1" {
		t.Skip("measures wall-clock give-up times: runs where .ci/run sets PATIENCE_REALCLIENTS=1")
	}
	bin, err := exec.LookPath("nginx")
	if err != nil {
		t.Skip("nginx is not installed (Debian: nginx-light)")
	}
	rec := realRecommendation("GET")
	read := time.Duration(*rec.ReadTimeoutMs * float64(time.Millisecond))
	total := time.Duration(rec.TimeoutMs * float64(time.Millisecond))
	cases := []struct {
		name, fault string
		status      int
		check       func(t *testing.T, elapsed time.Duration, body []byte)
	}{
		{"healthy", "", http.StatusOK, nil},
		// The hang ends at proxy_read_timeout: the read timeout and the lazy timer's 300 ms.
		{"hang", "{hang: 100%}", http.StatusGatewayTimeout, func(t *testing.T, elapsed time.Duration, _ []byte) {
			silence := read + nginxTimerLazy
			if bound := silence + silence/10 + 100*time.Millisecond; elapsed < silence || elapsed > bound {
				t.Errorf("hang: 504 after %v, want at proxy_read_timeout %v (within %v)", elapsed.Round(time.Millisecond), silence, bound)
			}
		}},
		// A byte every 250 ms, 8 bytes: each silence inside the 400 ms read timeout, the
		// whole body 2 s, past the 800 ms total nginx cannot express.
		{"drip", "{drip: 100%, every: 250ms, bytes: 1, size: 8}", http.StatusOK, func(t *testing.T, elapsed time.Duration, body []byte) {
			if len(body) != 8 || elapsed < total {
				t.Errorf("drip: %d bytes after %v, want the whole body past the %v total (nginx has no total)", len(body), elapsed.Round(time.Millisecond), total)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url, _ := serveTarget(t, c.fault)
			e, err := Emit(Nginx, Input{URL: url, Method: "GET", Name: "orders", Rec: rec})
			if err != nil {
				t.Fatal(err)
			}
			base := startNginx(t, bin, e.Text)
			start := time.Now()
			status, body := getOnce(t, base+"/orders/42")
			elapsed := time.Since(start)
			if status != c.status {
				t.Fatalf("%s: status %d after %v, want %d", c.name, status, elapsed, c.status)
			}
			if c.check != nil {
				c.check(t, elapsed, body)
			}
			t.Logf("nginx %s: %d after %v", c.name, status, elapsed.Round(time.Millisecond))
		})
	}
}

// startNginx runs nginx in the foreground with the emitted server listening on a free loopback
// port, stopped when the test ends, and returns its base URL.
func startNginx(t *testing.T, bin, text string) string {
	t.Helper()
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	if !strings.Contains(text, "listen 8080;") {
		t.Fatal("the emitted server does not listen on 8080")
	}
	text = strings.Replace(text, "listen 8080;", "listen "+addr+";", 1)
	conf := filepath.Join(dir, "emitted.conf")
	main := fmt.Sprintf("pid %[1]s/nginx.pid;\nerror_log %[1]s/error.log;\nevents {}\nhttp {\n  access_log off;\n  client_body_temp_path %[1]s/body;\n  proxy_temp_path %[1]s/proxy;\n  include %[2]s;\n}\n", dir, conf)
	for name, data := range map[string]string{conf: text, filepath.Join(dir, "nginx.conf"): main} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// One process (master_process off), so that killing it stops nginx: a master killed
	// outright leaves its workers running.
	cmd := exec.Command(bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", filepath.Join(dir, "nginx.conf"), "-g", "daemon off; master_process off;")
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx's error log:\n%s", log)
		}
	})
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			_ = c.Close()
			return "http://" + addr
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
	t.Fatalf("nginx did not start listening on %s: %s%s", addr, out, log)
	return ""
}

// getOnce makes one GET with a client bounded at 10 s (the test's own safety, far above every
// bound under test) and returns the status and the body.
func getOnce(t *testing.T, url string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}
