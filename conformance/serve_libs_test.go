package conformance

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/patience-dev/patience/live"
)

const chargeBody = `{"amount":100}`

// --- hashicorp/go-retryablehttp v0.7.8: NewClient's defaults, its Do loop, DefaultRetryPolicy
// and DefaultBackoff (wrapped only to divide the wait by the speed).

type retryablehttpClient struct{ c *retryablehttp.Client }

func newRetryablehttp(rt http.RoundTripper, speed float64) libClient {
	c := retryablehttp.NewClient()
	c.Logger = nil
	c.HTTPClient = &http.Client{Transport: rt}
	lib := c.Backoff
	c.Backoff = func(min, max time.Duration, n int, resp *http.Response) time.Duration {
		return scaleDur(lib(min, max, n, resp), speed)
	}
	return retryablehttpClient{c}
}

func (r retryablehttpClient) do(ctx context.Context, u, id string) bool {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(chargeBody))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(live.LogicalIDHeader, id)
	resp, err := r.c.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode < 300
}

// --- aws-sdk-go-v2 v1.48.0: one retry.NewStandard() per client (its quota is shared by the
// burst, as a service client's is), its retry middleware in a smithy stack; the standard
// retryer's own delay (the 2026 backoff) divided by the speed.

type scaledDelayer struct {
	std   *retry.Standard
	speed float64
}

func (s scaledDelayer) BackoffDelay(attempt int, err error) (time.Duration, error) {
	d, e := s.std.RetryDelay(attempt, err)
	return scaleDur(d, s.speed), e
}

type awsClient struct {
	r    *retry.Standard
	http *http.Client
}

func newAWS(rt http.RoundTripper, speed float64) libClient {
	lib := retry.NewStandard()
	r := retry.NewStandard(func(o *retry.StandardOptions) { o.Backoff = scaledDelayer{lib, speed} })
	return awsClient{r: r, http: &http.Client{Transport: rt}}
}

func (a awsClient) do(ctx context.Context, target, id string) bool {
	stack := middleware.NewStack("conformance", smithyhttp.NewStackRequest)
	_ = stack.Serialize.Add(middleware.SerializeMiddlewareFunc("target", func(ctx context.Context, in middleware.SerializeInput, next middleware.SerializeHandler) (middleware.SerializeOutput, middleware.Metadata, error) {
		req := in.Request.(*smithyhttp.Request)
		u, _ := url.Parse(target)
		req.URL, req.Method = u, http.MethodPost
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(live.LogicalIDHeader, id)
		var err error
		if in.Request, err = req.SetStream(strings.NewReader(chargeBody)); err != nil {
			return middleware.SerializeOutput{}, middleware.Metadata{}, err
		}
		return next.HandleSerialize(ctx, in)
	}), middleware.After)
	_ = stack.Finalize.Add(retry.NewAttemptMiddleware(a.r, smithyhttp.RequestCloner), middleware.After)
	_ = stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("status", func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleDeserialize(ctx, in)
		if err != nil {
			return out, md, err
		}
		resp := out.RawResponse.(*smithyhttp.Response)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			return out, md, &smithyhttp.ResponseError{Response: resp, Err: &smithy.GenericAPIError{Code: http.StatusText(resp.StatusCode)}}
		}
		return out, md, nil
	}), middleware.After)
	h := middleware.DecorateHandler(smithyhttp.NewClientHandler(a.http), stack)
	_, _, err := h.Handle(ctx, struct{}{})
	return err == nil
}

// --- cenkalti/backoff: the operation is a net/http POST (no client timeout) that returns an
// error for a transport failure, 408, 429 and 5xx except 501 — what the preset models.

var errRetryable = errors.New("retryable status")

func cenkaltiOp(ctx context.Context, c *http.Client, u, id string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(chargeBody))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(live.LogicalIDHeader, id)
	resp, err := c.Do(req)
	if err != nil {
		return false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s := resp.StatusCode
	if s == 408 || s == 429 || (s >= 500 && s != 501) {
		return false, errRetryable
	}
	return s < 300, nil
}

// modelClock is the simulation's time for v4's MaxElapsedTime: the origin plus the waits the
// library has asked for (in scenario time) plus the model's service time of the attempts
// made (attemptCounter). The library's elapsed-time rule is then judged on the simulation's
// time axis; on the wall clock a busy machine's loopback cost × 500 would eat the 15
// minutes and make it give up attempts early. The waits themselves still run on the wall
// clock and the latency compared is measured there.
type modelClock struct {
	origin time.Time
	waited *time.Duration
	model  func() time.Duration
}

func (c modelClock) Now() time.Time { return c.origin.Add(*c.waited + c.model()) }

type scaledBackOff4 struct {
	b      *backoffv4.ExponentialBackOff
	speed  float64
	waited *time.Duration
}

func (s scaledBackOff4) NextBackOff() time.Duration {
	d := s.b.NextBackOff()
	if d == backoffv4.Stop {
		return d
	}
	*s.waited += d
	return scaleDur(d, s.speed)
}
func (s scaledBackOff4) Reset() { s.b.Reset() }

type cenkaltiV4 struct {
	c       *http.Client
	counter *attemptCounter
	speed   float64
}

func newCenkaltiV4(rt http.RoundTripper, speed float64) libClient {
	return cenkaltiV4{c: &http.Client{Transport: rt}, counter: rt.(*attemptCounter), speed: speed}
}

func (k cenkaltiV4) do(ctx context.Context, u, id string) bool {
	b := backoffv4.NewExponentialBackOff() // v4.3.0 defaults, MaxElapsedTime 15m
	waited := new(time.Duration)
	b.Clock = modelClock{origin: time.Now(), waited: waited, model: func() time.Duration {
		k.counter.mu.Lock()
		defer k.counter.mu.Unlock()
		return k.counter.model[id]
	}}
	b.Reset()
	var ok bool
	err := backoffv4.Retry(func() error {
		var err error
		ok, err = cenkaltiOp(ctx, k.c, u, id)
		return err
	}, backoffv4.WithContext(scaledBackOff4{b, k.speed, waited}, ctx))
	return err == nil && ok
}

type scaledBackOff5 struct {
	b     *backoffv5.ExponentialBackOff
	speed float64
}

func (s scaledBackOff5) NextBackOff() time.Duration {
	d := s.b.NextBackOff()
	if d == backoffv5.Stop {
		return d
	}
	return scaleDur(d, s.speed)
}
func (s scaledBackOff5) Reset() { s.b.Reset() }

type cenkaltiV5 struct {
	c     *http.Client
	speed float64
}

func newCenkaltiV5(rt http.RoundTripper, speed float64) libClient {
	return cenkaltiV5{c: &http.Client{Transport: rt}, speed: speed}
}

func (k cenkaltiV5) do(ctx context.Context, u, id string) bool {
	ok, err := backoffv5.Retry(ctx, func() (bool, error) { return cenkaltiOp(ctx, k.c, u, id) },
		backoffv5.WithBackOff(scaledBackOff5{backoffv5.NewExponentialBackOff(), k.speed}),
		backoffv5.WithMaxElapsedTime(scaleDur(backoffv5.DefaultMaxElapsedTime, k.speed)))
	return err == nil && ok
}

// TestServe runs every library's real client against patience serve for each case, beside
// the preset's replay, simulated and live. The cases run in parallel: most of the time is
// spent waiting.
func TestServe(t *testing.T) {
	libs := []struct {
		preset, label string
		speed         float64
		giveUp        time.Duration // the longest give-up the preset allows (for the drain)
		build         func(http.RoundTripper, float64) libClient
		// skip names cases left out: v5's Retry measures its 15 minutes with time.Since, so
		// on a busy machine the loopback cost (× 500) eats into them and it gives up
		// attempts early; v4's clock is injectable and runs in model time (modelClock).
		skip []string
		// skipLive leaves out the comparison with the live replay for the cases that run into
		// a deadline: the live replay's deadline is the wall clock × speed, which the same
		// loopback cost eats at speed 500 (a fidelity limit of --live at that speed). A hanging
		// target is one of them: with no attempt timeout (cenkalti) every request hangs until
		// the run's horizon, which both sides reach by the wall clock × 500 (measured: real
		// 51 s, live 50.2 s, against a ±0.49 s tolerance — 1.6 ms of wall time); the simulated
		// comparison of the same case still runs.
		skipLive []string
	}{
		// 1+2+4+8 s of waits; Retry-After 1–2 s each.
		{"retryablehttp", "", 20, 20 * time.Second, newRetryablehttp, nil, nil},
		// waits of at most 50ms, 100ms (1 s, 2 s after a 429).
		{"aws-standard", "", 10, 5 * time.Second, newAWS, nil, nil},
		// 15 minutes of retries before giving up.
		{"cenkalti", "v4.3.0: ", 500, 16 * time.Minute, newCenkaltiV4, nil, []string{"always 503", "429 Retry-After 1 (delay-seconds)", "429 Retry-After HTTP-date +2s", "500 with Retry-After 1", "hanging target"}},
		{"cenkalti", "v5.0.3: ", 500, 16 * time.Minute, newCenkaltiV5, []string{"always 503", "429 Retry-After 1 (delay-seconds)", "429 Retry-After HTTP-date +2s", "500 with Retry-After 1"}, []string{"hanging target"}},
	}
	for _, l := range libs {
		t.Run(l.preset+"/"+l.label, func(t *testing.T) {
			t.Parallel() // the libraries side by side, each one's cases one after another
			for _, fc := range faultCases(l.giveUp) {
				if slices.Contains(l.skip, fc.name) {
					continue
				}
				t.Run(fc.name, func(t *testing.T) {
					serveCompare(t, l.preset, l.label, fc, l.speed, slices.Contains(l.skipLive, fc.name), l.build)
				})
			}
		})
	}
}
