package advise

import (
	"math"
	"strings"
	"testing"
)

// TestALBUnansweredRows reads advise/testdata/alb-unanswered-fixes.log, written for this test:
// two answered rows (4 ms, 8 ms), a 504 and a 460 whose processing times are -1, and the
// load balancer's own 400 for a malformed request.
func TestALBUnansweredRows(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/alb-unanswered-fixes.log"}})
	// AWS "Access log entries" (Application Load Balancers): the three processing times are
	// -1 when the target did not answer before the timeout (504) or the connection was
	// closed first (460); `time` is when the load balancer answered the client and
	// request_creation_time when it received the request. Both rows are unanswered requests,
	// counted as timeouts (no answer), at 10 s and 6 s.
	if r.Requests != 5 || r.Errors["timeout"] != 2 || r.Responses != 3 {
		t.Fatalf("requests %d, timeouts %d, responses %d: want 5, 2 (the 504 and the 460), 3", r.Requests, r.Errors["timeout"], r.Responses)
	}
	if r.Status["504"] != 0 || r.Status["460"] != 0 || r.Status["400"] != 1 || r.Status["200"] != 2 {
		t.Errorf("status %v: the 504 and 460 are unanswered, the 400 is the load balancer's answer", r.Status)
	}
	// The longest unanswered request bounds the censoring: 10 s (12.5 − 2.5).
	if math.Abs(r.MaxTimeoutMs-10000) > 0.5 {
		t.Errorf("max_timeout_ms %v, want 10000 (time − request_creation_time of the 504)", r.MaxTimeoutMs)
	}
	// 2 of 5 requests got no answer: no timeout is derived from the two fast ones (the bug:
	// a 10 ms timeout from 4 and 8 ms while the rest took 6 and 10 s).
	if r.Recommendation.TimeoutMs != 0 || r.Recommendation.BasisMs != 0 {
		t.Errorf("timeout %v basis %v: want none while 40%% of requests got no answer", r.Recommendation.TimeoutMs, r.Recommendation.BasisMs)
	}
	if !strings.Contains(r.ErrorSamples["timeout"].Message, "after 10s") {
		t.Errorf("timeout sample %q: want the 504's duration", r.ErrorSamples["timeout"].Message)
	}
}

// TestClassicELB reads advise/testdata/classic-elb-fixes.log (written for this test), its
// format detected: a Classic ELB entry has no type field (AWS, "Access logs for your Classic
// Load Balancer": time elb client:port backend:port request_processing_time
// backend_processing_time response_processing_time elb_status_code backend_status_code …),
// no request_creation_time, and a TCP listener's entry has "-" statuses.
func TestClassicELB(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/classic-elb-fixes.log"}})
	if Format(r.Source.Format) != FormatALB {
		t.Errorf("format %s: albLine recognises a Classic ELB entry", r.Source.Format)
	}
	if r.Requests != 2 || r.Status["200"] != 1 || r.Errors["timeout"] != 1 {
		t.Fatalf("requests %d status %v errors %v: want the 200 and the 504 (unanswered, duration unknown)", r.Requests, r.Status, r.Errors)
	}
	if math.Abs(*r.Phases.Total.MaxMs-120) > 0.2 {
		t.Errorf("total max %v ms, want backend_processing_time 0.120 s", *r.Phases.Total.MaxMs)
	}
	if r.Source.Malformed != 1 || !strings.Contains(r.Source.MalformedSample[0], ":3: elb_status_code \"-\": a Classic ELB TCP-listener entry") {
		t.Errorf("malformed %v: want line 3, the TCP listener's entry, named", r.Source.MalformedSample)
	}
}

// TestHAProxyLineShapes reads advise/testdata/haproxy-shapes-fixes.log (written for this
// test): every line is read, or counted malformed with its reason.
func TestHAProxyLineShapes(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/haproxy-shapes-fixes.log"}, Format: FormatHAProxy})
	// Lines 2 and 3 are answered (line 3 with a destination between server and timers, as
	// filebeat's haproxy pipeline allows: "(%{IPORHOST:destination.address} )?"); line 4's
	// termination state sH is "the timeout server stroke before the server could return its
	// response headers" (haproxy doc/configuration.txt §8.5): unanswered after
	// Ta − TR − Tw = 30001 ms, not a 504 answer.
	if r.Requests != 3 || r.Status["200"] != 2 || r.Errors["timeout"] != 1 || r.Status["504"] != 0 {
		t.Fatalf("requests %d status %v errors %v", r.Requests, r.Status, r.Errors)
	}
	if math.Abs(r.MaxTimeoutMs-30001) > 0.5 {
		t.Errorf("max_timeout_ms %v, want 30001 (the sH line's Ta)", r.MaxTimeoutMs)
	}
	want := []string{
		`:1: an HAProxy notice ("Proxy www started."), not a request`,
		`:5: an HAProxy connection error (SSL handshake failure): no request reached a server`,
		`:6: an HAProxy tcplog line (option tcplog)`,
		`:7: an HAProxy default-format line ("Connect from …", no option httplog)`,
	}
	if r.Source.Malformed != 4 {
		t.Fatalf("malformed %d %v, want 4", r.Source.Malformed, r.Source.MalformedSample)
	}
	for i, w := range want {
		if !strings.Contains(r.Source.MalformedSample[i], w) {
			t.Errorf("malformed sample %d %q, want %q", i, r.Source.MalformedSample[i], w)
		}
	}
}
