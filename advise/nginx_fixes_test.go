package advise

import (
	"fmt"
	"math"
	"testing"
)

// TestNginxOwnTimeoutIsUnanswered reads advise/testdata/nginx-timeout-fixes.log (written for
// this test). nginx src/http/ngx_http_upstream.c, ngx_http_upstream_next: an attempt that
// timed out (NGX_HTTP_UPSTREAM_FT_TIMEOUT) gets status NGX_HTTP_GATEWAY_TIME_OUT (504) in
// $upstream_status, while its header_time — set only in ngx_http_upstream_process_header once
// a header was read — stays -1, logged "-". So "504" with "-" is nginx's own timeout: an
// unanswered request at its $upstream_response_time; "504" with a header time is the
// upstream's own 504, an answer.
func TestNginxOwnTimeoutIsUnanswered(t *testing.T) {
	f := `$remote_addr - [$time_local] "$request" $status $request_time "$upstream_status" "$upstream_header_time" "$upstream_response_time"`
	r := run(t, Options{Files: []string{"testdata/nginx-timeout-fixes.log"}, LogFormat: f})
	if r.Requests != 5 || r.Errors["timeout"] != 1 || fmt.Sprint(r.Status) != "map[200:3 504:1]" {
		t.Fatalf("requests %d timeouts %d status %v: want 5, 1 (line 3), map[200:3 504:1] (line 4's 504 is the upstream's)", r.Requests, r.Errors["timeout"], r.Status)
	}
	if math.Abs(r.MaxTimeoutMs-60001) > 0.5 {
		t.Errorf("max_timeout_ms %v, want 60001 (line 3's $upstream_response_time)", r.MaxTimeoutMs)
	}
	// Line 5: the first attempt timed out (504, "-") and nginx passed the request to the next
	// upstream, which answered in 95 ms: one request, two attempts, one unanswered attempt.
	a := r.Attempts
	if a == nil || a.Requests != 5 || a.Attempts != 6 || a.Unanswered != 1 || a.UnansweredMaxMs == nil || *a.UnansweredMaxMs != 60000 {
		t.Fatalf("attempts %+v: want 6 attempts for 5 requests, 1 unanswered (60 s)", a)
	}
	if *r.Phases.Total.MaxMs > 111 || r.Phases.Total.Count != 4 {
		t.Errorf("total %+v: want the answering attempts 110, 85, 11, 95 ms", r.Phases.Total)
	}
}

// TestNginxRequestTime504 reads advise/testdata/nginx-request-time-504-fixes.log: a log with
// $request_time only. RFC 9110 §15.6.5: a 504 means the gateway "did not receive a timely
// response" from upstream — unanswered at its $request_time.
func TestNginxRequestTime504(t *testing.T) {
	f := `$remote_addr [$time_local] "$request" $status $request_time`
	r := run(t, Options{Files: []string{"testdata/nginx-request-time-504-fixes.log"}, LogFormat: f})
	if r.Requests != 2 || r.Errors["timeout"] != 1 || r.Status["504"] != 0 || math.Abs(r.MaxTimeoutMs-60000) > 0.5 {
		t.Errorf("requests %d errors %v status %v max_timeout_ms %v: want the 504 unanswered at 60 s", r.Requests, r.Errors, r.Status, r.MaxTimeoutMs)
	}
}

// TestIngressUpstreamInfoRequestsApart reads advise/testdata/ingress-upstreaminfo-fixes.log,
// written in ingress-nginx's default log-format-upstream (kubernetes/ingress-nginx
// internal/ingress/controller/config/config.go, logFormatUpstream: … $request_time
// [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr
// $upstream_response_length $upstream_response_time $upstream_status $req_id). The upstream
// lists hold one value per attempt ("separated by commas", nginx ngx_http_upstream_module):
// 4 lines are 4 requests and 6 attempts; the error rate is per request.
func TestIngressUpstreamInfoRequestsApart(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/ingress-upstreaminfo-fixes.log"}})
	if r.Requests != 4 || fmt.Sprint(r.Status) != "map[200:2 502:1 503:1]" {
		t.Fatalf("requests %d status %v: want 4 requests, map[200:2 502:1 503:1]", r.Requests, r.Status)
	}
	a := r.Attempts
	if a == nil || a.Requests != 4 || a.Attempts != 5 || fmt.Sprint(a.ByCount) != "map[0:1 1:1 2:2]" || a.Unanswered != 1 {
		t.Fatalf("attempts %+v: want 5 attempts for 4 requests (by count 0:1 1:1 2:2), 1 unanswered", a)
	}
	if got := r.Recommendation.ErrorRate; math.Abs(got-0.5) > 1e-9 {
		t.Errorf("error rate %v, want 2 of 4 requests", got)
	}
}
