package advise

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/corpus"
)

// TestCorpusALBUnanswered: elastic/beats x-pack/filebeat/module/aws/elb/test/
// application-lb-http.log — 10 rows, 7 of them with -1 processing times: six 504s (the
// target did not answer: 10 s between request_creation_time and time, ALB's connection
// timeout to a target) and one 460 (the client closed the connection after 5.7 s). AWS
// "Access log entries" (Application Load Balancers): the processing times are -1 when the
// load balancer cannot dispatch the request or the target does not answer before the
// timeout; `time` is when the load balancer answered the client, request_creation_time
// when it received the request.
func TestCorpusALBUnanswered(t *testing.T) {
	r := run(t, Options{Files: []string{corpus.Path(t, "beats-alb.log")}})
	if r.Requests != 10 || r.Responses != 3 || r.Errors["timeout"] != 7 || r.Status["200"] != 3 {
		t.Fatalf("requests %d responses %d errors %v status %v: want 10, 3 answered (200), 7 unanswered", r.Requests, r.Responses, r.Errors, r.Status)
	}
	// The longest: 15:01:50.492440 − 15:01:40.491000 = 10.001440 s.
	if math.Abs(r.MaxTimeoutMs-10001.447) > 0.001 {
		t.Errorf("max_timeout_ms %v, want 10001.447 (15:01:35.190447 − 15:01:25.189)", r.MaxTimeoutMs)
	}
	// 70% of requests got no answer: no timeout is derived from the three 0–1 ms rows (the
	// bug: a 1.2 ms timeout) and the verdict fails.
	if r.Recommendation.TimeoutMs != 0 || r.Recommendation.BasisMs != 0 || !r.Recommendation.Verdict.Has("no_answer") {
		t.Errorf("timeout %v basis %v verdict %+v: want none, no_answer", r.Recommendation.TimeoutMs, r.Recommendation.BasisMs, r.Recommendation.Verdict)
	}
}

// TestCorpusALBDocExamples: elastic/beats x-pack/filebeat/module/aws/elb/test/
// example-alb-http.log, AWS's documented example entries. The two -1 rows are 400s (a
// malformed request the load balancer answered itself): answers, not unanswered requests.
func TestCorpusALBDocExamples(t *testing.T) {
	r := run(t, Options{Files: []string{corpus.Path(t, "beats-alb-aws-doc-examples.log")}})
	want := "map[101:2 200:4 400:2 502:1]"
	if r.Requests != 9 || fmt.Sprint(r.Status) != want || r.Errors["timeout"] != 0 || r.Source.Malformed != 0 {
		t.Errorf("requests %d status %v errors %v malformed %d: want 9, %s, no unanswered", r.Requests, r.Status, r.Errors, r.Source.Malformed, want)
	}
	// target_processing_time of the https example, 0.048 s, is the slowest answer.
	if math.Abs(*r.Phases.Total.MaxMs-48) > 0.1 {
		t.Errorf("total max %v ms, want 48", *r.Phases.Total.MaxMs)
	}
}

// TestCorpusClassicELB: elastic/beats x-pack/filebeat/module/aws/elb/test/elb-http.log, a
// Classic Load Balancer's log (no type field: AWS "Access logs for your Classic Load
// Balancer"), recognised by its first line (albLine) and read by the ALB reader: five 200s,
// backend_processing_time up to 0.00491 s. It was refused ("cannot tell the format").
func TestCorpusClassicELB(t *testing.T) {
	r := run(t, Options{Files: []string{corpus.Path(t, "beats-classic-elb.log")}})
	if Format(r.Source.Format) != FormatALB {
		t.Errorf("format %s, want alb", r.Source.Format)
	}
	if r.Requests != 5 || r.Status["200"] != 5 || r.Source.Malformed != 0 || math.Abs(*r.Phases.Total.MaxMs-4.91) > 0.01 {
		t.Errorf("requests %d status %v malformed %d max %v: want 5 × 200, max 4.91 ms", r.Requests, r.Status, r.Source.Malformed, *r.Phases.Total.MaxMs)
	}
}

// TestCorpusIngressNginxRequestsApart: elastic/beats filebeat/module/nginx/
// ingress_controller/test/test.log — 29 lines in ingress-nginx's log-format-upstream
// (kubernetes/ingress-nginx internal/ingress/controller/config/config.go). $upstream_status
// and $upstream_response_time hold one value per attempt, comma-separated (nginx
// ngx_http_upstream_module, $upstream_addr): 29 requests (it counted 33, attempts and
// requests mixed); 22 with one attempt, 5 with two, 2 that nginx answered (400) without an
// upstream; the statuses per request are $status.
func TestCorpusIngressNginxRequestsApart(t *testing.T) {
	r := run(t, Options{Files: []string{corpus.Path(t, "beats-ingress-nginx.log")}})
	if r.Requests != 29 || fmt.Sprint(r.Status) != "map[200:25 400:2 502:2]" {
		t.Fatalf("requests %d status %v: want 29 requests, map[200:25 400:2 502:2]", r.Requests, r.Status)
	}
	a := r.Attempts
	if a == nil || a.Requests != 29 || a.Attempts != 32 || fmt.Sprint(a.ByCount) != "map[0:2 1:22 2:5]" {
		t.Fatalf("attempts %+v: want 32 attempts for 29 requests, by count 0:2 1:22 2:5", a)
	}
	if got := r.Recommendation.ErrorRate; math.Abs(got-4.0/29) > 1e-9 {
		t.Errorf("error rate %v, want 4 of 29 requests", got)
	}
}

// TestCorpusHAProxyLines: every line of elastic/beats filebeat/module/haproxy/log/test/
// haproxy.log is a request: nine carry a destination between the server and the timers,
// which filebeat's own pipeline (ingest/pipeline.yml: "(%{IPORHOST:destination.address} )?")
// reads; it read 1 and counted 9 malformed.
func TestCorpusHAProxyLines(t *testing.T) {
	r := run(t, Options{Files: []string{corpus.Path(t, "beats-haproxy.log")}, Format: FormatHAProxy})
	if r.Requests != 10 || r.Source.Malformed != 0 || fmt.Sprint(r.Status) != "map[200:5 302:1 304:1 403:1 404:2]" {
		t.Fatalf("requests %d malformed %d %v status %v", r.Requests, r.Source.Malformed, r.Source.MalformedSample, r.Status)
	}
	// Line 7: Ta 2606 − TR 1 − Tw 0 = 2605 ms, the slowest.
	if math.Abs(*r.Phases.Total.MaxMs-2605) > 2 {
		t.Errorf("total max %v ms, want 2605", *r.Phases.Total.MaxMs)
	}
}

// TestCorpusLnavHAProxyLines: tstack/lnav test/logfile_haproxy.0 mixes 13 requests with
// three "Proxy … started." notices and an "SSL handshake failure" connection error
// (filebeat's pipeline reads that shape as haproxy.error_message): each counted malformed
// with what it is.
func TestCorpusLnavHAProxyLines(t *testing.T) {
	r := run(t, Options{Files: []string{corpus.Path(t, "lnav-haproxy.log")}, Format: FormatHAProxy})
	if r.Requests != 13 || r.Source.Malformed != 4 {
		t.Fatalf("requests %d malformed %d: want 13 and 4", r.Requests, r.Source.Malformed)
	}
	for i, w := range []string{":1: an HAProxy notice", ":2: an HAProxy notice", ":3: an HAProxy notice", ":14: an HAProxy connection error (SSL handshake failure)"} {
		if !strings.Contains(r.Source.MalformedSample[i], w) {
			t.Errorf("malformed %q, want %q", r.Source.MalformedSample[i], w)
		}
	}
}
