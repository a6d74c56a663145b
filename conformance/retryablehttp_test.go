package conformance

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/patience-dev/patience/policy"
)

// TestRetryablehttpBackoff drives go-retryablehttp v0.7.8's DefaultBackoff with NewClient's
// defaults (1s, 30s) for each retry and response, and compares it with the preset's wait:
// Retry-After replaces the backoff on 429 and 503 only, uncapped, "0" and past dates meaning
// now; other statuses keep 1, 2, 4, 8s.
func TestRetryablehttpBackoff(t *testing.T) {
	c := retryablehttp.NewClient()
	p := preset(t, "retryablehttp")
	now := time.Now().UTC()
	cases := []struct {
		check string
		r     reply
	}{
		{"backoff 1,2,4,8s without Retry-After", reply{status: 503}},
		{"Retry-After seconds on 503 replaces", reply{status: 503, retryAfter: "3"}},
		{"Retry-After 0 on 429 means now", reply{status: 429, retryAfter: "0"}},
		{"Retry-After 120 on 429 uncapped", reply{status: 429, retryAfter: "120"}},
		{"Retry-After HTTP-date on 429", reply{status: 429, retryAfter: now.Add(90 * time.Second).Format(http.TimeFormat)}},
		{"Retry-After past date means now", reply{status: 429, retryAfter: now.Add(-time.Hour).Format(http.TimeFormat)}},
		{"Retry-After on 500 not read", reply{status: 500, retryAfter: "3"}},
		{"malformed Retry-After falls back", reply{status: 503, retryAfter: "soon"}},
	}
	for _, tc := range cases {
		o := tc.r.outcome()
		call := policy.NewCall(p, policy.Request{}, 0)
		for i := 0; i < 4; i++ {
			resp := &http.Response{StatusCode: tc.r.status, Header: http.Header{}}
			if tc.r.retryAfter != "" {
				resp.Header.Set("Retry-After", tc.r.retryAfter)
			}
			lib := c.Backoff(c.RetryWaitMin, c.RetryWaitMax, i, resp)
			d := call.Next(0, o, nil, time.Now(), nil)
			// An HTTP-date is read against the clock by both; allow the second between.
			ok := d.Retry && absDur(lib-d.Wait) <= time.Second
			record(t, "retryablehttp", tc.check, ok, "retry %d: library %v, preset %v (%s)", i+1, lib, d.Wait, d.Reason)
		}
	}
}

// TestRetryablehttpRetryPolicy: DefaultRetryPolicy's verdict on each status and transport
// error against the preset's for a POST without a key (the library never looks at the method).
func TestRetryablehttpRetryPolicy(t *testing.T) {
	p := preset(t, "retryablehttp")
	post := policy.Request{Method: "POST"}
	ctx := context.Background()
	for _, status := range []int{200, 400, 404, 408, 409, 429, 500, 501, 502, 503, 504, 599} {
		lib, _ := retryablehttp.DefaultRetryPolicy(ctx, &http.Response{StatusCode: status}, nil)
		o := reply{status: status}.outcome()
		pre := o.Kind != policy.Success && p.Retryable(post, o)
		record(t, "retryablehttp", "retryable statuses (POST, no key)", lib == pre, "%d: library %v, preset %v", status, lib, pre)
	}
	for _, kind := range []policy.OutcomeKind{policy.Refused, policy.Reset, policy.Timeout, policy.ConnectTimeout} {
		lib, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, errors.New(kind.String()))
		pre := p.Retryable(post, policy.Outcome{Kind: kind})
		record(t, "retryablehttp", "retryable transport errors (POST, no key)", lib == pre, "%s: library %v, preset %v", kind, lib, pre)
	}
	if c := retryablehttp.NewClient(); c.HTTPClient.Timeout != p.Timeout || c.RetryMax+1 != p.Retry.MaxAttempts {
		record(t, "retryablehttp", "defaults: attempts, no client timeout", false, "library %d attempts timeout %v, preset %d %v", c.RetryMax+1, c.HTTPClient.Timeout, p.Retry.MaxAttempts, p.Timeout)
	} else {
		record(t, "retryablehttp", "defaults: attempts, no client timeout", true, "")
	}
}

// TestRetryablehttpLoopback sends POSTs (with a body, no key) through the real client against
// a scripted loopback server. The waits are scaled down — RetryWaitMin 10ms, RetryWaitMax
// 80ms on both the client and a copy of the preset — so the whole schedule fits in a second;
// Retry-After values are the real seconds.
func TestRetryablehttpLoopback(t *testing.T) {
	srv := newScriptServer(t)
	p := preset(t, "retryablehttp")
	p.Retry.Base, p.Retry.Cap = 10*time.Millisecond, 80*time.Millisecond
	cases := []struct {
		check  string
		script []reply
	}{
		{"loopback: always 503", []reply{{status: 503}}},
		{"loopback: a share of 500s, 501 stops", []reply{{status: 500}, {status: 502}, {status: 501}}},
		{"loopback: 429 Retry-After 0 replaces", []reply{{status: 429, retryAfter: "0"}}},
		{"loopback: 503 Retry-After 1 then 200", []reply{{status: 503, retryAfter: "1"}, {status: 200}}},
		{"loopback: 500 Retry-After ignored", []reply{{status: 500, retryAfter: "1"}, {status: 500, retryAfter: "1"}, {status: 200}}},
		{"loopback: 429 HTTP-date Retry-After", []reply{{status: 429, retryAfter: time.Now().Add(-time.Minute).UTC().Format(http.TimeFormat)}, {status: 200}}},
	}
	for _, tc := range cases {
		c := retryablehttp.NewClient()
		c.Logger = nil
		c.RetryWaitMin, c.RetryWaitMax = p.Retry.Base, p.Retry.Cap
		srv.run(tc.script...)
		req, err := retryablehttp.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"amount":100}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		sc := presetSchedule(p, policy.Request{Method: "POST"}, time.Now(), tc.script...)
		ok, why := srv.attempts() == sc.attempts, ""
		if ok {
			ok, why = gapsWithin(srv.gaps(), sc)
		} else {
			why = "attempts " + itoa(srv.attempts()) + ", preset " + itoa(sc.attempts)
		}
		record(t, "retryablehttp", tc.check, ok, "%s", why)
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
