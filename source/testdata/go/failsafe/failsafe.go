package failsafe

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

// A package-level policy: 4 retries (5 attempts), exponential from 100 ms to 5 s.
var backoffPolicy = retrypolicy.NewBuilder[*http.Response]().
	WithMaxRetries(4).
	WithBackoff(100*time.Millisecond, 5*time.Second).
	Build()

func defaults() {
	rp := retrypolicy.NewWithDefaults[*http.Response]()
	client := &http.Client{Transport: failsafehttp.NewRoundTripper(nil, rp)}
	_, _ = client.Get("https://api.example.test/a")
}

func httpBuilder() {
	rp := failsafehttp.NewRetryPolicyBuilder().
		WithMaxAttempts(4).
		WithJitterFactor(0.25).
		Build()
	client := &http.Client{Timeout: 10 * time.Second, Transport: failsafehttp.NewRoundTripper(nil, rp)}
	_, _ = client.Post("https://api.example.test/charges", "application/json", nil)
}

func packagePolicy() {
	client := http.Client{Transport: failsafehttp.NewRoundTripper(nil, backoffPolicy)}
	_, _ = client.Get("https://api.example.test/b")
}

func ownClasses() {
	rp := retrypolicy.NewBuilder[*http.Response]().
		HandleIf(func(r *http.Response, err error) bool { return err != nil || r.StatusCode == 409 }).
		WithMaxRetries(2).
		WithDelay(time.Second).
		Build()
	rt := failsafehttp.NewRoundTripperWithExecutor(nil, failsafe.With[*http.Response](rp))
	client := &http.Client{Transport: rt}
	_, _ = client.Get("https://api.example.test/c")
}

func request(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	rp := retrypolicy.NewBuilder[*http.Response]().WithMaxRetries(1).Build()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, "https://api.example.test/d", nil)
	client := &http.Client{Timeout: time.Second}
	_, _ = failsafehttp.NewRequest(req, client, rp).Do()
}

func fromCaller(rp retrypolicy.RetryPolicy[*http.Response]) {
	client := &http.Client{Transport: failsafehttp.NewRoundTripper(nil, rp)}
	_, _ = client.Get("https://api.example.test/e")
}

func plain() {
	client := &http.Client{Timeout: 2 * time.Second}
	_, _ = client.Get("https://api.example.test/f")
}

func unlimited() {
	rp := retrypolicy.NewBuilder[*http.Response]().WithMaxRetries(-1).WithBackoffFactor(time.Second, 30*time.Second, 1.5).Build()
	inner := &http.Transport{DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext, ResponseHeaderTimeout: 4 * time.Second}
	client := &http.Client{Transport: failsafehttp.NewRoundTripper(inner, rp)}
	_, _ = client.Get("https://api.example.test/g")
}

func executor(ctx context.Context, n int) {
	rp := retrypolicy.NewBuilder[*http.Response]().WithMaxAttempts(n).WithDelayFunc(myDelay).WithMaxDuration(20 * time.Second).Build()
	exec := failsafe.NewExecutor[*http.Response](rp).WithContext(ctx)
	req, _ := http.NewRequest(http.MethodGet, "https://api.example.test/h", nil)
	req.Header.Set("Idempotency-Key", "k")
	_, _ = failsafehttp.NewRequestWithExecutor(req, http.DefaultClient, exec).Do()
}

func myDelay(failsafe.ExecutionAttempt[*http.Response]) time.Duration { return time.Second }
