package conformance

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/patience-dev/patience/policy"
)

// awsStatusError is the error the SDK's deserializers return for an unmodelled error
// response: a smithy ResponseError around a GenericAPIError.
func awsStatusError(status int) error {
	return &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status, Header: http.Header{}}},
		Err:      &smithy.GenericAPIError{Code: http.StatusText(status), Message: "scripted"},
	}
}

// TestAWSStandardDelays samples retry.NewStandard()'s own RetryDelay (aws/retry v1.48.0,
// jitter_backoff.go backoffDelay2026) after a 503 and after a 429 and compares each retry's
// delay with the preset's.
func TestAWSStandardDelays(t *testing.T) {
	const n = 4000
	r := retry.NewStandard()
	p := preset(t, "aws-standard")
	for _, status := range []int{503, 500, 429} {
		o := policy.Outcome{Kind: policy.Status, Status: status}
		for attempt := 1; attempt <= 2; attempt++ {
			lib := make([]time.Duration, n)
			for i := range lib {
				d, err := r.RetryDelay(attempt, awsStatusError(status))
				if err != nil {
					t.Fatal(err)
				}
				lib[i] = d
			}
			pre := presetWaits(p, o, attempt, n, uint64(status*10+attempt))
			sc := presetSchedule(p, policy.Request{}, time.Time{}, reply{status: status})
			ok, why := sampleStats(lib, pre, sc.lo[attempt-1], sc.hi[attempt-1])
			record(t, "aws-standard", "delay distribution after "+itoa(status)+", retry "+itoa(attempt), ok, "%s", why)
		}
	}
}

// TestAWSStandardLegacyDelays: the legacy formula (NewExponentialJitterBackoff, the default up
// to v1.47.x) against aws-standard-legacy.
func TestAWSStandardLegacyDelays(t *testing.T) {
	const n = 4000
	b := retry.NewExponentialJitterBackoff(retry.DefaultMaxBackoff)
	p := preset(t, "aws-standard-legacy")
	o := policy.Outcome{Kind: policy.Status, Status: 503}
	for attempt := 1; attempt <= 2; attempt++ {
		lib := make([]time.Duration, n)
		for i := range lib {
			lib[i], _ = b.BackoffDelay(attempt, awsStatusError(503))
		}
		pre := presetWaits(p, o, attempt, n, uint64(attempt))
		sc := presetSchedule(p, policy.Request{}, time.Time{}, reply{status: 503})
		ok, why := sampleStats(lib, pre, sc.lo[attempt-1], sc.hi[attempt-1])
		record(t, "aws-standard-legacy", "delay distribution after 503, retry "+itoa(attempt), ok, "%s", why)
	}
}

// TestAWSStandardRetryable: which outcomes the standard retryer retries (IsErrorRetryable)
// against the preset's classification, for a POST without an idempotency key: the SDK does not
// look at the method.
func TestAWSStandardRetryable(t *testing.T) {
	r := retry.NewStandard()
	p := preset(t, "aws-standard")
	post := policy.Request{Method: "POST"}
	for _, status := range []int{400, 403, 404, 408, 409, 429, 500, 501, 502, 503, 504, 505} {
		lib := r.IsErrorRetryable(awsStatusError(status))
		pre := p.Retryable(post, policy.Outcome{Kind: policy.Status, Status: status})
		record(t, "aws-standard", "retryable statuses (POST, no key)", lib == pre, "%d: library %v, preset %v", status, lib, pre)
	}
	transport := map[policy.OutcomeKind]error{
		policy.Refused: &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}},
		policy.Reset:   &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: errors.New("read tcp: connection reset by peer")},
		policy.Timeout: &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: timeoutErr{}},
	}
	for kind, err := range transport {
		lib := r.IsErrorRetryable(err)
		pre := p.Retryable(post, policy.Outcome{Kind: kind})
		record(t, "aws-standard", "retryable transport errors (POST, no key)", lib == pre, "%s: library %v, preset %v", kind, lib, pre)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestAWSStandardQuota drives the standard retryer's own retry quota (GetRetryToken,
// GetAttemptToken and their releases, as the retry middleware calls them) through a scripted
// day and compares the bucket with the preset's TokenBucket after every step.
func TestAWSStandardQuota(t *testing.T) {
	lim := ratelimit.NewTokenRateLimit(retry.DefaultRetryRateTokens)
	r := retry.NewStandard(func(o *retry.StandardOptions) { o.RateLimiter = lim })
	p := preset(t, "aws-standard")
	tb := policy.NewTokenBucket(p.Budget)
	ctx := context.Background()
	// 30 operations failing with 503 (2 retries each), 20 with 429, then one first-try success
	// and one that succeeds on its retry (refund).
	fail := func(status int) {
		err := awsStatusError(status)
		o := policy.Outcome{Kind: policy.Status, Status: status}
		c := policy.NewCall(p, policy.Request{}, 0)
		for range 2 {
			if _, e := r.GetRetryToken(ctx, err); e != nil {
				break
			}
			c.Next(0, o, tb, time.Time{}, nil)
		}
	}
	check := func(step string) {
		record(t, "aws-standard", "retry quota (500, 14, 5 after 429, refund, +1)", float64(lim.Remaining()) == tb.Tokens(),
			"%s: library %d tokens, preset %v", step, lim.Remaining(), tb.Tokens())
	}
	for range 10 {
		fail(503)
	}
	check("after 10×503")
	for range 20 {
		fail(429)
	}
	check("after 20×429")
	// first-try success: the attempt token adds NoRetryIncrement.
	release, _ := r.GetAttemptToken(ctx)
	_ = release(nil)
	policy.NewCall(p, policy.Request{}, 0).Next(0, policy.Outcome{Kind: policy.Success, Status: 200}, tb, time.Time{}, nil)
	check("after a first-try success")
	// a retry that succeeds gets its cost back.
	rel, err := r.GetRetryToken(ctx, awsStatusError(500))
	if err != nil {
		t.Fatal(err)
	}
	c := policy.NewCall(p, policy.Request{}, 0)
	c.Next(0, policy.Outcome{Kind: policy.Status, Status: 500}, tb, time.Time{}, nil)
	check("after paying for a retry")
	_ = rel(nil)
	c.Next(0, policy.Outcome{Kind: policy.Success, Status: 200}, tb, time.Time{}, nil)
	check("after the retry succeeded")
	// exhaust: the library refuses exactly when the preset does.
	for i := 0; i < 200; i++ {
		_, libErr := r.GetRetryToken(ctx, awsStatusError(503))
		d := policy.NewCall(p, policy.Request{}, 0).Next(0, policy.Outcome{Kind: policy.Status, Status: 503}, tb, time.Time{}, nil)
		if (libErr == nil) != d.Retry {
			record(t, "aws-standard", "retry quota exhausted at the same retry", false, "retry %d: library allowed %v, preset %v", i, libErr == nil, d.Retry)
			return
		}
		if libErr != nil {
			break
		}
	}
	record(t, "aws-standard", "retry quota exhausted at the same retry", true, "")
}

// TestAWSStandardLoopback runs the SDK's real retry middleware (retry.NewAttemptMiddleware
// with the standard retryer, as every service client adds it) in a smithy stack whose
// transport is net/http against a loopback server with a scripted sequence of responses, and
// compares attempts, waits and what reached the server with the preset's schedule. The
// requests are POSTs without any idempotency token.
func TestAWSStandardLoopback(t *testing.T) {
	srv := newScriptServer(t)
	p := preset(t, "aws-standard")
	cases := []struct {
		check  string
		script []reply
	}{
		{"always 503: attempts, waits", []reply{{status: 503}}},
		{"a share of 500s: 500, 500, 200", []reply{{status: 500}, {status: 500}, {status: 200}}},
		{"429 with Retry-After: 2 (not read)", []reply{{status: 429, retryAfter: "2"}}},
		{"500 with Retry-After (not read)", []reply{{status: 500, retryAfter: "5"}, {status: 200}}},
		{"400 is not retried", []reply{{status: 400}}},
	}
	for _, tc := range cases {
		r := retry.NewStandard()
		srv.run(tc.script...)
		_ = awsCall(t, r, srv.URL)
		sc := presetSchedule(p, policy.Request{Method: "POST"}, time.Now(), tc.script...)
		ok := srv.attempts() == sc.attempts
		why := ""
		if ok {
			ok, why = gapsWithin(srv.gaps(), sc)
		} else {
			why = "attempts " + itoa(srv.attempts()) + ", preset " + itoa(sc.attempts)
		}
		record(t, "aws-standard", "loopback: "+tc.check, ok, "%s", why)
		srv.mu.Lock()
		for _, m := range srv.methods {
			if m != http.MethodPost {
				t.Errorf("method %s", m)
			}
		}
		srv.mu.Unlock()
	}
}

// awsCall sends one POST through a smithy stack with the SDK's retry middleware.
func awsCall(t *testing.T, r *retry.Standard, target string) error {
	t.Helper()
	stack := middleware.NewStack("conformance", smithyhttp.NewStackRequest)
	err := stack.Serialize.Add(middleware.SerializeMiddlewareFunc("target", func(ctx context.Context, in middleware.SerializeInput, next middleware.SerializeHandler) (middleware.SerializeOutput, middleware.Metadata, error) {
		req := in.Request.(*smithyhttp.Request)
		u, _ := url.Parse(target)
		req.URL, req.Method = u, http.MethodPost
		req.Header.Set("Content-Type", "application/json")
		var err error
		if in.Request, err = req.SetStream(strings.NewReader(`{"amount":100}`)); err != nil {
			return middleware.SerializeOutput{}, middleware.Metadata{}, err
		}
		return next.HandleSerialize(ctx, in)
	}), middleware.After)
	if err != nil {
		t.Fatal(err)
	}
	if err := stack.Finalize.Add(retry.NewAttemptMiddleware(r, smithyhttp.RequestCloner), middleware.After); err != nil {
		t.Fatal(err)
	}
	err = stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("status", func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleDeserialize(ctx, in)
		if err != nil {
			return out, md, err
		}
		resp := out.RawResponse.(*smithyhttp.Response)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			return out, md, &smithyhttp.ResponseError{Response: resp, Err: &smithy.GenericAPIError{Code: http.StatusText(resp.StatusCode)}}
		}
		return out, md, nil
	}), middleware.After)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	h := middleware.DecorateHandler(smithyhttp.NewClientHandler(client), stack)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, err = h.Handle(ctx, struct{}{})
	return err
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 && n >= 0 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}
