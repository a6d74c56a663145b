package retryable

import (
	"net/http"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

func defaults() {
	rc := retryablehttp.NewClient()
	_, _ = rc.Get("https://api.example.test/a")
}

func charge(body []byte) {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 2
	rc.HTTPClient.Timeout = 10 * time.Second
	req, _ := retryablehttp.NewRequest("POST", "https://api.example.test/charges", body)
	_, _ = rc.Do(req)
}

func keyed(body []byte) {
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Timeout: 4 * time.Second}
	req, _ := retryablehttp.NewRequest(http.MethodPost, "https://api.example.test/charges", body)
	req.Header.Set("Idempotency-Key", "k-1")
	_, _ = rc.Do(req)
}

func standard() {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 1
	c := rc.StandardClient()
	_, _ = c.Get("https://api.example.test/std")
}

func packageFunc() {
	_, _ = retryablehttp.Get("https://api.example.test/pkg")
}
